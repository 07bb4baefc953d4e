"""Reversi's learned evaluation in the native search (``service/native/search/reversi_patterns.c`` called by
``reversi.c`` for states packed ``learned``): the kernel's value equals the Python learned evaluation
(``service/levels/reversi_learned.py``) to the exact double on random positions, with the shipped weights and
with random tables over the whole int16 range; the native search with it gives the values a plain negamax over
the Python learned evaluation defines; the weights are handed over once and can be put back."""

from __future__ import annotations

import array
import random
from collections.abc import Iterator

import numpy as np
import pytest

from service.core import Limits
from service.engines.reversi import ReversiPosition
from service.engines.reversi import patterns as p
from service.games import GAMES
from service.levels import reversi_learned
from service.native import engine as native
from service.native import reversi as adapter
from tests.native.twins import INF, needs

GAME = GAMES["reversi"]
pytestmark = needs("reversi")


@pytest.fixture
def table() -> Iterator[reversi_learned.PatternEvaluation]:
    """A random table over the whole int16 range handed to the kernel, the previous one put back after."""
    values = np.random.default_rng(18).integers(-32767, 32768, size=p.TABLE_SIZE, dtype=np.int16)
    evaluation = reversi_learned.PatternEvaluation(array.array("h", values.tobytes()))
    previous = adapter.weights()
    assert evaluation.hand_to_native()
    yield evaluation
    adapter.set_weights(previous)


@pytest.fixture
def shipped() -> Iterator[reversi_learned.PatternEvaluation]:
    evaluation = reversi_learned.shipped()
    previous = adapter.weights()
    assert evaluation.hand_to_native()
    yield evaluation
    adapter.set_weights(previous)


def random_positions(games: int, seed: int, black_seat: int = 1) -> Iterator[ReversiPosition]:
    """Every position of ``games`` random 8x8 games, finished ones included."""
    rng = random.Random(seed)
    for _ in range(games):
        position = GAME.new_position({"black_seat": black_seat}, "")
        yield position
        while position.to_move:
            position = position.play(rng.choice(position.legal_moves()))
            yield position


def check_evaluations(evaluation: reversi_learned.PatternEvaluation, games: int, seed: int) -> int:
    kernel = native.Kernel("reversi")
    checked = 0
    for black_seat in (1, 2):
        for position in random_positions(games, seed + black_seat, black_seat):
            state = kernel.pack(position, learned=True)
            assert state is not None
            for seat in (1, 2):
                assert kernel.evaluate(state, seat) == evaluation(position, seat), (position, seat)
                checked += 1
    return checked


def test_the_kernel_evaluates_like_the_python_learned_evaluation(table: reversi_learned.PatternEvaluation) -> None:
    assert check_evaluations(table, 60, 0) > 10_000


def test_the_kernel_evaluates_the_shipped_weights_like_python(shipped: reversi_learned.PatternEvaluation) -> None:
    assert check_evaluations(shipped, 30, 100) > 5_000


def test_a_state_packed_without_the_flag_keeps_the_hand_written_estimate(
    table: reversi_learned.PatternEvaluation,
) -> None:
    kernel = native.Kernel("reversi")
    for position in random_positions(5, 7):
        state = kernel.pack(position)
        assert state is not None
        assert kernel.evaluate(state, 1) == position.evaluate(1)


def learned_negamax(position: ReversiPosition, depth: int, evaluate: reversi_learned.PatternEvaluation) -> float:
    """``tests.native.twins.negamax`` with the learned evaluation at the leaves."""
    seat = position.to_move
    if depth <= 0:
        return evaluate(position, seat)
    best = -INF
    for move in position.search_moves():
        child = position.play(move)
        if child.to_move == 0:
            v = child.final_value(seat)
        else:
            v = learned_negamax(child, depth - 1, evaluate)
            v = v if child.to_move == seat else -v
        best = max(best, v)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_learned_fixed_depth_values_are_negamax(seed: int, shipped: reversi_learned.PatternEvaluation) -> None:
    rng = random.Random(seed)
    position = GAME.new_position({}, "")
    for _ in range(rng.randint(10, 45)):
        if not position.to_move:
            break
        position = position.play(rng.choice(position.legal_moves()))
    if not position.to_move:
        pytest.skip("the random game ended early")
    depth = 1 + seed % 3
    result = native.search(position, Limits(max_depth=depth), learned=True)
    assert result is not None
    assert result.value == learned_negamax(position, depth, shipped)
    # The same search on the hand-written evaluation gives the hand-written value, not the learned one.
    hand = native.search(position, Limits(max_depth=depth))
    assert hand is not None and hand.value != result.value


def test_learned_asks_for_weights_and_a_kernel_that_has_them() -> None:
    previous = adapter.set_weights(None)
    try:
        with pytest.raises(LookupError, match="set_weights"):
            adapter.pack(GAME.new_position({}, ""), learned=True)
    finally:
        adapter.set_weights(previous)
    kalah = GAMES["kalah"].new_position({}, "")
    with pytest.raises(ValueError, match="no learned evaluation"):
        native.search(kalah, Limits(max_depth=1), learned=True)


def test_set_weights_answers_the_table_it_replaces(table: reversi_learned.PatternEvaluation) -> None:
    other = reversi_learned.PatternEvaluation(array.array("h", bytes(2 * p.TABLE_SIZE)))
    assert adapter.set_weights(other.table) is table.table
    assert other.in_native() and not table.in_native()
    assert adapter.set_weights(table.table) is other.table


def test_other_board_sizes_keep_the_hand_written_estimate(table: reversi_learned.PatternEvaluation) -> None:
    kernel = native.Kernel("reversi")
    position = GAME.new_position({"size": 6}, "")
    state = kernel.pack(position, learned=True)
    assert state is not None
    assert kernel.evaluate(state, 1) == position.evaluate(1) == table(position, 1)
