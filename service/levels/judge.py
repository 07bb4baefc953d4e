"""The review's judge and its plan: how hard each position of a reviewed game is searched.

A review that searches with the level that played cannot see that level's errors, so by default a review is
judged by the game's strongest level searched harder than it plays: the game's ``judge`` limits
(``GameLevels.judge``, several times the strongest level's node budget, or its time), with each search's time a
share of the call's: the time left divided by the searches left, so a whole game fits the call's deadline and
a search that ends early leaves its time to the next. Under a time of its own the strongest level proves the
game's tail as far as the time reaches (``budget.py``), so the judge's shares buy proofs near the end.

A call without a deadline plans as if it had ``DEFAULT_REVIEW_S``, the REST gateway's default, so a review
judges alike over both transports. A caller who names a level or limits gets those, as asked; the plan then
only says whether the deadline leaves time for them. Where the deadline is too short the plan says so before
the first ply (``enough_time`` false, ``detail``), and the plies the time does not reach stay unreviewed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from service.core.contract import MoveT, PositionT
from service.core.values import Limits
from service.levels.driver import GameLevels
from service.search.deadline import given_limit

DEFAULT_REVIEW_S = 30.0  # what a review with no deadline plans for: the REST gateway's default deadline
# The least time a search is worth: below it a share judges nothing (the servicer's own floor for a search is
# its MIN_SEARCH_S, 20 ms; a share under this is said to be too short up front).
MIN_SHARE_MS = 25


@dataclass(frozen=True, slots=True)
class ReviewPlan:
    """How a review searches: ``level`` with ``limits`` each (for the judge, the time is the share at the start,
    and ``shared`` says each search's time is re-planned as a share of what is left, up to ``cap_ms``, the
    judge's own time); ``searches`` positions need a search; ``enough_time`` whether the time covers them, and
    ``detail`` one sentence of it."""

    level: str
    limits: Limits | None
    searches: int
    shared: bool
    enough_time: bool
    detail: str
    cap_ms: int | None = None

    def limits_now(self, seconds_left: float, searches_left: int) -> Limits | None:
        """A search's limits now: with ``shared`` the plan's node budget and a share of ``seconds_left`` (the
        searches' time still left) over ``searches_left`` (at least this one), capped by the judge's time: time a
        search left unspent goes to the ones after it."""
        if not self.shared or self.limits is None:
            return self.limits
        return Limits(
            max_time_ms=share_ms(seconds_left, searches_left, self.cap_ms),
            max_depth=self.limits.max_depth,
            max_nodes=self.limits.max_nodes,
        )


class Shares:
    """A review's searches taken one by one under its ``plan``: each search's limits (``ReviewPlan.limits_now``)
    from the time left to ``end`` (``time.monotonic()``) and the searches left."""

    def __init__(self, plan: ReviewPlan, end: float) -> None:
        self.plan, self.end, self.done = plan, end, 0

    def next(self, end: float | None = None) -> Limits | None:
        """The next search's limits, its time shared out to ``end`` (default: the plan's)."""
        until = self.end if end is None else min(end, self.end)
        limits = self.plan.limits_now(until - time.monotonic(), self.plan.searches - self.done)
        self.done += 1
        return limits


def share_ms(seconds_left: float, searches_left: int, cap_ms: int | None) -> int:
    """The time of one search: ``seconds_left`` over ``searches_left``, at most ``cap_ms``, at least 1 ms."""
    share = max(1, math.floor(max(seconds_left, 0.0) * 1000 / max(searches_left, 1)))
    return share if cap_ms is None else min(share, cap_ms)


def plan_review(
    levels: GameLevels[PositionT, MoveT], level: str | None, limits: Limits | None, searches: int, seconds: float
) -> ReviewPlan:
    """The plan of a review of ``searches`` searches with ``seconds`` for them (a call with no deadline plans
    for ``DEFAULT_REVIEW_S``): the judge when neither ``level`` nor ``limits`` is given, else the level (default:
    the strongest) with the caller's limits or its own."""
    seconds = max(seconds, 0.0)
    each_ms = seconds * 1000 / max(searches, 1)
    if not level and limits is None:
        judge = levels.judge
        planned = Limits(
            max_time_ms=share_ms(seconds, searches, judge.max_time_ms),
            max_depth=judge.max_depth,
            max_nodes=judge.max_nodes,
        )
        enough = each_ms >= MIN_SHARE_MS
        said = f"the judge: {levels.strongest} with {limits_text(planned)} a search, its time a share of the call's"
        detail = _detail(said, enough, each_ms, seconds)
        return ReviewPlan(levels.strongest, planned, searches, True, enough, detail, judge.max_time_ms)
    name = levels.level(level or levels.strongest).name
    asked_ms = given_limit(limits.max_time_ms) if limits is not None else None
    enough = each_ms >= max(MIN_SHARE_MS, asked_ms or 0)
    said = f"{name} with {limits_text(limits) if limits is not None else 'its own limits'} a search"
    return ReviewPlan(name, limits, searches, False, enough, _detail(said, enough, each_ms, seconds))


def _detail(said: str, enough: bool, each_ms: float, seconds: float) -> str:
    if enough:
        return f"{said}; the call's deadline leaves time for every search"
    reach = math.floor(seconds * 1000 / MIN_SHARE_MS)
    return (
        f"{said}; the call's time allows only {each_ms:.0f} ms for each, too little: about {reach} searches fit, "
        "the plies after them come back unreviewed (send a longer deadline, or fewer moves)"
    )


def limits_text(limits: Limits) -> str:
    parts = []
    if limits.max_nodes is not None:
        parts.append(f"{limits.max_nodes:,} positions")
    if limits.max_depth is not None:
        parts.append(f"{limits.max_depth} moves deep")
    if limits.max_time_ms is not None:
        parts.append(f"{limits.max_time_ms} ms")
    return ", ".join(parts) or "no limit"
