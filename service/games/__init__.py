"""The registry of games: one line per game. The transport and the tests are generic over it.

Engines are imported on first use of ``GAMES`` (PEP 562), not when this package is imported: the search
core imports ``service.games.base``, and engines import the search core, so an eager registry here would
make importing ``service.search`` first a circular import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from service.games.base import Game

# Module names under service.games; each defines GAME. Adding a game = one entry here.
_MODULES = ("reversi", "kalah", "dots_and_boxes", "petak_sawah", "strands")

_registry: dict[str, Game] = {}

if TYPE_CHECKING:
    GAMES: dict[str, Game]


def __getattr__(name: str) -> Any:
    if name != "GAMES":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if not _registry:
        for module in _MODULES:
            game: Game = importlib.import_module(f"{__name__}.{module}").GAME
            _registry[game.id] = game
    return _registry


def default_options(game: Game) -> dict[str, object]:
    """Every option of the game at its default: what NewGame uses when the caller names none."""
    return {spec.name: spec.default for spec in game.options}
