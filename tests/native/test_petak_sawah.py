"""Petak Sawah's native kernel (``service/native/search/petak_sawah.c``) identical to the Python engine (rules.md §1
by way of ``service/engines/petak_sawah``) over random games of every option the kernel holds (rows and
columns up to 64 cells, seeded rock counts, listed rocks, both openers), and the native search's values
against a plain negamax and the Python search's proofs (tie-breaks' half points included)."""

from __future__ import annotations

import random

import pytest

from service.core import Limits, RulesError
from service.games import GAMES
from service.native import engine as native
from service.search import search
from tests.native.twins import needs, negamax, twin_games

GAME = GAMES["petak-sawah"]
pytestmark = needs("petak-sawah")


def start(seed: int) -> object:
    rng = random.Random(seed)
    while True:
        rows = rng.randint(2, 8)
        cols = rng.randint(2, 64 // rows if rows > 1 else 8)
        cols = min(cols, 12)
        options: dict[str, object] = {"rows": rows, "cols": cols, "opener": rng.choice((1, 2))}
        size = rows * cols
        if rng.random() < 0.3:
            cells = rng.sample(range(size), rng.randint(1, max(1, size // 4)))
            options["rock_cells"] = [f"{chr(97 + c % cols)}{c // cols + 1}" for c in cells]
        else:
            options["rocks"] = rng.randint(0, max(0, min(size - 2, size // 3)))
        try:
            return GAME.new_position(options, f"twin-{seed}")
        except RulesError:  # rocks that leave no cultivable pair: another draw
            continue


def test_kernel_plays_like_the_engine() -> None:
    assert twin_games("petak-sawah", start, 300, 0) > 10_000


@pytest.mark.slow
def test_kernel_plays_like_the_engine_10k_games() -> None:
    twin_games("petak-sawah", start, 10_000, 1_000)


def test_a_board_over_64_cells_stays_on_the_python_search() -> None:
    position = GAME.new_position({"rows": 9, "cols": 9}, "x")
    assert native.search(position, Limits(max_depth=2)) is None


def late(seed: int, empties: int) -> object:
    rng = random.Random(seed)
    position = GAME.new_position({}, f"late-{seed}")
    while position.to_move and position.plies_left() > empties:
        position = position.play(rng.choice(position.legal_moves()))
    return position


@pytest.mark.parametrize("seed", range(8))
def test_fixed_depth_values_are_negamax(seed: int) -> None:
    position = late(seed, 9)
    depth = 1 + seed % 4
    result = native.search(position, Limits(max_depth=depth), tt_entries=0)
    assert result is not None and result.value == negamax(position, depth)


@pytest.mark.parametrize("seed", range(8))
def test_proved_values_are_the_python_proofs(seed: int) -> None:
    position = late(100 + seed, 10)
    python = search(position, Limits(), solve=True, solve_lead=4)
    result = native.search(position, Limits(), solve=True, solve_lead=4)
    assert result is not None and python.exact and result.exact
    assert result.value == python.value
