"""The request message of each RPC, built from a method's arguments: shared by the sync and asyncio clients,
so both send exactly the same calls (``client.py``, ``aio.py``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from . import notations as nt
from ._stubs import pb


def get_game(game: str) -> pb.GetGameRequest:
    return pb.GetGameRequest(name=nt.game_name(game))


def new_game(game: str, options: Mapping[str, Any] | None, seed: str) -> pb.NewGameRequest:
    return pb.NewGameRequest(game=nt.game_name(game), options=nt.options(options), seed=seed)


def legal_moves(game: str, position: nt.PositionLike, page_size: int, page_token: str) -> pb.LegalMovesRequest:
    return pb.LegalMovesRequest(
        game=nt.game_name(game), position=nt.position(position), page_size=page_size, page_token=page_token
    )


def apply_move(game: str, position: nt.PositionLike, move: nt.MoveLike) -> pb.ApplyMoveRequest:
    return pb.ApplyMoveRequest(game=nt.game_name(game), position=nt.position(position), move=nt.move(move))


def apply_moves(game: str, position: nt.PositionLike, moves: Iterable[nt.MoveLike]) -> pb.ApplyMovesRequest:
    return pb.ApplyMovesRequest(game=nt.game_name(game), position=nt.position(position), moves=nt.moves(moves))


def score(game: str, position: nt.PositionLike) -> pb.ScoreRequest:
    return pb.ScoreRequest(game=nt.game_name(game), position=nt.position(position))


def batch_score(game: str, positions: Iterable[nt.PositionLike]) -> pb.BatchScoreRequest:
    return pb.BatchScoreRequest(game=nt.game_name(game), positions=[nt.position(p) for p in positions])


# BestMove and AnalyzePosition take the same fields: one builder for both, typed by the message it makes.
_Search = TypeVar("_Search", pb.BestMoveRequest, pb.AnalyzePositionRequest)


def search(
    message: type[_Search],
    game: str,
    position: nt.PositionLike,
    level: str,
    *,
    max_time_ms: int,
    max_depth: int,
    max_nodes: int,
    seed: str,
    top_n: int,
    purpose: str = "",
    rating: int | None = None,
) -> _Search:
    """``rating`` None: not sent (the server then plays ``level``); a number, even 0, is sent."""
    return message(
        game=nt.game_name(game),
        position=nt.position(position),
        level=level,
        limits=pb.SearchLimits(max_time_ms=max_time_ms, max_depth=max_depth, max_nodes=max_nodes),
        seed=seed,
        top_n=top_n,
        purpose=purpose,
        rating=rating,
    )


def review_game(
    game: str,
    moves: Iterable[nt.MoveLike],
    position: nt.PositionLike | None,
    *,
    options: Mapping[str, Any] | None,
    seed: str,
    level: str,
    max_time_ms: int,
    max_depth: int,
    max_nodes: int,
) -> pb.ReviewGameRequest:
    request = pb.ReviewGameRequest(
        game=nt.game_name(game),
        moves=nt.moves(moves),
        seed=seed,
        level=level,
        limits=pb.SearchLimits(max_time_ms=max_time_ms, max_depth=max_depth, max_nodes=max_nodes),
    )
    if position is not None:
        request.position.CopyFrom(nt.position(position))
    if options:
        request.options.CopyFrom(nt.options(options))
    return request


# A review searches every ply of a game in turn: its deadline is a game's worth of searches, not one's.
DEFAULT_REVIEW_TIMEOUT_S = 120.0


def render_position(
    game: str,
    position: nt.PositionLike,
    *,
    size: int,
    last_move: str,
    show_legal_moves: bool,
    arrows: Sequence[str],
    coordinates: bool,
    flip: bool,
    theme: str,
) -> pb.RenderPositionRequest:
    return pb.RenderPositionRequest(
        game=nt.game_name(game),
        position=nt.position(position),
        size=size,
        last_move=last_move,
        show_legal_moves=show_legal_moves,
        arrows=list(arrows),
        coordinates=coordinates,
        flip=flip,
        theme=theme,
    )


def search_timeout(timeout: float | None, default_s: float, max_time_ms: int) -> float:
    """A search's deadline (BestMove, AnalyzePosition): the call's own ``timeout``, else the client's default, or
    longer when ``max_time_ms`` asks for more thinking."""
    return timeout if timeout is not None else max(default_s, max_time_ms / 1000 + 2)


# BestMove refused RESOURCE_EXHAUSTED (the server's search slots and queue are full) is tried again after the
# server's retry delay, a random part of it more (so that refused callers do not all come back at once), while
# the call's own deadline leaves time for an answer: docs/api.md, "When the service is busy".
DEFAULT_OVERLOAD_RETRIES = 2
RETRY_JITTER = 0.25  # each wait is the server's delay times 1 to 1 + this
MIN_ANSWER_S = 0.5  # a retry is made only if this much of the deadline is left after its wait


def overload_wait(retry_after_s: float | None, left_s: float, random_fraction: float) -> float | None:
    """How long to wait before trying a refused BestMove again, or None to give up (raise the refusal):
    ``left_s`` is what is left of the call's deadline, ``random_fraction`` in [0, 1)."""
    wait = (retry_after_s if retry_after_s is not None else 1.0) * (1 + RETRY_JITTER * random_fraction)
    return wait if left_s - wait >= MIN_ANSWER_S else None
