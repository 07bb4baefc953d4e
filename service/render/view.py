"""What a board drawing is given: the position, its structured fields, the options and what follows from them
(the theme, the legal moves to mark, the arrows' moves played out), and the helpers every drawing uses."""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service import core
from service.core.contract import Position
from service.render.options import RenderOptions
from service.render.svg import Theme

LETTERS = string.ascii_lowercase


@dataclass(frozen=True, slots=True)
class Step:
    """One move of the ``arrows`` line: its number (from 1), its canonical notation, the seat playing it and
    what it did (``apply``'s events)."""

    number: int
    notation: str
    seat: int
    events: list[core.Event]


@dataclass(frozen=True, slots=True)
class View:
    position: Position[Any]
    fields: dict[str, Any]
    options: RenderOptions
    theme: Theme
    legal: list[str]  # notations of the legal moves to mark; empty when not asked for
    steps: list[Step]

    def status(self, names: tuple[str, str]) -> str:
        """The line under a board: each seat's score, then who moves or how the game ended."""
        scores = self.position.scores()
        text = f"{names[0]} {scores[0]} · {names[1]} {scores[1]}"
        outcome = self.position.outcome()
        if outcome is None:
            return f"{text} · {names[self.position.to_move - 1]} to move"
        if not outcome.winner:
            return f"{text} · a draw"
        return f"{text} · {names[outcome.winner - 1]} wins ({outcome.reason.replace('_', ' ')})"


def cell(name: str) -> tuple[int, int] | None:
    """``c2`` -> (column 2, row 1), zero-based; None for anything else."""
    name = name.strip()
    if len(name) < 2 or name[0] not in LETTERS or not (name[1:].isascii() and name[1:].isdigit()):
        return None  # (isdigit alone takes "²", which int() refuses)
    number = int(name[1:])
    return (LETTERS.index(name[0]), number - 1) if number >= 1 else None


def cell_name(col: int, row: int) -> str:
    """(column 2, row 1) -> ``c2``: the inverse of ``cell``."""
    return f"{LETTERS[col]}{row + 1}"


def cells_of(text: str, field: str, inside: Callable[[int, int], bool]) -> list[tuple[int, int]]:
    """The cells a move written as ``c2`` or ``e5,f6`` names, each checked with ``inside(col, row)``;
    InvalidMove naming ``field`` otherwise."""
    found = []
    for part in text.split(","):
        place = cell(part)
        if place is None or not inside(*place):
            raise core.InvalidMove(f"{text[:40]!r} names no place on this board", field)
        found.append(place)
    return found
