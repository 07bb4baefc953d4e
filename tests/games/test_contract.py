"""Every registered game keeps the engine interface's promises through random play (tests/games/contract.py).

A game is covered here the moment it is registered (service/games/).
"""

from __future__ import annotations

import pytest

from service import core
from service.games import GAMES, LEVELS
from tests.games.contract import check_random_games


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_random_play_keeps_the_promises(game_id):
    game = GAMES[game_id]
    check_random_games(game, game.default_options(), games=3, seed=2026)


def test_every_engine_has_levels_and_every_level_an_engine():
    assert sorted(GAMES) == sorted(LEVELS)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_description_is_complete(game_id):
    game = GAMES[game_id]
    assert game.id == game_id and game.title and game.description
    assert len(game.seat_names) == 2 and game.position_notation_help and game.move_notation_help
    levels = LEVELS[game_id]
    names = [level.name for level in levels.levels]
    assert len(names) >= 3 and len(set(names)) == len(names) and levels.default in names
    assert all(level.description for level in levels.levels)
    for spec in game.options:
        assert spec.type in {"int", "bool", "string", "enum", "cells"} and spec.description
        if spec.type == "enum":
            assert spec.default in spec.choices
        if spec.type == "int" and spec.minimum is not None and spec.maximum is not None:
            assert spec.minimum <= spec.default <= spec.maximum


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_level_answers_a_legal_move(game_id):
    game = GAMES[game_id]
    position = game.new_position(game.default_options(), "levels")
    legal = None
    for level in LEVELS[game_id].levels:
        result = LEVELS[game_id].best_move(position, level.name, None, seed=1, top_n=1, stop=lambda: False)
        if legal is None:
            legal = position.legal_moves() if position.legal_move_count() <= 5000 else None
        if legal is not None:
            assert result.move in legal, (level.name, result.move)
        position.apply(result.move)  # raises if illegal


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_an_option_out_of_range_is_told_both_ends(game_id):
    """Every int option of every game, just past each end and off its steps: the message gives both ends."""
    for spec in GAMES[game_id].options:
        if spec.type != "int" or spec.minimum is None or spec.maximum is None:
            continue
        wrong = [spec.minimum - 1, spec.maximum + 1] + ([spec.minimum + 1] if spec.step > 1 else [])
        for value in wrong:
            with pytest.raises(core.InvalidOption) as raised:
                GAMES[game_id].new_position({spec.name: value}, "")
            assert raised.value.field == spec.name
            assert str(spec.minimum) in raised.value.message and str(spec.maximum) in raised.value.message, (
                raised.value.message
            )
