"""Play mode's seeded pick (``service/levels/variety.py``) answers the chosen move's own line, on both search paths
(the ``path`` fixture): where the pick is another move than the analysis' best, or one of moves that tie (the
Reversi start: d3, c4, f5 and e6), the line starts with the chosen move and, at a depth of two plies or more,
goes on past it. And a proved Kalah answer through its levels carries the plies of its proved line as its depth,
never the solve mode's sentinel."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from service.core import Limits
from service.games import BY_ID, GAMES, LEVELS
from tests.search.test_pv import midgame, played

SEEDS = range(8)


def positions(game_id: str) -> Iterator[Any]:
    """The start, and a midgame unless the game's midgames are past its opening, where its levels do not vary
    (``checks.picks_past_the_start``: Strands)."""
    yield GAMES[game_id].new_position({}, "")
    if BY_ID[game_id].checks.picks_past_the_start:
        yield midgame(game_id, 0)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_picked_move_answers_its_own_line(game_id: str, path: bool) -> None:
    """Every level of the game, in play mode with several seeds and the game's ``checks.play_limits`` (a depth of
    three, or playouts for a Monte Carlo level; Strands' fewer: its start has thousands of moves, seconds in
    Python): where the pick is not the analysis' best move, the line is the picked move's own."""
    levels = LEVELS[game_id]
    picked = 0
    for position in positions(game_id):
        for level in levels.levels:
            limits = BY_ID[game_id].checks.play_limits
            best = levels.best_move(position, level.name, limits, 0, 1, purpose="analysis")
            for seed in SEEDS:
                play = levels.best_move(position, level.name, limits, seed, 1, purpose="play")
                assert play.pv and play.pv[0] == play.move
                played(position, play.pv)
                if play.move == best.move or play.depth < 2 or position.play(play.move).to_move == 0:
                    continue
                assert len(play.pv) > 1, (level.name, seed, play)
                picked += 1
    if game_id == "reversi":
        assert picked > 0  # the start's four moves tie: most seeds pick another than the first


def test_the_reversi_start_picks_among_ties_with_their_lines(path: bool) -> None:
    position = GAMES["reversi"].new_position({}, "")
    moves = set()
    for seed in SEEDS:
        play = LEVELS["reversi"].best_move(position, "expert", Limits(max_depth=4), seed, 4, purpose="play")
        assert len({a.value for a in play.alternatives}) == 1  # the four moves tie
        assert len(play.pv) == 4 and play.pv[0] == play.move
        assert play.alternatives[0].move == play.move and play.alternatives[0].pv == tuple(play.pv)
        played(position, play.pv)
        moves.add(position.move_notation(play.move))
    assert moves == {"d3", "c4", "f5", "e6"}


def few_seeds(seed: int, left: int) -> Any:
    """A random Kalah game played until at most ``left`` seeds are in the pits, a seat to move."""
    rng = random.Random(seed)
    while True:
        position = GAMES["kalah"].new_position({}, "")
        while position.to_move and position.seeds_in_play() > left:
            position = position.play(rng.choice(position.legal_moves()))
        if position.to_move:
            return position


@pytest.mark.parametrize("seed", range(3))
def test_a_proved_kalah_answer_has_its_lines_plies_as_depth(seed: int, path: bool) -> None:
    position = few_seeds(seed, 12)
    result = LEVELS["kalah"].best_move(position, "hard", None, 0, 1, purpose="analysis")
    assert result.exact
    assert result.depth < 1000 and result.depth == len(result.pv)
