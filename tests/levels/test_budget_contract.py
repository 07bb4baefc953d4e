"""The budget contract and seeded variety of the searching games' levels (Reversi, Kalah, Petak Sawah), on
the native path and on the Python path: a level sets the skill, the caller's limits set the resources.

- What GetGame advertises for a level (its ``Level``) never promises more time than the server's cap on a
  search, and a level never stops on a depth it does not advertise (in its limits, or its description: Reversi
  ``expert`` on the Python search when the caller gives no resources).
- With the caller's ``max_time_ms`` the strongest level is not cut short by its own node budget or a depth of
  its own: it searches until the time is spent or the game is proved.
- Seeded variety: every level above the lowest picks among the moves within its margin of the best by its
  seed, so the start position gets several first moves over ten seeds (Kalah's start has one move far ahead
  of the rest: see ``test_kalah_varies_among_its_near_best_moves``); the strongest levels only in the opening,
  the game's first quarter (``variety.opening``), and past it they play their best move whatever the seed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service import native
from service.api.servicer import ServiceConfig
from service.core import Limits
from service.engines import GAMES
from service.levels import LEVELS, best_move, variety
from service.levels import dots_and_boxes as dots_levels
from service.levels import kalah as kalah_levels
from service.levels import petak_sawah as petak_levels
from service.levels import reversi as reversi_levels

SEARCHING_GAMES = ("reversi", "kalah", "petak-sawah")
STRONGEST = {"reversi": "expert", "kalah": "hard", "petak-sawah": "hard"}


@pytest.fixture(params=[True, False], ids=["native", "python"])
def path(request: pytest.FixtureRequest) -> Iterator[bool]:
    previous = native.use_native(request.param)
    try:
        yield request.param
    finally:
        native.use_native(previous)


def midgame(game_id: str, plies: int = 8) -> object:
    """A position a few moves into a game (its first legal move each time: reproducible)."""
    position = GAMES[game_id].new_position({}, "contract")
    for _ in range(plies):
        position = position.play(position.legal_moves()[0])
    return position


@pytest.mark.parametrize("game_id", SEARCHING_GAMES)
def test_no_level_promises_more_time_than_the_servers_cap(game_id: str) -> None:
    cap = ServiceConfig().max_think_ms
    for level in LEVELS[game_id].levels:
        assert level.limits.max_time_ms is None or level.limits.max_time_ms <= cap, level.name


@pytest.mark.parametrize("game_id", SEARCHING_GAMES)
def test_a_level_stops_on_a_depth_only_when_it_advertises_one(game_id: str, path: bool) -> None:
    position = midgame(game_id)
    for level in LEVELS[game_id].levels:
        result = best_move(game_id, position, level.name, None, 0, 1)
        if result.stop_reason == "depth":  # a depth GetGame lists: in the level's limits or its description
            listed = level.limits.max_depth == result.depth or f"{result.depth} moves ahead" in level.description
            assert listed, level.name


@pytest.mark.parametrize("game_id", SEARCHING_GAMES)
def test_the_callers_time_is_used_until_spent(game_id: str, path: bool) -> None:
    """200 ms of the caller's: the strongest level searches until they are spent (or the game is proved); its
    own node budget or a depth of its own would end it with "nodes" or "depth"."""
    position = midgame(game_id)
    level = STRONGEST[game_id]
    result = best_move(game_id, position, level, Limits(max_time_ms=200), 0, 1)
    assert result.stop_reason in ("time", "solved"), result


def first_moves(game_id: str, level: str) -> set[object]:
    position = GAMES[game_id].new_position({}, "")
    return {best_move(game_id, position, level, None, seed, 1).move for seed in range(10)}


@pytest.mark.parametrize("game_id", ["reversi", "petak-sawah"])
def test_every_level_above_the_lowest_varies_its_first_move_by_seed(game_id: str, path: bool) -> None:
    for level in LEVELS[game_id].levels[1:]:
        assert len(first_moves(game_id, level.name)) >= 3, level.name


def test_the_opening_is_the_first_quarter_of_the_game() -> None:
    assert variety.opening(0, 60) and variety.opening(14, 60)
    assert not variety.opening(15, 60) and not variety.opening(40, 60)


# Positions just past the opening (a quarter of the game played, not yet in the solve mode) where the strongest
# level's top four moves, scored on either path, hold two or more within its margin of the best.
PAST_THE_OPENING = {
    "reversi": "......../.B....B./.B.B.B../.BWWWWW./WBWBBW../.BWB..W./.B.B..../B..BBB.. 2 black=1",
    "kalah": "0,6,9,0,3,9,7/0,1,1,2,4,0,6 1 seeds=4",
    "petak-sawah": ".1.../....#/#2.#./1#.2./.#..1 2 opener=1",
    "dots-and-boxes": (
        "+.+-+-+.+.+/..........|/+.+-+.+-+.+/|.........|/+.+-+.+-+-+/|.|...|..../+.+.+.+.+-+/|...|....../"
        "+.+-+.+.+-+/|........../+.+-+.+.+.+ 1"
    ),
}
MARGINS = {
    "reversi": reversi_levels.EXPERT_MARGIN,
    "kalah": kalah_levels.MARGIN,
    "petak-sawah": petak_levels.MARGIN,
    "dots-and-boxes": dots_levels.VARIETY_MARGIN,
}


@pytest.mark.parametrize("game_id", sorted(PAST_THE_OPENING))
def test_the_strongest_level_plays_its_best_move_past_the_opening(game_id: str, path: bool) -> None:
    """Past the opening every seed gets the same move, and only the moves asked for are scored, although the
    position has near-best moves the opening's margin would pick among."""
    position = GAMES[game_id].parse_position(PAST_THE_OPENING[game_id])
    level = "expert" if game_id == "reversi" else "hard"
    scored = best_move(game_id, position, level, None, 0, 4).alternatives
    assert len([m for m in scored if m.value >= scored[0].value - MARGINS[game_id]]) >= 2
    answers = [best_move(game_id, position, level, None, seed, 1) for seed in range(6)]
    assert len({answer.move for answer in answers}) == 1
    assert all(len(answer.alternatives) == 1 for answer in answers)


def test_kalah_varies_among_its_near_best_moves(path: bool) -> None:
    """Kalah's start (6 pits, 4 seeds) has one or two moves within the margin and the rest seeds behind (a
    margin wide enough for three would give seeds away); medium, which counts only the stores, has three."""
    assert len(first_moves("kalah", "medium")) >= 3
    assert len(first_moves("kalah", "hard")) >= 2


@pytest.mark.parametrize("game_id", SEARCHING_GAMES)
def test_the_same_seed_gives_the_same_answer(game_id: str, path: bool) -> None:
    position = midgame(game_id, 4)
    for level in LEVELS[game_id].levels:
        first = best_move(game_id, position, level.name, None, 5, 2)
        again = best_move(game_id, position, level.name, None, 5, 2)
        assert (first.move, first.value, first.nodes, first.alternatives) == (
            again.move,
            again.value,
            again.nodes,
            again.alternatives,
        ), level.name
