"""The native search engine: one C search core (``service/native/search/core.c``) over per-game kernels
(``service/native/search/<game>.c``, the interface in ``search/kernel.h``), built by the Makefile into
``service/gen/gamerules_native.so`` and loaded with ctypes, which releases the GIL while a search runs: a
process serves several searches at once on several cores.

``search(position, limits, ...)`` answers the project's ``SearchResult`` like ``service.search.search``
(the same semantics: iterative-deepening PVS with aspiration windows, a transposition table made for the call
and freed at its end, the proved flag, seats that move twice in a row, the solve mode), or None when the
native engine cannot take the position: not built, turned off (``GAMERULES_NO_NATIVE=1``,
``service.native.use_native(False)``), a game without a kernel, or a position its kernel does not hold
(Reversi boards above 8x8). Callers then stay on the Python search.

Python validates, the kernel computes: a position reaches the kernel only as an engine position, packed by
the game's adapter (``service/native/<game>.py``) from the engine's own compact fields.
"""

from __future__ import annotations

import array
import ctypes
import functools
import importlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

from service import native as kernels
from service.core import GameOverError, Limits, Move, ScoredMove, SearchResult, Stop, StopSignal, as_stop
from service.core.contract import Position
from service.core.selectivity import Selectivity

LIBRARY = "gamerules_native"

# At most 2M entries of 32 bytes (64 MB) per search: the table starts small and doubles while it fills, and is
# freed when the call returns.
DEFAULT_TT_ENTRIES = 1 << 21
TT_ENTRY_BYTES = 32  # one entry of the core's table (core.c's tt_entry)
ASPIRATION = 2.0  # the Python search's first root half-width (service.search.alphabeta.ASPIRATION)
_POLL_SECONDS = 0.005  # how often a caller's stop() is asked while a native search runs
_PV_MAX = 256
_ALT_MAX = 64
_ITER_MAX = 128
_REASONS = {0: "", 1: "depth", 2: "time", 3: "nodes", 4: "cancelled", 5: "solved"}


class _Limits(ctypes.Structure):
    _fields_ = (
        ("max_depth", ctypes.c_int32),
        ("solve", ctypes.c_int32),
        ("solve_lead", ctypes.c_int32),
        ("top_n", ctypes.c_int32),
        ("max_nodes", ctypes.c_uint64),
        ("stop_at", ctypes.c_double),
        ("end_at", ctypes.c_double),
        ("aspiration", ctypes.c_double),
        ("tt_entries", ctypes.c_uint64),
        ("spend_at", ctypes.c_double),
        ("selective", ctypes.c_void_p),
        ("sel_stages", ctypes.c_int32),
        ("pad", ctypes.c_int32),
    )


class _Iteration(ctypes.Structure):
    _fields_ = (
        ("depth", ctypes.c_int32),
        ("move", ctypes.c_int32),
        ("value", ctypes.c_double),
        ("proved", ctypes.c_int32),
        ("pad", ctypes.c_int32),
        ("nodes", ctypes.c_uint64),
        ("seconds", ctypes.c_double),
    )


class _Result(ctypes.Structure):
    _fields_ = (
        ("move", ctypes.c_int32),
        ("exact", ctypes.c_int32),
        ("depth", ctypes.c_int32),
        ("stop_reason", ctypes.c_int32),
        ("value", ctypes.c_double),
        ("nodes", ctypes.c_uint64),
        ("pv_len", ctypes.c_int32),
        ("n_alt", ctypes.c_int32),
        ("n_iter", ctypes.c_int32),
        ("error", ctypes.c_int32),
        ("pv", ctypes.c_int32 * _PV_MAX),
        ("alt_move", ctypes.c_int32 * _ALT_MAX),
        ("alt_value", ctypes.c_double * _ALT_MAX),
        ("alt_exact", ctypes.c_int32 * _ALT_MAX),
        ("iter", _Iteration * _ITER_MAX),
        ("alt_pv_len", ctypes.c_int32 * _ALT_MAX),
        ("alt_pv", (ctypes.c_int32 * _PV_MAX) * _ALT_MAX),
    )


@dataclass(frozen=True, slots=True)
class Iteration:
    """One finished iteration of a native search, as the core reported it."""

    depth: int
    move: Any  # the engine's move
    value: float
    proved: bool
    nodes: int
    seconds: float  # since the search began


class StopFlag:
    """The cancellation flag of a native search: an int the C loop reads; ``set()`` from any thread stops
    the search at its next poll, which answers with its last finished iteration."""

    __slots__ = ("_flag",)

    def __init__(self) -> None:
        self._flag = ctypes.c_int32(0)

    def set(self) -> None:
        self._flag.value = 1

    def is_set(self) -> bool:
        return bool(self._flag.value)

    @property
    def ref(self) -> Any:
        return ctypes.byref(self._flag)


# The core's report of each finished iteration (streamed analysis): called from the searching thread with
# the result as it stands; ctypes takes the GIL for it.
_Report = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Result))
_NO_REPORT = _Report()  # NULL: the core reports nothing

_SIGNATURES: dict[str, tuple[tuple[Any, ...], Any]] = {
    "gr_search": (
        (ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_Limits), ctypes.c_void_p, ctypes.POINTER(_Result)),
        ctypes.c_int,
    ),
    "gr_search_reporting": (
        (
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.POINTER(_Limits),
            ctypes.c_void_p,
            ctypes.POINTER(_Result),
            _Report,
        ),
        ctypes.c_int,
    ),
    "gr_state_size": ((ctypes.c_char_p,), ctypes.c_int),
    "gr_to_move": ((ctypes.c_char_p, ctypes.c_char_p), ctypes.c_int),
    "gr_moves": ((ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_int), ctypes.c_int),
    "gr_play": ((ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p), None),
    "gr_hash": ((ctypes.c_char_p, ctypes.c_char_p), ctypes.c_uint64),
    "gr_evaluate": ((ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int), ctypes.c_double),
    "gr_final_value": ((ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int), ctypes.c_double),
    "gr_plies_left": ((ctypes.c_char_p, ctypes.c_char_p), ctypes.c_int),
}


def _function(symbol: str) -> Any | None:
    argtypes, restype = _SIGNATURES[symbol]
    return kernels.kernel(LIBRARY, symbol, argtypes, restype)


class Adapter(Protocol):
    """A game's adapter (the module ``service/native/<game>.py``): its kernel's name, whether the kernel has a
    learned evaluation, and the engine's position and moves in the kernel's terms. Each adapter reads its own
    engine's position (the fields its ``<Game>State`` protocol names); the position handed to it is always of
    its game (``adapter_of``)."""

    KERNEL: str
    LEARNED: bool

    def pack(self, position: Any, learned: bool = False) -> bytes | None: ...  # Any: the adapter's game's position
    def move_out(self, position: Any, move: int) -> Move: ...
    def move_in(self, position: Any, move: Any) -> int: ...


@functools.cache
def adapter_for(game_id: str) -> Adapter | None:
    """The adapter of the game ``game_id``'s kernel: the module of this package named as the game's engine
    package (``service/native/kalah.py`` for ``service/engines/kalah``), or None for a game without a kernel."""
    name = game_id.replace("-", "_")
    if not name.isidentifier() or name in _NOT_ADAPTERS:
        return None
    try:
        return cast(Adapter, importlib.import_module(f"{__package__}.{name}"))
    except ModuleNotFoundError:
        return None


_NOT_ADAPTERS = frozenset({"engine", "mcts"})  # this package's own modules


def adapter_of(position: Position[Any]) -> Adapter | None:
    """The adapter of ``position``'s game (``adapter_for``), or None."""
    return adapter_for(position_game(position))


def available(game_id: str | None = None) -> bool:
    """Whether the native engine is built and turned on (and has a kernel for ``game_id``, when given)."""
    return _function("gr_search") is not None and (game_id is None or adapter_for(game_id) is not None)


def holds(position: Position[Any]) -> bool:
    """Whether ``search`` takes ``position``: the engine is available and its game's kernel holds the board."""
    found = adapter_of(position)
    return found is not None and available() and found.pack(position) is not None


class Kernel:
    """One game's kernel functions one by one, on packed states (the twin tests and the bench use them)."""

    def __init__(self, game_id: str) -> None:
        found = adapter_for(game_id)
        if found is None or not available():
            raise LookupError(f"no native kernel for {game_id!r} (not built, turned off, or no such kernel)")
        self.adapter = found
        self._name = self.adapter.KERNEL.encode()
        self.state_size = _function("gr_state_size")(self._name)  # type: ignore[misc]
        self._moves = ctypes.c_int32 * 256

    def pack(self, position: Position[Any], learned: bool = False) -> bytes | None:
        return _pack(self.adapter, position, learned)

    def to_move(self, state: bytes) -> int:
        return int(_function("gr_to_move")(self._name, state))  # type: ignore[misc]

    def moves(self, state: bytes, solving: bool = False) -> list[int]:
        out = self._moves()
        n = _function("gr_moves")(self._name, state, out, int(solving))  # type: ignore[misc]
        return list(out[:n])

    def play(self, state: bytes, move: int) -> bytes:
        out = ctypes.create_string_buffer(self.state_size)
        _function("gr_play")(self._name, state, move, out)  # type: ignore[misc]
        return out.raw

    def hash(self, state: bytes) -> int:
        return int(_function("gr_hash")(self._name, state))  # type: ignore[misc]

    def evaluate(self, state: bytes, seat: int) -> float:
        return float(_function("gr_evaluate")(self._name, state, seat))  # type: ignore[misc]

    def final_value(self, state: bytes, seat: int) -> float:
        return float(_function("gr_final_value")(self._name, state, seat))  # type: ignore[misc]

    def plies_left(self, state: bytes) -> int:
        return int(_function("gr_plies_left")(self._name, state))  # type: ignore[misc]


def _ends(limits: Limits, stop: Stop | None, began: float) -> tuple[float, float]:
    """(the search's own time limit, the caller's end) as ``time.monotonic()`` instants, 0 for none: the
    time limit, and the ``end`` a Deadline-like stop signal knows (the search stops there and asks the
    signal why; a new iteration is not begun when the last one would not fit before its own limit)."""
    own = 0.0
    if limits.max_time_ms is not None and limits.max_time_ms > 0:
        own = began + limits.max_time_ms / 1000.0
    end = None if stop is None else stop.end
    return own, float(end) if end is not None else 0.0


def _watch(stop: Stop, flag: StopFlag, done: threading.Event, fired: list[Any]) -> None:
    """Ask the caller's ``stop()`` every few milliseconds while the search runs; raise the flag once it fires."""
    while not done.wait(_POLL_SECONDS):
        answer = stop()
        if answer:
            fired.append(answer)
            flag.set()
            return


def run_watched(
    call: Callable[[], int], stop: Stop | None, flag: StopFlag, raised: list[BaseException]
) -> tuple[int, Any]:
    """Run ``call`` (a native search that polls ``flag``, the GIL released) while a watcher thread asks the
    caller's ``stop()``: (the search's error code, what ``stop()`` answered when it fired, or None). An exception
    a report put in ``raised`` is raised again here, once the C frames are left. A stop on the clock alone (a
    Deadline's ``clock_only``) has no watcher: the C loop reads its ``end`` itself."""
    fired: list[Any] = []
    done = threading.Event()
    watcher = None
    if stop is not None and not stop.clock_only:
        first = stop()
        if first:
            flag.set()
            fired.append(first)
        else:
            watcher = threading.Thread(target=_watch, args=(stop, flag, done, fired), daemon=True)
            watcher.start()
    try:
        error = call()
    finally:
        done.set()
        if watcher is not None:
            watcher.join()
    if raised:
        raise raised[0]
    return error, fired[0] if fired else None


def stop_reason(reason: str, stop: Stop | None, fired: Any) -> str:
    """The answer's stop reason: the C loop's, except that a stop on the clock or the flag is told as the
    caller's stop signal says it, as the Python search reports it: the word it returned ("deadline"), or the
    reason of a Deadline it is (the C loop only saw the flag or the clock)."""
    if stop is not None and reason in ("time", "cancelled"):
        answer = fired or stop()
        if answer:
            return answer if isinstance(answer, str) else stop.reason or "cancelled"
    return reason


def search(
    position: Position[Any],
    limits: Limits | None = None,
    *,
    stop: StopSignal | None = None,
    flag: StopFlag | None = None,
    top_n: int = 1,
    solve: bool = False,
    solve_lead: int = 0,
    tt_entries: int = DEFAULT_TT_ENTRIES,
    aspiration: float = ASPIRATION,
    iterations: list[Iteration] | None = None,
    node_weight: int = 1,
    learned: bool = False,
    selective: Selectivity | None = None,
) -> SearchResult | None:
    """The native search of ``position`` for its seat to move (module docstring), or None when the native engine cannot
    take it. ``limits`` as for ``service.search.search`` (nodes are the core's nodes); ``stop`` a stop signal asked
    every few milliseconds from a watcher thread (its ``end``, when it has one, is a deadline the C loop reads
    itself); ``flag`` a ``StopFlag`` the caller may set from another thread; the ``on_iteration`` of ``stop``, when
    it has one, is called with each finished iteration's answer while the search runs (streamed analysis, as the
    Python search calls it); ``top_n`` root moves scored exactly, each with its own line; ``tt_entries`` the
    table's size (0: none); ``iterations``, when given, receives each finished iteration. ``node_weight``: how many
    native nodes count as one node of ``max_nodes`` and of the answer's ``nodes`` (a level keeps its budget about
    the same CPU time as the Python search's with it). ``learned``: the kernel's learned evaluation (Reversi 8x8, the
    weights its adapter was handed by ``set_weights``) instead of the hand-written one. ``selective``: multi-ProbCut's
    model (``service/core/selectivity.py``), never used in solve mode; None searches every node in full."""
    run = _function("gr_search_reporting")
    adapter = adapter_of(position)
    if run is None or adapter is None:
        return None
    if position.to_move == 0:
        raise GameOverError("the game is over: there is no move to search", "position")
    state = _pack(adapter, position, learned)
    if state is None:
        return None
    limits = limits or Limits()
    began = time.monotonic()
    flag = flag or StopFlag()
    signal = None if stop is None else as_stop(stop)
    own_end, caller_end = _ends(limits, signal, began)
    c_limits = _Limits(
        max_depth=max(0, limits.max_depth or 0),
        solve=int(solve),
        solve_lead=max(0, solve_lead),
        top_n=max(1, top_n),
        max_nodes=max(0, limits.max_nodes or 0) * max(1, node_weight),
        stop_at=own_end,
        end_at=caller_end,
        aspiration=aspiration,
        tt_entries=max(0, tt_entries),
        spend_at=began + limits.spend * (own_end - began) if own_end else 0.0,
    )
    if selective is not None:  # the core ignores it in solve mode
        rows = selective_rows(selective, SELECTIVE_STAGES)
        c_limits.selective = rows.buffer_info()[0]
        c_limits.sel_stages = SELECTIVE_STAGES
    result = _Result()
    answer = _Answering(position, adapter, began, max(1, node_weight), position.search_moves_complete())
    raised: list[BaseException] = []
    report = _reporter(None if signal is None else signal.on_iteration, answer, flag, raised)
    error, fired = run_watched(
        lambda: run(adapter.KERNEL.encode(), state, ctypes.byref(c_limits), flag.ref, ctypes.byref(result), report),
        signal,
        flag,
        raised,
    )
    if error:
        raise RuntimeError(f"the native search refused the position (error {error})")
    reason = stop_reason(_REASONS.get(result.stop_reason, ""), signal, fired)
    return answer(result, reason, iterations)


SELECTIVE_STAGES = 128  # stages (plies_left) the core's multi-ProbCut rows cover; later ones use the last


@functools.cache
def selective_rows(selective: Selectivity, stages: int) -> array.array[float]:
    """The core's rows of ``selective``, made once per model (kept alive here while searches read them)."""
    return selective.table(stages)


def _reporter(on_iteration: Any, answer: _Answering, flag: StopFlag, raised: list[BaseException]) -> Any:
    """The core's report for a stop signal's ``on_iteration`` (streamed analysis; NULL without one): each
    finished iteration's answer as it stands, as the Python search reports it (``stop_reason`` empty). An
    exception cannot cross the C frames: it stops the search and is raised again once the call returns."""
    if on_iteration is None:
        return _NO_REPORT

    def report(result: Any) -> None:
        try:
            on_iteration(answer(result.contents, "", None, streamed=True))
        except BaseException as error:  # KeyboardInterrupt too: it must not be lost in the callback
            raised.append(error)
            flag.set()

    return _Report(report)


def _pack(adapter: Adapter, position: Position[Any], learned: bool) -> bytes | None:
    """The adapter's state of ``position``; ``learned`` asks for its learned evaluation (ValueError for a game
    whose kernel has none)."""
    if not learned:
        return adapter.pack(position)
    if not adapter.LEARNED:
        raise ValueError(f"the {adapter.KERNEL} kernel has no learned evaluation")
    return adapter.pack(position, learned=True)


def position_game(position: Position[Any]) -> str:
    """The id of the game a position belongs to: its engine's package (``service.engines.<game>``) with the
    id's hyphens; "" for anything else."""
    return _game_of(type(position))


@functools.cache
def _game_of(kind: type) -> str:
    parts = kind.__module__.split(".")
    return parts[2].replace("_", "-") if parts[:2] == ["service", "engines"] and len(parts) > 2 else ""


@dataclass(frozen=True, slots=True)
class _Answering:
    """What turns the core's result into the project's ``SearchResult`` for one search: the engine's moves of
    the kernel's, native nodes by their weight, and nothing proved where the root's moves were capped
    (``complete`` false: Strands' candidate covers), as the Python search answers."""

    position: Position[Any]
    adapter: Adapter
    began: float
    weight: int
    complete: bool

    def __call__(
        self, result: _Result, reason: str, iterations: list[Iteration] | None, streamed: bool = False
    ) -> SearchResult:
        """The answer (``streamed``: a finished iteration's, as the Python search reports it while it runs)."""

        def out(move: int) -> Move:
            return self.adapter.move_out(self.position, move)

        def nodes(count: int) -> int:
            return -(-count // self.weight)

        complete = self.complete
        if iterations is not None:
            for it in result.iter[: result.n_iter]:
                proved = bool(it.proved) and complete
                value = it.value + 0.0
                iterations.append(Iteration(it.depth, out(it.move), value, proved, nodes(it.nodes), it.seconds))
        # Capped root moves: the Python search unproves every streamed iteration, and a final answer only when it
        # claimed a proof (a move that ends the game keeps its exact value in an unproved answer).
        unprove = not complete and (streamed or bool(result.exact))
        alternatives = [
            ScoredMove(
                out(result.alt_move[i]),
                result.alt_value[i] + 0.0,
                bool(result.alt_exact[i]) and not unprove,
                tuple(out(m) for m in result.alt_pv[i][: result.alt_pv_len[i]]),
            )
            for i in range(result.n_alt)
        ]
        if not complete and reason == "solved":
            reason = "depth"  # the root's moves were capped: reaching only finished games proved nothing
        return SearchResult(
            move=out(result.move),
            value=result.value + 0.0,
            exact=bool(result.exact) and complete,
            depth=result.depth,
            nodes=nodes(result.nodes),
            elapsed_ms=(time.monotonic() - self.began) * 1000.0,
            stop_reason=reason,
            pv=[out(m) for m in result.pv[: result.pv_len]],
            alternatives=alternatives,
        )
