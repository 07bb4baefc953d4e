"""The GameRules gRPC servicer: generic over the game registry, one method per RPC.

Each method decodes the request once (``service/api/codec.py``), asks the engine, and encodes the answer.
Every error leaves as a ``google.rpc.Status`` built in ``service/api/errors.py``; an unexpected exception
is logged and answered INTERNAL (the fuzz tests exist to keep that from ever happening).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import logging
import math
import queue
import random
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import grpc
from google.api import httpbody_pb2
from google.protobuf.message import Message
from grpc_status import rpc_status

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service import core
from service.api import callers, codec
from service.api.errors import ApiError, from_rules_error, invalid, overloaded, unknown_game
from service.api.limits import (
    DEFAULT_PAGE_SIZE,
    MAX_BATCH,
    MAX_LEVEL_CHARS,
    MAX_MOVES_PER_CALL,
    MAX_PAGE_SIZE,
    MAX_PAGE_TOKEN_CHARS,
    MAX_RATING,
    MAX_SEED_CHARS,
    MAX_TOP_N,
    MIN_RATING,
)
from service.api.required import check_required
from service.api.rpc import reviewing, searches
from service.api.version import VERSION
from service.core.contract import Game, MoveT, PositionT
from service.core.seeds import seeded_int
from service.games import REGISTRATIONS, Registration
from service.levels import GameLevels, judge
from service.levels.budget import LAG_FACTOR, SchedulingLag, answer_margin_s
from service.levels.driver import sort_alternatives
from service.levels.review import PlyReview, review, searches_needed
from service.render import DEFAULT_SIZE, RenderOptions, render

_log = logging.getLogger(__name__)

_FIELD_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class ServiceConfig:
    """Per-process serving limits (flags and environment in ``service/api/rpc/server.py``)."""

    max_think_ms: int = 10_000  # the cap on any one best-move search
    # Concurrent best-move searches in this process (``service/api/rpc/searches.py``: where they run and why).
    search_slots: int = field(default_factory=searches.default_capacity)
    # Best-move calls that may wait for a slot, each until its own deadline; more are refused at once, so
    # waiting calls never take all the request threads that cheap calls need.
    search_queue: int = 8
    search_mode: str = "process"  # or "thread": see service/api/rpc/searches.py
    # The longest a best move waits for a slot before it is refused (never past its own deadline).
    max_queue_wait_s: float = searches.DEFAULT_MAX_WAIT_S
    # The peers whose ``gamerules-caller`` metadata names the caller (``callers.py``): the gateway, a backend.
    trusted_peers: tuple[callers.Network, ...] = callers.trusted_networks(callers.DEFAULT_TRUSTED_PEERS)
    # The cores the searches run on (``service/api/cpus.py``); None: wherever the process may run.
    search_cores: frozenset[int] | None = None
    # A best move refused at once is answered only after a hold of up to this (a random part of it, never past
    # its deadline), on one of ``held_refusals`` threads of its own; beyond them, at once. A client that calls
    # again the moment its refusal arrives then calls about once a hold, not thousands of times a second on
    # the cores the rules calls need (``python -m bench --only serving --parts isolation``).
    refusal_hold_s: float = 1.0
    held_refusals: int = 32
    # Reply this long before the caller's deadline, so the answer arrives in time.
    deadline_margin_ms: int = 50
    # Signs page tokens, so a caller cannot forge one: a secret from the configuration (``GAMERULES_PAGE_TOKEN_KEY``),
    # shared by every worker and replica so that each accepts the others' tokens; unset, a random key per server.
    page_token_key: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)


# Called with (game id, level, result) after every search; the metrics module hooks in here.
SearchObserver = Callable[[str, str, core.SearchResult], None]

_Request = TypeVar("_Request", bound=Message)
_Response = TypeVar("_Response")


class _Checks(Protocol):
    """A servicer that checks a request's REQUIRED fields (``GameRulesServicer``)."""

    def _check(self, request: Message) -> None: ...


_Servicer = TypeVar("_Servicer", bound=_Checks)


def _rpc(
    method: Callable[[_Servicer, _Request, grpc.ServicerContext], _Response],
) -> Callable[[_Servicer, _Request, grpc.ServicerContext], _Response]:
    """Check the request's REQUIRED fields, then turn ApiError into a Status answer and any other exception
    into a logged INTERNAL."""

    @functools.wraps(method)
    def wrapper(self: _Servicer, request: _Request, context: grpc.ServicerContext) -> _Response:
        try:
            self._check(request)
            return method(self, request, context)
        except ApiError as error:
            context.abort_with_status(rpc_status.to_status(error.to_status()))
        except Exception:
            _log.exception("unexpected failure in %s", method.__name__)
            context.abort(grpc.StatusCode.INTERNAL, "internal error; it has been logged")
        raise AssertionError("unreachable: abort raises")  # pragma: no cover

    return wrapper


def _stream_rpc(
    method: Callable[[_Servicer, _Request, grpc.ServicerContext], Iterator[_Response]],
) -> Callable[[_Servicer, _Request, grpc.ServicerContext], Iterator[_Response]]:
    """``_rpc`` for a server-streaming method: its errors surface while the stream is read."""

    @functools.wraps(method)
    def wrapper(self: _Servicer, request: _Request, context: grpc.ServicerContext) -> Iterator[_Response]:
        try:
            self._check(request)
            yield from method(self, request, context)
        except ApiError as error:
            context.abort_with_status(rpc_status.to_status(error.to_status()))
        except Exception:
            _log.exception("unexpected failure in %s", method.__name__)
            context.abort(grpc.StatusCode.INTERNAL, "internal error; it has been logged")

    return wrapper


@dataclass
class _Search:
    """A checked best-move call, ready to run: what BestMove and AnalyzePosition share."""

    game: Game
    position: core.Position[Any]
    request: pb.BestMoveRequest
    level: str  # the level that searches: the one asked, or the rung a rating chose ("": the game's default)
    limits: core.Limits | None  # the caller's, as asked (the level's Budget caps the time)
    top_n: int
    purpose: core.Purpose
    stop: _CallStop
    caller: callers.Caller


class GameRulesServicer(pb_grpc.GameRulesServicer):
    def __init__(
        self,
        config: ServiceConfig | None = None,
        observe_search: SearchObserver | None = None,
        observe_refusal: Callable[[str], None] | None = None,
        registrations: Iterable[Registration] = REGISTRATIONS,
    ) -> None:
        served = tuple(registrations)
        self._games: Mapping[str, Game] = {game.id: game.game for game in served}
        self._levels: Mapping[str, GameLevels[Any, Any]] = {game.id: game.levels for game in served}
        self._draws = {game.id: game.draw for game in served}
        self._config = config or ServiceConfig()
        self._searches = searches.SearchPool(
            self._config.search_slots,
            self._config.search_queue,
            self._config.search_mode,
            cores=self._config.search_cores,
            max_wait_s=self._config.max_queue_wait_s,
        )
        self._observe_search = observe_search
        self._observe_refusal = observe_refusal  # called with the caller's class of each refused search
        holding = self._config.held_refusals > 0 and self._config.refusal_hold_s > 0
        self._holds = threading.BoundedSemaphore(self._config.held_refusals) if holding else None
        # How late the searches' priority wakes lately: the answer margin keeps that much more (``budget.py``).
        self._lag = SchedulingLag(searches.SEARCH_NICE)
        # Descriptions never change while the process runs: encode them once.
        self._described = {game.id: codec.encode_game(game.game, game.levels) for game in served}

    @property
    def searches_waiting(self) -> int:
        """The best moves and analyses waiting for a search slot now."""
        return self._searches.waiting

    def start_searches(self) -> None:
        """Start the search processes or threads now, not on the first BestMove, and the lag's sampling."""
        self._searches.start()
        self._lag.start()

    def close(self) -> None:
        """Stop the search processes or threads (searches in flight finish first)."""
        self._searches.close()

    # --- helpers ---------------------------------------------------------------------------------

    def _check(self, request: Message) -> None:
        """An unknown game first (a wrong path says more than a missing field), then the REQUIRED fields."""
        for name in ("game", "name"):
            if name in request.DESCRIPTOR.fields_by_name and getattr(request, name):
                self._game(getattr(request, name), name)
        check_required(request)

    def _game(self, name: str, field: str = "game") -> Game:
        if not name:
            raise invalid(field, "the game is required, e.g. 'games/reversi'")
        game = self._games.get(name.removeprefix("games/"))
        if game is None:
            raise unknown_game(name, field, self._games)
        return game

    def _token(self, position: core.Position[MoveT], offset: int) -> str:
        mac = hmac.new(self._config.page_token_key, f"{offset}|{position.to_notation()}".encode(), hashlib.sha256)
        raw = offset.to_bytes(8, "big") + mac.digest()[:12]
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def _offset(self, position: core.Position[MoveT], token: str) -> int:
        """The offset a page token stands for; the token must have been made for this very position."""
        if not token:
            return 0
        bad = invalid("page_token", "not a page token of this position's listing", "INVALID_PAGE_TOKEN")
        if len(token) > MAX_PAGE_TOKEN_CHARS:
            raise bad
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise bad from None
        if len(raw) != 20:
            raise bad
        offset = int.from_bytes(raw[:8], "big")
        if not hmac.compare_digest(self._token(position, offset), token.rstrip("=")):
            raise bad
        return offset

    # --- RPCs --------------------------------------------------------------------------------------

    @_rpc
    def ListGames(self, request: pb.ListGamesRequest, context: grpc.ServicerContext) -> pb.ListGamesResponse:
        return pb.ListGamesResponse(games=list(self._described.values()), service_version=VERSION)

    @_rpc
    def GetGame(self, request: pb.GetGameRequest, context: grpc.ServicerContext) -> pb.Game:
        game = self._game(request.name, "name")
        return self._described[game.id]

    @_rpc
    def NewGame(self, request: pb.NewGameRequest, context: grpc.ServicerContext) -> pb.NewGameResponse:
        game = self._game(request.game)
        if len(request.seed) > MAX_SEED_CHARS:
            raise invalid("seed", f"is {len(request.seed)} characters long; at most {MAX_SEED_CHARS}")
        options = codec.decode_options(game, request.options)
        # No seed means "a new game", not "the same game every time": pick one and say which.
        seed = request.seed or secrets.token_hex(8)
        try:
            position = game.new_position(options, seed)
        except core.RulesError as error:
            raise from_rules_error(error, "options") from None
        response = pb.NewGameResponse(position=codec.encode_position(game, position), seed=seed)
        if position.to_move:
            response.to_move = position.to_move
        return response

    @_rpc
    def LegalMoves(self, request: pb.LegalMovesRequest, context: grpc.ServicerContext) -> pb.LegalMovesResponse:
        game = self._game(request.game)
        position = codec.decode_position(game, request.position)
        if request.page_size < 0:
            raise invalid("page_size", f"must not be negative, got {request.page_size}")
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        offset = self._offset(position, request.page_token)
        total = position.legal_move_count()
        if offset > total:
            raise invalid("page_token", "points past the end of the listing", "INVALID_PAGE_TOKEN")
        moves = position.legal_moves_page(offset, size)
        response = pb.LegalMovesResponse(
            moves=[codec.encode_move(game, position, move) for move in moves],
            game_over=position.outcome() is not None,
            # AIP-158's total_size is an int32; only giant custom Strands layouts could pass it.
            total_size=min(total, _FIELD_LIMIT),
        )
        if position.to_move:
            response.to_move = position.to_move
        if offset + len(moves) < total:
            response.next_page_token = self._token(position, offset + len(moves))
        move_space = position.move_space()
        if move_space is not None:
            for group in move_space:
                response.move_space.add(
                    label=group.label, cells=group.cells, min_count=group.min_count, max_count=group.max_count
                )
        return response

    def _apply(
        self, game: Game, position: PositionT, message: pb.Move, field: str
    ) -> tuple[PositionT, pb.ApplyMoveResponse]:
        move = codec.decode_move(game, position, message, field)
        try:
            after, events = position.apply(move)
        except core.RulesError as error:
            raise from_rules_error(error, field) from None
        step = pb.ApplyMoveResponse(
            position=codec.encode_position(game, after),
            events=[codec.encode_event(event) for event in events],
            game_over=after.outcome() is not None,
            move=codec.encode_move(game, position, move),
        )
        if after.to_move:
            step.to_move = after.to_move
        return after, step

    @_rpc
    def ApplyMove(self, request: pb.ApplyMoveRequest, context: grpc.ServicerContext) -> pb.ApplyMoveResponse:
        game = self._game(request.game)
        position = codec.decode_position(game, request.position)
        if not request.HasField("move"):
            raise invalid("move", 'a move is required, e.g. {"notation": "d3"}', "INVALID_MOVE")
        return self._apply(game, position, request.move, "move")[1]

    @_rpc
    def ApplyMoves(self, request: pb.ApplyMovesRequest, context: grpc.ServicerContext) -> pb.ApplyMovesResponse:
        game = self._game(request.game)
        position = codec.decode_position(game, request.position)
        if len(request.moves) > MAX_MOVES_PER_CALL:
            raise invalid("moves", f"{len(request.moves)} moves; at most {MAX_MOVES_PER_CALL} per call")
        response = pb.ApplyMovesResponse(position=request.position)
        current = position
        for index, message in enumerate(request.moves):
            current, step = self._apply(game, current, message, f"moves[{index}]")
            response.steps.append(step)
        response.position.CopyFrom(codec.encode_position(game, current))
        response.game_over = current.outcome() is not None
        if current.to_move:
            response.to_move = current.to_move
        return response

    def _score(self, game: Game, position: core.Position[MoveT]) -> pb.ScoreResponse:
        outcome = position.outcome()
        response = pb.ScoreResponse(
            scores=list(position.scores()),
            game_over=outcome is not None,
            position=codec.encode_position(game, position),
        )
        if outcome is not None:
            response.reason = outcome.reason
            response.detail = outcome.detail
            if outcome.winner:
                response.winner = outcome.winner
        if position.to_move:
            response.to_move = position.to_move
        for seat in (1, 2):
            sizes = position.group_sizes(seat)
            if sizes is not None:
                response.group_sizes.add(seat=seat, sizes=sizes)
        return response

    @_rpc
    def Score(self, request: pb.ScoreRequest, context: grpc.ServicerContext) -> pb.ScoreResponse:
        game = self._game(request.game)
        return self._score(game, codec.decode_position(game, request.position))

    @_rpc
    def BatchScore(self, request: pb.BatchScoreRequest, context: grpc.ServicerContext) -> pb.BatchScoreResponse:
        game = self._game(request.game)
        if len(request.positions) > MAX_BATCH:
            raise invalid("positions", f"{len(request.positions)} positions; at most {MAX_BATCH} per call")
        positions = [
            codec.decode_position(game, message, f"positions[{index}]")
            for index, message in enumerate(request.positions)
        ]
        return pb.BatchScoreResponse(scores=[self._score(game, position) for position in positions])

    def _prepare(
        self, request: pb.BestMoveRequest, context: grpc.ServicerContext, started: float, default: core.Purpose
    ) -> _Search:
        """Check a best-move request and work out when its search must stop (``default``: the purpose an empty
        ``purpose`` stands for)."""
        game = self._game(request.game)
        position = codec.decode_position(game, request.position)
        limits = _decode_limits(request.limits)
        purpose = _decode_purpose(request.purpose, default)
        if not 0 <= request.top_n <= MAX_TOP_N:
            raise invalid("top_n", f"must be 0 (one move) to {MAX_TOP_N}, got {request.top_n}")
        top_n = max(request.top_n, 1)
        if len(request.seed) > MAX_SEED_CHARS:
            raise invalid("seed", f"is {len(request.seed)} characters long; at most {MAX_SEED_CHARS}")
        if len(request.level) > MAX_LEVEL_CHARS:
            raise invalid("level", "is longer than any level name", "UNKNOWN_LEVEL")
        level = self._rated(game, request) if request.HasField("rating") else request.level
        if position.outcome() is not None:
            raise from_rules_error(core.GameOverError("the game is over: there is no move to choose"), "position")

        stop = self._call_stop(context, started)
        return _Search(game, position, request, level, limits, top_n, purpose, stop, self._caller(context))

    def _rated(self, game: Game, request: pb.BestMoveRequest) -> str:
        """The rung of the game's ladder a request's ``rating`` chooses (``GameLevels.rated``: the nearest measured
        rung, the lower of two as near)."""
        if request.level:
            raise invalid("rating", f"give a level or a rating, not both (level {request.level!r} was given too)")
        if not MIN_RATING <= request.rating <= MAX_RATING:
            raise invalid(
                "rating",
                f"must be {MIN_RATING} to {MAX_RATING} on the game's ladder scale (the random mover is 0), "
                f"got {request.rating}; GetGame lists each rung's rating",
            )
        try:
            return self._levels[game.id].rated(request.rating)
        except core.UnknownLevel as error:
            raise from_rules_error(error, "rating", text=True) from None

    def _call_stop(self, context: grpc.ServicerContext, started: float) -> _CallStop:
        """When a search that starts now must stop: in time for its answer to reach the caller before the
        deadline, and never later than the server's cap; waiting for a slot counts against the same time."""
        now = time.monotonic()
        capped, answer_by = now + self._config.max_think_ms / 1000, self._answer_by(context, started)
        if answer_by < capped:
            return _CallStop(context, max(answer_by, now), "deadline")
        return _CallStop(context, capped, "time")

    def _answer_by(self, context: grpc.ServicerContext, started: float) -> float:
        """The monotonic time by which a search must end for its answer to reach the caller before the
        deadline (``answer_margin_s`` before it), counting from ``started``; infinity without a deadline."""
        remaining: float | None = context.time_remaining()
        if remaining is None:
            return math.inf
        remaining -= time.monotonic() - started
        return (
            time.monotonic()
            + remaining
            - answer_margin_s(remaining, self._config.deadline_margin_ms, self._lag.seconds)
        )

    def _caller(self, context: grpc.ServicerContext) -> callers.Caller:
        metadata = {key: value for key, value in context.invocation_metadata() or () if isinstance(value, str)}
        return callers.identify(metadata.get, context.peer() or "", self._config.trusted_peers)

    def _run(self, search: _Search) -> core.SearchResult:
        """Run a prepared search in a search slot (refusing it when too many wait), and observe it."""
        request, game = search.request, search.game
        job = searches.SearchJob(
            game.id,
            search.position.to_notation(),
            search.level or None,
            search.limits,
            seeded_int(request.seed),
            search.top_n,
            search.stop.end,
            search.stop.reason,
            self._config.max_think_ms,
            search.purpose,
        )
        try:
            result = self._searches.run(job, search.stop, search.caller.name)
        except searches.Overloaded as error:
            if self._observe_refusal is not None:
                self._observe_refusal(search.caller.kind)
            if not error.waited:
                self._hold_refusal(search.stop)
            raise overloaded(f"{error}; retry in {error.retry_after_s} s", error.retry_after_s) from None
        except searches.CallerGone as error:  # nobody reads it: said for the call's log and metrics
            raise ApiError(grpc.StatusCode.CANCELLED, "CALLER_GONE", str(error)) from None
        except searches.SearchLost as error:
            raise ApiError(grpc.StatusCode.UNAVAILABLE, "SEARCH_LOST", f"{error}; retry") from None
        except core.UnknownLevel as error:
            raise from_rules_error(error, "level", text=True) from None
        except core.RulesError as error:
            raise from_rules_error(error, "position") from None
        if self._observe_search is not None:
            self._observe_search(game.id, search.level or self._levels[game.id].default, result)
        if not search.stop.active():
            result.stop_reason = "cancelled"
        return result

    def _hold_refusal(self, stop: _CallStop) -> None:
        """Wait a while before a refusal is answered (``ServiceConfig.refusal_hold_s``), while a hold thread
        is free, the caller waits and its deadline allows."""
        if self._holds is None or not self._holds.acquire(blocking=False):
            return
        try:
            until = min(time.monotonic() + self._config.refusal_hold_s * random.uniform(0.5, 1), stop.end)
            while stop.active() and (left := until - time.monotonic()) > 0:
                time.sleep(min(left, 0.05))
        finally:
            self._holds.release()

    def _best_move_response(self, search: _Search, result: core.SearchResult) -> pb.BestMoveResponse:
        game, position = search.game, search.position
        chances, stage = self._levels[game.id].win_chance, position.stage()
        return pb.BestMoveResponse(
            move=codec.encode_move(game, position, result.move),
            value=result.value,
            exact=result.exact,
            depth=result.depth,
            nodes=min(result.nodes, _FIELD_LIMIT),
            elapsed_ms=min(round(result.elapsed_ms), _FIELD_LIMIT),
            stop_reason=result.stop_reason,
            pv=codec.encode_line(game, position, result.pv),
            alternatives=[
                pb.ScoredMove(
                    move=codec.encode_move(game, position, scored.move),
                    value=scored.value,
                    exact=scored.exact,
                    pv=codec.encode_line(game, position, scored.pv),
                    win_chance=codec.encode_chance(chances.chance(scored.value, stage, scored.exact)),
                )
                for scored in result.alternatives
            ],
            level=search.level or self._levels[game.id].default,
            win_chance=codec.encode_chance(chances.chance(result.value, stage, result.exact)),
        )

    @_rpc
    def BestMove(self, request: pb.BestMoveRequest, context: grpc.ServicerContext) -> pb.BestMoveResponse:
        search = self._prepare(request, context, time.monotonic(), "play")
        return self._best_move_response(search, self._run(search))

    @_stream_rpc
    def AnalyzePosition(
        self, request: pb.AnalyzePositionRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.AnalyzePositionResponse]:
        started = time.monotonic()
        # The same fields under the same numbers: the request is a BestMove request.
        search = self._prepare(pb.BestMoveRequest.FromString(request.SerializeToString()), context, started, "analysis")
        # The search runs in a thread of its own and hands each completed iteration over; this thread sends
        # them. When the caller goes, the search's stop sees the call inactive and the search ends at once.
        updates: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        began = time.monotonic()

        def iteration(partial: core.SearchResult) -> None:
            partial.elapsed_ms = (time.monotonic() - began) * 1000
            sort_alternatives(partial)
            updates.put(("update", partial))

        def run() -> None:
            try:
                updates.put(("final", self._run(search)))
            except BaseException as error:  # handed to the sending thread, which answers with it
                updates.put(("error", error))

        search.stop.on_iteration = iteration
        worker = threading.Thread(target=run, name="analysis", daemon=True)
        worker.start()
        try:
            while True:
                kind, value = updates.get()
                if kind == "error":
                    try:
                        raise value
                    finally:
                        value = None  # the exception's traceback holds this frame: no cycle through it
                analysis = self._best_move_response(search, value)
                yield pb.AnalyzePositionResponse(analysis=analysis, final=kind == "final")
                if kind == "final":
                    return
        finally:
            search.stop.cancelled = True  # a stream closed early (the caller left) stops its search too
            search.stop.on_iteration = None  # it holds this call's queue and search: a cycle back to the stop

    @_stream_rpc
    def ReviewGame(
        self, request: pb.ReviewGameRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.ReviewGameResponse]:
        started = time.monotonic()
        game = self._game(request.game)
        levels = self._levels[game.id]
        if len(request.level) > MAX_LEVEL_CHARS:
            raise invalid("level", "is longer than any level name", "UNKNOWN_LEVEL")
        limits = _decode_limits(request.limits)
        try:
            levels.level(request.level or levels.strongest)
        except core.UnknownLevel as error:
            raise from_rules_error(error, "level", text=True) from None
        played = reviewing.played_game(game, request)
        caller = self._caller(context)
        # By the whole call's margin: the last ply's own would leave no time for the messages after it.
        tail = _ReviewTail(self._answer_by(context, time.monotonic()), len(played.moves), lambda: self._lag.seconds)
        # The searches' time: to the tail's end, or, with no deadline, the judge's default time for a review.
        planned_end = tail.search_end()
        if math.isinf(planned_end):
            planned_end = time.monotonic() + judge.DEFAULT_REVIEW_S
        needed = searches_needed(played.positions)
        plan = judge.plan_review(levels, request.level or None, limits, needed, planned_end - time.monotonic())
        asked = pb.BestMoveRequest(game=request.game, level=plan.level, purpose="analysis")
        shares = judge.Shares(plan, planned_end)

        def search(position: core.Position[MoveT]) -> core.SearchResult | None:
            """One ply's search in a slot of its own (others' calls take their turns between plies), with the
            plan's share of the time left; None once the call's deadline leaves no time for one."""
            stop, end = self._call_stop(context, time.monotonic()), tail.search_end()
            if end < stop.end:
                stop.end, stop.reason = end, "deadline"
            if stop.end - time.monotonic() < searches.MIN_SEARCH_S or not stop.active():
                return None
            limits = shares.next(stop.end)
            return self._run(_Search(game, position, asked, plan.level, limits, 1, "analysis", stop, caller))

        yield reviewing.encode_plan(plan)
        judged = review(played.positions, played.moves, levels.review_scale, search, levels.win_chance)
        plies: list[PlyReview] = []
        for item in judged:
            if isinstance(item, PlyReview):
                plies.append(item)
                message = reviewing.encode_ply(game, played, item)
            else:
                ratings = reviewing.seat_ratings(game, plies, item)
                message = reviewing.encode_summary(item, plan.level, (time.monotonic() - started) * 1000, ratings)
            sending = time.monotonic()
            yield message
            tail.sent(time.monotonic() - sending)

    @_rpc
    def RenderPosition(self, request: pb.RenderPositionRequest, context: grpc.ServicerContext) -> httpbody_pb2.HttpBody:
        game = self._game(request.game)
        position = codec.decode_position(game, request.position)
        options = RenderOptions(
            size=request.size or DEFAULT_SIZE,
            last_move=request.last_move,
            show_legal_moves=request.show_legal_moves,
            arrows=tuple(request.arrows),
            coordinates=request.coordinates if request.HasField("coordinates") else True,
            flip=request.flip,
            theme=request.theme,
        )
        try:
            image = render(self._draws[game.id], position, options)
        except core.RulesError as error:
            raise from_rules_error(error, "") from None
        return httpbody_pb2.HttpBody(content_type="image/svg+xml", data=image.encode("utf-8"))


class _ReviewTail:
    """When a review's searches must end for the messages still to come (one per ply, reviewed or not, then the
    summary) to leave before the deadline: ``end`` (the deadline less the whole call's answer margin) less the
    messages left, each at what sending one has taken so far or at twice the scheduling lag, whichever is more
    (a burst of messages waits for the core as often). On a loaded box sending one takes milliseconds, and
    forty unreviewed plies after the last search used to carry the summary past the deadline."""

    def __init__(self, end: float, plies: int, lag: Callable[[], float]) -> None:
        self._end, self._left, self._lag = end, plies + 1, lag
        self._sent, self._sending_s = 0, 0.0

    def search_end(self) -> float:
        each = max(self._sending_s / self._sent if self._sent else 0.0, LAG_FACTOR * self._lag())
        return self._end - self._left * each

    def sent(self, seconds: float) -> None:
        self._sent, self._sending_s, self._left = self._sent + 1, self._sending_s + seconds, self._left - 1


class _CallStop(searches.CallerStop):
    """A best-move call's stop signal: ``"cancelled"`` once the call is no longer active (or its stream
    closed), ``reason`` once the monotonic clock reaches ``end`` (the search's Deadline reads ``end`` to tell
    native kernels, which read the clock themselves, when to give up). Its ``on_iteration`` reaches the
    search through that Deadline too (streamed analysis)."""

    __slots__ = ("_context", "cancelled", "end", "on_iteration", "reason")
    end: float

    def __init__(self, context: grpc.ServicerContext, end: float, reason: str) -> None:
        self._context = context
        self.end = end
        self.reason = reason
        self.cancelled = False  # set when the call's answer is no longer wanted (a stream closed early)
        # Called with each completed iteration's partial result (the search's Deadline passes it on).
        self.on_iteration: Callable[[core.SearchResult], None] | None = None

    def active(self) -> bool:
        return not self.cancelled and self._context.is_active()

    def __call__(self) -> str:
        if not self.active():
            return "cancelled"
        return self.reason if time.monotonic() >= self.end else ""


def _decode_limits(message: pb.SearchLimits) -> core.Limits | None:
    """The caller's limits as asked (the Budget caps the time at the server's ``max_think_ms``)."""
    for name in ("max_time_ms", "max_depth", "max_nodes"):
        if getattr(message, name) < 0:
            raise invalid(f"limits.{name}", f"must not be negative, got {getattr(message, name)}")
    if not (message.max_time_ms or message.max_depth or message.max_nodes):
        return None
    return core.Limits(
        max_time_ms=message.max_time_ms or None,
        max_depth=message.max_depth or None,
        max_nodes=message.max_nodes or None,
    )


def _decode_purpose(text: str, default: core.Purpose) -> core.Purpose:
    if not text:
        return default
    for purpose in core.PURPOSES:
        if text == purpose:
            return purpose  # type: ignore[return-value]
    raise invalid("purpose", f"must be one of {', '.join(core.PURPOSES)} (or empty), not {text[:40]!r}")
