"""The games the service serves: one registration per game (``service/games/<game>.py``), in the order
ListGames answers them. The transport, the benches and the generic tests read ``REGISTRATIONS`` (or the
``GAMES`` and ``LEVELS`` maps made from it); adding a game is its own packages, its registration file and its
line here (``docs/development.md``, "Adding a game").
"""

from __future__ import annotations

from service.core.contract import Game, Position
from service.core.values import Limits, Purpose, SearchResult, StopSignal
from service.games import dots_and_boxes, kalah, petak_sawah, reversi, strands
from service.games.registration import Registration
from service.levels import GameLevels, play_level
from service.search.deadline import never

REGISTRATIONS: tuple[Registration, ...] = tuple(
    game.REGISTRATION for game in (reversi, kalah, dots_and_boxes, petak_sawah, strands)
)
BY_ID: dict[str, Registration] = {registration.id: registration for registration in REGISTRATIONS}
GAMES: dict[str, Game] = {registration.id: registration.game for registration in REGISTRATIONS}
LEVELS: dict[str, GameLevels] = {registration.id: registration.levels for registration in REGISTRATIONS}


def best_move(
    game_id: str,
    position: Position,
    level: str | None = None,
    limits: Limits | None = None,
    seed: int | str = 0,
    top_n: int = 1,
    stop: StopSignal = never,
    *,
    cap_ms: int | None = None,
    purpose: Purpose = "play",
) -> SearchResult:
    """Choose a move for ``position`` of the game ``game_id`` (see ``service.levels.driver.play_level``)."""
    return play_level(LEVELS[game_id], position, level, limits, seed, top_n, stop, cap_ms=cap_ms, purpose=purpose)


__all__ = ["BY_ID", "GAMES", "LEVELS", "REGISTRATIONS", "Registration", "best_move"]
