"""Alpha-beta against brute-force minimax on toy games (``toys.py``), and its limits and stop mechanism."""

from __future__ import annotations

import random
from typing import Any

import pytest

from service.core import GameOverError, Limits
from service.search import search
from tests.search.toys import ENDGAME, BoundedTree, Nim, Piles, TicTacToe, Tree, minimax, move_values


def _nim_value(heaps: tuple[int, ...]) -> float:
    x = 0
    for h in heaps:
        x ^= h
    return 1.0 if x else -1.0


@pytest.mark.parametrize("heaps", [(1,), (2, 2), (1, 2, 3), (1, 2, 4), (3, 4, 5), (2, 2, 3, 1), (5, 6)])
def test_nim_solved_values_follow_the_nim_sum(heaps: tuple[int, ...]) -> None:
    result = search(Nim(heaps), Limits())
    assert result.exact and result.stop_reason == "solved"
    assert result.value == _nim_value(heaps)
    after = Nim(heaps).play(result.move)
    if result.value > 0:  # a winning move leaves a zero nim sum (or takes the last object)
        assert after.to_move == 0 or _nim_value(after.heaps) == -1.0
    assert result.pv[0] == result.move


def test_tictactoe_is_a_draw_and_a_blunder_loses() -> None:
    result = search(TicTacToe(), Limits())
    assert (result.value, result.exact, result.stop_reason) == (0.0, True, "solved")
    assert len(result.pv) == 9
    # X in a corner, O on an edge next to it: X wins.
    blunder = TicTacToe().play(0).play(1)
    won = search(blunder, Limits())
    assert (won.value, won.exact) == (1.0, True)
    assert minimax(blunder) == 1.0


@pytest.mark.parametrize("piles", [(3,), (2, 3), (3, 4, 2), (1, 5, 2, 3), (4, 4, 4), (6, 1, 3, 2), (2, 2, 2, 2, 2)])
def test_extra_turn_game_matches_minimax(piles: tuple[int, ...]) -> None:
    for to_move in (1, 2):
        position = Piles(piles, to_move)
        result = search(position, Limits())
        assert result.exact and result.stop_reason == "solved"
        assert result.value == minimax(position)
        assert move_values(position)[result.move] == result.value


@pytest.mark.parametrize("seed", range(12))
def test_random_graphs_solved_match_minimax(seed: int) -> None:
    for width in (5, 40, 300):  # many transpositions .. few
        position = Tree(seed, width=width)
        result = search(position, Limits())
        assert result.exact and result.value == minimax(position)
        assert move_values(position)[result.move] == result.value


@pytest.mark.parametrize("seed", range(12))
def test_fixed_depth_values_match_depth_limited_minimax(seed: int) -> None:
    for width in (6, 1 << 40):
        position = Tree(100 + seed, width=width)
        for depth in (1, 2, 3, 5):
            result = search(position, Limits(max_depth=depth))
            assert result.value == minimax(position, depth), (width, depth)
            assert result.depth <= depth
            assert move_values(position, depth)[result.move] == result.value
            if not result.exact:
                assert result.stop_reason == "depth" and result.depth == depth


def test_exact_only_when_proved() -> None:
    position = Piles((3, 4, 2, 5))
    shallow = search(position, Limits(max_depth=3))
    assert not shallow.exact and shallow.stop_reason == "depth" and shallow.depth == 3
    assert not any(a.exact for a in shallow.alternatives)
    solved = search(position, Limits())
    assert solved.exact and solved.value == minimax(position)
    # One pile of 2: taking both wins 2 at once, but taking one is only refuted at depth 2.
    end = search(Piles((2,)), Limits(max_depth=5))
    assert (end.exact, end.value, end.depth, end.stop_reason) == (True, 2.0, 2, "solved")
    one = search(Piles((2,)), Limits(max_depth=1))
    assert (one.exact, one.value, one.depth, one.stop_reason) == (False, 2.0, 1, "depth")


def test_top_n_alternatives_are_sorted_and_match_single_move_values() -> None:
    for position in (Piles((3, 4, 2)), Piles((2, 3, 1, 2), 2), TicTacToe().play(0)):
        values = move_values(position)
        result = search(position, Limits(), top_n=4)
        alts = result.alternatives
        assert len(alts) == min(4, len(values))
        assert alts[0].move == result.move and alts[0].value == result.value
        assert [a.value for a in alts] == sorted((a.value for a in alts), reverse=True)
        assert [a.value for a in alts] == sorted(values.values(), reverse=True)[: len(alts)]
        for a in alts:
            assert a.exact and a.value == values[a.move]
        assert result.exact and result.value == search(position, Limits()).value


def test_top_n_at_fixed_depth_matches_minimax_per_move() -> None:
    for seed in range(6):
        position = Tree(300 + seed)
        values = move_values(position, 4)
        result = search(position, Limits(max_depth=4), top_n=10)
        assert len(result.alternatives) == len(values)
        assert {a.move: a.value for a in result.alternatives} == values
        assert result.value == max(values.values())


def test_same_limits_same_answer() -> None:
    position = Piles((5, 6, 4, 5, 3))
    for limits in (Limits(max_nodes=1500), Limits(max_depth=6), Limits(max_nodes=700, max_depth=9)):
        a = search(position, limits, rng=random.Random(1))
        b = search(position, limits, rng=random.Random(1))
        assert (a.move, a.value, a.depth, a.nodes, a.pv, a.alternatives, a.stop_reason) == (
            b.move,
            b.value,
            b.depth,
            b.nodes,
            b.pv,
            b.alternatives,
            b.stop_reason,
        )


@pytest.mark.parametrize("max_nodes", [1, 2, 10, 100, 1000])
def test_max_nodes_respected(max_nodes: int) -> None:
    position = Piles((5, 6, 4, 5, 3))
    result = search(position, Limits(max_nodes=max_nodes))
    assert result.nodes <= max_nodes
    assert result.stop_reason == "nodes"
    assert result.move in position.search_moves()
    assert result.pv and result.pv[0] == result.move


def test_max_depth_respected() -> None:
    position = Piles((5, 6, 4, 5, 3))
    for depth in (1, 2, 4):
        result = search(position, Limits(max_depth=depth))
        assert result.depth == depth and result.stop_reason == "depth"
        assert len(result.pv) <= depth


class _StopAfter:
    def __init__(self, polls: int, answer: bool | str = True) -> None:
        self.polls = polls
        self.answer = answer
        self.calls = 0

    def __call__(self) -> bool | str:
        self.calls += 1
        return self.answer if self.calls > self.polls else False


@pytest.mark.parametrize("polls", [0, 1, 3, 10])
def test_stop_is_honoured_with_a_legal_move(polls: int) -> None:
    position = Piles((5, 6, 4, 5, 3, 4))
    stop = _StopAfter(polls)
    result = search(position, Limits(), stop=stop)
    assert result.stop_reason == "cancelled"
    assert result.move in position.search_moves()
    assert stop.calls == polls + 1  # no poll after it fired
    assert not result.exact


def test_stop_may_name_its_reason() -> None:
    result = search(Piles((5, 6, 4, 5, 3, 4)), Limits(), stop=_StopAfter(2, "deadline"))
    assert result.stop_reason == "deadline"


def test_stop_keeps_the_last_completed_iteration() -> None:
    position = Piles((5, 6, 4, 5, 3, 4))
    full = search(position, Limits(max_depth=3))
    # Let depth 3 finish, then stop during depth 4 (the stop is polled every few hundred nodes at most).
    stopped = search(position, Limits(max_depth=3, max_nodes=full.nodes))
    assert stopped.depth == 3 and stopped.move == full.move and stopped.value == full.value


def test_time_limit_fires() -> None:
    result = search(Piles((9, 9, 9, 9, 9, 9, 9, 9)), Limits(max_time_ms=1))
    assert result.stop_reason == "time"
    assert result.move in Piles((9, 9, 9, 9, 9, 9, 9, 9)).search_moves()


def test_evaluate_override_is_used() -> None:
    position = Piles((3, 3, 3, 3))
    calls = []

    def flat(p: Piles, seat: int) -> float:
        calls.append(seat)
        return 0.0

    result = search(position, Limits(max_depth=1), evaluate=flat)
    assert calls
    assert result.value == 0.0 or position.play(result.move).to_move == 0


def test_finished_game_is_refused() -> None:
    with pytest.raises(GameOverError):
        search(Nim((0,), 0, 1), Limits())


def test_transposition_table_size_does_not_change_solved_answers() -> None:
    for seed in range(5):
        position = Tree(500 + seed, width=8)
        values = {search(position, Limits(), tt_size=size).value for size in (0, 10, 100_000)}
        assert values == {minimax(position)}


def _is_line(position, line) -> bool:
    for move in line:
        if position.to_move == 0 or move not in position.search_moves():
            return False
        position = position.play(move)
    return True


def test_principal_variations_are_legal_lines() -> None:
    for position in (Piles((3, 4, 2, 5)), Tree(7, width=6), TicTacToe().play(4)):
        for limits in (Limits(max_depth=2), Limits(max_depth=5), Limits()):
            result = search(position, limits)
            assert result.pv[0] == result.move and _is_line(position, result.pv)
            if not result.exact:
                assert len(result.pv) <= result.depth
    solved = search(Piles((2, 3)), Limits())
    end = Piles((2, 3))
    for move in solved.pv:
        end = end.play(move)
    assert end.to_move == 0 and end.final_value(1) == solved.value  # the proved line reaches the end


def test_proved_values_are_right_under_any_limits() -> None:
    """Random small games, random limits, table sizes and top_n: whatever is marked exact is the true value."""
    rng = random.Random(2024)
    checked = 0
    for _ in range(30):
        piles = tuple(rng.randint(1, 3) for _ in range(rng.randint(1, 4)))
        position = Piles(piles, rng.choice((1, 2)))
        true_moves = move_values(position)
        for _ in range(6):
            limits = Limits(max_depth=rng.choice((None, 1, 2, 3, 5)), max_nodes=rng.choice((None, 20, 200)))
            result = search(position, limits, top_n=rng.choice((1, 2, 4)), tt_size=rng.choice((0, 30, 10**6)))
            assert result.move in true_moves
            values = [a.value for a in result.alternatives]
            assert values == sorted(values, reverse=True)
            if result.exact:
                assert result.value == max(true_moves.values()) and result.stop_reason == "solved"
                checked += 1
            for a in result.alternatives:
                if a.exact:
                    assert a.value == true_moves[a.move]
    assert checked > 40


# --- solve mode -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_solve_mode_proves_the_minimax_value(seed: int) -> None:
    for width in (5, 40, 300):
        position = Tree(200 + seed, width=width)
        plain = search(position, Limits())
        values = move_values(position)
        for lead in (0, 2):
            for tt_size in (0, 100_000):
                solved = search(position, Limits(), solve=True, solve_lead=lead, tt_size=tt_size)
                assert solved.exact and solved.stop_reason == "solved"
                assert solved.value == plain.value == max(values.values())
                assert values[solved.move] == solved.value


@pytest.mark.parametrize(
    "position", [Piles((3, 4, 2)), Piles((2, 2, 3, 1), 2), Nim((1, 2, 4)), Nim((3, 4, 5)), TicTacToe()]
)
def test_solve_mode_matches_plain_search_on_toys(position: Any) -> None:
    plain = search(position, Limits())
    solved = search(position, Limits(), solve=True)
    assert solved.exact and (solved.value, solved.stop_reason) == (plain.value, "solved")
    assert move_values(position)[solved.move] == solved.value


@pytest.mark.parametrize("seed", range(6))
def test_solve_mode_top_n_scores_moves_exactly(seed: int) -> None:
    position = Tree(300 + seed, width=50)
    values = move_values(position)
    result = search(position, Limits(), solve=True, solve_lead=1, top_n=len(values))
    assert result.exact
    assert {a.move: a.value for a in result.alternatives} == values
    assert [a.value for a in result.alternatives] == sorted(values.values(), reverse=True)


@pytest.mark.parametrize("seed", range(8))
def test_solve_mode_uses_the_engine_hooks(seed: int) -> None:
    position = BoundedTree(400 + seed, width=60)
    BoundedTree.calls = 0
    result = search(position, Limits(), solve=True, top_n=2, plugins=ENDGAME)
    assert result.exact and result.value == minimax(position)
    assert result.depth == 12  # plies_left() at the root: one iteration straight to the end
    assert BoundedTree.calls > 0
    values = move_values(position)
    assert all(values[a.move] == a.value for a in result.alternatives)
    # Without solve mode the endgame hook is never asked.
    BoundedTree.calls = 0
    assert search(position, Limits(), plugins=ENDGAME).value == result.value and BoundedTree.calls == 0


def test_solve_mode_respects_max_depth_and_answers_with_the_lead_when_stopped() -> None:
    position = Piles((5, 6, 4, 5, 3, 4))
    shallow = search(position, Limits(max_depth=2), solve=True)
    assert shallow.depth == 2 and not shallow.exact and shallow.stop_reason == "depth"
    lead = search(position, Limits(max_depth=2))
    stopped = search(position, Limits(max_nodes=lead.nodes + 50), solve=True, solve_lead=2)
    assert stopped.stop_reason == "nodes" and stopped.depth == 2
    assert (stopped.move, stopped.value) == (lead.move, lead.value)
