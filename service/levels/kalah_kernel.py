"""Kalah's native search kernel as the alpha-beta core's ``subtree`` plug-in (``service/search/plugins.py``).

``service/native/kalah_search.c`` is the core's search below one node, in C: the same depth rules, the same
negamax with extra turns, the same evaluation term for term in the same floating-point order, so a value is
the same double on both paths (tested), about sixty times the positions a second. Without it (no compiler,
``GAMERULES_NO_NATIVE=1``) the core searches in Python.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from typing import Any

from service import native
from service.engines.kalah import KalahPosition

# Kernel nodes per search node: the search's node count (and so every node budget: ``HARD_NODES``, a caller's
# ``max_nodes``) is in Python search nodes, each about this many times the CPU of a kernel node, so a budget
# buys about the same time on both paths and, kernel nodes being deterministic, the same answer everywhere.
NATIVE_NODE_WEIGHT = 60
NATIVE_TABLE_SIZE = 1 << 18  # kernel table entries per search (24 bytes each: 6 MB)
_NativeLine = ctypes.c_int8 * 64  # the longest line the kernel reports
_NativePoll = ctypes.CFUNCTYPE(ctypes.c_int)  # the kernel's ``poll``: nonzero to stop


def native_search() -> Any | None:
    """The kernel's ``gr_kalah_search`` (its arguments are documented in the C file), or None when it is
    not built or turned off (``GAMERULES_NO_NATIVE=1``, ``native.use_native(False)``)."""
    c = ctypes
    argtypes = (
        c.POINTER(c.c_int32), c.c_int, c.c_int, c.c_int, c.c_double, c.c_double, c.c_double, c.c_uint64, _NativePoll,
        c.c_void_p, c.c_uint64, c.POINTER(c.c_uint64), c.POINTER(c.c_double), c.POINTER(c.c_int),
        c.POINTER(c.c_int8), c.c_int,
    )  # fmt: skip
    return native.kernel("kalah_search", "gr_kalah_search", argtypes, c.c_int)


def _native_entry_size() -> int:
    size = native.kernel("kalah_search", "gr_kalah_entry_size", (), ctypes.c_int)
    return int(size()) if size is not None else 0


# The ctypes array types are made once: a type made per call is a reference cycle (a class and its __mro__)
# that only the cycle collector would free.
@functools.cache
def _table_type() -> Any:
    return ctypes.c_char * (NATIVE_TABLE_SIZE * _native_entry_size())


@functools.cache
def _board_type(holes: int) -> Any:
    return ctypes.c_int32 * holes


def subtree_value(
    position: KalahPosition,
    depth: int,
    alpha: float,
    beta: float,
    stop_at: float | None,
    max_nodes: int | None,
    poll: Callable[[], bool] | None,
    scratch: dict[str, Any],
) -> tuple[float | None, int, bool, list[int]] | None:
    """The plug-in: the value the core would find below ``position`` to ``depth``, from the kernel (its
    arguments are documented in the C file); None (the core searches in Python) when it is not built or
    turned off. Its nodes are counted 1/``NATIVE_NODE_WEIGHT``; its table lives in ``scratch`` for the
    search, so each iteration starts from the last one's moves and nothing outlives the call."""
    kernel = native_search()
    if kernel is None or not position.to_move:
        return None
    table = scratch.get("kalah")
    if table is None:
        table = scratch["kalah"] = _table_type()()
    board = position.board
    holes = len(board)
    nodes, value, proved, line = ctypes.c_uint64(), ctypes.c_double(), ctypes.c_int(), _NativeLine()
    cap = 0 if max_nodes is None else max(1, max_nodes * NATIVE_NODE_WEIGHT)
    # The kernel asks ``poll`` every 10 ms or so, so a cancelled call stops inside a long kernel call. An
    # exception cannot cross the C frames (ctypes would print it and go on): it stops the kernel, and is
    # raised again once the kernel has returned.
    raised: list[BaseException] = []

    def ask_poll() -> int:
        try:
            return 1 if poll is not None and poll() else 0
        except BaseException as error:  # KeyboardInterrupt too: it must not be lost in the callback
            raised.append(error)
            return 1

    ask = _NativePoll() if poll is None else _NativePoll(ask_poll)  # _NativePoll() is NULL: no poll
    length = kernel(
        _board_type(holes)(*board), position.pits_per_side, position.to_move, depth, alpha, beta,
        stop_at or 0.0, cap, ask, table, NATIVE_TABLE_SIZE, ctypes.byref(nodes), ctypes.byref(value),
        ctypes.byref(proved), line, len(line),
    )  # fmt: skip
    if raised:
        raise raised[0]
    cost = -(-nodes.value // NATIVE_NODE_WEIGHT)
    if length < 0:
        return None, cost, False, []
    return value.value, cost, bool(proved.value), list(line[:length])
