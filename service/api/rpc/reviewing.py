"""ReviewGame's request and answers in protobuf: the game's positions from its start and moves, checked before any
search, each ``service.levels.review`` item as its message, and each seat's performance rating on the game's
ladder scale (``service.levels.performance``). The servicer runs the searches."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gamerules.v1 import gamerules_pb2 as pb
from service import core
from service.api import codec
from service.api.errors import from_rules_error, invalid
from service.api.limits import MAX_MOVES_PER_CALL, MAX_SEED_CHARS
from service.core.contract import Game
from service.levels import performance
from service.levels.judge import ReviewPlan
from service.levels.ladder import Rating
from service.levels.review import (
    BEST,
    BLUNDER,
    EXCELLENT,
    GOOD,
    INACCURACY,
    MISTAKE,
    PlyReview,
    ReviewSummary,
    chance_losses,
)

_FIELD_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class PlayedGame:
    """The game to review: ``positions[k]`` is where ``moves[k]`` was played; the last is the end."""

    positions: list[core.Position[Any]]
    moves: list[core.Move]


def played_game(game: Game, request: pb.ReviewGameRequest) -> PlayedGame:
    """The start (``position``, or NewGame's for ``options`` and ``seed``) and every move applied in turn; the
    first bad move fails with its field, ``moves[k]``."""
    if request.HasField("position"):
        start = codec.decode_position(game, request.position)
    else:
        if len(request.seed) > MAX_SEED_CHARS:
            raise invalid("seed", f"is {len(request.seed)} characters long; at most {MAX_SEED_CHARS}")
        try:
            start = game.new_position(codec.decode_options(game, request.options), request.seed)
        except core.RulesError as error:
            raise from_rules_error(error, "options") from None
    if len(request.moves) > MAX_MOVES_PER_CALL:
        raise invalid("moves", f"{len(request.moves)} moves; at most {MAX_MOVES_PER_CALL} per call")
    positions, moves = [start], []
    for index, message in enumerate(request.moves):
        field = f"moves[{index}]"
        move = codec.decode_move(game, positions[-1], message, field)
        try:
            after, _ = positions[-1].apply(move)
        except core.RulesError as error:
            raise from_rules_error(error, field) from None
        positions.append(after)
        moves.append(move)
    return PlayedGame(positions, moves)


def encode_ply(game: Game, played: PlayedGame, ply: PlyReview) -> pb.ReviewGameResponse:
    position = played.positions[ply.ply]
    message = pb.PlyReview(
        ply=ply.ply,
        seat=ply.seat,
        move=codec.encode_move(game, position, ply.move),
        reviewed=ply.reviewed,
        loss=ply.loss,
        exact=ply.exact,
        judgement=ply.judgement,
        forced=ply.forced,
        pv=codec.encode_line(game, position, ply.pv),
        depth=ply.depth,
        nodes=min(ply.nodes, _FIELD_LIMIT),
        win_chance_loss=codec.encode_chance(ply.chance_loss),
    )
    if ply.best_move is not None:
        message.best_move.CopyFrom(codec.encode_move(game, position, ply.best_move))
    if ply.best_value is not None:
        message.best_value = ply.best_value
    if ply.played_value is not None:
        message.played_value = ply.played_value
    if ply.chance_before is not None:
        message.win_chance_before = codec.encode_chance(ply.chance_before)
    if ply.chance_after is not None:
        message.win_chance_after = codec.encode_chance(ply.chance_after)
    return pb.ReviewGameResponse(ply=message)


def encode_plan(plan: ReviewPlan) -> pb.ReviewGameResponse:
    limits = plan.limits
    message = pb.ReviewPlan(level=plan.level, searches=plan.searches, enough_time=plan.enough_time, detail=plan.detail)
    if limits is not None:
        message.limits.CopyFrom(
            pb.SearchLimits(
                max_time_ms=limits.max_time_ms or 0, max_depth=limits.max_depth or 0, max_nodes=limits.max_nodes or 0
            )
        )
    return pb.ReviewGameResponse(plan=message)


def seat_ratings(game: Game, plies: Sequence[PlyReview], summary: ReviewSummary) -> dict[int, Rating | None]:
    """Each seat's performance rating (``performance.performance_rating``) from the win-chance losses of its judged
    moves that had a choice, the moves its accuracy reads: the reviewed plies that were not forced."""
    rated: dict[int, Rating | None] = {}
    for seat in summary.seats:
        rated[seat.seat] = performance.performance_rating(game.id, chance_losses(plies, seat.seat))
    return rated


def encode_summary(
    summary: ReviewSummary, level: str, elapsed_ms: float, ratings: Mapping[int, Rating | None] | None = None
) -> pb.ReviewGameResponse:
    """The summary, each seat with its performance rating from ``ratings`` (by seat; absent: none)."""
    seats = []
    for seat in summary.seats:
        counts = seat.counts
        rating = (ratings or {}).get(seat.seat)
        seats.append(
            pb.SeatReview(
                seat=seat.seat,
                accuracy=None if seat.accuracy is None else round(seat.accuracy, 2),
                mean_win_chance_loss=codec.encode_chance(seat.mean_chance_loss),
                counts=pb.JudgementCounts(
                    best=counts[BEST],
                    excellent=counts[EXCELLENT],
                    good=counts[GOOD],
                    inaccuracy=counts[INACCURACY],
                    mistake=counts[MISTAKE],
                    blunder=counts[BLUNDER],
                ),
                mean_loss=seat.mean_loss,
                moves=seat.moves,
                rating=None if rating is None else rating.value,
                rating_low=None if rating is None else rating.low,
                rating_high=None if rating is None else rating.high,
            )
        )
    return pb.ReviewGameResponse(
        summary=pb.ReviewSummary(
            seats=seats,
            swings=summary.swings,
            reviewed_plies=summary.reviewed,
            unreviewed_plies=summary.unreviewed,
            level=level,
            elapsed_ms=min(round(elapsed_ms), _FIELD_LIMIT),
        )
    )
