"""Reversi's endgame solver: the exact final margin of a position with few empty squares, the alpha-beta
core's ``endgame`` plug-in (``service/search/plugins.py``) in the expert's solve mode.

It works on bitboards alone (no position objects), which is what makes the last plies of a proof cheap: in
Python from ``ENDGAME_EMPTIES`` empty squares, the last ``LAST_EMPTIES`` without move generation; on 8x8 in
its native twin ``reversi_endgame.c`` from ``NATIVE_EMPTIES``. Both give the same values (tested).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable
from typing import Any

from service import native
from service.engines.reversi import ReversiPosition
from service.engines.reversi.bitboards import Geometry, flip_mask, placement_mask

ENDGAME_EMPTIES = 8  # from this many empty squares a solve goes on in ``_endgame``, on bitboards alone
LAST_EMPTIES = 5  # and from this many in ``_last``: every empty square tried, no move generation


def endgame_value(
    position: ReversiPosition, alpha: float, beta: float, stop_at: float | None = None
) -> tuple[float, int] | None:
    """The plug-in: the exact final disc margin for the seat to move (fail-soft within ``alpha``..``beta``)
    and the nodes it took, from the native kernel on 8x8 with at most ``NATIVE_EMPTIES`` empty squares (its
    nodes weighted by ``NATIVE_NODE_WEIGHT``; None if it reaches ``stop_at`` on ``time.monotonic()`` first,
    for the search to stop in time), else ``_endgame`` with at most ``ENDGAME_EMPTIES``; None with more."""
    if position.to_move == 0:
        return None
    me, opp = position.sides()
    geo = position.geometry
    empties = geo.n - (me | opp).bit_count()
    lo = max(-geo.n - 1, math.floor(alpha)) if alpha > -math.inf else -geo.n - 1
    hi = min(geo.n + 1, math.ceil(beta)) if beta < math.inf else geo.n + 1
    if empties <= NATIVE_EMPTIES and geo.size == 8:
        solve = native_solver()
        if solve is not None:
            nodes = ctypes.c_uint64()
            value = solve(me, opp, lo, hi, stop_at or 0.0, ctypes.byref(nodes))
            if value == NATIVE_GAVE_UP:
                return None
            return float(value), -(-nodes.value // NATIVE_NODE_WEIGHT)
    if empties > ENDGAME_EMPTIES:
        return None
    counter = [0]
    value = _endgame(me, opp, position.placements(), lo, hi, geo, counter)
    return float(value), counter[0]


def _endgame(me: int, opp: int, moves: int, alpha: int, beta: int, geo: Geometry, counter: list[int]) -> int:
    """Exact final disc margin for the owner of ``me`` (``moves`` = its placements, given; none means it
    passes or the game is over), fail-soft negamax within (alpha, beta); ``counter[0]`` counts nodes.
    Moves leaving the opponent the fewest replies go first; the last ``LAST_EMPTIES`` squares go to ``_last``."""
    empty = geo.full & ~(me | opp)
    if empty.bit_count() <= LAST_EMPTIES:
        return _last(me, opp, empty, alpha, beta, False, geo, counter)
    counter[0] += 1
    if not moves:
        replies = placement_mask(opp, me, geo)
        if not replies:
            return me.bit_count() - opp.bit_count()
        return -_endgame(opp, me, replies, -beta, -alpha, geo, counter)
    ordered = []
    while moves:
        bit = moves & -moves
        moves ^= bit
        flips = flip_mask(me, opp, bit, geo)
        mine = me | bit | flips
        theirs = opp ^ flips
        replies = placement_mask(theirs, mine, geo)
        ordered.append((replies.bit_count(), mine, theirs, replies))
    if len(ordered) > 1:
        ordered.sort(key=_first)
    best = -geo.n - 1
    for _, mine, theirs, replies in ordered:
        v = -_endgame(theirs, mine, replies, -beta, -alpha, geo, counter)
        if v > best:
            best = v
            if v > alpha:
                if v >= beta:
                    return v
                alpha = v
    return best


def _first(item: tuple[int, int, int, int]) -> int:
    return item[0]


def _last(me: int, opp: int, empty: int, alpha: int, beta: int, passed: bool, geo: Geometry, counter: list[int]) -> int:
    """``_endgame`` for the last few empty squares: tries each empty square (no move generation, no
    ordering); ``passed`` says the other seat has just passed, so a second pass ends the game."""
    counter[0] += 1
    best = -geo.n - 1
    rest = empty
    while rest:
        bit = rest & -rest
        rest ^= bit
        flips = flip_mask(me, opp, bit, geo)
        if not flips:
            continue
        v = -_last(opp ^ flips, me | bit | flips, empty ^ bit, -beta, -alpha, False, geo, counter)
        if v > best:
            best = v
            if v > alpha:
                if v >= beta:
                    return v
                alpha = v
    if best > -geo.n - 1:
        return best
    if passed or not empty:
        return me.bit_count() - opp.bit_count()
    return -_last(opp, me, empty, -beta, -alpha, True, geo, counter)


# --------------------------------------------------------------------------------------------------
# The native twin: ``service/native/reversi_endgame.c`` (the same solver as ``_endgame`` in C, 8x8 only).

# With at most this many empty squares an 8x8 solve-mode node goes to the kernel in one call. A call cannot
# be interrupted: the search sees its time limit and ``stop`` only between calls. Expert asks only about the
# children of a root with at most ``EXACT_EMPTIES_NATIVE`` empties, so this bounds only other solve-mode
# callers (``bench.solve``). Measured (``bench.solve``, CPU s): a 20-empty solve takes a median of 3.7 s and
# up to 10 s; each two more empties cost about ten times as much.
NATIVE_EMPTIES = 20
# Kernel nodes per search node. The search's node count (and so every node budget: ``EXPERT_NODES``, a
# caller's ``max_nodes``) is in Python search nodes, each ~100 times the CPU of a kernel node (measured:
# ~7 us against ~0.07 us). Counting a kernel node as 1/100 keeps a budget about the same CPU time on both
# paths and, kernel nodes being deterministic, the answer the same on every machine. Counting it as 1 would
# spend the expert's budget on one 15-empty solve of a tenth of a second; not counting it would let a budget
# guard nothing. The budget is checked between kernel calls only: a call in progress always finishes.
NATIVE_NODE_WEIGHT = 100
NATIVE_LIBRARY = native.library_path("reversi_endgame")

NativeSolver = Callable[[int, int, int, int, float, Any], int]
NATIVE_GAVE_UP = 1000  # the kernel's answer when its clock passed ``stop_at`` (GAVE_UP in the C file)


def native_solver() -> NativeSolver | None:
    """The kernel's ``gr_reversi_solve(me, opp, alpha, beta, stop_at, byref(c_uint64 nodes))``: the exact
    final disc margin of an 8x8 position for the owner of ``me`` (to move), fail-soft within (alpha, beta), or
    ``NATIVE_GAVE_UP`` once ``time.monotonic()`` reaches ``stop_at`` (0: never); None when it is not built
    or turned off (``GAMERULES_NO_NATIVE=1``, ``use_native(False)``)."""
    u64 = ctypes.c_uint64
    argtypes = (u64, u64, ctypes.c_int, ctypes.c_int, ctypes.c_double, ctypes.POINTER(u64))
    return native.kernel("reversi_endgame", "gr_reversi_solve", argtypes, ctypes.c_int)  # type: ignore[no-any-return]
