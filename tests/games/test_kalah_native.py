"""Kalah's ``hard`` on the native search engine (``service/native/search/kalah.c`` under the core,
docs/games/kalah.md) against ``hard`` on the Python search: the same proofs, a reproducible node budget,
real answers when a time, a node cap or the caller stops it, and the engine off by the environment. The
kernel's rules and values against the engine's are ``tests/native/test_kalah.py``'s.

The engine is built by ``make install``; without it (no C compiler) the tests that need it are skipped and
the level searches in Python, which the rest of the suite covers.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from service import native
from service.core import Limits
from service.engines.kalah import GAME, KalahPosition
from service.engines.kalah import position as position_module
from service.levels.kalah import LEVELS
from service.native import engine

needs_kernel = pytest.mark.skipif(
    not engine.available("kalah"),
    reason="the native search engine is not built (`make install` builds it with a C compiler) or "
    "GAMERULES_NO_NATIVE is set",
)


def hard(position: KalahPosition, use: bool, limits: Limits, top_n: int = 1):
    previous = native.use_native(use)
    try:
        return LEVELS.best_move(position, "hard", limits, 0, top_n, lambda: False)
    finally:
        native.use_native(previous)


@needs_kernel
def test_hard_proves_endgames_natively_as_in_python() -> None:
    """An endgame proved both ways has the same exact value, and the kernel's move keeps it."""
    rng = random.Random(3)
    checked = 0
    while checked < 6:
        position = GAME.new_position({}, "")
        while position.to_move and position.seeds_in_play() > 12:
            position = position.play(rng.choice(position.legal_moves()))
        if not position.to_move:
            continue
        with_kernel = hard(position, True, Limits(max_nodes=10**6))
        without = hard(position, False, Limits(max_nodes=10**6))
        assert with_kernel.exact and without.exact and with_kernel.stop_reason == "solved"
        assert with_kernel.value == without.value
        walk = position  # the proof's line is a line of the game
        for move in with_kernel.pv:
            assert walk.to_move and move in walk.legal_moves()
            walk = walk.play(move)
        after = position.play(with_kernel.move)
        if after.to_move == 0:
            kept = after.final_value(position.to_move)
        else:
            kept = hard(after, False, Limits(max_nodes=10**6)).value
            kept = kept if after.to_move == position.to_move else -kept
        assert kept == with_kernel.value
        checked += 1


@needs_kernel
def test_hard_natively_is_deterministic_under_a_node_budget_and_reports_a_legal_line() -> None:
    position = GAME.parse_position("5,5,4,4,4,0,1/5,5,5,4,0,5,1 1 seeds=4")
    first = hard(position, True, Limits(max_nodes=20_000))
    again = hard(position, True, Limits(max_nodes=20_000))
    assert (first.move, first.value, first.nodes, first.depth, first.pv) == (
        again.move,
        again.value,
        again.nodes,
        again.depth,
        again.pv,
    )
    assert first.stop_reason == "nodes" and first.nodes >= 20_000
    # The native search reaches at least the Python search's depth on the same budget.
    assert first.depth >= hard(position, False, Limits(max_nodes=20_000)).depth
    searched = engine.search(position, Limits(max_nodes=20_000))  # the level's pick aside: the search's line
    assert searched is not None
    line = searched.pv
    assert line[0] == searched.move and len(line) > 4
    walk = position
    for move in line:
        assert walk.to_move and move in walk.legal_moves()
        walk = walk.play(move)


@needs_kernel
def test_the_engine_stops_at_its_time_and_node_cap_with_real_answers() -> None:
    """A best move must answer before its deadline: the engine reads the clock and counts its nodes itself,
    and answers with its last finished iteration."""
    position = GAME.new_position({}, "")
    result = hard(position, True, Limits(max_time_ms=150))
    assert result.stop_reason == "time" and result.move in position.legal_moves() and result.depth >= 1
    capped = hard(position, True, Limits(max_nodes=50, max_depth=40))
    assert capped.stop_reason == "nodes" and capped.move in position.legal_moves()


@needs_kernel
def test_a_cancelled_search_stops_inside_the_engine() -> None:
    """The caller's stop fires once the search has begun (depth 40 from the start, no time or node limit,
    which would take minutes): the engine's watcher hears it and the search ends with a legal move."""
    position = GAME.new_position({}, "")
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    previous = native.use_native(True)
    try:
        result = LEVELS.best_move(position, "hard", Limits(max_depth=40, max_nodes=10**12), 0, 1, stop)
    finally:
        native.use_native(previous)
    assert result.stop_reason == "cancelled" and result.move in position.legal_moves()


def test_the_environment_turns_the_engine_off() -> None:
    code = "from service.native import engine; print(engine.available('kalah'))"
    env = {**os.environ, "GAMERULES_NO_NATIVE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]
    previous = native.use_native(False)
    try:
        assert engine.search(GAME.new_position({}, ""), Limits(max_depth=3)) is None
    finally:
        native.use_native(previous)


def test_the_kernels_evaluation_weights_are_the_engines() -> None:
    """The C file repeats ``evaluate``'s weights (a value must be the same double on both paths)."""
    source = (Path(native.__file__).parent / "search" / "kalah.c").read_text()
    for name in ("FREE_WEIGHT", "CAPTURE_WEIGHT", "SIDE_WEIGHT"):
        assert f"#define {name} {getattr(position_module, '_' + name)!r}" in source, name
