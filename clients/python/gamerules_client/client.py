"""``GameRulesClient``: typed methods over the generated gRPC stubs, with deadlines and retries done right.

- **Deadlines by default.** Every call has one: ``timeout`` (5 s) for the cheap calls, ``best_move_timeout``
  (15 s, the server's 10 s think cap plus the trip) for BestMove, which the server always answers before
  the deadline with the best move found so far. Any call takes its own ``timeout=`` too.
- **Retries only where safe.** The channel's gRPC service config retries UNAVAILABLE (the server could not
  be reached or is shutting down: nothing ran) with exponential backoff, within the call's deadline. Every
  RPC is a pure function of its request, so a retry can never do something twice; other codes are answers,
  not accidents, and are never retried. RESOURCE_EXHAUSTED is the server asking to back off: a BestMove
  waits the server's ``google.rpc.RetryInfo`` delay (a random quarter more) and tries again, up to
  ``overload_retries`` (2) times while its deadline leaves half a second for the answer, then raises
  ``ResourceExhaustedError`` with ``retry_after_s``.
- **Balanced.** The channel uses the round_robin policy: with ``dns:///name:port`` naming several servers (a
  Kubernetes headless Service) its calls spread over all of them instead of sticking to one connection.
- **Errors as exceptions** carrying the ``google.rpc.Status`` details (``errors.py``).

Positions and moves are taken as notation strings or messages (``notations.py``)::

    with GameRulesClient("localhost:50051") as client:
        start = client.new_game("reversi").position
        print(client.legal_moves("reversi", start).moves[0].notation)   # c4
        print(client.best_move("reversi", start, level="beginner").move.notation)
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from . import _requests as rq
from . import notations as nt
from ._stubs import SERVICE, pb, pb_grpc
from .environment import default_target
from .errors import ResourceExhaustedError, from_rpc_error

DEFAULT_TIMEOUT_S = 5.0
DEFAULT_BEST_MOVE_TIMEOUT_S = 15.0
DEFAULT_MAX_ATTEMPTS = 4
MAX_MESSAGE_BYTES = 16 << 20

_Response = TypeVar("_Response")


def service_config(max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> str:
    """The channel's gRPC service config: retry UNAVAILABLE only, on GameRules and Health; spread calls over
    every address the target resolves to (a Kubernetes headless Service: one per pod)."""
    return json.dumps(
        {
            "loadBalancingConfig": [{"round_robin": {}}],
            "methodConfig": [
                {
                    "name": [{"service": SERVICE}, {"service": "grpc.health.v1.Health"}],
                    "retryPolicy": {
                        "maxAttempts": max(2, min(max_attempts, 5)),  # gRPC caps attempts at 5
                        "initialBackoff": "0.1s",
                        "maxBackoff": "2s",
                        "backoffMultiplier": 2,
                        "retryableStatusCodes": ["UNAVAILABLE"],
                    },
                }
            ],
        }
    )


def channel_options(max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> list[tuple[str, Any]]:
    return [
        ("grpc.service_config", service_config(max_attempts)),
        ("grpc.enable_retries", 1),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ]


class GameRulesClient:
    """A client of the GameRules service on ``target`` (``host:port``; default ``GAMERULES_GRPC_TARGET``, else
    ``localhost:50051``). Thread-safe; close it (or use it as a context manager) to close its channel.

    ``credentials`` makes a TLS channel (``grpc.ssl_channel_credentials(...)``); ``metadata`` is sent with
    every call (e.g. ``[("x-api-key", KEY)]``); ``channel`` uses a channel you made instead.
    """

    def __init__(
        self,
        target: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        best_move_timeout: float = DEFAULT_BEST_MOVE_TIMEOUT_S,
        credentials: grpc.ChannelCredentials | None = None,
        metadata: Sequence[tuple[str, str]] = (),
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        overload_retries: int = rq.DEFAULT_OVERLOAD_RETRIES,
        channel: grpc.Channel | None = None,
    ) -> None:
        self.target = target = target or default_target()
        self.timeout = timeout
        self.best_move_timeout = best_move_timeout
        self.overload_retries = max(0, overload_retries)  # BestMove refused RESOURCE_EXHAUSTED: tried again
        self._metadata = tuple(metadata)
        self._own_channel = channel is None
        if channel is None:
            options = channel_options(max_attempts)
            if credentials is None:
                channel = grpc.insecure_channel(target, options=options)
            else:
                channel = grpc.secure_channel(target, credentials, options=options)
        self.channel = channel
        stub_class: Any = pb_grpc.GameRulesStub  # the generated stubs have no type hints
        self._stub = stub_class(channel)
        self._health = health_pb2_grpc.HealthStub(channel)

    def close(self) -> None:
        if self._own_channel:
            self.channel.close()

    def __enter__(self) -> GameRulesClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"GameRulesClient({self.target!r}, timeout={self.timeout!r})"

    def _call(self, method: Any, request: Any, timeout: float | None) -> Any:
        try:
            return method(request, timeout=self.timeout if timeout is None else timeout, metadata=self._metadata)
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None

    # --- the RPCs --------------------------------------------------------------------------------------

    def list_games(self, *, timeout: float | None = None) -> list[pb.Game]:
        """Every game: options with defaults and ranges, best-move levels, notation help."""
        response: pb.ListGamesResponse = self._call(self._stub.ListGames, pb.ListGamesRequest(), timeout)
        return list(response.games)

    def get_game(self, game: str, *, timeout: float | None = None) -> pb.Game:
        """One game's description (``reversi`` or ``games/reversi``)."""
        response: pb.Game = self._call(self._stub.GetGame, rq.get_game(game), timeout)
        return response

    def new_game(
        self, game: str, options: Mapping[str, Any] | None = None, seed: str = "", *, timeout: float | None = None
    ) -> pb.NewGameResponse:
        """The start position for ``options`` (names as in GetGame; missing ones take their defaults)."""
        response: pb.NewGameResponse = self._call(self._stub.NewGame, rq.new_game(game, options, seed), timeout)
        return response

    def legal_moves(
        self,
        game: str,
        position: nt.PositionLike,
        page_size: int = 0,
        page_token: str = "",
        *,
        timeout: float | None = None,
    ) -> pb.LegalMovesResponse:
        """One page of the legal moves (``next_page_token`` for the next), the seat to move, game over."""
        request = rq.legal_moves(game, position, page_size, page_token)
        response: pb.LegalMovesResponse = self._call(self._stub.LegalMoves, request, timeout)
        return response

    def iter_legal_moves(
        self, game: str, position: nt.PositionLike, page_size: int = 1000, *, timeout: float | None = None
    ) -> Iterator[pb.Move]:
        """Every legal move, page after page (Strands can have tens of thousands: stop when you have enough)."""
        token = ""
        while True:
            page = self.legal_moves(game, position, page_size, token, timeout=timeout)
            yield from page.moves
            token = page.next_page_token
            if not token:
                return

    def apply_move(
        self, game: str, position: nt.PositionLike, move: nt.MoveLike, *, timeout: float | None = None
    ) -> pb.ApplyMoveResponse:
        """The position after ``move`` and the events (flips, captures, passes, boxes, points...)."""
        response: pb.ApplyMoveResponse = self._call(self._stub.ApplyMove, rq.apply_move(game, position, move), timeout)
        return response

    def apply_moves(
        self, game: str, position: nt.PositionLike, moves: Iterable[nt.MoveLike], *, timeout: float | None = None
    ) -> pb.ApplyMovesResponse:
        """Every step of a sequence of moves (replay; undo = replay one fewer)."""
        request = rq.apply_moves(game, position, moves)
        response: pb.ApplyMovesResponse = self._call(self._stub.ApplyMoves, request, timeout)
        return response

    def score(self, game: str, position: nt.PositionLike, *, timeout: float | None = None) -> pb.ScoreResponse:
        """Each seat's score; once over, the winner (absent for a draw) and the deciding reason."""
        response: pb.ScoreResponse = self._call(self._stub.Score, rq.score(game, position), timeout)
        return response

    def batch_score(
        self, game: str, positions: Iterable[nt.PositionLike], *, timeout: float | None = None
    ) -> list[pb.ScoreResponse]:
        """Score for up to 100 positions of one game."""
        response: pb.BatchScoreResponse = self._call(self._stub.BatchScore, rq.batch_score(game, positions), timeout)
        return list(response.scores)

    def best_move(
        self,
        game: str,
        position: nt.PositionLike,
        level: str = "",
        *,
        max_time_ms: int = 0,
        max_depth: int = 0,
        max_nodes: int = 0,
        seed: str = "",
        top_n: int = 0,
        purpose: str = "",
        rating: int | None = None,
        timeout: float | None = None,
    ) -> pb.BestMoveResponse:
        """A move at ``level`` (empty: the game's default) or within the limits, with value, exactness, depth,
        nodes, principal variation and ``top_n`` scored alternatives (best first); ``purpose`` ``"analysis"`` asks for
        the strongest move without the level's seeded variety (empty: ``"play"``). ``rating`` (instead of a
        ``level``) asks for the rung of the game's rated ladder nearest it; the answer's ``level`` names it. The
        deadline defaults to ``best_move_timeout`` (longer when ``max_time_ms`` asks for more); the server answers
        before it."""
        request = rq.search(
            pb.BestMoveRequest,
            game,
            position,
            level,
            max_time_ms=max_time_ms,
            max_depth=max_depth,
            max_nodes=max_nodes,
            seed=seed,
            top_n=top_n,
            purpose=purpose,
            rating=rating,
        )
        timeout = rq.search_timeout(timeout, self.best_move_timeout, max_time_ms)
        deadline = time.monotonic() + timeout
        for attempt in range(self.overload_retries + 1):
            try:
                response: pb.BestMoveResponse = self._call(
                    self._stub.BestMove, request, max(deadline - time.monotonic(), 0.0)
                )
                return response
            except ResourceExhaustedError as refused:
                left = deadline - time.monotonic()
                wait = rq.overload_wait(refused.retry_after_s, left, random.random())
                if attempt == self.overload_retries or wait is None:
                    raise
            time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def analyze_position(
        self,
        game: str,
        position: nt.PositionLike,
        level: str = "",
        *,
        max_time_ms: int = 0,
        max_depth: int = 0,
        max_nodes: int = 0,
        seed: str = "",
        top_n: int = 0,
        purpose: str = "",
        rating: int | None = None,
        timeout: float | None = None,
    ) -> Iterator[pb.AnalyzePositionResponse]:
        """BestMove's search as it deepens: one message per completed iteration, then the final answer
        (``final`` true); ``rating`` as in ``best_move``. Stop reading early (or close the iterator) and the search
        stops too."""
        request = rq.search(
            pb.AnalyzePositionRequest,
            game,
            position,
            level,
            max_time_ms=max_time_ms,
            max_depth=max_depth,
            max_nodes=max_nodes,
            seed=seed,
            top_n=top_n,
            purpose=purpose,
            rating=rating,
        )
        timeout = rq.search_timeout(timeout, self.best_move_timeout, max_time_ms)
        yield from self._stream(self._stub.AnalyzePosition, request, timeout)

    def review_game(
        self,
        game: str,
        moves: Iterable[nt.MoveLike],
        position: nt.PositionLike | None = None,
        *,
        options: Mapping[str, Any] | None = None,
        seed: str = "",
        level: str = "",
        max_time_ms: int = 0,
        max_depth: int = 0,
        max_nodes: int = 0,
        timeout: float | None = None,
    ) -> Iterator[pb.ReviewGameResponse]:
        """Every move of a game judged (``ReviewGame``): one ``ply`` message per move as it is reviewed, then the
        ``summary``. ``position`` is the start (None: the game's start for ``options`` and ``seed``); ``level``
        (empty: the strongest) and the limits apply to each ply; the deadline defaults to
        ``DEFAULT_REVIEW_TIMEOUT_S`` (120 s), and plies it leaves no time for come back unreviewed."""
        request = rq.review_game(
            game,
            moves,
            position,
            options=options,
            seed=seed,
            level=level,
            max_time_ms=max_time_ms,
            max_depth=max_depth,
            max_nodes=max_nodes,
        )
        timeout = timeout if timeout is not None else rq.DEFAULT_REVIEW_TIMEOUT_S
        yield from self._stream(self._stub.ReviewGame, request, timeout)

    def _stream(self, method: Any, request: Any, timeout: float) -> Iterator[Any]:
        """A server stream's messages; an error as the client's exception; closing early cancels the call."""
        stream = method(request, timeout=timeout, metadata=self._metadata)
        try:
            yield from stream
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        finally:
            stream.cancel()

    def render_position(
        self,
        game: str,
        position: nt.PositionLike,
        *,
        size: int = 0,
        last_move: str = "",
        show_legal_moves: bool = False,
        arrows: Sequence[str] = (),
        coordinates: bool = True,
        flip: bool = False,
        theme: str = "",
        timeout: float | None = None,
    ) -> bytes:
        """The board as an SVG image (its bytes): ``size`` pixels wide (0: the server's default), the last move
        highlighted, the legal moves marked, ``arrows`` (a move or a line) drawn, turned round with ``flip``."""
        request = rq.render_position(
            game,
            position,
            size=size,
            last_move=last_move,
            show_legal_moves=show_legal_moves,
            arrows=arrows,
            coordinates=coordinates,
            flip=flip,
            theme=theme,
        )
        response = self._call(self._stub.RenderPosition, request, timeout)
        data: bytes = response.data
        return data

    def ready(self, *, timeout: float = 2.0) -> bool:
        """Whether the server answers its health check as SERVING for GameRules."""
        try:
            answer = self._health.Check(
                health_pb2.HealthCheckRequest(service=SERVICE), timeout=timeout, metadata=self._metadata
            )
        except grpc.RpcError:
            return False
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)
