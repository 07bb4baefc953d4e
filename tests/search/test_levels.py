"""The Deadline, ``greedy`` and the ``play_level`` driver."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from service.games.base import GameOverError, Level, Limits, SearchResult, UnknownLevel
from service.search import Deadline, greedy, never, play_level, search
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


@dataclass
class _Game:
    id: str = "piles"
    default_level: str = "deep"
    levels: tuple[Level, ...] = (
        Level("first", "Takes the first move.", Limits()),
        Level("deep", "Searches.", Limits(max_depth=4, max_nodes=50_000)),
    )
    seen: list[tuple[Limits, int]] = field(default_factory=list)


def _strategies(game: _Game) -> dict:
    def first(position, limits, rng, top_n, stop) -> SearchResult:
        game.seen.append((limits, top_n))
        return greedy(position, lambda p, m: 0.0, rng, top_n)

    def deep(position, limits, rng, top_n, stop) -> SearchResult:
        game.seen.append((limits, top_n))
        return search(position, limits, stop=stop, top_n=top_n, rng=rng)

    return {"first": first, "deep": deep}


def test_play_level_merges_limits_and_fills_elapsed() -> None:
    game = _Game()
    strategies = _strategies(game)
    position = Piles((3, 4, 2))
    result = play_level(game, position, None, Limits(max_depth=2), 5, 0, never, strategies)
    assert game.seen[-1] == (Limits(max_depth=2, max_nodes=50_000), 1)
    assert result.depth == 2 and result.elapsed_ms > 0.0
    play_level(game, position, "deep", Limits(max_depth=0, max_time_ms=0), 5, 3, never, strategies)
    assert game.seen[-1] == (Limits(max_depth=4, max_nodes=50_000), 3)
    play_level(game, position, "", None, 5, 1, never, strategies)
    assert game.seen[-1][0] == Limits(max_depth=4, max_nodes=50_000)


def test_play_level_same_seed_same_answer() -> None:
    game = _Game()
    strategies = _strategies(game)
    position = Piles((3, 4, 2, 3))
    for level in ("first", "deep"):
        a = play_level(game, position, level, None, 11, 2, never, strategies)
        b = play_level(game, position, level, None, 11, 2, never, strategies)
        a.elapsed_ms = b.elapsed_ms = 0.0
        assert a == b
    picks = {play_level(game, position, "first", None, s, 1, never, strategies).move for s in range(30)}
    assert len(picks) > 1  # the seed does reach the tie-breaks
    text = play_level(game, position, "first", None, "abc", 1, never, strategies)
    assert text.move == play_level(game, position, "first", None, "abc", 1, never, strategies).move


def test_play_level_errors() -> None:
    game = _Game()
    strategies = _strategies(game)
    with pytest.raises(GameOverError) as over:
        play_level(game, Nim((0,), 0, 1), None, None, 0, 1, never, strategies)
    assert over.value.field == "position"
    with pytest.raises(UnknownLevel) as unknown:
        play_level(game, Piles((2,)), "grandmaster", None, 0, 1, never, strategies)
    assert unknown.value.field == "level" and "first" in unknown.value.message


def test_play_level_passes_a_stop_that_fires() -> None:
    game = _Game()
    strategies = _strategies(game)
    position = Piles((5, 6, 4, 5, 3, 4))
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2

    result = play_level(game, position, "deep", Limits(max_depth=30, max_nodes=10**9), 0, 1, stop, strategies)
    assert result.stop_reason == "cancelled"
    assert result.move in position.search_moves()
