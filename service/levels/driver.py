"""The best-move driver every game shares: find the level, make the call's ``Budget`` (``budget.py``: the
caller's limits beside the level's), seed, run the level's strategy under one Deadline, time it, and answer the
alternatives best first."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic

from service.core.contract import MoveT, PositionT
from service.core.errors import GameOverError, UnknownLevel
from service.core.seeds import seeded_int
from service.core.values import Level, Limits, Purpose, ScoredMove, SearchResult, StopSignal, as_stop
from service.levels import ladder, winchance
from service.levels.budget import Budget
from service.levels.ladder import Rating, Strategy, SureMoves
from service.levels.review import ReviewScale
from service.levels.winchance import WinChance
from service.search.deadline import Deadline, never


@dataclass(frozen=True)
class GameLevels(Generic[PositionT, MoveT]):
    """A game's levels as GetGame lists them (``levels``, weakest first, and ``default``), the strategy that
    plays each, the scale a review judges the game's moves by (``review.py``: thresholds in win chance) and the
    judge's limits: how hard a review searches each position with the strongest level by default (``judge.py``;
    more than the level's own budget, its time at most). Typed by the game's position class and its move type
    (``GameLevels[ReversiPosition, ReversiMove]``); a registry of every game's holds ``GameLevels[Any, Any]``."""

    game_id: str
    levels: tuple[Level, ...]
    default: str
    strategies: Mapping[str, Strategy[PositionT]]
    review_scale: ReviewScale
    judge: Limits
    # The rated ladder (``ladder.py``): its rungs' level names, weakest first, ending with the strongest level, and
    # the game's sure moves among some scored ones (what a rung past the first few never misses).
    ladder: tuple[str, ...] = ()
    sure_moves: SureMoves[PositionT, MoveT] | None = None

    @property
    def strongest(self) -> str:
        """The strongest level: the one a review searches with unless told otherwise."""
        return self.levels[-1].name

    @property
    def win_chance(self) -> WinChance:
        """The game's win-chance model (``winchance.py``)."""
        return winchance.model(self.game_id)

    def __post_init__(self) -> None:
        names = [level.name for level in self.levels]
        if sorted(names) != sorted(self.strategies) or self.default not in names:
            raise ValueError(f"{self.game_id}: every level needs a strategy, and the default must be a level")
        if self.ladder and (not set(self.ladder) <= set(names) or self.ladder[-1] != self.strongest):
            raise ValueError(f"{self.game_id}: the ladder's rungs must be levels, ending with the strongest")

    def rating(self, name: str) -> Rating | None:
        """The measured rating of the level ``name`` on the game's scale (None: not measured)."""
        return ladder.ratings(self.game_id).get(name)

    def rated(self, rating: float) -> str:
        """The rung whose measured rating is nearest to ``rating`` (the lower of two as near), or UnknownLevel
        (field ``rating``) for a game whose ladder is not measured."""
        measured = [(found.value, name) for name in self.ladder if (found := self.rating(name)) is not None]
        if not measured:
            raise UnknownLevel(f"{self.game_id} has no rated ladder: choose a level by name", "rating")
        # Distances rounded to a millionth of a point: the midpoint of two rungs is a tie however it rounds.
        return min(measured, key=lambda entry: (round(abs(entry[0] - rating), 6), entry[0]))[1]

    def level(self, name: str | None) -> Level:
        """The level ``name`` ("" or None: the default), or UnknownLevel (field ``level``)."""
        wanted = name or self.default
        for level in self.levels:
            if level.name == wanted:
                return level
        known = ", ".join(level.name for level in self.levels)
        raise UnknownLevel(f"unknown level {wanted!r} for {self.game_id}; levels are: {known}", "level")

    def best_move(
        self,
        position: PositionT,
        level: str | None = None,
        limits: Limits | None = None,
        seed: int | str = 0,
        top_n: int = 1,
        stop: StopSignal = never,
        purpose: Purpose = "play",
        *,
        cap_ms: int | None = None,
    ) -> SearchResult:
        """``play_level`` for this game."""
        return play_level(self, position, level, limits, seed, top_n, stop, cap_ms=cap_ms, purpose=purpose)


def play_level(
    levels: GameLevels[PositionT, MoveT],
    position: PositionT,
    level: str | None,
    limits: Limits | None,
    seed: int | str,
    top_n: int,
    stop: StopSignal = never,
    *,
    cap_ms: int | None = None,
    purpose: Purpose = "play",
) -> SearchResult:
    """Choose a move at ``level`` (None or "": the game's default level) within the ``Budget`` of the caller's
    ``limits`` (as asked; 0 or negative means not given, as proto3 sends them), the level's own, the server's
    ``cap_ms`` and the ``end`` of ``stop`` (the call's deadline), for ``purpose`` (``analysis``: no seeded
    variety).

    Raises GameOverError (field ``position``) on a finished game and UnknownLevel (field ``level``). The
    strategy runs with ``rng = random.Random(seed)`` (a string seed goes through ``seeded_int``), ``top_n`` at
    least 1, and a Deadline composing the budget's time limit with the caller's ``stop``. Same arguments and no
    time limit: same answer. ``elapsed_ms`` is filled from the call's start; the alternatives come best first
    from the mover's view (``sort_alternatives``)."""
    if position.to_move == 0:
        raise GameOverError("the game is over: there is no move to choose", "position")
    spec = levels.level(level)
    budget = Budget(spec.limits, limits or Limits(), cap_ms, as_stop(stop).end, purpose)
    rng = random.Random(seeded_int(seed) if isinstance(seed, str) else seed)
    deadline = Deadline(budget.limits, stop)
    result = levels.strategies[spec.name](position, budget, rng, max(1, int(top_n or 1)), deadline)
    result.elapsed_ms = deadline.elapsed_ms()
    sort_alternatives(result)
    return result


def sort_alternatives(result: SearchResult) -> None:
    """``result``'s alternatives best first from the mover's view (a stable sort: equal values keep the level's
    order), with the answer's move among them."""
    result.alternatives.sort(key=lambda scored: -scored.value)
    if result.alternatives and all(scored.move != result.move for scored in result.alternatives):
        result.alternatives[-1:] = [ScoredMove(result.move, result.value, result.exact, tuple(result.pv))]
        result.alternatives.sort(key=lambda scored: -scored.value)
