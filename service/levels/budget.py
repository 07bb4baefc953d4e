"""The budget of one best move: what the caller asked, what the level declares, what the server allows, and
every question the levels and the search ask of it (``docs/api.md``, "Best move: levels, limits and budgets").

A level is its skill (evaluation, selectivity, variety, mistakes) plus a default budget it declares (its
``Level.limits``); it never guesses who set a limit. The caller's limits are kept as asked, beside the level's,
the server's cap and the call's deadline, so the rules below read who gave what:

- the caller's ``max_time_ms`` (capped by the server) replaces the level's time, and with no ``max_nodes`` of the
  caller's it also lifts the level's node budget: a hidden node budget never cuts a caller's time short;
- the caller's ``max_nodes`` and ``max_depth`` replace the level's of that kind; a depth the level declares is its
  skill and stays unless the caller gives one;
- without any resource of the caller's the level's own budget holds, so the answer is the same for a seed on
  every machine (a node or depth budget), and a level may declare a depth of its own for that case
  (``unless_given``: Reversi ``expert`` on the Python search);
- a proof starts as far from the end as the time allows (``plan`` over the ``Reach`` a level declares): within
  the reach its measured proofs fit, the search proves (``solve``); a little further, with a generous time of
  the caller's, a proof is tried with a share of the time and the search gets the rest (``try``); a share of
  the budget can be spent first on a proof (``share``) with the rest left for the search (``rest``);
- the search spends at least ``SPEND`` of a time limit before it may decline to begin an iteration that cannot
  finish (``Limits.spend``), so a caller's time is used.

``Purpose``: ``play`` (a bot's move: the level's seeded variety) or ``analysis`` (the strongest move the level
finds, no variety): ``varied`` answers whether the level may vary its choice.
"""

from __future__ import annotations

import collections
import contextlib
import math
import os
import threading
import time
from dataclasses import dataclass
from typing import Literal

from service.core.values import Limits, Purpose
from service.search.deadline import given_limit

# The share of a time limit a search spends before it may decline to begin an iteration that it cannot finish
# in what is left (the answer would be the last one's anyway): the contract's "used until it is spent" (the
# budget contract test measures it on every game and level).
SPEND = 0.75
# A proof tried past the measured reach (``plan``'s "try"): at most this many units further (empty squares,
# seeds, cells), only with at least ``TRY_FROM_MS`` of the caller's time left, and with ``TRY_SHARE`` of it; the
# measured reach follows the slowest proofs, and typical ones (a game's start, the FFO suite) go further
# (``python -m bench.best_move``: Kalah(6,3) from the start, FFO #40, proved through BestMove).
TRY_FURTHER = 4
TRY_FROM_MS = 2_000.0
TRY_SHARE = 0.5

# What a level does about proving the game: search, prove (the search's solve mode), or try a proof first.
Plan = Literal["search", "solve", "try"]


@dataclass(frozen=True, slots=True)
class Reach:
    """How far from the end (empty squares, seeds in the pits, cells) a level's proofs start: ``own`` under its
    own budget (or a node budget of the caller's); with a caller's time, ``at`` where its measured proofs took
    at most ``at_ms`` (CPU), one further for each ``growth`` times more time (``at`` None: ``own`` always, as on
    the Python search)."""

    own: int
    at: int | None = None
    at_ms: float = 1.0
    growth: float = 2.0


@dataclass(frozen=True, slots=True)
class Budget:
    """One best move's resources. ``level``: the level's declared limits; ``asked``: the caller's, as asked
    (None or non-positive: not given); ``cap_ms``: the server's cap on one search (None: none, a library
    call); ``end``: the ``time.monotonic()`` instant by which the search must have answered (the call's
    deadline less the answer's margin; None: none); ``purpose``: play or analysis."""

    level: Limits
    asked: Limits
    cap_ms: int | None = None
    end: float | None = None
    purpose: Purpose = "play"

    # --- what was given, by whom ---

    @property
    def callers_time_ms(self) -> int | None:
        """The caller's time as the server allows it (capped), None when the caller gave none."""
        asked = given_limit(self.asked.max_time_ms)
        if asked is None:
            return None
        return asked if self.cap_ms is None else min(asked, self.cap_ms)

    @property
    def callers_resources(self) -> bool:
        """Whether the caller gave a time, a depth or a node budget of its own."""
        return any(
            given_limit(v) is not None for v in (self.asked.max_time_ms, self.asked.max_depth, self.asked.max_nodes)
        )

    @property
    def varied(self) -> bool:
        """Whether the level may vary its choice by its seed (play), or must answer its best move (analysis)."""
        return self.purpose != "analysis"

    # --- the bounds the search runs with ---

    @property
    def limits(self) -> Limits:
        """The time, depth and node bounds of the search (the rules of the module docstring)."""
        time_ms = self.callers_time_ms
        if time_ms is None:
            time_ms = given_limit(self.level.max_time_ms)
            if time_ms is not None and self.cap_ms is not None:
                time_ms = min(time_ms, self.cap_ms)
        depth = given_limit(self.asked.max_depth) or given_limit(self.level.max_depth)
        nodes = given_limit(self.asked.max_nodes)
        if nodes is None and self.callers_time_ms is None:
            nodes = given_limit(self.level.max_nodes)
        return Limits(max_time_ms=time_ms, max_depth=depth, max_nodes=nodes, spend=SPEND)

    def unless_given(self, depth: int) -> Limits:
        """``limits``, with ``depth`` as well when the caller gave no resource of its own (a level's depth for its
        reproducible default, beside its node budget)."""
        limits = self.limits
        if self.callers_resources or limits.max_depth is not None:
            return limits
        return Limits(limits.max_time_ms, depth, limits.max_nodes, limits.spend)

    def time_left_ms(self) -> float | None:
        """Milliseconds the search may still run: its time limit and the call's end, whichever is nearer (None:
        neither)."""
        own = given_limit(self.limits.max_time_ms)
        times: list[float] = [] if own is None else [float(own)]
        if self.end is not None:
            times.append(max(0.0, (self.end - time.monotonic()) * 1000.0))
        return min(times) if times else None

    # --- proofs ---

    def solve_reach(self, reach: Reach) -> int:
        """From how far from the end a proof may start: ``reach.own`` under the level's own budget (or a node
        budget of the caller's), else as far as the caller's time left allows (``Reach``), never less."""
        if reach.at is None or given_limit(self.asked.max_nodes) is not None or self.callers_time_ms is None:
            return reach.own
        left = self.time_left_ms()
        if left is None or left <= 0:
            return reach.own
        return max(reach.own, reach.at + math.floor(math.log(left / reach.at_ms, reach.growth)))

    def plan(self, distance: int, reach: Reach) -> Plan:
        """What to do about proving a position ``distance`` from the end: nothing under a caller's depth (a
        proof goes to the end), ``solve`` within the reach, ``try`` a little past it when the caller's time is
        generous (``TRY_FURTHER``, ``TRY_FROM_MS``), else ``search``."""
        if self.limits.max_depth is not None:
            return "search"
        solve_reach = self.solve_reach(reach)
        if distance <= solve_reach:
            return "solve"
        left = self.time_left_ms()
        generous = reach.at is not None and solve_reach > reach.own and left is not None and left >= TRY_FROM_MS
        return "try" if generous and distance <= solve_reach + TRY_FURTHER else "search"

    def share(self, node_share: float, time_ms: int | None) -> Limits:
        """A first part of the budget for a proof tried before the search: ``node_share`` of its nodes and
        ``time_ms`` (None: none of its own; the call's end still holds). No depth: a proof goes to the end."""
        nodes = self.limits.max_nodes
        nodes = None if nodes is None else max(1, int(nodes * node_share))
        return Limits(max_time_ms=time_ms, max_nodes=nodes, spend=self.limits.spend)

    def rest(self, spent_nodes: int, began: float) -> Limits:
        """What is left of the budget after a first part that searched ``spent_nodes`` and began at ``began``
        (``time.monotonic()``): the time from the clock, so a proof that ended early leaves its time over."""
        limits = self.limits
        time_ms = limits.max_time_ms
        if time_ms is not None:
            time_ms = max(1, int(time_ms - (time.monotonic() - began) * 1000.0))
        nodes = None if limits.max_nodes is None else max(1, limits.max_nodes - spent_nodes)
        return Limits(max_time_ms=time_ms, max_depth=limits.max_depth, max_nodes=nodes, spend=limits.spend)


def answer_margin_s(remaining_s: float, fixed_ms: int, lag_s: float = 0.0) -> float:
    """How long before a caller's deadline a search must end for its answer to arrive in time: the fixed margin
    (encoding and the trip back), a tenth of the time left (at most a quarter second), and twice the scheduling
    lag measured lately (``SchedulingLag``: a search that must notice its end and a worker that must send the
    answer both wait for a core that long on a saturated host), never more than half the time left."""
    remaining_s = max(remaining_s, 0.0)
    margin = fixed_ms / 1000 + min(remaining_s / 10, 0.25) + LAG_FACTOR * lag_s
    return min(margin, max(remaining_s / 2, fixed_ms / 1000))


LAG_FACTOR = 2.0  # lags to keep: the search noticing its end, the worker answering
LAG_PERIOD_S = 0.02  # how often the lag is sampled
LAG_WINDOW = 100  # samples kept: the worst of the last two seconds


class SchedulingLag:
    """How late a thread at the searches' priority wakes on this host, lately: a daemon thread (``start``) sleeps
    ``LAG_PERIOD_S`` again and again at nice ``nice`` and keeps how much longer each sleep took; ``seconds`` is the
    worst of the last ``LAG_WINDOW``. On an idle host it is well under a millisecond; with every core busy it is
    what a search waits before it can notice its time is up. ``observe`` takes a sample (the thread's, or a
    test's)."""

    def __init__(self, nice: int = 0) -> None:
        self._nice = nice
        self._samples: collections.deque[float] = collections.deque(maxlen=LAG_WINDOW)
        self._started = False
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._run, name="scheduling-lag", daemon=True).start()

    def observe(self, late_s: float) -> None:
        self._samples.append(max(0.0, late_s))

    @property
    def seconds(self) -> float:
        return max(self._samples, default=0.0)

    def _run(self) -> None:
        with contextlib.suppress(OSError):  # not Linux, or a sandbox that forbids it: sampled at normal priority
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self._nice)
        while True:
            began = time.monotonic()
            time.sleep(LAG_PERIOD_S)
            self.observe(time.monotonic() - began - LAG_PERIOD_S)
