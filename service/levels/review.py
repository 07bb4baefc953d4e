"""A game review: every move of a played game judged against the best move a search finds there.

The review walks the game's positions once. Ply ``k``'s best move and its value come from a search of the
position before the move; the played move's value is the value of the position after it, from the mover's view
(the next ply's own search, so each position is searched at most once; a finished game's final margin, exact).
``loss`` is the best value less the played one, never below 0, in the game's units. Both values become the
mover's win chances by the game's model (``winchance.py``), read at the stage of the position the move was
played in, so that a move that keeps the value keeps the chance; the ``chance_loss`` is what a player feels and
what ``judgement`` reads on the game's ``ReviewScale`` (thresholds in win chance, each game's page in
``docs/games`` gives them). A move whose value equals the best is ``BEST``; one that loses value but no chance
(a won game still won by less) is at least ``EXCELLENT``. A move with one legal choice is ``BEST`` without a
search of its own. When the caller's time runs out, the plies left are said to be unreviewed, never dropped.

A seat's accuracy is the mean of ``move_accuracy`` over its judged moves that had a choice, None when it had
none. The search is the caller's (``Search``): the transport runs each position in a search slot with the
judge's plan (``judge.py``), a bench or a test calls the levels directly. ``docs/api.md`` (Reviewing a game) is
the user's side of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Generic

from service.core.contract import MoveT, Position
from service.core.values import Move, SearchResult
from service.levels.winchance import WinChance

BEST, EXCELLENT, GOOD, INACCURACY, MISTAKE, BLUNDER = "BEST", "EXCELLENT", "GOOD", "INACCURACY", "MISTAKE", "BLUNDER"
JUDGEMENTS = (BEST, EXCELLENT, GOOD, INACCURACY, MISTAKE, BLUNDER)
SWINGS = 3  # the plies the summary names as the game's largest swings

# The search of one position in analysis mode; None once there is no time left to search it.
Search = Callable[[Position[MoveT]], SearchResult | None]


@dataclass(frozen=True, slots=True)
class ReviewScale:
    """A game's judgement thresholds: the largest loss of win chance (0 to 1) that is still ``EXCELLENT``,
    ``GOOD``, an ``INACCURACY``, a ``MISTAKE``; beyond ``mistake`` it is a ``BLUNDER``. A loss of 0 is
    ``BEST``."""

    excellent: float
    good: float
    inaccuracy: float
    mistake: float

    def __post_init__(self) -> None:
        if not 0 < self.excellent <= self.good <= self.inaccuracy <= self.mistake < 1:
            raise ValueError("a review scale's thresholds must rise from above 0 to below 1 (a win chance)")

    def judge(self, loss: float) -> str:
        if loss <= 0:
            return BEST
        for limit, judgement in (
            (self.excellent, EXCELLENT),
            (self.good, GOOD),
            (self.inaccuracy, INACCURACY),
            (self.mistake, MISTAKE),
        ):
            if loss <= limit:
                return judgement
        return BLUNDER


def move_accuracy(chance_loss: float) -> float:
    """A move's accuracy, 0–100, from its loss of win chance ``Δ`` (0 to 1): ``103.1668 · e^(−4.354·Δ) − 3.1668``
    clamped to 0 (the curve lichess publishes for its accuracy, on win percentages): no loss 100, a loss of 0.05
    about 80, of 0.1 about 64, of 0.2 about 40, of a whole win 0."""
    return max(0.0, _ACCURACY_TOP * math.exp(-4.354 * max(chance_loss, 0.0)) - (_ACCURACY_TOP - 100.0))


_ACCURACY_TOP = 103.1668


# The thresholds every game judges by today (each game's page gives them): a loss of win chance up to 2 points is
# EXCELLENT, 5 GOOD, 10 an INACCURACY, 20 a MISTAKE, more a BLUNDER (lichess's inaccuracy, mistake and blunder
# start at 5, 10 and 15 points of expected score; ours leave MISTAKE room, as ``python -m bench.review`` shows
# the strongest levels' errors sit between).
CHANCE_SCALE = ReviewScale(excellent=0.02, good=0.05, inaccuracy=0.10, mistake=0.20)


@dataclass(slots=True)
class PlyReview:
    """One ply of the game, judged; values from the mover's view. ``best_value``/``played_value`` are None
    where nothing measured them (a forced move whose next position is not searched either)."""

    ply: int
    seat: int
    move: Move
    reviewed: bool = True
    best_move: Move | None = None
    best_value: float | None = None
    played_value: float | None = None
    loss: float = 0.0
    # The mover's win chance (0 to 1) with the best move and after the played one; None where no value was
    # measured. ``chance_loss`` is the first less the second, never below 0.
    chance_before: float | None = None
    chance_after: float | None = None
    chance_loss: float = 0.0
    exact: bool = False
    judgement: str = ""  # one of JUDGEMENTS; empty on an unreviewed ply
    forced: bool = False
    pv: list[Move] = field(default_factory=list)  # the best line, where the played move was not best
    depth: int = 0
    nodes: int = 0


@dataclass(slots=True)
class SeatReview:
    """One seat's moves in the summary: ``accuracy`` is the mean of ``move_accuracy`` over its reviewed moves
    that had a choice (None when there were none); ``mean_loss`` and ``mean_chance_loss`` the means of the
    same moves' losses."""

    seat: int
    accuracy: float | None
    counts: dict[str, int]
    mean_loss: float
    moves: int  # its reviewed moves, forced ones included
    mean_chance_loss: float = 0.0


@dataclass(slots=True)
class ReviewSummary:
    seats: list[SeatReview]
    swings: list[int]  # the plies that lost most, largest first (only plies that lost something)
    reviewed: int
    unreviewed: int


def review(
    positions: Sequence[Position[MoveT]],
    moves: Sequence[Move],
    scale: ReviewScale,
    search: Search[MoveT],
    chances: WinChance,
) -> Iterator[PlyReview | ReviewSummary]:
    """Yield a ``PlyReview`` per move, in order, then the ``ReviewSummary``. ``positions[k]`` is the position
    ``moves[k]`` was played in and ``positions[len(moves)]`` the one after the last move (the moves are legal:
    the caller has applied them); ``chances`` is the game's win-chance model."""
    if len(positions) != len(moves) + 1:
        raise ValueError("a review needs the position before every move and the one after the last")
    walk = _Walk(positions, search)
    plies: list[PlyReview] = []
    for ply, move in enumerate(moves):
        judged = _judge(walk, ply, move, scale, chances) if not walk.out_of_time else None
        if judged is None:
            judged = PlyReview(ply, positions[ply].to_move, move, reviewed=False)
        plies.append(judged)
        yield judged
    yield summarize(plies)


def collect(items: Iterable[PlyReview | ReviewSummary]) -> tuple[list[PlyReview], ReviewSummary]:
    """A whole review's plies and its summary, from ``review``'s items (for callers that need no stream)."""
    plies: list[PlyReview] = []
    summary = None
    for item in items:
        if isinstance(item, PlyReview):
            plies.append(item)
        else:
            summary = item
    if summary is None:
        raise ValueError("a review ends with its summary")
    return plies, summary


def searches_needed(positions: Sequence[Position[MoveT]]) -> int:
    """How many of a game's positions a review searches, about: those with a choice of moves (a forced move's
    position is searched only when the move before it was not the best, to value it)."""
    return sum(1 for position in positions if position.to_move and position.legal_move_count() > 1)


class _Walk(Generic[MoveT]):
    """The game's positions with each one's search, run at most once (None: no time was left for it)."""

    def __init__(self, positions: Sequence[Position[MoveT]], search: Search[MoveT]) -> None:
        self.positions = positions
        self._search = search
        self._found: dict[int, SearchResult | None] = {}
        self.out_of_time = False

    def searched(self, index: int) -> SearchResult | None:
        if index not in self._found:
            self._found[index] = None if self.out_of_time else self._search(self.positions[index])
            self.out_of_time = self._found[index] is None
        return self._found[index]

    def value_after(self, ply: int, seat: int) -> tuple[float, bool] | None:
        """The value for ``seat`` of the position after ply ``ply`` and whether it is proved; None if it
        could not be searched."""
        after = self.positions[ply + 1]
        if after.to_move == 0:
            return after.final_value(seat), True
        found = self.searched(ply + 1)
        if found is None:
            return None
        return (found.value if after.to_move == seat else -found.value), found.exact


def _judge(walk: _Walk[MoveT], ply: int, move: Move, scale: ReviewScale, chances: WinChance) -> PlyReview | None:
    position = walk.positions[ply]
    seat, stage = position.to_move, position.stage()
    if position.legal_move_count() == 1:
        after = walk.value_after(ply, seat) if _worth_searching(walk, ply + 1) else None
        if after is None:
            return PlyReview(ply, seat, move, best_move=move, judgement=BEST, forced=True)
        value, exact = after
        chance = chances.chance(value, stage, exact)
        return PlyReview(
            ply,
            seat,
            move,
            best_move=move,
            best_value=value,
            played_value=value,
            chance_before=chance,
            chance_after=chance,
            exact=exact,
            judgement=BEST,
            forced=True,
        )
    found = walk.searched(ply)
    if found is None:
        return None
    before = chances.chance(found.value, stage, found.exact)
    if move == found.move:
        return PlyReview(
            ply,
            seat,
            move,
            best_move=move,
            best_value=found.value,
            played_value=found.value,
            chance_before=before,
            chance_after=before,
            exact=found.exact,
            judgement=BEST,
            depth=found.depth,
            nodes=found.nodes,
        )
    after = walk.value_after(ply, seat)
    if after is None:
        return None
    played, proved = after
    loss = max(found.value - played, 0.0)
    chance_after = chances.chance(played, stage, proved)
    chance_loss = max(before - chance_after, 0.0)
    judgement = BEST if loss <= 0 else _at_least_excellent(scale.judge(chance_loss))
    return PlyReview(
        ply,
        seat,
        move,
        best_move=found.move,
        best_value=found.value,
        played_value=played,
        loss=loss,
        chance_before=before,
        chance_after=chance_after,
        chance_loss=chance_loss,
        exact=found.exact and proved,
        judgement=judgement,
        pv=list(found.pv) if loss > 0 else [],
        depth=found.depth,
        nodes=found.nodes,
    )


def _at_least_excellent(judgement: str) -> str:
    """A move that lost value is never ``BEST``, even where it lost no chance (a won game won by less)."""
    return EXCELLENT if judgement == BEST else judgement


def _worth_searching(walk: _Walk[MoveT], index: int) -> bool:
    """Whether the position at ``index`` is searched for its own ply anyway (or is the end): a forced move's
    value then costs nothing more."""
    position = walk.positions[index]
    return position.to_move == 0 or (index < len(walk.positions) - 1 and position.legal_move_count() > 1)


def summarize(plies: Sequence[PlyReview]) -> ReviewSummary:
    """Each seat's accuracy, counts and mean losses over its reviewed plies, and the largest swings (by the win
    chance lost, then the value)."""
    seats = []
    for seat in (1, 2):
        mine = [ply for ply in plies if ply.reviewed and ply.seat == seat]
        chosen = [ply for ply in mine if not ply.forced]
        counts = {judgement: sum(ply.judgement == judgement for ply in mine) for judgement in JUDGEMENTS}
        accuracy = _mean([move_accuracy(ply.chance_loss) for ply in chosen])
        mean_loss = _mean([ply.loss for ply in chosen]) or 0.0
        mean_chance_loss = _mean([ply.chance_loss for ply in chosen]) or 0.0
        seats.append(SeatReview(seat, accuracy, counts, mean_loss, len(mine), mean_chance_loss))
    lost = sorted(
        (ply for ply in plies if ply.reviewed and ply.loss > 0), key=lambda ply: (-ply.chance_loss, -ply.loss, ply.ply)
    )
    reviewed = sum(ply.reviewed for ply in plies)
    return ReviewSummary(seats, [ply.ply for ply in lost[:SWINGS]], reviewed, len(plies) - reviewed)


def chance_losses(plies: Sequence[PlyReview], seat: int) -> list[float]:
    """The win-chance losses of ``seat``'s reviewed moves that had a choice: the moves its accuracy reads (and a
    performance rating, ``ladder.performance_rating``)."""
    return [ply.chance_loss for ply in plies if ply.seat == seat and ply.reviewed and not ply.forced]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None
