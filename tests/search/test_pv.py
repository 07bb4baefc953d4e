"""The principal variation of the Python search (``service/search/tree.py``, ``alphabeta.py``) on every game of
the registry, from random midgame positions: the answer's move first, every move legal where it is played in
turn, as long as the search went (its depth, or to the end of the game), and the line explains the value (the
evaluation at its end, or the final margin, is the answer's value). The line is the one the search kept (the
triangular table), so it needs no table: it once came from the table alone, one move long without one.

``tests/native/test_pv.py`` asks the same of the native core and imports the helpers here."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from service.core import Limits, SearchResult
from service.games import BY_ID, GAMES
from service.search import search

# Each game's registration gives the random plies that make a midgame (``checks.midgame_plies``), the midgames
# searched (``checks.pv_seeds``) and the Python search's fixed depth (``checks.pv_depth``).
_LISTED = 5_000  # more legal moves than this (Strands' covers) are checked by apply() instead of listed


def midgame(game_id: str, seed: int) -> Any:
    """A position of random play from the start (the default options), the seat to move still playing: the
    game's ``checks.midgame_plies`` (a range the seed draws from) into it."""
    rng = random.Random(seed)
    position = GAMES[game_id].new_position({}, "x")
    for _ in range(rng.randrange(*BY_ID[game_id].checks.midgame_plies)):
        if position.to_move == 0:
            break
        position = position.play(rng.choice(position.legal_moves()))
    if position.to_move == 0:
        raise AssertionError(f"seed {seed} reached the end of a {game_id} game: pick another")
    return position


def endgame(game_id: str, seed: int, left: int) -> Any:
    """A position ``left`` plies before the end of a random game (or the start, when the game is shorter)."""
    rng = random.Random(seed)
    line = [GAMES[game_id].new_position({}, "x")]
    while line[-1].to_move:
        line.append(line[-1].play(rng.choice(line[-1].legal_moves())))
    return line[max(0, len(line) - 1 - left)]


def midgames(game_id: str) -> Iterator[Any]:
    for seed in BY_ID[game_id].checks.pv_seeds:
        yield midgame(game_id, seed)


def legal(position: Any, move: Any) -> bool:
    """Whether ``move`` is one of ``position.legal_moves()`` (played by ``apply``, which checks it, where the
    list would be huge)."""
    if position.legal_move_count() <= _LISTED:
        return move in position.legal_moves()
    position.apply(move)  # IllegalMove when it is not
    return True


def played(position: Any, line: list[Any]) -> Any:
    """The position at the end of ``line`` from ``position``, every move checked legal when it is played."""
    for i, move in enumerate(line):
        assert position.to_move != 0, f"move {i} of the line is played after the end of the game"
        assert legal(position, move), f"move {i} of the line is not legal where it is played"
        position = position.play(move)
    return position


def check_line(position: Any, result: SearchResult, to_the_end: bool = False) -> Any:
    """The answer's line from ``position``: its move first, every move legal in turn, as long as the search's
    depth unless the game ends first (``to_the_end``: a proof's goes to the end), and worth the answer's value
    at its end. Returns the position at its end."""
    seat = position.to_move
    assert result.pv and result.pv[0] == result.move
    end = played(position, result.pv)
    if to_the_end:
        assert end.to_move == 0, (len(result.pv), result.depth)
    if end.to_move == 0:
        assert end.final_value(seat) == result.value
        return end
    assert len(result.pv) == result.depth or (result.exact and len(result.pv) > result.depth)
    if not result.exact:
        leaf = end.evaluate(end.to_move)
        assert (leaf if end.to_move == seat else -leaf) == result.value  # the line explains the value
    return end


def depth(game_id: str) -> int:
    """The Python search's fixed depth for the game (a fraction of a second a search)."""
    return BY_ID[game_id].checks.pv_depth


pytestmark = pytest.mark.usefixtures("python_search")  # the engines' Python twins (conftest.py)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_line_goes_as_deep_as_the_search(game_id: str) -> None:
    for position in midgames(game_id):
        result = search(position, Limits(max_depth=depth(game_id)))
        check_line(position, result)


@pytest.mark.parametrize("game_id", ["reversi", "kalah"])
def test_a_multi_pv_search_keeps_the_best_moves_line(game_id: str) -> None:
    position = midgame(game_id, 3)
    result = search(position, Limits(max_depth=depth(game_id)), top_n=3)
    assert result.alternatives[0].move == result.move
    check_line(position, result)


@pytest.mark.parametrize("tt_size", [0, 50])
@pytest.mark.parametrize("game_id", ["reversi", "kalah"])
def test_the_line_needs_no_table(game_id: str, tt_size: int) -> None:
    """No table, or one full after a few nodes: the line is the search's own all the same (it was one move
    without a table, and stopped where a full table had not kept a position)."""
    for position in midgames(game_id):
        result = search(position, Limits(max_depth=depth(game_id) + 1), tt_size=tt_size)
        check_line(position, result)


@pytest.mark.parametrize("game_id", ["reversi", "kalah", "dots-and-boxes", "petak-sawah"])
def test_a_proved_line_plays_to_the_end_for_the_proved_value(game_id: str) -> None:
    for seed in range(3):
        position = endgame(game_id, seed, 9)
        result = search(position, Limits(), solve=True, solve_lead=2)
        assert result.exact
        check_line(position, result, to_the_end=True)
