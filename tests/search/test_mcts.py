"""UCT on toy games: it finds the obvious, respects its budget and is reproducible."""

from __future__ import annotations

import random

import pytest

from service.core import GameOverError, Limits
from service.search import mcts
from service.search.mcts import SETTLE_EVERY
from tests.search.toys import Nim, Piles, QuickWin, TicTacToe


def test_finds_the_immediate_win() -> None:
    result = mcts(QuickWin(), Limits(max_nodes=600), rng=random.Random(3))
    assert result.move == 7 and result.value == 5.0
    assert result.alternatives[0].move == 7 and result.alternatives[0].exact
    assert result.nodes == 600 and result.stop_reason == "nodes"


def test_blocks_the_threat_at_tictactoe() -> None:
    # X: a1 b1 (0, 1); O: b2 (4); O to move must block at c1 (2).
    position = TicTacToe().play(0).play(4).play(1)
    result = mcts(position, Limits(max_nodes=3000), rng=random.Random(1), top_n=3)
    assert result.move == 2
    visits_order = [a.move for a in result.alternatives]
    assert visits_order[0] == 2 and len(visits_order) == 3


def test_wins_nim_with_a_clear_best_move() -> None:
    # (1, 4): the only winning move leaves (1, 1).
    result = mcts(Nim((1, 4)), Limits(max_nodes=3000), rng=random.Random(5), widening=None)
    assert result.move == (1, 3)
    assert result.value > 0


def test_same_seed_same_answer_and_budget() -> None:
    position = Piles((3, 4, 2, 5))
    a = mcts(position, Limits(max_nodes=400), rng=random.Random(9), top_n=3)
    b = mcts(position, Limits(max_nodes=400), rng=random.Random(9), top_n=3)
    a.elapsed_ms = b.elapsed_ms = 0.0
    assert a == b and a.nodes == 400
    assert next(x.move for x in a.alternatives) == a.move
    assert a.pv[0] == a.move and not a.exact


@pytest.mark.parametrize("polls", [0, 1, 5])
def test_stop_is_honoured(polls: int) -> None:
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > polls

    position = Piles((5, 6, 4, 5, 3))
    result = mcts(position, Limits(), stop=stop, rng=random.Random(0))
    assert result.stop_reason == "cancelled"
    assert result.move in position.search_moves()


def test_default_budget_and_rollout_policy() -> None:
    seen = []

    def first_move(p: Piles, rng: random.Random) -> tuple[int, int]:
        seen.append(p)
        return p.search_moves()[0]

    result = mcts(Piles((2, 3)), None, rng=random.Random(0), rollout=first_move)
    assert result.stop_reason == "nodes" and result.nodes == 1000 and seen


def test_finished_game_is_refused() -> None:
    with pytest.raises(GameOverError):
        mcts(Nim((0,), 0, 1), Limits(max_nodes=10))


def test_principal_variation_is_a_legal_line() -> None:
    position = Piles((3, 4, 2))
    result = mcts(position, Limits(max_nodes=500), rng=random.Random(2))
    for move in result.pv:
        assert position.to_move != 0 and move in position.search_moves()
        position = position.play(move)


@pytest.mark.parametrize("position", [QuickWin(), Piles((3, 4, 2, 5)), TicTacToe()], ids=["quick-win", "nim", "ttt"])
def test_a_settled_budget_answers_the_whole_budgets_move(position: object) -> None:
    """``settle``: the search stops at a multiple of SETTLE_EVERY iterations once no other root move can overtake
    the most visited one within the budget left, so its move is the whole budget's, reason ``nodes``."""
    for seed in range(4):
        whole = mcts(position, Limits(max_nodes=3000), rng=random.Random(seed))
        settled = mcts(position, Limits(max_nodes=3000), rng=random.Random(seed), settle=True)
        assert settled.move == whole.move and settled.stop_reason == "nodes"
        assert settled.nodes == 3000 or settled.nodes % SETTLE_EVERY == 0


def test_settling_stops_a_decided_search_and_changes_nothing_below_its_first_check() -> None:
    quick = mcts(QuickWin(), Limits(max_nodes=20_000), rng=random.Random(0), settle=True)
    assert quick.move == 7 and quick.nodes < 20_000 and quick.stop_reason == "nodes"
    budget = SETTLE_EVERY - 1
    whole = mcts(QuickWin(), Limits(max_nodes=budget), rng=random.Random(0))
    settled = mcts(QuickWin(), Limits(max_nodes=budget), rng=random.Random(0), settle=True)
    whole.elapsed_ms = settled.elapsed_ms = 0.0
    assert settled == whole and settled.nodes == budget


def test_settling_needs_a_node_budget() -> None:
    """Under a time limit alone there is no budget left to compare with: the search runs its time."""
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 3 * SETTLE_EVERY

    result = mcts(QuickWin(), Limits(max_time_ms=600_000), stop=stop, rng=random.Random(0), settle=True)
    assert result.stop_reason == "cancelled" and result.nodes >= 3 * SETTLE_EVERY - 1
