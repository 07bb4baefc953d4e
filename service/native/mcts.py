"""The native Monte Carlo tree search (``service/native/search/mcts.c``) over the same kernels as the native
alpha-beta (``engine.py``), for games whose branching defeats alpha-beta (Strands).

``mcts(position, limits, ...)`` answers the project's ``SearchResult`` like ``service.search.mcts`` (UCT with
progressive widening over the kernel's search moves, playouts with the kernel's quick random moves; ``nodes`` is
the iterations, ``depth`` the deepest selection path), or None when the native engine cannot take the position
(not built, turned off, a game without a kernel, a layout its kernel does not hold): callers then stay on the
Python search. The call releases the GIL; a watcher thread asks the caller's ``stop()`` every few milliseconds,
and a stop answers with the tree so far. Streamed analysis: a stop signal's ``on_iteration`` gets the answer so
far after 64, 128, 256... iterations, as from the Python search. A seed drives the playouts: the same seed
under an iteration budget (no time limit) gives the same answer.
"""

from __future__ import annotations

import ctypes
import random
import time
from typing import Any

from service import native as kernels
from service.core import GameOverError, Limits, Move, ScoredMove, SearchResult, StopSignal, as_stop
from service.core.contract import Position
from service.native.engine import LIBRARY, Adapter, StopFlag, _ends, adapter_for, adapter_of, run_watched, stop_reason

DEFAULT_ITERATIONS = 1000  # with neither a node nor a time limit (service.search.mcts.DEFAULT_ITERATIONS)
EXPLORATION = 0.7  # the Python search's UCB1 constant (service.search.mcts.EXPLORATION)
WIDENING = 2.0  # and its progressive widening (service.search.mcts.WIDENING)
DEFAULT_TREE_BYTES = 64 << 20  # the tree's bound; it stops growing there and the playouts go on
_FIRST_REPORT = 64
_PV_MAX = 256
_ALT_MAX = 64
_REASONS = {0: "", 2: "time", 3: "nodes", 4: "cancelled"}


class _Limits(ctypes.Structure):
    _fields_ = (
        ("max_iterations", ctypes.c_uint64),
        ("stop_at", ctypes.c_double),
        ("end_at", ctypes.c_double),
        ("exploration", ctypes.c_double),
        ("widening", ctypes.c_double),
        ("seed", ctypes.c_uint64),
        ("max_bytes", ctypes.c_uint64),
        ("top_n", ctypes.c_int32),
        ("report_first", ctypes.c_int32),
        ("settle", ctypes.c_int32),
    )


class _Result(ctypes.Structure):
    _fields_ = (
        ("move", ctypes.c_int32),
        ("depth", ctypes.c_int32),
        ("stop_reason", ctypes.c_int32),
        ("error", ctypes.c_int32),
        ("value", ctypes.c_double),
        ("iterations", ctypes.c_uint64),
        ("pv_len", ctypes.c_int32),
        ("n_alt", ctypes.c_int32),
        ("pv", ctypes.c_int32 * _PV_MAX),
        ("alt_move", ctypes.c_int32 * _ALT_MAX),
        ("alt_value", ctypes.c_double * _ALT_MAX),
        ("alt_exact", ctypes.c_int32 * _ALT_MAX),
        ("alt_pv_len", ctypes.c_int32 * _ALT_MAX),
        ("alt_pv", (ctypes.c_int32 * _PV_MAX) * _ALT_MAX),
    )


_REPORT = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Result))
_ARGTYPES = (
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.POINTER(_Limits),
    ctypes.c_void_p,
    _REPORT,
    ctypes.POINTER(_Result),
)


def available(game_id: str) -> bool:
    """Whether the native Monte Carlo search is built and turned on, with a kernel for ``game_id``."""
    return kernels.kernel(LIBRARY, "gr_mcts", _ARGTYPES, ctypes.c_int) is not None and adapter_for(game_id) is not None


def mcts(
    position: Position[Any],
    limits: Limits | None = None,
    *,
    stop: StopSignal | None = None,
    flag: StopFlag | None = None,
    top_n: int = 1,
    rng: random.Random | None = None,
    exploration: float = EXPLORATION,
    widening: float | None = WIDENING,
    tree_bytes: int = DEFAULT_TREE_BYTES,
    settle: bool = False,
) -> SearchResult | None:
    """The native UCT search of ``position`` for its seat to move (module docstring), or None when the native
    engine cannot take it.

    ``limits``: ``max_nodes`` counts iterations (``DEFAULT_ITERATIONS`` with neither nodes nor time),
    ``max_time_ms`` is used until spent, ``max_depth`` is not used. ``stop``: a stop signal (the C loop reads its
    ``end`` itself; its ``on_iteration`` gets the streamed answers). ``flag``: a ``StopFlag`` another thread may
    set. ``settle``: stop a node budget once its move is decided (``service.search.mcts``). ``rng`` seeds the
    playouts with one 64-bit draw, taken only when the native search runs, so that a caller
    falling back to Python finds its generator untouched. ``widening`` None opens every move of a node at once.
    ``tree_bytes`` bounds the tree's memory, freed when the call returns."""
    run = kernels.kernel(LIBRARY, "gr_mcts", _ARGTYPES, ctypes.c_int)
    adapter = adapter_of(position)
    if run is None or adapter is None:
        return None
    if position.to_move == 0:
        raise GameOverError("the game is over: there is no move to search", "position")
    state = adapter.pack(position)
    if state is None:
        return None
    limits = limits or Limits()
    if not (limits.max_nodes and limits.max_nodes > 0) and not (limits.max_time_ms and limits.max_time_ms > 0):
        limits = Limits(max_nodes=DEFAULT_ITERATIONS)
    began = time.monotonic()
    flag = flag or StopFlag()
    signal = None if stop is None else as_stop(stop)
    own_end, caller_end = _ends(limits, signal, began)
    on_iteration = None if signal is None else signal.on_iteration
    c_limits = _Limits(
        max_iterations=max(0, limits.max_nodes or 0),
        stop_at=own_end,
        end_at=caller_end,
        exploration=exploration,
        widening=widening if widening is not None else 0.0,
        seed=rng.getrandbits(64) if rng is not None else 0,
        max_bytes=max(1 << 20, tree_bytes),
        top_n=max(1, min(top_n, _ALT_MAX)),
        report_first=_FIRST_REPORT if on_iteration is not None else 0,
        settle=int(settle),
    )

    raised: list[BaseException] = []

    def report(partial: Any) -> None:
        # An exception cannot cross the C frames: it stops the search and is raised once the call returns, as
        # from the Python search.
        assert on_iteration is not None
        try:
            on_iteration(_answer(position, adapter, partial.contents, "", began))
        except BaseException as error:
            raised.append(error)
            flag.set()

    callback = _REPORT(report) if on_iteration is not None else _REPORT()
    result = _Result()
    error, fired = run_watched(
        lambda: run(adapter.KERNEL.encode(), state, ctypes.byref(c_limits), flag.ref, callback, ctypes.byref(result)),
        signal,
        flag,
        raised,
    )
    if error:
        raise RuntimeError(f"the native Monte Carlo search refused the position (error {error})")
    reason = stop_reason(_REASONS.get(result.stop_reason, ""), signal, fired)
    return _answer(position, adapter, result, reason, began)


def _answer(position: Position[Any], adapter: Adapter, result: _Result, reason: str, began: float) -> SearchResult:
    def out(move: int) -> Move:
        return adapter.move_out(position, move)

    return SearchResult(
        move=out(result.move),
        value=result.value + 0.0,
        exact=False,
        depth=result.depth,
        nodes=result.iterations,
        elapsed_ms=(time.monotonic() - began) * 1000.0,
        stop_reason=reason,
        pv=[out(m) for m in result.pv[: result.pv_len]],
        alternatives=[
            ScoredMove(
                out(result.alt_move[i]),
                result.alt_value[i] + 0.0,
                bool(result.alt_exact[i]),
                tuple(out(m) for m in result.alt_pv[i][: result.alt_pv_len[i]]),
            )
            for i in range(result.n_alt)
        ],
    )
