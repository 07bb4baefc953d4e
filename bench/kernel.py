"""Kalah's ``hard`` on the native search engine against the same search in pure Python (``python -m bench.kernel``).

On seeded middle-game positions (6 pits, 4 seeds, 2-23 random plies, more than 24 seeds left in the pits):

- CPU time per counted search node of ``hard`` under a node budget, natively and in Python (native nodes
  count 1/``native_search.NATIVE_NODE_WEIGHT``): the ratio is what a node budget costs natively against the
  Python search.
- The depth ``hard`` completes under a time limit with and without the kernel.
- How long a native search takes to answer once its caller's stop fires (the engine's watcher asks the
  stop every 5 ms): a 10 s search from the start, stopped after ``--cancel-after`` seconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from typing import Any

from service import native
from service.core import Limits
from service.engines import kalah
from service.levels import kalah as kalah_levels
from service.levels import native_search
from service.native import engine


def positions(count: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    found: list[Any] = []
    while len(found) < count:
        position = kalah.GAME.new_position({}, "")
        for _ in range(rng.randrange(2, 24)):
            if not position.to_move:
                break
            position = position.play(rng.choice(position.legal_moves()))
        assert isinstance(position, kalah.KalahPosition)
        if position.to_move and position.seeds_in_play() > 24:
            found.append(position)
    return found


def hard(position: Any, use_kernel: bool, limits: Limits, stop: Any = lambda: False) -> tuple[Any, float]:
    """(result, CPU seconds) of ``hard`` on ``position``, the kernel on or off."""
    previous = native.use_native(use_kernel)
    try:
        start = time.process_time()
        result = kalah_levels.LEVELS.best_move(position, "hard", limits, 0, 1, stop)
        return result, time.process_time() - start
    finally:
        native.use_native(previous)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=8, help="positions (default 8)")
    parser.add_argument("--nodes", type=int, default=50_000, help="node budget of the CPU comparison")
    parser.add_argument("--move-ms", type=int, default=400, help="time limit of the depth comparison")
    parser.add_argument("--cancel-after", type=float, default=1.0, help="seconds before the stop fires")
    args = parser.parse_args(argv)
    if not engine.available("kalah"):
        print(
            "kalah: the native search engine is not built (`make install` builds it with a C compiler); "
            "nothing to compare"
        )
        return 0
    sample = positions(args.positions, 5)

    spent = {True: 0.0, False: 0.0}
    counted = {True: 0, False: 0}
    for position in sample:
        for use_kernel in (False, True):
            result, cpu = hard(position, use_kernel, Limits(max_nodes=args.nodes))
            spent[use_kernel] += cpu
            counted[use_kernel] += result.nodes
    per_node = {k: spent[k] / counted[k] * 1e6 for k in spent}
    print(
        f"kalah hard, {args.positions} positions, {args.nodes} nodes each (kernel nodes count "
        f"1/{native_search.NATIVE_NODE_WEIGHT}): Python {per_node[False]:.2f} us per node, kernel "
        f"{per_node[True]:.2f} us per counted node, ratio {per_node[True] / per_node[False]:.2f}"
    )

    depths: dict[bool, list[int]] = {True: [], False: []}
    for position in sample:
        for use_kernel in (False, True):
            depths[use_kernel].append(hard(position, use_kernel, Limits(max_time_ms=args.move_ms))[0].depth)
    print(
        f"kalah hard, {args.move_ms} ms a move: depth median {statistics.median(depths[False]):g} "
        f"(range {min(depths[False])}-{max(depths[False])}) in Python, {statistics.median(depths[True]):g} "
        f"({min(depths[True])}-{max(depths[True])}) with the kernel"
    )

    fired: list[float] = []
    timer = threading.Timer(args.cancel_after, lambda: fired.append(time.monotonic()))
    timer.start()
    result, _ = hard(kalah.GAME.new_position({}, ""), True, Limits(max_time_ms=10_000), lambda: bool(fired))
    answered = time.monotonic()
    timer.cancel()
    late_ms = (answered - fired[0]) * 1000 if fired else float("nan")
    print(
        f"kalah hard with the kernel, stopped after {args.cancel_after:g} s of a 10 s search: answered "
        f"{late_ms:.1f} ms after the stop fired (stop reason {result.stop_reason!r}, depth {result.depth})"
    )
    return 0 if result.stop_reason == "cancelled" else 1


if __name__ == "__main__":
    sys.exit(main())
