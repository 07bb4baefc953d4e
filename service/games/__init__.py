"""The games the service serves: one registration per game (``service/games/<game>.py``), in the order
ListGames answers them. The transport, the benches and the generic tests read ``REGISTRATIONS`` (or the
``GAMES`` and ``LEVELS`` maps made from it); adding a game is its own packages, its registration file and its
line here (``docs/development.md``, "Adding a game").
"""

from __future__ import annotations

from service.core.contract import Game
from service.games import dots_and_boxes, kalah, petak_sawah, reversi, strands
from service.games.registration import Registration
from service.levels import GameLevels

REGISTRATIONS: tuple[Registration, ...] = tuple(
    game.REGISTRATION for game in (reversi, kalah, dots_and_boxes, petak_sawah, strands)
)
BY_ID: dict[str, Registration] = {registration.id: registration for registration in REGISTRATIONS}
GAMES: dict[str, Game] = {registration.id: registration.game for registration in REGISTRATIONS}
LEVELS: dict[str, GameLevels] = {registration.id: registration.levels for registration in REGISTRATIONS}


__all__ = ["BY_ID", "GAMES", "LEVELS", "REGISTRATIONS", "Registration"]
