"""Reversi's endgame solver: the exact final margin of a position with few empty squares, the alpha-beta
core's ``endgame`` plug-in (``service/search/plugins.py``) in the expert's solve mode.

It works on bitboards alone (no position objects), which is what makes the last plies of a proof cheap: in
Python from ``ENDGAME_EMPTIES`` empty squares, the last ``LAST_EMPTIES`` without move generation; on 8x8 from
``NATIVE_EMPTIES`` in the native search engine's solve mode. Both give the same values (tested).
"""

from __future__ import annotations

import math
import time

from service.core.values import Limits
from service.engines.reversi import ReversiPosition
from service.engines.reversi.bitboards import Geometry, flip_mask, placement_mask
from service.native import engine

ENDGAME_EMPTIES = 8  # from this many empty squares a solve goes on in ``_endgame``, on bitboards alone
LAST_EMPTIES = 5  # and from this many in ``_last``: every empty square tried, no move generation


def endgame_value(
    position: ReversiPosition, alpha: float, beta: float, stop_at: float | None = None
) -> tuple[float, int] | None:
    """The plug-in: the exact final disc margin for the seat to move (fail-soft within ``alpha``..``beta``)
    and the nodes it took, from the native search engine on 8x8 with at most ``NATIVE_EMPTIES`` empty squares
    (exact; its nodes weighted by ``NATIVE_NODE_WEIGHT``; None if it reaches ``stop_at`` on
    ``time.monotonic()`` first, for the search to stop in time), else ``_endgame`` with at most
    ``ENDGAME_EMPTIES``; None with more."""
    if position.to_move == 0:
        return None
    me, opp = position.sides()
    geo = position.geometry
    empties = geo.n - (me | opp).bit_count()
    lo = max(-geo.n - 1, math.floor(alpha)) if alpha > -math.inf else -geo.n - 1
    hi = min(geo.n + 1, math.ceil(beta)) if beta < math.inf else geo.n + 1
    if empties <= NATIVE_EMPTIES and geo.size == 8 and engine.available("reversi"):
        return _native_value(position, stop_at)
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
# On 8x8 the native search engine's solve mode (``service/native/search``: the core's proof over Reversi's
# kernel and its exact endgame) gives the same values (tested), far faster.

# With at most this many empty squares an 8x8 solve goes to the native engine in one call (``bench.solve``,
# ``service/learn``; the expert itself searches natively whenever the engine is there): the FFO proofs of
# ``python -m bench.native`` at 20-23 empties take seconds each.
NATIVE_EMPTIES = 20
# Native nodes per search node. The search's node count (and so every node budget) is in Python search
# nodes, each some hundred times the CPU of a native node (``python -m bench.native``'s nodes per CPU second);
# counting a native node as 1/100 keeps a budget about the same CPU time when this plug-in proves a subtree
# natively inside a Python search.
NATIVE_NODE_WEIGHT = 100


def _native_value(position: ReversiPosition, stop_at: float | None) -> tuple[float, int] | None:
    """The exact final margin from the native engine's solve mode, or None (not there, or ``stop_at`` came)."""
    left_ms = None if stop_at is None else max(1, int((stop_at - time.monotonic()) * 1000))
    found = engine.search(position, Limits(max_time_ms=left_ms), solve=True, node_weight=NATIVE_NODE_WEIGHT)
    if found is None or not found.exact:
        return None
    return found.value, found.nodes
