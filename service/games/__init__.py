"""The registry of games: one line per game. The transport and the tests are generic over it."""

from __future__ import annotations

import importlib

from service.games.base import Game

# Module names under service.games; each defines GAME. Adding a game = one entry here.
_MODULES = ("reversi",)

GAMES: dict[str, Game] = {}
for _name in _MODULES:
    _game: Game = importlib.import_module(f"service.games.{_name}").GAME
    GAMES[_game.id] = _game


def get_game(game_id: str) -> Game | None:
    """The game with this id ("reversi") or resource name ("games/reversi"), or None."""
    return GAMES.get(game_id.removeprefix("games/"))


def default_options(game: Game) -> dict[str, object]:
    """Every option of the game at its default: what NewGame uses when the caller names none."""
    return {spec.name: spec.default for spec in game.options}
