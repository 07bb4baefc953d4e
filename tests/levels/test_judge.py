"""The review's plan (``service/levels/judge.py``) over the registry, at its edges: the judge by default, stronger
than the strongest level's own budget, its time a share of the call's and never above its cap; time a search left
unspent goes to the searches after it; a deadline too short for the searches is said up front; a level or limits
named are searched as asked."""

from __future__ import annotations

import time

import pytest

from service.core import Limits
from service.games import LEVELS
from service.levels.judge import DEFAULT_REVIEW_S, MIN_SHARE_MS, Shares, plan_review, share_ms


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_the_judge_searches_harder_than_the_strongest_level(game_id: str) -> None:
    levels = LEVELS[game_id]
    own = levels.level(levels.strongest).limits
    plan = plan_review(levels, None, None, 60, DEFAULT_REVIEW_S)
    assert plan.level == levels.strongest and plan.shared and plan.enough_time and plan.searches == 60
    assert plan.limits is not None and plan.cap_ms == levels.judge.max_time_ms
    assert own.max_nodes is not None, "every strongest level declares a node (or iteration) budget"
    assert plan.limits.max_nodes is not None and plan.limits.max_nodes > own.max_nodes
    assert plan.limits.max_time_ms == min(500, levels.judge.max_time_ms or 500)  # 30 s over 60 searches


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_a_share_grows_with_time_left_unspent_up_to_the_cap(game_id: str) -> None:
    levels = LEVELS[game_id]
    plan = plan_review(levels, None, None, 40, 4.0)  # 100 ms each at the start
    cap = levels.judge.max_time_ms
    assert plan.limits is not None and plan.limits.max_time_ms == 100 and cap is not None
    first = plan.limits_now(4.0, 40)
    later = plan.limits_now(3.9, 10)  # thirty searches ended at once: 390 ms each for the ten left
    assert first is not None and later is not None and (first.max_time_ms, later.max_time_ms) == (100, 390)
    assert later.max_nodes == plan.limits.max_nodes
    assert plan.limits_now(3600.0, 1) == Limits(max_time_ms=cap, max_nodes=plan.limits.max_nodes)


def test_the_shares_count_the_searches_and_end_with_the_plan() -> None:
    levels = LEVELS["reversi"]
    plan = plan_review(levels, None, None, 3, 300.0)
    shares = Shares(plan, time.monotonic() + 300)
    taken = [shares.next() for _ in range(3)]
    assert shares.done == 3 and all(limits is not None and limits.max_time_ms == plan.cap_ms for limits in taken)
    ended = Shares(plan, time.monotonic() - 1).next()
    assert ended is not None and ended.max_time_ms == 1  # no time left: the least share, never zero or below


def test_a_deadline_too_short_is_said_up_front() -> None:
    levels = LEVELS["kalah"]
    fits = plan_review(levels, None, None, 40, 40 * MIN_SHARE_MS / 1000)
    short = plan_review(levels, None, None, 41, 40 * MIN_SHARE_MS / 1000)
    nothing = plan_review(levels, None, None, 10, 0.0)
    assert fits.enough_time and "leaves time for every search" in fits.detail
    assert not short.enough_time and "too little" in short.detail and "about 40 searches fit" in short.detail
    assert not nothing.enough_time and "about 0 searches fit" in nothing.detail
    assert plan_review(levels, None, None, 0, DEFAULT_REVIEW_S).enough_time  # all moves forced: nothing to search


def test_a_level_or_limits_named_are_searched_as_asked() -> None:
    levels = LEVELS["reversi"]
    named = plan_review(levels, "corner_hunter", None, 10, DEFAULT_REVIEW_S)
    assert (named.level, named.limits, named.shared) == ("corner_hunter", None, False)
    assert named.limits_now(0.001, 1) is None
    asked = Limits(max_time_ms=2_000)
    timed = plan_review(levels, None, asked, 10, 10.0)  # 1 s each, the caller asks 2
    assert (timed.level, timed.limits, timed.shared, timed.enough_time) == ("expert", asked, False, False)
    assert timed.limits_now(10.0, 10) == asked
    with pytest.raises(Exception, match="unknown level"):
        plan_review(levels, "grandmaster", None, 1, 1.0)


@pytest.mark.parametrize(
    ("seconds", "left", "cap", "share"),
    [(1.0, 4, None, 250), (1.0, 4, 100, 100), (0.0, 4, None, 1), (-5.0, 1, 50, 1), (2.0, 0, None, 2000)],
)
def test_a_share_is_the_time_over_the_searches_within_one_ms_and_the_cap(
    seconds: float, left: int, cap: int | None, share: int
) -> None:
    assert share_ms(seconds, left, cap) == share
