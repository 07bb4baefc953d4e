"""Reversi's native kernel (``service/native/search/reversi.c``) identical to the Python engine (rules.md §4 by way
of ``service/engines/reversi``) over random games of every board size the kernel holds and both colour
assignments, and the native search's values against the Python search and a plain negamax."""

from __future__ import annotations

import random

import pytest

from service.core import Limits
from service.engines.reversi import ReversiPosition
from service.games import GAMES
from service.native import engine as native
from service.search import search
from tests.native.twins import check_position, needs, negamax, random_game

GAME = GAMES["reversi"]
pytestmark = needs("reversi")
SIZES = (4, 6, 8)


def start(seed: int) -> ReversiPosition:
    rng = random.Random(seed)
    return GAME.new_position({"size": SIZES[seed % 3], "black_seat": rng.choice((1, 2))}, "")


def other_seat(position: ReversiPosition) -> ReversiPosition | None:
    """The same board with the other seat to move (a caller's position; it may have to pass)."""
    if position.to_move == 0:
        return None
    return ReversiPosition(position.size, position.black, position.white, 3 - position.to_move, position.black_seat)


def twin_games(games: int, first_seed: int) -> int:
    kernel = native.Kernel("reversi")
    checked = 0
    for seed in range(first_seed, first_seed + games):
        rng = random.Random(seed)
        for position in random_game(start(seed), rng):
            checked += check_position(kernel, position)
            turned = other_seat(position)
            if turned is not None:
                checked += check_position(kernel, turned)
    return checked


def test_kernel_plays_like_the_engine() -> None:
    assert twin_games(300, 0) > 10_000


@pytest.mark.slow
def test_kernel_plays_like_the_engine_10k_games() -> None:
    twin_games(10_000, 1_000)


def test_a_large_board_stays_on_the_python_search() -> None:
    position = GAME.new_position({"size": 10}, "")
    assert native.search(position, Limits(max_depth=2)) is None


def late(size: int, empties: int, seed: int) -> ReversiPosition:
    """A random game played down to ``empties`` empty squares with a seat to move."""
    rng = random.Random(seed)
    while True:
        position = GAME.new_position({"size": size, "black_seat": rng.choice((1, 2))}, "")
        while position.to_move and position.empties() > empties:
            position = position.play(rng.choice(position.legal_moves()))
        if position.to_move:
            return position


@pytest.mark.parametrize("seed", range(12))
def test_fixed_depth_values_are_negamax(seed: int) -> None:
    position = late((6, 8)[seed % 2], 14 + seed % 5, seed)
    depth = 1 + seed % 4
    expected = negamax(position, depth)
    for tt_entries in (0, 1 << 16):
        result = native.search(position, Limits(max_depth=depth), tt_entries=tt_entries)
        assert result is not None
        assert result.value == expected
        assert result.depth == depth
        # The move's own value is the root value.
        assert (
            negamax(position.play(result.move), depth - 1)
            * (1 if position.play(result.move).to_move in (0, position.to_move) else -1)
            == expected
            or position.play(result.move).to_move == 0
        )


@pytest.mark.parametrize("seed", range(10))
def test_proved_values_are_the_python_proofs(seed: int) -> None:
    position = late((4, 6, 8)[seed % 3], (8, 10, 11)[seed % 3], 100 + seed)
    python = search(position, Limits(), solve=True)
    result = native.search(position, Limits(), solve=True)
    assert result is not None and python.exact and result.exact
    assert result.value == python.value
    assert result.stop_reason == "solved"
    # The principal variation is a line of legal moves starting with the answer (it stops where the
    # kernel's exact endgame solver took over).
    assert result.pv[0] == result.move
    line = position
    for move in result.pv:
        assert move in line.legal_moves()
        line = line.play(move)


@pytest.mark.parametrize("top_n", [2, 3])
def test_top_n_scores_like_the_python_search(top_n: int) -> None:
    position = late(8, 16, 7)
    python = search(position, Limits(max_depth=3), top_n=top_n, tt_size=0)
    result = native.search(position, Limits(max_depth=3), top_n=top_n, tt_entries=0)
    assert result is not None
    assert [a.value for a in result.alternatives] == [a.value for a in python.alternatives]
    assert [a.move for a in result.alternatives] == [a.move for a in python.alternatives]


def test_native_search_is_off_without_the_library() -> None:
    from service import native as kernels

    previous = kernels.use_native(False)
    try:
        assert native.search(GAME.new_position({}, ""), Limits(max_depth=2)) is None
        assert not native.available("reversi")
    finally:
        kernels.use_native(previous)
