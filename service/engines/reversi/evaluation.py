"""Reversi's evaluation features: an estimate of the final disc margin from a position's bitboards."""

from __future__ import annotations

from service.engines.reversi.bitboards import Geometry, neighbour_mask, placement_mask

# --------------------------------------------------------------------------------------------------
# Evaluation weights (disc units; an estimate of the final margin, see ``ReversiPosition.evaluate``).

_W_CORNER = 20.0
_W_X_SQUARE = 10.0
_W_C_SQUARE = 3.0
_W_MOBILITY = 2.0
_W_FRONTIER = 0.75


def estimate(me: int, opp: int, my_moves: int, geo: Geometry) -> float:
    """Heuristic final disc margin for the owner of ``me`` (``my_moves`` = its placements, given)."""
    occupied = me | opp
    empty = geo.full & ~occupied
    empties = empty.bit_count()
    their_moves = placement_mask(opp, me, geo).bit_count()
    mobility = my_moves.bit_count() - their_moves
    # Potential mobility: empty squares next to the opponent's discs are where we may play later.
    frontier = (neighbour_mask(opp, geo) & empty).bit_count() - (neighbour_mask(me, geo) & empty).bit_count()
    corners = (me & geo.corners).bit_count() - (opp & geo.corners).bit_count()
    x_squares = 0
    for corner, x in geo.x_guards:
        if empty & corner:
            x_squares += bool(me & x) - bool(opp & x)
    c_squares = 0
    for corner, c in geo.c_guards:
        if empty & corner:
            c_squares += (me & c).bit_count() - (opp & c).bit_count()
    # Disc count matters only late: early on few discs usually mean more mobility.
    late = max(0.0, 1.0 - 2.0 * empties / geo.n)
    discs = me.bit_count() - opp.bit_count()
    value = (
        _W_CORNER * corners
        - _W_X_SQUARE * x_squares
        - _W_C_SQUARE * c_squares
        + _W_MOBILITY * mobility
        + _W_FRONTIER * frontier
        + late * discs
    )
    bound = float(geo.n - 1)  # a heuristic never claims a margin as large as a proved wipe-out
    return max(-bound, min(bound, value))
