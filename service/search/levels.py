"""The one stop mechanism (``Deadline``), the one-ply chooser (``greedy``) and the ``best_move`` driver
(``play_level``) shared by every game.

Game rules are in ``shared/spec/rules.md``; nothing here knows any game. The public API is fixed in
``service/search/__init__.py``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from service.games.base import (
    GameOverError,
    Level,
    Limits,
    Move,
    Position,
    ScoredMove,
    SearchResult,
    StopSignal,
    UnknownLevel,
    seeded_int,
)

# A level's way of choosing a move: (position, limits, rng, top_n, stop) -> SearchResult.
Strategy = Callable[[Any, Limits, random.Random, int, StopSignal], SearchResult]

# The clock (and the caller's stop()) is read every ``interval`` polls. The interval adapts so that reads
# happen roughly every _TARGET_GAP seconds whatever a node costs (a Reversi node is microseconds, a Strands
# rollout may be milliseconds), so a deadline is overshot by about that much at most.
_TARGET_GAP = 0.002
_FIRST_INTERVAL = 16
_MAX_INTERVAL = 1024


def never() -> bool:
    """The stop signal that never fires."""
    return False


def _given(value: int | None) -> int | None:
    """A limit as given: None or a non-positive number (proto3's unset 0) means no limit of that kind."""
    if value is None or value <= 0:
        return None
    return int(value)


class Deadline:
    """The single limits/stop mechanism: ``limits.max_time_ms``, ``limits.max_nodes`` and the caller's
    ``stop()``, composed.

    ``expired(nodes)`` is meant to be polled once per node (or per MCTS iteration / rollout step) with the
    number of nodes searched so far; it compares ``nodes`` with ``max_nodes`` every time, and reads the
    clock and calls ``stop()`` only every ``interval`` polls. Once it has fired it keeps answering True and
    ``reason`` says why: ``"nodes"``, ``"time"``, ``"cancelled"`` (``stop()`` returned True), or the string
    ``stop()`` returned (a stop signal may return a non-empty reason such as ``"deadline"`` instead of
    True). A Deadline is itself a stop signal (calling it checks clock and stop at once), so a search run
    under another Deadline composes with it and inherits its reason. Depth limits are the search's
    business, not the Deadline's. ``end`` is the earliest ``time.monotonic()`` instant at which it is known to
    fire: its own time limit or the ``end`` attribute of its ``stop`` (an outer Deadline, or the server's
    signal for the caller's deadline), None without either; for work that cannot be polled (native solvers).
    ``on_iteration`` is the ``on_iteration`` attribute of its ``stop`` (None without one), so it reaches every
    search nested under it: a search calls it with a partial SearchResult after each completed iteration
    (streamed analysis).
    """

    __slots__ = (
        "_countdown",
        "_end",
        "_last_read",
        "_stop",
        "end",
        "interval",
        "max_nodes",
        "on_iteration",
        "reason",
        "start",
    )

    def __init__(self, limits: Limits | None = None, stop: StopSignal = never) -> None:
        limits = limits or Limits()
        self.start = time.monotonic()
        self.max_nodes = _given(limits.max_nodes)
        max_time_ms = _given(limits.max_time_ms)
        self._end = None if max_time_ms is None else self.start + max_time_ms / 1000.0
        ends = [end for end in (self._end, getattr(stop, "end", None)) if end is not None]
        self.end: float | None = min(ends) if ends else None
        self._stop = stop
        self.on_iteration: Callable[[SearchResult], None] | None = getattr(stop, "on_iteration", None)
        self.reason = ""
        self.interval = _FIRST_INTERVAL
        self._countdown = 1  # the first poll reads the clock: a stop() already fired is seen at once
        self._last_read = self.start

    def expired(self, nodes: int = 0) -> bool:
        """True when the search must stop now (``nodes`` = nodes already searched)."""
        if self.reason:
            return True
        if self.max_nodes is not None and nodes >= self.max_nodes:
            self.reason = "nodes"
            return True
        self._countdown -= 1
        if self._countdown > 0:
            return False
        return self.check()

    def check(self) -> bool:
        """Read the clock and call ``stop()`` now (not only every ``interval`` polls)."""
        if self.reason:
            return True
        now = time.monotonic()
        gap = now - self._last_read
        self._last_read = now
        # Adapt the interval so that reads are about _TARGET_GAP apart.
        if gap < _TARGET_GAP / 2 and self.interval < _MAX_INTERVAL:
            self.interval *= 2
        elif gap > _TARGET_GAP * 2 and self.interval > 1:
            self.interval //= 2
        self._countdown = self.interval
        fired = self._stop()
        if fired:
            if isinstance(fired, str):
                self.reason = fired
            elif isinstance(self._stop, Deadline):
                self.reason = self._stop.reason or "cancelled"
            else:
                self.reason = "cancelled"
            return True
        if self._end is not None and now >= self._end:
            self.reason = "time"
            return True
        return False

    def time_left(self) -> float | None:
        """Seconds until the time limit, or None without one."""
        return None if self._end is None else self._end - time.monotonic()

    def __call__(self) -> bool:
        return self.check()

    def elapsed_ms(self) -> float:
        """Milliseconds since the Deadline was made."""
        return (time.monotonic() - self.start) * 1000.0


def static_value(position: Any, move: Move, seat: int, evaluate: Callable[[Any, int], float] | None = None) -> float:
    """The value of ``move`` for ``seat`` without search: the final margin if it ends the game, else the
    evaluation of the position after it (used when a search is stopped before it finished anything)."""
    child = position.play(move)
    if child.to_move == 0:
        return float(child.final_value(seat))
    return float(child.evaluate(seat) if evaluate is None else evaluate(child, seat))


def greedy(
    position: Position,
    key: Callable[[Any, Move], float],
    rng: random.Random,
    top_n: int = 1,
    *,
    moves: Sequence[Move] | None = None,
) -> SearchResult:
    """One-ply choice: the move with the largest ``key(position, move)``; ties broken by ``rng`` (one
    ``rng.random()`` per move, in move order, so the same seed gives the same choice).

    ``moves`` defaults to ``position.search_moves()`` (pass ``position.legal_moves()`` for a level that must
    consider every legal move). The value of a move is its key; ``alternatives`` lists the ``top_n`` best.
    """
    if position.to_move == 0:
        raise GameOverError("the game is over: there is no move to choose", "position")
    candidates = list(position.search_moves() if moves is None else moves)
    if not candidates:
        raise GameOverError("the position has no moves to choose from", "position")
    scored = [(key(position, m), rng.random(), i) for i, m in enumerate(candidates)]
    scored.sort(reverse=True)
    top = scored[: max(1, top_n)]
    best_key, _, best_i = top[0]
    return SearchResult(
        move=candidates[best_i],
        value=float(best_key) + 0.0,
        exact=False,
        depth=1,
        nodes=len(candidates),
        stop_reason="rule",
        pv=[candidates[best_i]],
        alternatives=[ScoredMove(candidates[i], float(k) + 0.0, False) for k, _, i in top],
    )


def merge_limits(level: Limits, caller: Limits | None) -> Limits:
    """The level's limits with the caller's where the caller gave one (non-positive = not given)."""
    if caller is None:
        caller = Limits()

    def pick(mine: int | None, theirs: int | None) -> int | None:
        given = _given(theirs)
        return given if given is not None else _given(mine)

    return Limits(
        max_time_ms=pick(level.max_time_ms, caller.max_time_ms),
        max_depth=pick(level.max_depth, caller.max_depth),
        max_nodes=pick(level.max_nodes, caller.max_nodes),
    )


def play_level(
    game: Any,
    position: Position,
    level: str | None,
    limits: Limits | None,
    seed: int | str,
    top_n: int,
    stop: StopSignal = never,
    strategies: Mapping[str, Strategy] | None = None,
) -> SearchResult:
    """The shared ``Game.best_move``: check, merge limits, seed, run the level's strategy, time it.

    Raises GameOverError (field ``position``) on a finished game and UnknownLevel (field ``level``) for a
    level not in ``game.levels`` or without a strategy. ``level`` None or "" means ``game.default_level``.
    The strategy is called as ``strategies[level](position, limits, rng, top_n, stop)`` with the merged
    limits, ``rng = random.Random(seed)`` (a string seed goes through ``base.seeded_int``), ``top_n`` at least
    1, and ``stop`` a Deadline composing the merged time limit with the caller's ``stop`` (pass it on to
    ``search``/``mcts`` as their ``stop``). ``elapsed_ms`` is filled from the call's start.
    """
    if position.to_move == 0:
        raise GameOverError("the game is over: there is no move to choose", "position")
    name = level or game.default_level
    spec: Level | None = next((lv for lv in game.levels if lv.name == name), None)
    if spec is None or strategies is None or name not in strategies:
        known = ", ".join(lv.name for lv in game.levels)
        raise UnknownLevel(f"unknown level {name!r} for {game.id}; levels are: {known}", "level")
    merged = merge_limits(spec.limits, limits)
    rng = random.Random(seeded_int(seed) if isinstance(seed, str) else seed)
    deadline = Deadline(merged, stop)
    result = strategies[name](position, merged, rng, max(1, int(top_n or 1)), deadline)
    result.elapsed_ms = deadline.elapsed_ms()
    return result
