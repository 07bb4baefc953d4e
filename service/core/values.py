"""The plain values every layer trades in: moves, events, outcomes, option specs, limits and search results.

Nothing here knows a game, the search or the transport; every other package may import this one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

# A move as an engine sees it: a small hashable value the engine chooses (an int square, pit or line, a tuple
# of cells). Each engine names its own (``ReversiMove``...), and its Position is generic in it
# (``contract.Position[MoveT]``); code that knows no game holds moves as ``Move``.
Move = Hashable

# Closed vocabularies: the only words these fields take, here and in the API (the OpenAPI document lists them as
# enums from these tuples; mypy holds the engines to them).

# ``Event.type``: one word per idea, shared by the games where the idea is the same.
EventType = Literal[
    "place", "flip", "pass", "sow", "capture", "extra_turn", "sweep", "line", "box", "points", "phase", "game_over"
]
# ``Outcome.reason``: the rule that decided a result; "draw" for every draw.
ResultReason = Literal["discs", "seeds", "boxes", "points", "largest_group", "non_opener", "group_sizes", "draw"]
# ``SearchResult.stop_reason``: why a search stopped ("rule": a level's rule chose the move, no search).
StopReason = Literal["depth", "time", "nodes", "deadline", "cancelled", "solved", "rule"]
# ``BestMoveRequest.purpose``: a bot's move (the level's seeded variety) or an analysis (its strongest move).
Purpose = Literal["play", "analysis"]
# ``OptionSpec.type``: "cells" is a list of cell names.
OptionType = Literal["int", "bool", "string", "enum", "cells"]
# The colours a board image is drawn in (``service/render``; RenderPosition's ``theme``).
RenderTheme = Literal["classic", "dark", "print"]
EVENT_TYPES: tuple[str, ...] = get_args(EventType)
RESULT_REASONS: tuple[str, ...] = get_args(ResultReason)
STOP_REASONS: tuple[str, ...] = get_args(StopReason)
PURPOSES: tuple[str, ...] = get_args(Purpose)
OPTION_TYPES: tuple[str, ...] = get_args(OptionType)
RENDER_THEMES: tuple[str, ...] = get_args(RenderTheme)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened while a move was applied, in the order it happened.

    ``type`` is a game word shared across games where the idea is the same (``EVENT_TYPES``).
    """

    type: EventType
    seat: int = 0  # the seat it happened to or for, 0 when none
    cells: tuple[str, ...] = ()  # squares / pits / lines / cells involved, in notation
    count: int = 0  # how many (discs flipped, seeds captured, points scored, boxes...)
    detail: str = ""  # one human-readable sentence


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game: who won and which rule decided it (python-chess's Outcome)."""

    winner: int  # 1 or 2; 0 for a draw
    # The rule that decided a win, or "draw" when nobody won (Reversi, Kalah, Dots and Boxes): the engines, the
    # API (ScoreResponse.reason) and the CLI say the same word; the vocabulary is listed in docs/api.md.
    reason: ResultReason
    detail: str = ""  # one sentence, e.g. "Black 33 discs, White 31"


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of ``new_position``: its name (snake_case, as in the API), type, default and range."""

    name: str
    type: OptionType
    default: Any
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    step: int = 1  # an int option's values go from ``minimum`` in steps of this (Reversi's even board sides)


@dataclass(frozen=True, slots=True)
class Limits:
    """How long a search may run. ``None`` means no limit of that kind (chess.engine.Limit's model). ``spend``:
    the share of ``max_time_ms`` a search spends before it may decline to begin an iteration that cannot finish
    in the time left (0: it may decline at once; ``service/levels/budget.py`` sets it for every best move)."""

    max_time_ms: int | None = None
    max_depth: int | None = None
    max_nodes: int | None = None
    spend: float = 0.0


@dataclass(frozen=True, slots=True)
class Level:
    """A named best-move level: what it plays like, the limits it searches with by default, and the time a person
    of its strength would take over a move (``think_ms``: a hint a portal may pace the bot with; 0: none given)."""

    name: str
    description: str
    limits: Limits = field(default_factory=Limits)
    think_ms: int = 0


@dataclass(frozen=True, slots=True)
class ScoredMove:
    """A move with its value from the mover's point of view, and whether that value is proved."""

    move: Move
    value: float
    exact: bool = False
    pv: tuple[Move, ...] = ()  # the move's own line, starting with it, as long as the search knows it


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
    # One of STOP_REASONS; a str because the search takes it from its stop signal at run time (a test holds
    # every search to the set).
    stop_reason: str = ""
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
# string ("deadline", "cancelled"), which the search reports as its stop_reason. Any such callable will do;
# what a search asks of it besides, it asks of its ``Stop`` (``as_stop``).
StopSignal = Callable[[], bool | str]


class Stop:
    """A stop signal with everything a search may ask of it, declared: called, something true when the search
    must stop (True, or the reason as a string); ``end``, the ``time.monotonic()`` instant by which it fires by
    itself (None: none known), for work that cannot be polled (native searches read it themselves);
    ``on_iteration``, called with each completed iteration's partial result (streamed analysis; None: nobody
    listens); ``clock_only``, whether only the clock can fire it (a native search then needs nobody asking it
    while it runs); ``reason``, why it fired once it has (a Deadline's). Subclasses set what they know."""

    __slots__ = ()

    end: float | None = None
    on_iteration: Callable[[SearchResult], None] | None = None
    reason: str = ""

    @property
    def clock_only(self) -> bool:
        return False

    def __call__(self) -> bool | str:
        return False


class _Signal(Stop):
    """A plain callable as a ``Stop``: it knows no end, reports nothing and is not the clock."""

    __slots__ = ("_signal",)

    def __init__(self, signal: StopSignal) -> None:
        self._signal = signal

    def __call__(self) -> bool | str:
        return self._signal()


def as_stop(signal: StopSignal) -> Stop:
    """``signal`` as a ``Stop`` (itself when it is one)."""
    return signal if isinstance(signal, Stop) else _Signal(signal)
