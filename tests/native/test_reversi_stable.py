"""Reversi's stable discs (``service/native/search/reversi_stable.c``), which the kernel's proofs cut with: on
random 8x8 positions, no disc it marks stable ever turns in random games played on from there, and it finds the
discs a corner anchors (a known count)."""

from __future__ import annotations

import ctypes
import random

from service import native
from service.engines.reversi import ReversiPosition
from service.games import GAMES
from service.native import reversi as native_reversi
from tests.native.twins import needs

pytestmark = needs("reversi")
GAME = GAMES["reversi"]


def stable(me: int, opp: int) -> int:
    function = native.kernel(
        native_reversi.LIBRARY, "gr_reversi_stable", (ctypes.c_uint64, ctypes.c_uint64), ctypes.c_uint64
    )
    assert function is not None
    return int(function(me, opp))


def test_no_stable_disc_ever_turns() -> None:
    rng = random.Random(5)
    checked = marked = 0
    for _ in range(150):
        position: ReversiPosition = GAME.new_position({}, "")  # type: ignore[assignment]
        stop = rng.randint(20, 60)
        while position.to_move and 64 - position.empties() < stop:
            position = position.play(rng.choice(position.legal_moves()))
        black_stable = stable(position.black, position.white)
        white_stable = stable(position.white, position.black)
        assert black_stable & ~position.black == 0 and white_stable & ~position.white == 0
        marked += (black_stable | white_stable).bit_count()
        for _ in range(4):
            line = position
            while line.to_move:
                line = line.play(rng.choice(line.legal_moves()))
                assert black_stable & ~line.black == 0 and white_stable & ~line.white == 0
                checked += 1
    assert checked > 10_000 and marked > 500  # the bound is tested where it says something


def test_a_corner_anchors_its_edges_and_full_lines() -> None:
    # Black holds the top row and column a; White the rest of row 2: the two edges are stable, and b2 too (its
    # row, column and diagonals each have a stable neighbour of its colour or are full).
    top, left = 0xFF, 0x0101010101010101
    assert stable(top | left, 0) == top | left
    b2 = 1 << 9
    assert stable(top | left | b2, 0) & b2
    assert stable(1 << 1, 0) == 0  # b1 alone, both corners of its edge empty: it may turn
