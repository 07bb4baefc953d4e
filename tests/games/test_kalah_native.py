"""Kalah's native search kernel (``service/native/kalah_search.c``, docs/games/kalah.md) against its reference, a plain
negamax over the Python engine with the same evaluation; and ``hard`` through the search core with the kernel
against ``hard`` without it.

The kernel is built by ``make install``; without it (no C compiler) the tests that need it are skipped and
the core searches in Python, which the rest of the suite covers.
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service import native
from service.core import Limits
from service.engines.kalah import GAME, KalahPosition
from service.engines.kalah import position as position_module
from service.levels import kalah_kernel
from service.levels.kalah import LEVELS
from service.search import Plugins, never, search

needs_kernel = pytest.mark.skipif(
    kalah_kernel.native_search() is None,
    reason=f"the native search kernel is not built ({native.library_path('kalah_search')} is missing: `make "
    "install` builds it with a C compiler) or GAMERULES_NO_NATIVE is set",
)
INF = math.inf


def negamax(position: KalahPosition, depth: int) -> float:
    """The value the core defines, computed the plainest way: every move, no pruning, no table."""
    if depth <= 0:
        return position.evaluate(position.to_move)
    best = -INF
    for move in position.legal_moves():
        child = position.play(move)
        if child.to_move == 0:
            value = child.final_value(position.to_move)
        elif child.to_move == position.to_move:
            value = negamax(child, depth - 1)
        else:
            value = -negamax(child, depth - 1)
        best = max(best, value)
    return best


def random_positions(count: int, seed: int) -> list[KalahPosition]:
    """Live positions from random play, on boards of 1..12 pits and 1..12 seeds."""
    rng = random.Random(seed)
    found: list[KalahPosition] = []
    while len(found) < count:
        options = {"seeds_per_pit": rng.choice([1, 2, 3, 4, 6, 12]), "pits_per_side": rng.choice([1, 2, 3, 5, 6, 12])}
        position = GAME.new_position(options, "")
        for _ in range(rng.randrange(40)):
            if not position.to_move:
                break
            position = position.play(rng.choice(position.legal_moves()))
        if position.to_move:
            found.append(position)
    return found


KERNEL = Plugins(subtree=kalah_kernel.subtree_value)


def kernel(position: KalahPosition, depth: int, alpha: float = -INF, beta: float = INF, **budget):
    answer = kalah_kernel.subtree_value(
        position, depth, alpha, beta, budget.get("stop_at"), budget.get("max_nodes"), budget.get("poll"), {}
    )
    assert answer is not None
    return answer


def hard(position: KalahPosition, use: bool, limits: Limits, top_n: int = 1):
    previous = native.use_native(use)
    try:
        return LEVELS.best_move(position, "hard", limits, 0, top_n, lambda: False)
    finally:
        native.use_native(previous)


@needs_kernel
def test_the_kernel_finds_the_negamax_value_at_every_depth() -> None:
    """Fixed-depth values equal the plain negamax's to the last bit: the evaluation is the same double."""
    checked = 0
    for position in random_positions(60, 1):
        for depth in (1, 2, 3, 4):
            value, nodes, _proved, line = kernel(position, depth)
            assert value == negamax(position, depth), (position.to_notation(), depth)
            assert nodes >= 1 and line and line[0] in position.legal_moves()
            checked += 1
    assert checked == 240


@needs_kernel
def test_the_kernel_is_fail_soft_within_its_window() -> None:
    """Outside (alpha, beta) a value is a bound on the true one, on the right side; inside it is exact."""
    rng = random.Random(2)
    for position in random_positions(40, 2):
        true = negamax(position, 3)
        for _ in range(3):
            alpha = true + rng.choice([-6.5, -2.0, -0.25, 0.0, 0.5, 3.0])
            beta = alpha + rng.choice([0.01, 1.0, 4.0])
            value = kernel(position, 3, alpha, beta)[0]
            if true <= alpha:
                assert true <= value <= alpha
            elif true >= beta:
                assert beta <= value <= true
            else:
                assert value == true


@needs_kernel
def test_hard_proves_endgames_with_the_kernel_as_without_it() -> None:
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
        walk = position  # the proof's line goes to the end of the game
        for move in with_kernel.pv:
            assert walk.to_move and move in walk.legal_moves()
            walk = walk.play(move)
        assert walk.to_move == 0
        after = position.play(with_kernel.move)
        if after.to_move == 0:
            kept = after.final_value(position.to_move)
        else:
            kept = hard(after, False, Limits(max_nodes=10**6)).value
            kept = kept if after.to_move == position.to_move else -kept
        assert kept == with_kernel.value
        checked += 1


@needs_kernel
def test_the_search_core_with_the_kernel_matches_negamax_at_a_fixed_depth() -> None:
    """Through the core (iterative deepening, aspiration, the kernel below the root): the root value at a
    fixed depth is the negamax value, for a single best move and for scored alternatives."""
    for position in random_positions(12, 4):
        result = search(position, Limits(max_depth=4), plugins=KERNEL)
        assert result.value == negamax(position, 4)
        scored = search(position, Limits(max_depth=3), top_n=len(position.legal_moves()), plugins=KERNEL)
        for alternative in scored.alternatives:
            child = position.play(alternative.move)
            if child.to_move == 0:
                want = child.final_value(position.to_move)
            else:
                want = negamax(child, 2) * (1 if child.to_move == position.to_move else -1)
            assert alternative.value == want


@needs_kernel
def test_hard_with_the_kernel_is_deterministic_under_a_node_budget_and_reports_a_legal_line() -> None:
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
    # The kernel searches deeper on the same budget than the Python search does (the point of it).
    assert first.depth > hard(position, False, Limits(max_nodes=20_000)).depth
    line = first.pv
    assert line[0] == first.move and len(line) > 4
    walk = position
    for move in line:
        assert walk.to_move and move in walk.legal_moves()
        walk = walk.play(move)


@needs_kernel
def test_the_kernel_gives_up_at_its_stop_time_and_node_cap() -> None:
    """A best move must answer before its deadline, and the core cannot poll a kernel call: the kernel reads
    the clock and counts its nodes itself, and the core stops when it gives up."""
    position = GAME.new_position({}, "")
    value, cost, proved, line = kernel(position, 30, stop_at=time.monotonic() - 1.0)
    assert value is None and not proved and line == [] and cost >= 1
    value, cost, _, _ = kernel(position, 30, max_nodes=50)
    assert value is None and cost >= 50
    result = hard(position, True, Limits(max_time_ms=150))
    assert result.stop_reason == "time" and result.move in position.legal_moves() and result.depth >= 1


@needs_kernel
def test_a_cancelled_search_stops_inside_a_kernel_call() -> None:
    """The kernel asks the search's ``poll`` (the caller's stop) while it runs: a call that would take seconds
    (depth 40 from the start, no time or node limit) ends at the first poll after the stop fires."""
    position = GAME.new_position({}, "")
    polls = []

    def poll() -> bool:
        polls.append(1)
        return len(polls) >= 3

    value, cost, _, _ = kernel(position, 40, poll=poll)
    assert value is None and len(polls) == 3 and cost >= 1

    def broken() -> bool:
        raise KeyboardInterrupt  # a Ctrl-C that lands in the callback must not be lost there

    with pytest.raises(KeyboardInterrupt):
        kernel(position, 40, poll=broken)
    # Through the search: the caller's stop fires once the search has begun, inside the first deep call.
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 40

    previous = native.use_native(True)
    try:
        result = LEVELS.best_move(position, "hard", Limits(max_depth=40, max_nodes=10**12), 0, 1, stop)
    finally:
        native.use_native(previous)
    assert result.stop_reason == "cancelled" and result.move in position.legal_moves()


def test_the_environment_turns_the_kernels_off() -> None:
    code = (
        "from service.levels import kalah_kernel, reversi_endgame; "
        "print(kalah_kernel.native_search(), reversi_endgame.native_solver())"
    )
    env = {**os.environ, "GAMERULES_NO_NATIVE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None", "None"]
    previous = native.use_native(False)
    try:
        assert kalah_kernel.subtree_value(GAME.new_position({}, ""), 3, -INF, INF, None, None, never, {}) is None
    finally:
        native.use_native(previous)


def test_the_kernels_evaluation_weights_are_the_engines() -> None:
    """The C file repeats ``evaluate``'s weights (a value must be the same double on both paths)."""
    source = (Path(native.__file__).parent / "kalah_search.c").read_text()
    for name in ("FREE_WEIGHT", "CAPTURE_WEIGHT", "SIDE_WEIGHT"):
        assert f"#define {name} {getattr(position_module, '_' + name)!r}" in source, name
