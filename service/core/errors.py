"""The errors an engine raises on purpose, one class per kind of mistake (python-chess's narrow errors).

Each carries the field it is about, relative to the value being read, and a stable ``reason``; the transport
maps the class to a gRPC code and the reason to ``ErrorInfo`` (``docs/api.md`` lists them).
"""

from __future__ import annotations

from typing import ClassVar


class RulesError(Exception):
    """Base of every error an engine raises on purpose. Never raised for a bug."""

    reason: ClassVar[str] = "INVALID_ARGUMENT"

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        # Path of the offending field *inside the thing being parsed*: "board", "to_move",
        # "rocks[3]", "seeds_per_pit". Empty when the whole value (e.g. a notation string) is wrong.
        # The transport prefixes it ("position.reversi.board", "options.seeds_per_pit").
        self.field = field


class NotationError(RulesError):
    """Text that does not parse: bad syntax, unknown square name, wrong number of parts."""

    reason = "INVALID_NOTATION"


class InvalidPosition(RulesError):
    """Well-formed but impossible position: wrong sizes, overlapping pieces, counts that cannot occur."""

    reason = "INVALID_POSITION"


class InvalidOption(RulesError):
    """An option out of range, of the wrong type, unknown, or inconsistent with another option."""

    reason = "INVALID_OPTION"


class InvalidMove(RulesError):
    """A move that is malformed for this game (bad syntax, off the board, wrong shape)."""

    reason = "INVALID_MOVE"


class IllegalMove(RulesError):
    """A well-formed move that the rules do not allow in this position."""

    reason = "ILLEGAL_MOVE"


class GameOverError(RulesError):
    """A move sent to a finished game."""

    reason = "GAME_OVER"


class UnknownLevel(RulesError):
    """A best-move level the game does not have."""

    reason = "UNKNOWN_LEVEL"
