"""The games the service serves: one registration per game (``service/games/<game>.py``), in the order
ListGames answers them. The transport, the benches and the generic tests read ``REGISTRATIONS`` (or the
``GAMES`` and ``LEVELS`` maps made from it); adding a game is its own packages, its registration file and its
line here (``docs/development.md``, "Adding a game").

A game kept outside the service's tree (a portal's own game, the test suite's sixth game) is registered by
naming its module in ``GAMERULES_EXTRA_GAMES`` (comma-separated; each module has a ``REGISTRATION``): it is
served after the built-in games, its structured forms travel in the contract's generic ``fields``.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import TYPE_CHECKING, Any

from service.core.contract import Game
from service.games import dots_and_boxes, kalah, petak_sawah, reversi, strands
from service.games.registration import Registration
from service.levels import GameLevels

EXTRA_GAMES = "GAMERULES_EXTRA_GAMES"
BUILT_IN: tuple[Registration, ...] = tuple(
    game.REGISTRATION for game in (reversi, kalah, dots_and_boxes, petak_sawah, strands)
)


def extra_games(raw: str) -> tuple[Registration, ...]:
    """The registrations of the modules ``raw`` names (``GAMERULES_EXTRA_GAMES``'s value); ValueError saying what
    to send when a name is not an importable module with a ``REGISTRATION`` of a new game id."""
    found: list[Registration] = []
    for name in filter(None, (part.strip() for part in raw.split(","))):
        try:
            module = importlib.import_module(name)
        except ImportError as error:
            raise ValueError(f"module {name!r} cannot be imported ({error}): send importable module names") from None
        registration = getattr(module, "REGISTRATION", None)
        if not isinstance(registration, Registration):
            raise ValueError(f"module {name!r} has no REGISTRATION: send modules that register a game")
        taken = {known.id for known in (*BUILT_IN, *found)}
        if registration.id in taken:
            raise ValueError(f"module {name!r} registers {registration.id!r}, which is already served")
        found.append(registration)
    return tuple(found)


def _registrations() -> tuple[Registration, ...]:
    raw = os.environ.get(EXTRA_GAMES, "")
    try:
        return BUILT_IN + extra_games(raw)
    except ValueError as error:
        # Read once, at the first use, which is before anything starts: like every setting
        # (``service/api/settings.py``), a value the process cannot use stops it, exit 2, with one line.
        print(f"{EXTRA_GAMES}={raw!r}: {error}", file=sys.stderr)
        raise SystemExit(2) from None


if TYPE_CHECKING:
    REGISTRATIONS: tuple[Registration, ...]
    BY_ID: dict[str, Registration]
    GAMES: dict[str, Game]
    LEVELS: dict[str, GameLevels[Any, Any]]


def __getattr__(name: str) -> object:
    """The registry, made on first use rather than on import: a game from outside the tree imports
    ``service.games.registration`` (and so this package) to build its ``REGISTRATION``, which this package then
    reads, whichever of the two is imported first."""
    if name not in ("REGISTRATIONS", "BY_ID", "GAMES", "LEVELS"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    registrations = _registrations()
    globals().update(
        REGISTRATIONS=registrations,
        BY_ID={registration.id: registration for registration in registrations},
        GAMES={registration.id: registration.game for registration in registrations},
        LEVELS={registration.id: registration.levels for registration in registrations},
    )
    return globals()[name]


__all__ = ["BUILT_IN", "BY_ID", "EXTRA_GAMES", "GAMES", "LEVELS", "REGISTRATIONS", "Registration", "extra_games"]
