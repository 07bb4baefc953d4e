"""Dots and Boxes' native kernel (``service/native/search/dots_and_boxes.c``) identical to the Python engine
(``docs/games/dots-and-boxes.md`` by way of ``service/engines/dots_and_boxes``) over random games of every option
(board sizes, the pie rule and its n), and the native search's values against a plain negamax and the exact
solver's proofs."""

from __future__ import annotations

import random
from typing import Any

import pytest

from service.core import Limits
from service.games import GAMES
from service.levels.dots_and_boxes_exact import ExactSolver
from service.native import engine as native
from service.search import search
from tests.native.twins import needs, negamax, twin_games

GAME = GAMES["dots-and-boxes"]
pytestmark = needs("dots-and-boxes")


def start(seed: int) -> object:
    """A start position of a random option set: boards up to 5x5, one in ten up to 10x10 (the largest the adapter
    takes), a third of them with the pie rule and a random n."""
    rng = random.Random(seed)
    largest = 10 if seed % 10 == 0 else 5
    rows, cols = rng.randint(1, largest), rng.randint(1, largest)
    options: dict[str, object] = {"rows": rows, "cols": cols}
    if rng.random() < 1 / 3:
        lines = rows * (cols + 1) + cols * (rows + 1)
        options.update(pie_rule=True, pie_lines=rng.randint(1, min(lines, 12)))
    return GAME.new_position(options, "")


def check_position(kernel: native.Kernel, position: Any) -> int:
    """The kernel against the engine on ``position`` (``tests.native.twins.check_position``, but the search's
    moves are the engine's sound reductions, a subset of the legal moves): seat to move, the search's moves in
    order, the position after each, the evaluation for both seats to the exact double, the end and the final
    value. Returns how many positions it checked (children included)."""
    adapter = kernel.adapter
    state = kernel.pack(position)
    assert state is not None
    assert kernel.to_move(state) == position.to_move
    for seat in (1, 2):
        assert kernel.evaluate(state, seat) == position.evaluate(seat), position.to_notation()
    if position.to_move == 0:
        assert kernel.moves(state) == [] and kernel.plies_left(state) == 0
        for seat in (1, 2):
            assert kernel.final_value(state, seat) == position.final_value(seat)
        return 1
    expected = [adapter.move_in(position, m) for m in position.search_moves()]
    assert kernel.moves(state) == expected, position.to_notation()
    assert {adapter.move_out(position, m) for m in expected} <= set(position.legal_moves())
    assert kernel.plies_left(state) >= position.geometry.line_count - position.lines.bit_count()
    for move in position.search_moves():
        child = position.play(move)
        assert kernel.play(state, adapter.move_in(position, move)) == kernel.pack(child), (
            position.to_notation(),
            position.move_notation(move),
        )
    return 1 + len(expected)


def test_kernel_plays_like_the_engine() -> None:
    assert twin_games("dots-and-boxes", start, 300, 0, check_position) > 50_000


@pytest.mark.slow
def test_kernel_plays_like_the_engine_10k_games() -> None:
    twin_games("dots-and-boxes", start, 10_000, 1_000, check_position)


def midgame(seed: int, left: int) -> Any:
    """A random 2x2, 2x3 or 3x3 game (without the pie rule, or with it) played until ``left`` lines are undrawn."""
    rng = random.Random(seed)
    rows, cols = rng.choice(((2, 2), (2, 3), (3, 2), (3, 3)))
    options: dict[str, object] = {"rows": rows, "cols": cols}
    if seed % 4 == 3:
        options.update(pie_rule=True, pie_lines=rng.randint(1, 4))
    position = GAME.new_position(options, "")
    while position.to_move and position.geometry.line_count - position.lines.bit_count() > left:
        position = position.play(rng.choice(position.legal_moves()))
    if position.to_move == 0:
        return midgame(seed + 1000, left)
    return position


@pytest.mark.parametrize("seed", range(12))
def test_fixed_depth_values_are_negamax(seed: int) -> None:
    position = midgame(seed, 9)
    depth = 1 + seed % 4
    expected = negamax(position, depth)
    result = native.search(position, Limits(max_depth=depth), tt_entries=0)
    assert result is not None and result.value == expected


@pytest.mark.parametrize("seed", range(16))
def test_proved_values_are_the_exact_solvers(seed: int) -> None:
    """Proofs with the table net of the margin held, the bounds and the loony endgame equal the exact solver's
    value of the open boxes plus the margin held (and the Python search's proof where it is cheap)."""
    position = midgame(100 + seed, 10 + seed % 6)
    result = native.search(position, Limits(), solve=True)
    assert result is not None and result.exact
    if position.phase == "play":
        rest = ExactSolver(position.geometry).value(position.lines)
        assert result.value == position.final_value(position.to_move) + rest
    if seed < 6 or position.phase != "play":
        python = search(position, Limits(), solve=True)
        assert python.exact and result.value == python.value


@pytest.mark.slow
def test_3x3_is_a_loss_by_3_for_the_first_player() -> None:
    """The known value of the empty 3x3 board (``docs/games/dots-and-boxes.md``: 3 boxes to 6)."""
    start = GAME.new_position({"rows": 3, "cols": 3}, "")
    result = native.search(start, Limits(), solve=True)
    assert result is not None and result.exact and result.stop_reason == "solved"
    assert result.value == -3.0
