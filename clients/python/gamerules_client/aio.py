"""``AsyncGameRulesClient``: the same methods, arguments, deadlines, retries and errors as ``GameRulesClient``,
for asyncio (``grpc.aio``); every call is a coroutine and ``iter_legal_moves`` an async iterator::

    async with AsyncGameRulesClient("localhost:50051") as client:
        start = (await client.new_game("reversi")).position
        step = await client.apply_move("reversi", start, "d3")
        async for move in client.iter_legal_moves("reversi", step.position):
            print(move.notation)

The requests are built by the same code as the sync client's (``_requests.py``) and failures raise the same
``GameRulesError`` subclasses (``errors.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping, Sequence
from typing import Any

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from . import _requests as rq
from . import notations as nt
from ._stubs import SERVICE, pb, pb_grpc
from .client import (
    DEFAULT_BEST_MOVE_TIMEOUT_S,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_TIMEOUT_S,
    channel_options,
)
from .environment import default_target
from .errors import ResourceExhaustedError, from_rpc_error


class AsyncGameRulesClient:
    """An asyncio client of the GameRules service on ``target`` (``host:port``; default
    ``GAMERULES_GRPC_TARGET``, else ``localhost:50051``). Make it inside the event loop
    that uses it; close it (``await client.close()``, or ``async with``) to close its channel.

    ``credentials`` makes a TLS channel (``grpc.ssl_channel_credentials(...)``); ``metadata`` is sent with
    every call (e.g. ``[("x-api-key", KEY)]``); ``channel`` uses a ``grpc.aio`` channel you made instead.
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
        channel: grpc.aio.Channel | None = None,
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
                channel = grpc.aio.insecure_channel(target, options=options)
            else:
                channel = grpc.aio.secure_channel(target, credentials, options=options)
        self.channel = channel
        stub_class: Any = pb_grpc.GameRulesStub  # the generated stubs have no type hints
        self._stub = stub_class(channel)
        self._health = health_pb2_grpc.HealthStub(channel)

    async def close(self) -> None:
        if self._own_channel:
            await self.channel.close()

    async def __aenter__(self) -> AsyncGameRulesClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AsyncGameRulesClient({self.target!r}, timeout={self.timeout!r})"

    async def _call(self, method: Any, request: Any, timeout: float | None) -> Any:
        try:
            return await method(request, timeout=self.timeout if timeout is None else timeout, metadata=self._metadata)
        except grpc.RpcError as error:  # grpc.aio.AioRpcError: the same code, details and trailing Status
            raise from_rpc_error(error) from None

    # --- the RPCs (as GameRulesClient's) ------------------------------------------------------------------

    async def list_games(self, *, timeout: float | None = None) -> list[pb.Game]:
        """Every game: options with defaults and ranges, best-move levels, notation help."""
        response: pb.ListGamesResponse = await self._call(self._stub.ListGames, pb.ListGamesRequest(), timeout)
        return list(response.games)

    async def get_game(self, game: str, *, timeout: float | None = None) -> pb.Game:
        """One game's description (``reversi`` or ``games/reversi``)."""
        response: pb.Game = await self._call(self._stub.GetGame, rq.get_game(game), timeout)
        return response

    async def new_game(
        self, game: str, options: Mapping[str, Any] | None = None, seed: str = "", *, timeout: float | None = None
    ) -> pb.NewGameResponse:
        """The start position for ``options`` (names as in GetGame; missing ones take their defaults)."""
        response: pb.NewGameResponse = await self._call(self._stub.NewGame, rq.new_game(game, options, seed), timeout)
        return response

    async def legal_moves(
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
        response: pb.LegalMovesResponse = await self._call(self._stub.LegalMoves, request, timeout)
        return response

    async def iter_legal_moves(
        self, game: str, position: nt.PositionLike, page_size: int = 1000, *, timeout: float | None = None
    ) -> AsyncIterator[pb.Move]:
        """Every legal move, page after page (Strands can have tens of thousands: stop when you have enough)."""
        token = ""
        while True:
            page = await self.legal_moves(game, position, page_size, token, timeout=timeout)
            for move in page.moves:
                yield move
            token = page.next_page_token
            if not token:
                return

    async def apply_move(
        self, game: str, position: nt.PositionLike, move: nt.MoveLike, *, timeout: float | None = None
    ) -> pb.ApplyMoveResponse:
        """The position after ``move`` and the events (flips, captures, passes, boxes, points...)."""
        request = rq.apply_move(game, position, move)
        response: pb.ApplyMoveResponse = await self._call(self._stub.ApplyMove, request, timeout)
        return response

    async def apply_moves(
        self, game: str, position: nt.PositionLike, moves: Iterable[nt.MoveLike], *, timeout: float | None = None
    ) -> pb.ApplyMovesResponse:
        """Every step of a sequence of moves (replay; undo = replay one fewer)."""
        request = rq.apply_moves(game, position, moves)
        response: pb.ApplyMovesResponse = await self._call(self._stub.ApplyMoves, request, timeout)
        return response

    async def score(self, game: str, position: nt.PositionLike, *, timeout: float | None = None) -> pb.ScoreResponse:
        """Each seat's score; once over, the winner (absent for a draw) and the deciding reason."""
        response: pb.ScoreResponse = await self._call(self._stub.Score, rq.score(game, position), timeout)
        return response

    async def batch_score(
        self, game: str, positions: Iterable[nt.PositionLike], *, timeout: float | None = None
    ) -> list[pb.ScoreResponse]:
        """Score for up to 100 positions of one game."""
        request = rq.batch_score(game, positions)
        response: pb.BatchScoreResponse = await self._call(self._stub.BatchScore, request, timeout)
        return list(response.scores)

    async def best_move(
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
                response: pb.BestMoveResponse = await self._call(
                    self._stub.BestMove, request, max(deadline - time.monotonic(), 0.0)
                )
                return response
            except ResourceExhaustedError as refused:
                left = deadline - time.monotonic()
                wait = rq.overload_wait(refused.retry_after_s, left, random.random())
                if attempt == self.overload_retries or wait is None:
                    raise
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    async def analyze_position(
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
    ) -> AsyncIterator[pb.AnalyzePositionResponse]:
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
        # aclosing: closing this generator early closes the stream's too, which cancels the call at once.
        async with contextlib.aclosing(self._stream(self._stub.AnalyzePosition, request, timeout)) as stream:
            async for response in stream:
                yield response

    async def review_game(
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
    ) -> AsyncIterator[pb.ReviewGameResponse]:
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
        # aclosing: closing this generator early closes the stream's too, which cancels the call at once.
        async with contextlib.aclosing(self._stream(self._stub.ReviewGame, request, timeout)) as stream:
            async for response in stream:
                yield response

    async def _stream(self, method: Any, request: Any, timeout: float) -> AsyncGenerator[Any, None]:
        """A server stream's messages; an error as the client's exception; closing early cancels the call."""
        stream = method(request, timeout=timeout, metadata=self._metadata)
        try:
            async for response in stream:
                yield response
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        finally:
            stream.cancel()

    async def render_position(
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
        response = await self._call(self._stub.RenderPosition, request, timeout)
        data: bytes = response.data
        return data

    async def ready(self, *, timeout: float = 2.0) -> bool:
        """Whether the server answers its health check as SERVING for GameRules."""
        try:
            answer = await self._health.Check(
                health_pb2.HealthCheckRequest(service=SERVICE), timeout=timeout, metadata=self._metadata
            )
        except grpc.RpcError:
            return False
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)
