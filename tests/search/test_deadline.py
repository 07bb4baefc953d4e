"""The Deadline and ``greedy``."""

from __future__ import annotations

import random

import pytest

from service.core import GameOverError, Limits
from service.search import Deadline, greedy, never
from tests.search.toys import Nim, Piles


def test_never_never_fires() -> None:
    assert never() is False


def test_deadline_counts_nodes_and_remembers_why() -> None:
    deadline = Deadline(Limits(max_nodes=5))
    assert not any(deadline.expired(n) for n in range(5))
    assert deadline.expired(5) and deadline.reason == "nodes"
    assert deadline.expired(0)  # stays fired


def test_deadline_polls_stop_sparingly_and_names_the_reason() -> None:
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) >= 3

    deadline = Deadline(Limits(), stop)
    polls = 0
    while not deadline.expired(polls):
        polls += 1
    assert deadline.reason == "cancelled"
    assert len(calls) == 3 and polls > 3  # stop() is not called on every poll
    named = Deadline(Limits(), lambda: "deadline")
    assert named.expired() and named.reason == "deadline"


def test_deadline_time_and_composition() -> None:
    outer = Deadline(Limits(max_time_ms=1))
    while not outer.check():
        pass
    assert outer.reason == "time"
    inner = Deadline(Limits(max_nodes=10**9), outer)
    assert inner.expired(0) and inner.reason == "time"
    # Non-positive limits (proto3's unset zeros) are no limits.
    zero = Deadline(Limits(max_time_ms=0, max_nodes=0))
    assert not zero.expired(10**6) and not zero.check()


def test_greedy_maximises_with_seeded_ties() -> None:
    position = Piles((3, 2, 3))

    def key(p: Piles, move: tuple[int, int]) -> float:
        return float(move[1])  # take as many as possible: (0,3) and (2,3) tie

    picks = {greedy(position, key, random.Random(seed)).move for seed in range(20)}
    assert picks == {(0, 3), (2, 3)}
    a = greedy(position, key, random.Random(7), top_n=3)
    b = greedy(position, key, random.Random(7), top_n=3)
    assert a == b
    assert (a.value, a.stop_reason, a.exact, len(a.alternatives)) == (3.0, "rule", False, 3)
    assert [s.value for s in a.alternatives] == [3.0, 3.0, 2.0]
    assert a.alternatives[0].move == a.move
    only = greedy(position, key, random.Random(1), moves=[(1, 1)])
    assert only.move == (1, 1)


def test_greedy_refuses_a_finished_game() -> None:
    with pytest.raises(GameOverError):
        greedy(Nim((0,), 0, 1), lambda p, m: 0.0, random.Random(0))


def test_clock_only_says_whether_a_callers_stop_is_under_it() -> None:
    """A native search skips its watcher thread for a Deadline only the clock can fire."""
    assert Deadline(Limits(max_time_ms=5)).clock_only
    assert Deadline(Limits(), Deadline(Limits(max_time_ms=5))).clock_only
    assert not Deadline(Limits(), lambda: False).clock_only
    assert not Deadline(Limits(), Deadline(Limits(), lambda: False)).clock_only


def test_a_time_already_past_is_searched_with_and_a_stop_heard_at_once() -> None:
    """docs/api.md: a time given is searched with. The own time is read from the first node on, so a search that
    begins after it (a loaded machine) still searches; a stop() already fired is heard at the first poll."""
    late = Deadline(Limits(max_time_ms=1))
    late.start -= 1.0
    late._end = late.start + 0.001  # its time passed a second ago
    assert not late.expired(0)
    nodes = 1
    while not late.expired(nodes):
        nodes += 1
    assert late.reason == "time" and nodes <= 64
    stopped = Deadline(Limits(max_time_ms=1), lambda: True)
    assert stopped.expired(0) and stopped.reason == "cancelled"
