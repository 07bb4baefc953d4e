"""The budget room (``service/levels/budget.py``): who gave which limit, the bounds the search runs with, how
far a proof starts, the shares of a proof tried first, and the margin kept for the answer."""

from __future__ import annotations

import time

import pytest

from service.core import Limits
from service.levels.budget import (
    LAG_FACTOR,
    SPEND,
    TRY_FROM_MS,
    TRY_FURTHER,
    Budget,
    Reach,
    SchedulingLag,
    answer_margin_s,
)

NODES = Limits(max_nodes=30_000)  # a strongest level's own budget
DEPTH = Limits(max_depth=4)  # a lighter level's skill
TIMED = Limits(max_time_ms=1_500)  # a Monte Carlo level's own time
REACH = Reach(own=12, at=16, at_ms=90.0, growth=3.6)


@pytest.mark.parametrize(
    ("level", "asked", "cap", "bounds"),
    [
        (NODES, Limits(), 10_000, Limits(max_nodes=30_000)),
        (NODES, Limits(max_time_ms=200), 10_000, Limits(max_time_ms=200)),  # a hidden node budget is lifted
        (NODES, Limits(max_time_ms=10_000), 10_000, Limits(max_time_ms=10_000)),  # equal to the cap: still theirs
        (NODES, Limits(max_time_ms=30_000), 10_000, Limits(max_time_ms=10_000)),  # above it: capped, still theirs
        (NODES, Limits(max_nodes=500), 10_000, Limits(max_nodes=500)),
        (NODES, Limits(max_depth=3), 10_000, Limits(max_depth=3, max_nodes=30_000)),
        (NODES, Limits(max_time_ms=200, max_nodes=500), 10_000, Limits(max_time_ms=200, max_nodes=500)),
        (NODES, Limits(max_time_ms=0, max_nodes=-1), 10_000, Limits(max_nodes=30_000)),  # proto3's unset
        (DEPTH, Limits(max_time_ms=200), 10_000, Limits(max_time_ms=200, max_depth=4)),  # the skill stays
        (DEPTH, Limits(max_depth=7), 10_000, Limits(max_depth=7)),
        (TIMED, Limits(), 1_000, Limits(max_time_ms=1_000)),  # the level's own time is capped too
        (TIMED, Limits(max_time_ms=100), 10_000, Limits(max_time_ms=100)),
        (TIMED, Limits(max_nodes=40), 10_000, Limits(max_time_ms=1_500, max_nodes=40)),
        (NODES, Limits(max_time_ms=30_000), None, Limits(max_time_ms=30_000)),  # a library call: no cap
    ],
)
def test_the_bounds_of_the_search(level: Limits, asked: Limits, cap: int | None, bounds: Limits) -> None:
    limits = Budget(level, asked, cap).limits
    assert limits == Limits(bounds.max_time_ms, bounds.max_depth, bounds.max_nodes, SPEND)


def test_who_gave_what() -> None:
    assert Budget(NODES, Limits()).callers_time_ms is None and not Budget(NODES, Limits()).callers_resources
    assert Budget(NODES, Limits(max_time_ms=30_000), 10_000).callers_time_ms == 10_000
    assert Budget(NODES, Limits(max_depth=2)).callers_resources
    assert Budget(NODES, Limits()).varied and not Budget(NODES, Limits(), purpose="analysis").varied


def test_a_levels_depth_for_its_reproducible_default() -> None:
    assert Budget(NODES, Limits()).unless_given(6) == Limits(max_depth=6, max_nodes=30_000, spend=SPEND)
    assert Budget(NODES, Limits(max_nodes=500)).unless_given(6).max_depth is None
    assert Budget(NODES, Limits(max_time_ms=100)).unless_given(6).max_depth is None


def test_the_solve_reach_follows_the_callers_time() -> None:
    assert Budget(NODES, Limits()).solve_reach(REACH) == 12  # the level's own
    assert Budget(NODES, Limits(max_time_ms=100)).solve_reach(REACH) == 16
    assert Budget(NODES, Limits(max_time_ms=1_000)).solve_reach(REACH) == 17
    assert Budget(NODES, Limits(max_time_ms=10_000)).solve_reach(REACH) == 19
    assert Budget(NODES, Limits(max_time_ms=30_000), 10_000).solve_reach(REACH) == 19  # the cap's reach
    assert Budget(NODES, Limits(max_time_ms=1_000, max_nodes=10**6)).solve_reach(REACH) == 12  # nodes: its own
    assert Budget(NODES, Limits(max_time_ms=10)).solve_reach(REACH) == 14  # 90 ms / 3.6 / 3.6 > 10 ms: two less
    assert Budget(NODES, Limits(max_time_ms=1)).solve_reach(REACH) == 12  # never less than its own
    assert Budget(NODES, Limits(max_time_ms=10_000)).solve_reach(Reach(12)) == 12  # no measured growth
    # The call's end is nearer than the caller's time: the reach follows what is left.
    soon = Budget(NODES, Limits(max_time_ms=10_000), end=time.monotonic() + 0.1)
    assert soon.solve_reach(REACH) == 16


def test_the_plan() -> None:
    generous = Budget(NODES, Limits(max_time_ms=10_000))
    assert generous.plan(19, REACH) == "solve"
    assert generous.plan(19 + TRY_FURTHER, REACH) == "try"
    assert generous.plan(20 + TRY_FURTHER, REACH) == "search"
    assert Budget(NODES, Limits(max_time_ms=10_000, max_depth=8)).plan(10, REACH) == "search"  # a proof's end
    short = Budget(NODES, Limits(max_time_ms=int(TRY_FROM_MS) - 1))
    assert short.plan(19, REACH) == "search"  # no time to try past the reach
    assert Budget(NODES, Limits()).plan(12, REACH) == "solve" and Budget(NODES, Limits()).plan(13, REACH) == "search"


def test_a_share_for_a_proof_and_the_rest_for_the_search() -> None:
    budget = Budget(Limits(max_nodes=20_000), Limits())
    assert budget.share(0.5, None) == Limits(max_nodes=10_000, spend=SPEND)
    assert budget.rest(4_000, time.monotonic()) == Limits(max_nodes=16_000, spend=SPEND)
    timed = Budget(Limits(max_nodes=20_000), Limits(max_time_ms=1_000))
    assert timed.share(0.5, 750) == Limits(max_time_ms=750, spend=SPEND)
    rest = timed.rest(123, time.monotonic() - 0.25)  # a proof that took a quarter second
    assert rest.max_nodes is None and 700 <= rest.max_time_ms <= 750


def test_the_answer_margin_follows_the_scheduling_lag() -> None:
    assert answer_margin_s(5.0, 50) == pytest.approx(0.3)  # 50 ms and a tenth, at most a quarter second
    assert answer_margin_s(1.0, 50) == pytest.approx(0.15)
    assert answer_margin_s(1.0, 50, 0.1) == pytest.approx(0.15 + LAG_FACTOR * 0.1)
    assert answer_margin_s(0.2, 50, 1.0) == pytest.approx(0.1)  # never more than half of what is left
    lag = SchedulingLag()
    assert lag.seconds == 0.0
    for late in (0.001, 0.04, -0.002, 0.003):
        lag.observe(late)
    assert lag.seconds == 0.04
    lag.start()
    lag.start()  # once
    time.sleep(0.1)
    assert lag.seconds == 0.04  # the worst sample of the window is kept
