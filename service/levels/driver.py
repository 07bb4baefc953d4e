"""The best-move driver every game shares: find the level, merge its budget with the caller's, seed, run the
level's strategy under one Deadline, time it."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from service.core.contract import Position
from service.core.errors import GameOverError, UnknownLevel
from service.core.seeds import seeded_int
from service.core.values import Level, Limits, SearchResult, StopSignal
from service.search.deadline import Deadline, given_limit, never

# A level's way of choosing a move: (position, limits, rng, top_n, stop) -> SearchResult. ``stop`` is the
# call's Deadline: pass it on to ``search``/``mcts`` as their ``stop``.
Strategy = Callable[[Any, Limits, random.Random, int, StopSignal], SearchResult]


@dataclass(frozen=True)
class GameLevels:
    """A game's levels as GetGame lists them (``levels``, ``default``) and the strategy that plays each."""

    game_id: str
    levels: tuple[Level, ...]
    default: str
    strategies: Mapping[str, Strategy]

    def __post_init__(self) -> None:
        names = [level.name for level in self.levels]
        if sorted(names) != sorted(self.strategies) or self.default not in names:
            raise ValueError(f"{self.game_id}: every level needs a strategy, and the default must be a level")

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
        position: Position,
        level: str | None = None,
        limits: Limits | None = None,
        seed: int | str = 0,
        top_n: int = 1,
        stop: StopSignal = never,
    ) -> SearchResult:
        """``play_level`` for this game."""
        return play_level(self, position, level, limits, seed, top_n, stop)


def merge_limits(level: Limits, caller: Limits | None) -> Limits:
    """The level's limits with the caller's where the caller gave one (non-positive = not given)."""
    caller = caller or Limits()
    return Limits(
        max_time_ms=_pick(level.max_time_ms, caller.max_time_ms),
        max_depth=_pick(level.max_depth, caller.max_depth),
        max_nodes=_pick(level.max_nodes, caller.max_nodes),
    )


def _pick(mine: int | None, theirs: int | None) -> int | None:
    given = given_limit(theirs)
    return given if given is not None else given_limit(mine)


def play_level(
    levels: GameLevels,
    position: Position,
    level: str | None,
    limits: Limits | None,
    seed: int | str,
    top_n: int,
    stop: StopSignal = never,
) -> SearchResult:
    """Choose a move at ``level`` (None or "": the game's default level) within ``limits`` (the caller's win
    over the level's where given; 0 or negative means not given, as proto3 sends them).

    Raises GameOverError (field ``position``) on a finished game and UnknownLevel (field ``level``). The
    strategy runs with ``rng = random.Random(seed)`` (a string seed goes through ``seeded_int``), ``top_n`` at
    least 1, and a Deadline composing the merged time limit with the caller's ``stop``. Same arguments and no
    time limit: same answer. ``elapsed_ms`` is filled from the call's start."""
    if position.to_move == 0:
        raise GameOverError("the game is over: there is no move to choose", "position")
    spec = levels.level(level)
    merged = merge_limits(spec.limits, limits)
    rng = random.Random(seeded_int(seed) if isinstance(seed, str) else seed)
    deadline = Deadline(merged, stop)
    result = levels.strategies[spec.name](position, merged, rng, max(1, int(top_n or 1)), deadline)
    result.elapsed_ms = deadline.elapsed_ms()
    return result
