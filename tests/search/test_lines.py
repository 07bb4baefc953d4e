"""Each alternative's own line (``ScoredMove.pv``) from the Python searches, over every game of the registry: the
alpha-beta's multi-PV pass keeps each scored move's line as its child's search leaves it (then the table's), the
Monte Carlo search each root move's most visited path. Every line starts with its move, is legal move by move,
and at depth 4 or more has at least two moves unless the game ends sooner; the best one's is the answer's ``pv``,
in the streamed iterations too. And a proof of Kalah (an engine with no bound on the plies left) answers the
length of its proved line as its depth, not the solve mode's sentinel (``alphabeta``'s module docstring).

``tests/native/test_alternative_lines.py`` asks the same of the native core, and the two of each other."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from service.core import Limits, SearchResult, Stop
from service.games import BY_ID, GAMES
from service.search import mcts, search
from tests.search.test_pv import endgame, midgame, played

TOP_N = 4
DEPTH = 4
SEEDS = (0, 1, 2)


pytestmark = pytest.mark.usefixtures("python_search")  # the engines' Python twins (conftest.py)


def positions(game_id: str) -> Iterator[Any]:
    """Midgames of random play, or positions the game's ``checks.lines_from_the_end`` plies before the end of random
    games (Strands: its midgames take the Python search seconds at this depth)."""
    from_the_end = BY_ID[game_id].checks.lines_from_the_end
    if from_the_end:
        for seed, left in enumerate(from_the_end):
            yield endgame(game_id, seed, left)
        return
    for seed in SEEDS:
        yield midgame(game_id, seed)


def check_lines(position: Any, result: SearchResult, depth: int) -> None:
    """Every alternative's line: its move first, legal move by move, and at least two moves at ``depth`` 4 or more
    unless the game ends after the move; the first alternative's is the answer's ``pv``."""
    assert result.alternatives and result.alternatives[0].move == result.move
    assert result.alternatives[0].pv == tuple(result.pv)
    for scored in result.alternatives:
        assert scored.pv and scored.pv[0] == scored.move
        played(position, list(scored.pv))
        if depth >= 4 and position.play(scored.move).to_move != 0:
            assert len(scored.pv) >= 2, (scored, depth)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_alternative_carries_its_own_line(game_id: str) -> None:
    for position in positions(game_id):
        result = search(position, Limits(max_depth=DEPTH), top_n=TOP_N)
        assert result.depth == DEPTH
        check_lines(position, result, DEPTH)
        seat = position.to_move
        for scored in result.alternatives:  # a line as deep as the search explains its move's value
            end = played(position, list(scored.pv))
            if end.to_move == 0:
                assert end.final_value(seat) == scored.value
            elif not scored.exact:
                assert len(scored.pv) == DEPTH
                leaf = end.evaluate(end.to_move)
                assert (leaf if end.to_move == seat else -leaf) == scored.value


def test_a_single_best_move_carries_the_answers_line() -> None:
    position = midgame("reversi", 0)
    result = search(position, Limits(max_depth=DEPTH))
    assert [a.pv for a in result.alternatives] == [tuple(result.pv)] and len(result.pv) == DEPTH


class _Heard(Stop):
    def __init__(self) -> None:
        self.heard: list[SearchResult] = []
        self.on_iteration = self.heard.append


def test_streamed_iterations_carry_the_lines() -> None:
    position = midgame("kalah", 1)
    stop = _Heard()
    result = search(position, Limits(max_depth=6), stop=stop, top_n=TOP_N)
    assert [r.depth for r in stop.heard] == [1, 2, 3, 4, 5, 6]
    for partial in stop.heard:
        check_lines(position, partial, partial.depth)
    assert stop.heard[-1].alternatives == result.alternatives


def test_the_lines_change_nothing_of_the_search() -> None:
    """The same search twice gives the same answer, nodes and lines; and a multi-PV search's first alternative is
    the single best move's search's value (its nodes differ: it scores more moves)."""
    position = midgame("reversi", 2)
    first = search(position, Limits(max_depth=5), top_n=TOP_N)
    again = search(position, Limits(max_depth=5), top_n=TOP_N)
    assert (first.nodes, first.alternatives, first.pv) == (again.nodes, again.alternatives, again.pv)
    assert search(position, Limits(max_depth=5)).value == first.value


@pytest.mark.parametrize("seed", range(4))
def test_a_kalah_proof_answers_its_lines_plies_as_its_depth(seed: int) -> None:
    """Kalah's engine has no ``plies_left``: solve mode leaps to a sentinel depth no game reaches, and a proof
    there answers the length of its proved line (which ends the game) instead."""
    position = endgame("kalah", seed, 12)
    result = search(position, Limits(), solve=True, solve_lead=2)
    assert result.exact and result.stop_reason == "solved"
    assert result.depth < 1000 and result.depth == len(result.pv)
    assert played(position, result.pv).to_move == 0


def test_a_kalah_proof_with_alternatives_gives_each_a_line_to_the_end() -> None:
    position = endgame("kalah", 7, 12)
    result = search(position, Limits(), solve=True, solve_lead=2, top_n=TOP_N)
    assert result.exact and result.depth == len(result.pv) < 1000
    seat = position.to_move
    for scored in result.alternatives:
        assert scored.exact and scored.pv[0] == scored.move
        end = played(position, list(scored.pv))
        assert end.to_move == 0 and end.final_value(seat) == scored.value


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_monte_carlo_alternatives_carry_their_most_visited_lines(game_id: str) -> None:
    position = next(positions(game_id))
    result = mcts(position, Limits(max_nodes=2000), rng=random.Random(3), top_n=TOP_N)
    check_lines(position, result, 0)
    assert any(len(a.pv) >= 2 for a in result.alternatives)
