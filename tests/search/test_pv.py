"""The whole principal variation, on both paths, for every game: a fixed-depth search answers a line as long
as its depth (or to the game's end), starting with its move, each move legal in turn (``docs/api.md``: ``pv``).
Before the line was collected during the search, a depth-11 Reversi search answered its move alone."""

from __future__ import annotations

import random

import pytest

from service.core import Limits, SearchResult
from service.engines import GAMES
from service.native import engine
from service.search import search


def midgame(game_id: str, seed: int) -> object:
    rng = random.Random(seed)
    position = GAMES[game_id].new_position({}, "pv")
    for _ in range(10):
        position = position.play(rng.choice(position.legal_moves()))
    return position


def check_line(position: object, result: SearchResult, depth: int) -> None:
    assert result.pv[0] == result.move
    for move in result.pv:
        assert position.to_move != 0 and move in position.legal_moves(), result.pv
        position = position.play(move)
    assert len(result.pv) >= depth or position.to_move == 0, result.pv


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("seed", [0, 1])
def test_the_python_search_answers_the_whole_line(game_id: str, seed: int) -> None:
    position = midgame(game_id, seed)
    check_line(position, search(position, Limits(max_depth=4)), 4)


@pytest.mark.skipif(not engine.available(), reason="the native search engine is not built or turned off")
@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("seed", [0, 1])
def test_the_native_search_answers_the_whole_line(game_id: str, seed: int) -> None:
    position = midgame(game_id, seed)
    found = engine.search(position, Limits(max_depth=6))
    assert found is not None and found.depth == 6
    check_line(position, found, 6)
