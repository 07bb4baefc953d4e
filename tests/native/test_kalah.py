"""Kalah's native kernel (``service/native/search/kalah.c``) identical to the Python engine (rules.md §2 by way of
``service/engines/kalah``) over random games of every option (pits per side, seeds per pit, first seat),
and the native search's values against a plain negamax and the Python search's proofs."""

from __future__ import annotations

import random

import pytest

from service.core import Limits
from service.games import GAMES
from service.native import engine as native
from service.search import search
from tests.native.twins import needs, negamax, twin_games

GAME = GAMES["kalah"]
pytestmark = needs("kalah")


def start(seed: int) -> object:
    rng = random.Random(seed)
    return GAME.new_position(
        {"pits_per_side": rng.randint(1, 12), "seeds_per_pit": rng.randint(1, 12), "first_seat": rng.choice((1, 2))},
        "",
    )


def test_kernel_plays_like_the_engine() -> None:
    assert twin_games("kalah", start, 300, 0) > 10_000


@pytest.mark.slow
def test_kernel_plays_like_the_engine_10k_games() -> None:
    twin_games("kalah", start, 10_000, 1_000)


def small(seed: int, left: int) -> object:
    """A random 6-pit game played until at most ``left`` seeds are in the pits, a seat to move."""
    rng = random.Random(seed)
    while True:
        position = GAME.new_position({"seeds_per_pit": rng.choice((3, 4))}, "")
        while position.to_move and position.seeds_in_play() > left:
            position = position.play(rng.choice(position.legal_moves()))
        if position.to_move:
            return position


@pytest.mark.parametrize("seed", range(10))
def test_fixed_depth_values_are_negamax(seed: int) -> None:
    position = small(seed, 30)
    depth = 1 + seed % 5
    expected = negamax(position, depth)
    result = native.search(position, Limits(max_depth=depth), tt_entries=0)
    assert result is not None and result.value == expected


@pytest.mark.parametrize("seed", range(8))
def test_proved_values_are_the_python_proofs(seed: int) -> None:
    position = small(100 + seed, 12)
    python = search(position, Limits(), solve=True)
    result = native.search(position, Limits(), solve=True)
    assert result is not None and python.exact and result.exact
    assert result.value == python.value


def test_kalah_6_3_is_a_win_by_2_for_the_first_player() -> None:
    """The known value of Kalah(6,3) under this capture rule, proved natively (about 2 M nodes: a second; the
    node budget only keeps a regression from running on)."""
    start = GAME.new_position({"seeds_per_pit": 3}, "")
    result = native.search(start, Limits(max_nodes=50_000_000), solve=True, solve_lead=8)
    assert result is not None and result.exact
    assert result.value == 2.0
