"""A Python client of the gamerules service (gRPC), sync and asyncio, and the ``gamerules`` command line tool.

::

    from gamerules_client import GameRulesClient, IllegalMoveError

    with GameRulesClient("localhost:50051") as client:
        start = client.new_game("kalah").position
        after = client.apply_move("kalah", start, "3")
        print(after.position.notation, [event.detail for event in after.events])

``AsyncGameRulesClient`` has the same methods as coroutines (``async with``, ``await client.new_game(...)``).
"""

from __future__ import annotations

from .aio import AsyncGameRulesClient
from .client import (
    DEFAULT_BEST_MOVE_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    GameRulesClient,
    channel_options,
    service_config,
)
from .environment import DEFAULT_TARGET, default_target
from .errors import (
    DeadlineExceededError,
    FailedPreconditionError,
    FieldViolation,
    GameRulesError,
    InvalidArgumentError,
    NotFoundError,
    PreconditionViolation,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
    from_rpc_error,
)
from .notations import fields, game_id, game_name, move, moves, notation, options, parse_option, position

# A well-formed move this position does not allow is a failed precondition (reason ILLEGAL_MOVE or GAME_OVER).
IllegalMoveError = FailedPreconditionError

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_BEST_MOVE_TIMEOUT_S",
    "DEFAULT_TARGET",
    "DEFAULT_TIMEOUT_S",
    "AsyncGameRulesClient",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "FieldViolation",
    "GameRulesClient",
    "GameRulesError",
    "IllegalMoveError",
    "InvalidArgumentError",
    "NotFoundError",
    "PreconditionViolation",
    "ResourceExhaustedError",
    "UnauthenticatedError",
    "UnavailableError",
    "channel_options",
    "default_target",
    "fields",
    "from_rpc_error",
    "game_id",
    "game_name",
    "move",
    "moves",
    "notation",
    "options",
    "parse_option",
    "position",
    "service_config",
]
