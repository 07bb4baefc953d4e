"""Strands best moves: the search reduction, proved values against an independent brute force over every
legal move, and the levels' contract (docs/games/strands.md; service/search, service/levels)."""

from __future__ import annotations

import math
from functools import cache

import pytest

from service.core.errors import GameOverError, UnknownLevel
from service.core.values import Limits
from service.engines.strands import CANDIDATE_CAP, GAME, StrandsPosition
from service.levels.strands import LEVELS
from service.search import never


def _brute_value(position: StrandsPosition) -> float:
    """Minimax over every legal move (partial covers included) of ``final_value``, for the seat to move."""

    @cache
    def value(p: StrandsPosition) -> float:
        seat, best = p.to_move, -math.inf
        for move in p.legal_moves():
            child = p.play(move)
            best = max(best, child.final_value(seat) if not child.to_move else -value(child))
        return best

    return value(position)


def _full_covers(position: StrandsPosition) -> set[tuple[int, ...]]:
    """Legal moves covering min(X, empty) cells, filtered from the whole list."""
    most = {g.label: g.max_count for g in position.move_space()}
    return {m for m in position.legal_moves() if len(m) == most[position.layout.cell_label[m[0]]]}


SMALL = [
    ("custom", "22/222/22", False),
    ("custom", "23/232/32", False),
    ("custom", "23/232/32", True),
    ("custom", "33/323/33", False),
]


@pytest.mark.parametrize(("layout", "labels", "exact"), SMALL)
def test_proved_values_match_brute_force(layout: str, labels: str, exact: bool) -> None:
    start = GAME.new_position({"layout": layout, "labels": labels, "exact_count": exact}, "")
    for opening in start.legal_moves():
        position = start.play(opening)
        result = LEVELS.best_move(position, "hard", None, 0, 1, never)
        assert result.exact and result.stop_reason == "solved"
        assert result.value == _brute_value(position)
        # The proved move really achieves the value.
        child = position.play(result.move)
        achieved = child.final_value(2) if not child.to_move else -_brute_value(child)
        assert achieved == result.value


def test_proved_value_in_a_side3_endgame() -> None:
    # Side 3, seven empty cells: three 2s and four 3s.
    position = GAME.parse_position("333/3223/32123/3223/333 BWW/W..W/.WBB./BB.B/W.. 1 exact=0")
    assert position.legal_move_count() == 20
    result = LEVELS.best_move(position, "hard", None, 0, 3, never)
    assert result.exact and result.value == _brute_value(position)
    assert result.alternatives[0].move == result.move and len(result.alternatives) == 3


def test_search_moves_are_all_full_covers_when_few() -> None:
    position = GAME.parse_position("333/3223/32123/3223/333 BWW/W..W/.WBB./BB.B/W.. 1 exact=0")
    moves = position.search_moves()
    assert len(moves) <= CANDIDATE_CAP
    assert set(moves) == _full_covers(position) and len(set(moves)) == len(moves)


def test_search_moves_are_capped_when_many() -> None:
    position = GAME.new_position({}, "")
    position = position.play(position.parse_move("f5"))
    moves = position.search_moves()
    assert 0 < len(moves) <= CANDIDATE_CAP and len(set(moves)) == len(moves)
    full = {g.label: g.max_count for g in position.move_space()}
    for move in moves:
        position.apply(move)  # legal
        assert len(move) == full[position.layout.cell_label[move[0]]]
    assert {position.layout.cell_label[m[0]] for m in moves} == {1, 2, 3, 5, 6}  # every label is offered


def test_capped_root_is_never_called_exact() -> None:
    # Only seven empty 3s are left: 35 full covers at the root (more than the cap), a tiny tree below it.
    position = GAME.parse_position("333/3223/32123/3223/333 .B./BBW./BWWW./.WWB/.B. 2 exact=0")
    assert len(_full_covers(position)) > CANDIDATE_CAP
    result = LEVELS.best_move(position, "medium", Limits(max_depth=20, max_time_ms=600_000), 0, 1, never)
    assert not result.exact and result.stop_reason == "depth"
    position.apply(result.move)


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_levels_answer_legal_moves(level: str) -> None:
    limits = Limits(max_nodes=40) if level == "hard" else None  # hard: 40 Monte Carlo iterations
    for position in (GAME.new_position({}, ""), GAME.new_position({"layout": "random7", "exact_count": True}, "x")):
        for _ in range(2):
            result = LEVELS.best_move(position, level, limits, 7, 2, never)
            position.apply(result.move)
            # Best first by value; Monte Carlo's move is its most searched one, which need not value highest.
            values = [a.value for a in result.alternatives]
            assert result.move in {a.move for a in result.alternatives} and values == sorted(values, reverse=True)
            assert len({a.move for a in result.alternatives}) == len(result.alternatives) == 2
            position = position.play(result.move)


def test_same_seed_same_answer() -> None:
    position = GAME.new_position({}, "")
    position = position.play(position.parse_move("f5"))
    for level, limits in (
        ("easy", None),
        ("medium", Limits(max_depth=2, max_time_ms=600_000)),
        ("hard", Limits(max_nodes=30, max_time_ms=600_000)),
    ):
        first = LEVELS.best_move(position, level, limits, 3, 1, never)
        again = LEVELS.best_move(position, level, limits, 3, 1, never)
        assert (first.move, first.value) == (again.move, again.value)


def test_best_move_errors() -> None:
    end = GAME.parse_position("22/222/22 BB/BWW/WW - exact=0")
    with pytest.raises(GameOverError):
        LEVELS.best_move(end, None, None, 0, 1, never)
    with pytest.raises(UnknownLevel):
        LEVELS.best_move(GAME.new_position({}, ""), "expert", None, 0, 1, never)
    named = {lv.name for lv in LEVELS.levels} - set(LEVELS.ladder[:-1])
    assert named == {"easy", "medium", "hard"} and LEVELS.default == "medium"


def test_a_stop_signal_answers_at_once() -> None:
    position = GAME.new_position({}, "")
    position = position.play(position.parse_move("f5"))
    result = LEVELS.best_move(position, "hard", None, 0, 1, lambda: True)
    position.apply(result.move)
    assert result.stop_reason == "cancelled"
