"""The one stop mechanism of every search: ``Deadline`` composes a time limit, a node limit and the caller's
stop signal, and is cheap enough to poll at every node."""

from __future__ import annotations

import time
from collections.abc import Callable

from service.core.values import Limits, SearchResult, Stop, StopSignal, as_stop

# The clock (and the caller's stop()) is read every ``interval`` polls. The interval adapts so that reads
# happen roughly every _TARGET_GAP seconds whatever a node costs (a Reversi node is microseconds, a Strands
# rollout may be milliseconds), so a deadline is overshot by about that much at most.
_TARGET_GAP = 0.002
_FIRST_INTERVAL = 16
_MAX_INTERVAL = 1024


class _Never(Stop):
    """The stop signal that never fires (nothing but a clock of a Deadline over it can)."""

    __slots__ = ()

    @property
    def clock_only(self) -> bool:
        return True


never = _Never()


def given_limit(value: int | None) -> int | None:
    """A limit as given: None or a non-positive number (proto3's unset 0) means no limit of that kind."""
    if value is None or value <= 0:
        return None
    return int(value)


class Deadline(Stop):
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
        "spend_until",
        "start",
    )

    def __init__(self, limits: Limits | None = None, stop: StopSignal = never) -> None:
        limits = limits or Limits()
        self.start = time.monotonic()
        self.max_nodes = given_limit(limits.max_nodes)
        max_time_ms = given_limit(limits.max_time_ms)
        self._end = None if max_time_ms is None else self.start + max_time_ms / 1000.0
        # Before this instant a search begins every iteration (``Limits.spend``: the time is the caller's).
        self.spend_until = self.start + (0.0 if max_time_ms is None else limits.spend * max_time_ms / 1000.0)
        self._stop = as_stop(stop)
        ends = [end for end in (self._end, self._stop.end) if end is not None]
        self.end: float | None = min(ends) if ends else None
        self.on_iteration: Callable[[SearchResult], None] | None = self._stop.on_iteration
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
        return self.check(nodes > 0)

    def check(self, searched: bool = True) -> bool:
        """Read the clock and call ``stop()`` now (not only every ``interval`` polls). The search's own time is
        read only once it has ``searched`` (a node): a time given is searched with, however late the search began
        on a loaded machine; ``stop()`` and its end are heard at once."""
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
            elif self._stop.reason:  # an outer Deadline's
                self.reason = self._stop.reason
            else:
                self.reason = "cancelled"
            return True
        if searched and self._end is not None and now >= self._end:
            self.reason = "time"
            return True
        return False

    @property
    def clock_only(self) -> bool:
        """Whether only the clock can fire it (no caller's stop signal under it): a native search that reads
        ``end`` itself then needs no one to ask it while it runs."""
        return self._stop.clock_only

    def time_left(self) -> float | None:
        """Seconds until the time limit, or None without one."""
        return None if self._end is None else self._end - time.monotonic()

    def __call__(self) -> bool:
        return self.check()

    def elapsed_ms(self) -> float:
        """Milliseconds since the Deadline was made."""
        return (time.monotonic() - self.start) * 1000.0
