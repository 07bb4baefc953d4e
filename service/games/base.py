"""The engine interface every game implements, and the plain values engines trade in.

Rules live in ``shared/spec/rules.md`` (one section per game); this module only fixes the shape every
engine has, so the transport layer (``service/api``) and the search core (``service/search``) can be
generic over the registry in ``service/games/__init__.py``.

An engine is one module with:

- a ``Game`` object (the factory): id, title, option specs, levels, ``new_position``, ``parse_position``,
  ``position_from_fields``, ``best_move``;
- a ``Position`` class (the state, immutable and hashable, compact inside: ints, bitboards, tuples) that
  holds the rules: ``legal_moves``, ``apply``, ``outcome``, notation in and out, and the search hooks.

Moves are engine-internal compact values (an int, a tuple, a bitmask): hashable, never protobuf.
Engines import nothing of ours but this module and ``service.search``; never protobuf, gRPC or Flask.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, cast

# A move as an engine sees it: any small hashable value the engine chooses (int square, pit, line...).
Move = Hashable


# --------------------------------------------------------------------------------------------------
# Errors. Each carries the request-relative field it is about and a stable reason; the transport maps
# the class to a gRPC code and builds BadRequest / ErrorInfo details from the rest.


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


# --------------------------------------------------------------------------------------------------
# Values.


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened while a move was applied, in the order it happened.

    ``type`` is a game word shared across games where the idea is the same: ``place``, ``flip``,
    ``pass``, ``sow``, ``capture``, ``extra_turn``, ``sweep``, ``line``, ``box``, ``points``,
    ``phase``, ``game_over``.
    """

    type: str
    seat: int = 0  # the seat it happened to or for, 0 when none
    cells: tuple[str, ...] = ()  # squares / pits / lines / cells involved, in notation
    count: int = 0  # how many (discs flipped, seeds captured, points scored, boxes...)
    detail: str = ""  # one human-readable sentence


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game: who won and which rule decided it (python-chess's Outcome)."""

    winner: int  # 1 or 2; 0 for a draw
    # The rule that decided a win: "discs", "seeds", "boxes", "points", "largest_group", "non_opener",
    # "group_sizes"; "draw" when nobody won (Reversi, Kalah, Dots and Boxes). The API passes it on as is
    # (ScoreResponse.reason; the vocabulary is listed in docs/api.md).
    reason: str
    detail: str = ""  # one sentence, e.g. "Black 33 discs, White 31"


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of ``new_position``: its name (snake_case, as in the API), type, default and range."""

    name: str
    type: str  # "int", "bool", "string", "enum" or "cells" (a list of cell names)
    default: Any
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Limits:
    """How long a search may run. ``None`` means no limit of that kind (chess.engine.Limit's model)."""

    max_time_ms: int | None = None
    max_depth: int | None = None
    max_nodes: int | None = None


@dataclass(frozen=True, slots=True)
class Level:
    """A named best-move level: what it plays like, and the limits it searches with by default."""

    name: str
    description: str
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True, slots=True)
class ScoredMove:
    """A move with its value from the mover's point of view, and whether that value is proved."""

    move: Move
    value: float
    exact: bool = False


@dataclass(slots=True)
class SearchResult:
    """What ``best_move`` answers. Values are from the mover's point of view in the game's own units
    (final margin of discs / seeds / boxes / points when ``exact``; an estimate otherwise)."""

    move: Move
    value: float
    exact: bool
    depth: int = 0
    nodes: int = 0
    elapsed_ms: float = 0.0
    stop_reason: str = ""  # "depth", "time", "nodes", "deadline", "cancelled", "solved", "rule" (no search)
    pv: list[Move] = field(default_factory=list)
    alternatives: list[ScoredMove] = field(default_factory=list)  # best first, includes ``move``


@dataclass(frozen=True, slots=True)
class MoveGroup:
    """One part of a compact move space (Strands): cover ``min_count``..``max_count`` of ``cells``."""

    label: int
    cells: tuple[str, ...]
    min_count: int
    max_count: int


# A callable the search polls; returns something true when the search must stop: True, or the reason as a
# string ("deadline", "cancelled"), which the search reports as its stop_reason.
StopSignal = Callable[[], bool | str]


# --------------------------------------------------------------------------------------------------
# The interface.


class Position(Protocol):
    """One position of one game: immutable, hashable, equal iff the positions are the same."""

    @property
    def to_move(self) -> int:
        """Seat to move, 1 or 2; 0 once the game is over."""
        ...

    def to_notation(self) -> str:
        """The compact one-line text form; ``Game.parse_position(p.to_notation()) == p``."""
        ...

    def to_fields(self) -> dict[str, Any]:
        """The structured form: a dict whose keys are the proto message's field names (snake_case)."""
        ...

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to move, in a stable order; [] once the game is over.
        (Strands may refuse huge lists here; callers page with ``legal_moves_page``.)"""
        ...

    def legal_move_count(self) -> int:
        """How many legal moves there are, computed without enumerating where that matters."""
        ...

    def legal_moves_page(self, start: int, count: int) -> list[Move]:
        """Moves ``start .. start+count-1`` of the stable order of ``legal_moves``."""
        ...

    def parse_move(self, text: str) -> Move:
        """Read a move in notation. InvalidMove if malformed; legality is ``apply``'s business."""
        ...

    def move_from_fields(self, fields: Mapping[str, Any]) -> Move:
        """Read a move from its structured form (keys = the proto move message's field names)."""
        ...

    def move_notation(self, move: Move) -> str:
        """The canonical notation of a move (round-trips through ``parse_move``)."""
        ...

    def move_to_fields(self, move: Move) -> dict[str, Any]:
        """The structured form of a move."""
        ...

    def apply(self, move: Move) -> tuple[Position, list[Event]]:
        """Play a move after checking it: GameOverError / IllegalMove. Returns the next position and
        what happened (including forced passes and the end of the game)."""
        ...

    def outcome(self) -> Outcome | None:
        """The result once the game is over, else None."""
        ...

    def scores(self) -> tuple[int, int]:
        """Each seat's headline number now (discs, seeds in store, points, boxes, largest group)."""
        ...

    # --- hooks for service/search: fast, unchecked ---

    def play(self, move: Move) -> Position:
        """``apply`` without checks or events, for search. The move must come from ``legal_moves`` or
        ``search_moves``."""
        ...

    def search_moves(self) -> Sequence[Move]:
        """The moves search considers, best first by cheap hints. Usually ``legal_moves`` ordered;
        may be a sound reduction (Strands: only full-size covers; Dots and Boxes: chain reductions)."""
        ...

    def evaluate(self, seat: int) -> float:
        """Heuristic value for ``seat`` in the game's own units (estimated final margin)."""
        ...

    # Optional hooks, looked up with getattr. By the transport:
    #   move_space(self) -> list[MoveGroup]        the compact move space (Strands)
    #   group_sizes(self, seat) -> list[int]       sorted group sizes (Strands; Petak Sawah)
    # By the search core's solve mode (service/search/__init__.py says how):
    #   plies_left(self) -> int                    how many plies the game has left at most
    #   endgame_value(self, alpha, beta, stop_at)  an exact value of a small endgame, or None

    def final_value(self, seat: int) -> float:
        """Exact value of a finished game for ``seat``: the final margin (plus or minus a half where a
        tie-break decided, for Petak Sawah). Only called when the game is over."""
        ...


class Game(Protocol):
    """A game: the factory of its positions, with everything GetGame describes."""

    id: str  # "reversi", "kalah", "dots-and-boxes", "petak-sawah", "strands"
    title: str
    description: str
    seat_names: tuple[str, str]  # the game's own names for seat 1 and seat 2 at the default start
    options: tuple[OptionSpec, ...]
    levels: tuple[Level, ...]
    default_level: str
    position_notation_help: str  # one paragraph: how the position notation reads
    move_notation_help: str

    def new_position(self, options: Mapping[str, Any], seed: str) -> Position:
        """The start position. ``options`` holds only known names with values already of the declared
        type and within minimum/maximum/choices (the transport checks that against ``options``);
        the engine checks combinations and raises InvalidOption. ``seed`` feeds any randomness
        (Petak Sawah rocks, Strands random layouts); same seed, same position, on every machine."""
        ...

    def parse_position(self, text: str) -> Position:
        """Read the position notation: NotationError if it does not parse, InvalidPosition if impossible."""
        ...

    def position_from_fields(self, fields: Mapping[str, Any]) -> Position:
        """Read the structured form (the proto message as a dict with snake_case keys, defaults filled
        in): InvalidPosition naming the field when impossible."""
        ...

    def best_move(
        self,
        position: Position,
        level: str | None,
        limits: Limits | None,
        seed: int,
        top_n: int,
        stop: StopSignal,
    ) -> SearchResult:
        """Choose a move. ``level`` None means the default level; ``limits`` (if any) override the
        level's own. Same arguments and no time limit => same answer. Must return promptly once
        ``stop()`` is true, with the best move found so far. Raises GameOverError on a finished game
        and UnknownLevel for a level not in ``levels``."""
        ...


class PlaysLevels:
    """``Game.best_move`` for a game whose levels are strategies for ``service.search.play_level``: the
    game names them in ``strategies`` (level name -> strategy) and inherits this."""

    strategies: ClassVar[Mapping[str, Callable[..., SearchResult]]]

    def best_move(
        self,
        position: Any,
        level: str | None,
        limits: Limits | None,
        seed: int,
        top_n: int,
        stop: StopSignal,
    ) -> SearchResult:
        from service.search import play_level  # imported here: the search core imports this module

        return play_level(cast(Any, self), position, level, limits, seed, top_n, stop, self.strategies)


def seeded_int(seed: str) -> int:
    """A stable 64-bit integer from a caller's seed string, the same on every machine and Python
    version (``hash()`` is salted per process and ``random.seed(str)`` may change across versions)."""
    import hashlib

    return int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:8], "big")
