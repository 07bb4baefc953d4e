"""The engine contract: what every game's rules engine is, declared once.

An engine is a package under ``service/engines/`` with a ``Game`` subclass (the factory: identity, options,
notation help, ``new_position`` / ``parse_position`` / ``position_from_fields``) and a ``Position`` subclass
(the state, immutable and hashable, compact inside: ints, bitboards, tuples) that holds the rules. Each game's
rules and notations are written in ``docs/games/<game-id>.md``.

What every game shares lives here, once: paging through the legal moves, checking options against the
declared ``OptionSpec``s (engines then check only combinations), and the optional capabilities, each a typed
member with a default, so neither the search nor the transport has to probe an engine for them.

Moves are engine-internal compact values (an int, a tuple, a bitmask): hashable, never protobuf. Engines
import nothing of ours but ``service.core``: no search, no transport.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Self, TypeAlias, TypeGuard, TypeVar

from service.core.errors import InvalidOption
from service.core.jsonvalue import JSONObject
from service.core.values import Event, Move, MoveGroup, OptionSpec, Outcome

# A game's own kind of move (an int square, pit, line or cell; a tuple of cells): each engine's Position names it,
# ``ReversiPosition(Position[ReversiMove])``, and ``Position[Any]`` is any game's.
MoveT = TypeVar("MoveT", bound=Move)
# One game's position class, for code that works on any game and hands back (or calls back with) positions of
# the game it was given: the searches, the levels' strategies.
PositionT = TypeVar("PositionT", bound="Position[Any]")

# The structured forms (``to_fields``, ``move_from_fields``, options) are a proto message as JSON-like values.
# What arrives (``move_from_fields``, ``position_from_fields``, options) is ``object`` until the engine has
# checked it: strings, numbers, bools, lists, nested dicts, or anything else a caller sent.

# An option's value once checked against its spec (``option_value``): an int, bool, string or enum, cell names.
OptionValue: TypeAlias = bool | int | str | list[str]

MAX_OPTION_TEXT = 8192  # characters in a string option; the largest real layout is far below this
MAX_OPTION_CELLS = 1024  # names in a cells option


def is_int(value: object) -> TypeGuard[int]:
    """An int that is not a bool (JSON true is not a number): the check of every whole-number field."""
    return isinstance(value, int) and not isinstance(value, bool)


class Position(ABC, Generic[MoveT]):
    """One position of one game: immutable, hashable, equal iff the positions are the same."""

    __slots__ = ()

    # --- the rules: every engine implements these ---

    @property
    @abstractmethod
    def to_move(self) -> int:
        """Seat to move, 1 or 2; 0 once the game is over."""

    @abstractmethod
    def to_notation(self) -> str:
        """The compact one-line text form; ``Game.parse_position(p.to_notation()) == p``."""

    @abstractmethod
    def to_fields(self) -> JSONObject:
        """The structured form: a dict whose keys are the proto message's field names (snake_case)."""

    @abstractmethod
    def legal_moves(self) -> list[MoveT]:
        """Every legal move of the seat to move, in a stable order (board order); [] once the game is over."""

    @abstractmethod
    def parse_move(self, text: str) -> MoveT:
        """Read a move in notation. InvalidMove if malformed; legality is ``apply``'s business."""

    @abstractmethod
    def move_from_fields(self, fields: Mapping[str, object]) -> MoveT:
        """Read a move from its structured form (keys = the proto move message's field names)."""

    @abstractmethod
    def move_notation(self, move: MoveT) -> str:
        """The canonical notation of a move (round-trips through ``parse_move``)."""

    @abstractmethod
    def move_to_fields(self, move: MoveT) -> JSONObject:
        """The structured form of a move."""

    @abstractmethod
    def apply(self, move: MoveT) -> tuple[Self, list[Event]]:
        """Play a move after checking it (GameOverError, IllegalMove): the next position and what happened,
        forced passes and the end of the game included."""

    @abstractmethod
    def stage(self) -> float:
        """The share of the game still to play, from 1.0 at the start to 0.0 at the end (each game counts what
        its moves use up: empty squares, seeds in the pits, undrawn lines, free cells): what a value's win chance
        reads beside it (``service/levels/winchance.py``)."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The result once the game is over, else None."""

    @abstractmethod
    def scores(self) -> tuple[int, int]:
        """Each seat's headline number now (discs, seeds in store, points, boxes, largest group)."""

    # --- for the search: fast and unchecked ---

    @abstractmethod
    def play(self, move: MoveT) -> Self:
        """``apply`` without checks or events. The move must come from ``legal_moves`` or ``search_moves``."""

    @abstractmethod
    def search_moves(self) -> Sequence[MoveT]:
        """The moves a search considers, best first by cheap hints: ``legal_moves`` reordered, or a sound
        reduction of them (Dots and Boxes' chain rules), or a capped selection (see ``search_moves_complete``)."""

    @abstractmethod
    def evaluate(self, seat: int) -> float:
        """Heuristic value for ``seat`` in the game's own units (an estimate of the final margin)."""

    @abstractmethod
    def final_value(self, seat: int) -> float:
        """Exact value of a finished game for ``seat``: the final margin (plus or minus a half where a
        tie-break decided). Only asked of a finished game."""

    # --- shared behaviour and optional capabilities, with their defaults ---

    def legal_move_count(self) -> int:
        """How many legal moves there are; an engine overrides it where counting beats listing."""
        return len(self.legal_moves())

    def legal_moves_page(self, start: int, count: int) -> list[MoveT]:
        """Moves ``start .. start+count-1`` of the order of ``legal_moves``: the one paging rule of every game
        (a negative start counts as 0; no count, no moves)."""
        start = max(start, 0)
        if count <= 0:
            return []
        return self.moves_slice(start, count)

    def moves_slice(self, start: int, count: int) -> list[MoveT]:
        """``legal_moves()[start:start + count]`` for ``start >= 0, count > 0``; an engine whose move lists
        are huge (Strands) overrides it to build only that slice."""
        return self.legal_moves()[start : start + count]

    def move_space(self) -> list[MoveGroup] | None:
        """The compact move space (Strands: per label, the cells and how many to cover); None for a game
        whose moves are listed one by one."""
        return None

    def group_sizes(self, seat: int) -> list[int] | None:
        """The seat's group sizes, largest first, for games whose result can come down to them (Strands,
        Petak Sawah); None for the others."""
        return None

    def plies_left(self) -> int | None:
        """At most how many plies the game has left, for a search that would go to the end; None when the
        engine knows no useful bound."""
        return None

    def search_moves_complete(self) -> bool:
        """Whether ``search_moves`` keeps every legal move's value within reach: true for an ordering or a
        sound reduction; false when it caps the moves (Strands on a large board), so that a search that reached
        only finished games still proved nothing."""
        return True


class Game(ABC):
    """A game: the factory of its positions, with everything GetGame describes of its rules. The registry holds
    every game's side by side, so the factories answer ``Position[Any]``; each engine's narrows it to its own
    position class."""

    id: ClassVar[str]  # the registry's key and the path's game id: lower case with hyphens ("dots-and-boxes")
    title: ClassVar[str]
    description: ClassVar[str]
    seat_names: ClassVar[tuple[str, str]]  # the game's own names for seat 1 and seat 2 at the default start
    options: ClassVar[tuple[OptionSpec, ...]]
    position_notation_help: ClassVar[str]  # how the position notation reads (GetGame's positionNotation)
    move_notation_help: ClassVar[str]
    # Words of ``Outcome.reason`` the game adds to the shared vocabulary (``values.RESULT_REASONS``), each defined
    # on its page: a game from outside the service's tree brings its own; the service's games share theirs.
    result_reasons: ClassVar[tuple[str, ...]] = ()

    def new_position(self, options: Mapping[str, object] | None = None, seed: str = "") -> Position[Any]:
        """The start position for ``options`` (names as declared; missing ones take their defaults) and
        ``seed`` (Petak Sawah's rocks, Strands' random layouts: same seed, same position everywhere).
        InvalidOption names the option that is unknown, of the wrong type, out of range or inconsistent."""
        return self.start_position(self.checked_options(options or {}), seed)

    @abstractmethod
    def start_position(self, options: Mapping[str, object], seed: str) -> Position[Any]:
        """``new_position`` once every option is known, typed and in range: the engine checks only how the
        options combine."""

    @abstractmethod
    def parse_position(self, text: str) -> Position[Any]:
        """Read the position notation: NotationError if it does not parse, InvalidPosition if impossible."""

    @abstractmethod
    def position_from_fields(self, fields: Mapping[str, object]) -> Position[Any]:
        """Read the structured form (the proto message as a dict with snake_case keys, defaults filled in):
        InvalidPosition naming the field when impossible."""

    def default_options(self) -> JSONObject:
        """Every option at its default."""
        return {spec.name: spec.default for spec in self.options}

    def checked_options(self, given: Mapping[str, object]) -> JSONObject:
        """``given`` checked against the declared specs, the rest at their defaults. InvalidOption's field is
        the option's name."""
        specs = {spec.name: spec for spec in self.options}
        values = self.default_options()
        for name, value in given.items():
            spec = specs.get(name)
            if spec is None:
                known = ", ".join(specs) or "none"
                raise InvalidOption(f"{self.id} has no option {str(name)[:64]!r} (options: {known})", str(name)[:64])
            values[name] = option_value(spec, value)
        return values


def option_value(spec: OptionSpec, value: object) -> OptionValue:
    """``value`` as the option ``spec`` takes it (a JSON number that is whole is an int), or InvalidOption."""
    checker = _CHECKERS.get(spec.type)
    if checker is None:  # an engine's mistake, not the caller's
        raise TypeError(f"option {spec.name} has an unknown type {spec.type!r}")
    return checker(spec, value)


def _fail(spec: OptionSpec, message: str) -> InvalidOption:
    return InvalidOption(message, spec.name)


def _int_option(spec: OptionSpec, value: object) -> int:
    # JSON numbers arrive as floats; only whole numbers are ints.
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _fail(spec, f"must be a whole number, not {value!r:.40}")
    if value != int(value):
        raise _fail(spec, f"must be a whole number, not {value}")
    number = int(value)
    low, high = spec.minimum, spec.maximum
    if (low is not None and number < low) or (high is not None and number > high):
        raise _fail(spec, f"{number} is out of range {low}..{high}")
    if spec.step > 1 and (number - (low or 0)) % spec.step:
        first = low or 0
        last = "" if high is None else f", {high - (high - first) % spec.step}"
        raise _fail(spec, f"{number} is not one of {first}, {first + spec.step}, …{last} (steps of {spec.step})")
    return number


def _bool_option(spec: OptionSpec, value: object) -> bool:
    if not isinstance(value, bool):
        raise _fail(spec, f"must be true or false, not {value!r:.40}")
    return value


def _text_option(spec: OptionSpec, value: object) -> str:
    if not isinstance(value, str):
        raise _fail(spec, f"must be a string, not {value!r:.40}")
    if len(value) > MAX_OPTION_TEXT:
        raise _fail(spec, f"is {len(value)} characters long; at most {MAX_OPTION_TEXT}")
    if spec.type == "enum" and value not in spec.choices:
        raise _fail(spec, f"{value[:40]!r} is not one of {', '.join(spec.choices)}")
    return value


def _cells_option(spec: OptionSpec, value: object) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(cell, str) and len(cell) <= 8 for cell in value):
        raise _fail(spec, 'must be a list of cell names such as ["a1", "c3"]')
    if len(value) > MAX_OPTION_CELLS:
        raise _fail(spec, f"{len(value)} cells; at most {MAX_OPTION_CELLS}")
    return list(value)


_CHECKERS: dict[str, Callable[[OptionSpec, object], OptionValue]] = {
    "int": _int_option,
    "bool": _bool_option,
    "string": _text_option,
    "enum": _text_option,
    "cells": _cells_option,
}


# --- reading checked options (``start_position``'s): each is of its spec's type ---


def int_option(options: Mapping[str, object], name: str) -> int:
    """The checked int option ``name``."""
    value = options[name]
    if not is_int(value):  # an engine's mistake: its spec says otherwise
        raise TypeError(f"option {name} is not a checked int: {value!r:.40}")
    return value


def bool_option(options: Mapping[str, object], name: str) -> bool:
    """The checked bool option ``name``."""
    value = options[name]
    if not isinstance(value, bool):
        raise TypeError(f"option {name} is not a checked bool: {value!r:.40}")
    return value


def text_option(options: Mapping[str, object], name: str) -> str:
    """The checked string or enum option ``name``."""
    value = options[name]
    if not isinstance(value, str):
        raise TypeError(f"option {name} is not a checked string: {value!r:.40}")
    return value


def cells_option(options: Mapping[str, object], name: str) -> Sequence[str]:
    """The checked cells option ``name`` (a list, or the spec's default)."""
    value = options[name]
    if not isinstance(value, list | tuple) or not all(isinstance(cell, str) for cell in value):
        raise TypeError(f"option {name} is not a checked list of cells: {value!r:.40}")
    return value
