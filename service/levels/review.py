"""A game review: every move of a played game judged against the best move a search finds there.

The review walks the game's positions once. Ply ``k``'s best move and its value come from a search of the
position before the move; the played move's value is the value of the position after it, from the mover's view
(the next ply's own search, so each position is searched at most once; a finished game's final margin, exact).
``loss`` is the best value less the played one, never below 0; ``judgement`` reads the loss on the game's
``ReviewScale`` (its thresholds in the game's units, each game's page in ``docs/games`` gives them); a move with
one legal choice is ``BEST`` without a search of its own. When the caller's time runs out, the plies left are
said to be unreviewed, never dropped.

The search is the caller's (``Search``): the transport runs each position in a search slot, a bench or a test
calls the levels directly. ``docs/api.md`` (Reviewing a game) is the user's side of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from service.core.contract import Position
from service.core.values import Move, SearchResult

BEST, EXCELLENT, GOOD, INACCURACY, MISTAKE, BLUNDER = "BEST", "EXCELLENT", "GOOD", "INACCURACY", "MISTAKE", "BLUNDER"
JUDGEMENTS = (BEST, EXCELLENT, GOOD, INACCURACY, MISTAKE, BLUNDER)
SWINGS = 3  # the plies the summary names as the game's largest swings

# The search of one position in analysis mode; None once there is no time left to search it.
Search = Callable[[Position], SearchResult | None]


@dataclass(frozen=True, slots=True)
class ReviewScale:
    """A game's judgement thresholds: the largest loss, in the game's units, that is still ``EXCELLENT``,
    ``GOOD``, an ``INACCURACY``, a ``MISTAKE``; beyond ``mistake`` it is a ``BLUNDER``. A loss of 0 is
    ``BEST``."""

    excellent: float
    good: float
    inaccuracy: float
    mistake: float

    def __post_init__(self) -> None:
        if not 0 < self.excellent <= self.good <= self.inaccuracy <= self.mistake:
            raise ValueError("a review scale's thresholds must rise from above 0")

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

    def accuracy(self, loss: float) -> float:
        """A move's accuracy, 0–100: ``100 · 2^(−loss / mistake)`` (a best move 100, a loss of the mistake
        threshold 50, of twice it 25)."""
        return 100.0 * 2.0 ** (-max(loss, 0.0) / self.mistake)


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
    exact: bool = False
    judgement: str = ""  # one of JUDGEMENTS; empty on an unreviewed ply
    forced: bool = False
    pv: list[Move] = field(default_factory=list)  # the best line, where the played move was not best
    depth: int = 0
    nodes: int = 0


@dataclass(slots=True)
class SeatReview:
    """One seat's moves in the summary: ``accuracy`` is the mean of ``ReviewScale.accuracy`` over its
    reviewed moves that had a choice (100 when there were none)."""

    seat: int
    accuracy: float
    counts: dict[str, int]
    mean_loss: float
    moves: int  # its reviewed moves, forced ones included


@dataclass(slots=True)
class ReviewSummary:
    seats: list[SeatReview]
    swings: list[int]  # the plies that lost most, largest first (only plies that lost something)
    reviewed: int
    unreviewed: int


def review(
    positions: Sequence[Position], moves: Sequence[Move], scale: ReviewScale, search: Search
) -> Iterator[PlyReview | ReviewSummary]:
    """Yield a ``PlyReview`` per move, in order, then the ``ReviewSummary``. ``positions[k]`` is the position
    ``moves[k]`` was played in and ``positions[len(moves)]`` the one after the last move (the moves are legal:
    the caller has applied them)."""
    if len(positions) != len(moves) + 1:
        raise ValueError("a review needs the position before every move and the one after the last")
    walk = _Walk(positions, search)
    plies: list[PlyReview] = []
    for ply, move in enumerate(moves):
        judged = _judge(walk, ply, move, scale) if not walk.out_of_time else None
        if judged is None:
            judged = PlyReview(ply, positions[ply].to_move, move, reviewed=False)
        plies.append(judged)
        yield judged
    yield summarize(plies, scale)


class _Walk:
    """The game's positions with each one's search, run at most once (None: no time was left for it)."""

    def __init__(self, positions: Sequence[Position], search: Search) -> None:
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


def _judge(walk: _Walk, ply: int, move: Move, scale: ReviewScale) -> PlyReview | None:
    position = walk.positions[ply]
    seat = position.to_move
    if position.legal_move_count() == 1:
        after = walk.value_after(ply, seat) if _worth_searching(walk, ply + 1) else None
        value, exact = after if after is not None else (None, False)
        return PlyReview(
            ply,
            seat,
            move,
            best_move=move,
            best_value=value,
            played_value=value,
            exact=exact,
            judgement=BEST,
            forced=True,
        )
    found = walk.searched(ply)
    if found is None:
        return None
    if move == found.move:
        return PlyReview(
            ply,
            seat,
            move,
            best_move=move,
            best_value=found.value,
            played_value=found.value,
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
    return PlyReview(
        ply,
        seat,
        move,
        best_move=found.move,
        best_value=found.value,
        played_value=played,
        loss=loss,
        exact=found.exact and proved,
        judgement=scale.judge(loss),
        pv=list(found.pv) if loss > 0 else [],
        depth=found.depth,
        nodes=found.nodes,
    )


def _worth_searching(walk: _Walk, index: int) -> bool:
    """Whether the position at ``index`` is searched for its own ply anyway (or is the end): a forced move's
    value then costs nothing more."""
    position = walk.positions[index]
    return position.to_move == 0 or (index < len(walk.positions) - 1 and position.legal_move_count() > 1)


def summarize(plies: Sequence[PlyReview], scale: ReviewScale) -> ReviewSummary:
    """Each seat's accuracy, counts and mean loss over its reviewed plies, and the largest swings."""
    seats = []
    for seat in (1, 2):
        mine = [ply for ply in plies if ply.reviewed and ply.seat == seat]
        chosen = [ply for ply in mine if not ply.forced]
        counts = {judgement: sum(ply.judgement == judgement for ply in mine) for judgement in JUDGEMENTS}
        accuracy = sum(scale.accuracy(ply.loss) for ply in chosen) / len(chosen) if chosen else 100.0
        mean_loss = sum(ply.loss for ply in chosen) / len(chosen) if chosen else 0.0
        seats.append(SeatReview(seat, accuracy, counts, mean_loss, len(mine)))
    lost = sorted((ply for ply in plies if ply.reviewed and ply.loss > 0), key=lambda ply: (-ply.loss, ply.ply))
    reviewed = sum(ply.reviewed for ply in plies)
    return ReviewSummary(seats, [ply.ply for ply in lost[:SWINGS]], reviewed, len(plies) - reviewed)
