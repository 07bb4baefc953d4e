"""The best-move driver every game's levels share (``service/levels/driver.py``)."""

from __future__ import annotations

import pytest

from service.core import GameOverError, Level, Limits, SearchResult, Stop, UnknownLevel
from service.games import LEVELS
from service.levels.budget import SPEND
from service.levels.driver import GameLevels, play_level
from service.levels.review import ReviewScale
from service.search import greedy, never, search
from tests.search.toys import Nim, Piles

SCALE = ReviewScale(excellent=0.02, good=0.05, inaccuracy=0.1, mistake=0.2)
JUDGE = Limits(max_nodes=1_000)


def _levels(seen: list[tuple[Limits, int]]) -> GameLevels:
    """Two levels of the toy game Piles that record the limits and top_n they were called with."""

    def first(position, budget, rng, top_n, stop) -> SearchResult:
        seen.append((budget.limits, top_n))
        return greedy(position, lambda p, m: 0.0, rng, top_n)

    def deep(position, budget, rng, top_n, stop) -> SearchResult:
        seen.append((budget.limits, top_n))
        return search(position, budget.limits, stop=stop, top_n=top_n, rng=rng)

    levels = (
        Level("first", "Takes the first move.", Limits()),
        Level("deep", "Searches.", Limits(max_depth=4, max_nodes=50_000)),
    )
    return GameLevels("piles", levels, "deep", {"first": first, "deep": deep}, SCALE, JUDGE)


def test_play_level_keeps_the_callers_limits_beside_the_levels_and_fills_elapsed() -> None:
    seen: list[tuple[Limits, int]] = []
    levels = _levels(seen)
    position = Piles((3, 4, 2))
    result = play_level(levels, position, None, Limits(max_depth=2), 5, 0, never)
    assert seen[-1] == (Limits(max_depth=2, max_nodes=50_000, spend=SPEND), 1)
    assert result.depth == 2 and result.elapsed_ms > 0.0
    play_level(levels, position, "deep", Limits(max_depth=0, max_time_ms=0), 5, 3, never)
    assert seen[-1] == (Limits(max_depth=4, max_nodes=50_000, spend=SPEND), 3)
    play_level(levels, position, "", None, 5, 1, never)
    assert seen[-1][0] == Limits(max_depth=4, max_nodes=50_000, spend=SPEND)
    # A caller's time lifts the level's node budget, whatever its value; the server's cap bounds it.
    play_level(levels, position, "deep", Limits(max_time_ms=30_000), 5, 1, never, cap_ms=10_000)
    assert seen[-1][0] == Limits(max_time_ms=10_000, max_depth=4, spend=SPEND)


def test_play_level_same_seed_same_answer() -> None:
    seen: list[tuple[Limits, int]] = []
    levels = _levels(seen)
    position = Piles((3, 4, 2, 3))
    for level in ("first", "deep"):
        a = play_level(levels, position, level, None, 11, 2, never)
        b = play_level(levels, position, level, None, 11, 2, never)
        a.elapsed_ms = b.elapsed_ms = 0.0
        assert a == b
    picks = {play_level(levels, position, "first", None, s, 1, never).move for s in range(30)}
    assert len(picks) > 1  # the seed does reach the tie-breaks
    text = play_level(levels, position, "first", None, "abc", 1, never)
    assert text.move == play_level(levels, position, "first", None, "abc", 1, never).move


def test_play_level_errors() -> None:
    seen: list[tuple[Limits, int]] = []
    levels = _levels(seen)
    with pytest.raises(GameOverError) as over:
        play_level(levels, Nim((0,), 0, 1), None, None, 0, 1, never)
    assert over.value.field == "position"
    with pytest.raises(UnknownLevel) as unknown:
        play_level(levels, Piles((2,)), "grandmaster", None, 0, 1, never)
    assert unknown.value.field == "level" and "first" in unknown.value.message


def test_play_level_passes_a_stop_that_fires() -> None:
    seen: list[tuple[Limits, int]] = []
    levels = _levels(seen)
    position = Piles((5, 6, 4, 5, 3, 4))
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2

    result = play_level(levels, position, "deep", Limits(max_depth=30, max_nodes=10**9), 0, 1, stop)
    assert result.stop_reason == "cancelled"
    assert result.move in position.search_moves()


def test_every_level_has_a_strategy_and_the_default_is_a_level() -> None:
    for game_id, levels in LEVELS.items():
        assert levels.game_id == game_id
        assert set(levels.strategies) == {level.name for level in levels.levels}
        assert levels.default in levels.strategies
    with pytest.raises(ValueError):
        GameLevels(
            "piles", (Level("first", "Takes the first move."),), "deep", {"first": lambda *a: None}, SCALE, JUDGE
        )


def test_play_level_passes_an_iteration_listener_down_to_the_search() -> None:
    heard: list[SearchResult] = []

    class Listening(Stop):
        def on_iteration(self, result: SearchResult) -> None:
            heard.append(result)

        def __call__(self) -> bool:
            return False

    result = play_level(_levels([]), Piles((3, 4, 2)), "deep", Limits(max_depth=3), 5, 1, Listening())
    assert [r.depth for r in heard] == [1, 2, 3] and heard[-1].move == result.move
