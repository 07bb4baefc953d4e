"""The neutral core: the values, errors and engine contract every other layer is written against.

The layers of ``service/`` and what each may import (a test, ``tests/test_layers.py``, enforces it):

- ``service.core``: nothing of ours.
- ``service.engines`` (one package per game: state and rules, notation, evaluation features): core.
- ``service.search`` (game-independent algorithms over the contract): core.
- ``service.native`` (the compiled kernels and their loader): core.
- ``service.levels`` (which algorithm, evaluation and budget each level of each game uses): core, engines,
  search, native.
- ``service.render`` (the board images, drawn through the engine contract): core.
- ``service.games`` (the registry: each game's registration names its engine, levels and drawing): everything
  above but the transport.
- ``service.api`` and ``service.run`` (the transport: gRPC, REST, metrics): everything below.
- ``service.learn`` (offline training of the evaluations the levels ship as data): everything below the
  transport; nothing imports it, so the service never trains.
"""

from service.core.contract import Game, Position
from service.core.errors import (
    GameOverError,
    IllegalMove,
    InvalidMove,
    InvalidOption,
    InvalidPosition,
    NotationError,
    RulesError,
    UnknownLevel,
)
from service.core.values import (
    EVENT_TYPES,
    OPTION_TYPES,
    PURPOSES,
    RENDER_THEMES,
    RESULT_REASONS,
    STOP_REASONS,
    Event,
    Level,
    Limits,
    Move,
    MoveGroup,
    OptionSpec,
    Outcome,
    Purpose,
    ScoredMove,
    SearchResult,
    Stop,
    StopSignal,
    as_stop,
)

__all__ = [
    "EVENT_TYPES",
    "OPTION_TYPES",
    "PURPOSES",
    "RENDER_THEMES",
    "RESULT_REASONS",
    "STOP_REASONS",
    "Event",
    "Game",
    "GameOverError",
    "IllegalMove",
    "InvalidMove",
    "InvalidOption",
    "InvalidPosition",
    "Level",
    "Limits",
    "Move",
    "MoveGroup",
    "NotationError",
    "OptionSpec",
    "Outcome",
    "Position",
    "Purpose",
    "RulesError",
    "ScoredMove",
    "SearchResult",
    "Stop",
    "StopSignal",
    "UnknownLevel",
    "as_stop",
]
