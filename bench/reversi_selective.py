"""Reversi's expert with multi-ProbCut (``service/core/selectivity.py``, the model ``python -m
service.learn.probcut`` fits) against itself without it, today's expert (``python -m bench.reversi_selective``).
Each target is printed met/missed:

- **Depth in a second**: expert's search with a caller's second (``max_time_ms`` 1000) on the bench's midgame
  positions (``bench.native.midgame``: 24 discs), with and without the model: the median depth reached (target: at
  least ``DEPTH_GOAL``), and the nodes per CPU second of each (target: the selective search keeps at least
  ``RATE_GOAL`` of the full one's: its shallow searches are nodes too).
- **Matches**: from balanced openings (``bench.learned_eval.openings``, colours swapped), both sides with the
  same time per move: at 100 ms (target: ``SHORT_GOAL`` of at least ``SHORT_GAMES`` games) and at 1 s (target:
  ``LONG_GOAL``). A game of 1 s a move takes a minute of each side's time, so ``LONG_GAMES`` games (two at once,
  one per core) take the better part of an hour: the default plays ``--long-games 24``, and the score's
  standard error is printed beside it so a short run says how far it can be trusted; ``--long-games 100`` is the
  full measure.

Draws count half. Games run two at a time in worker processes (one per core); on a busy machine both sides lose
time alike, but the depth figures are then lower. ``--quick`` is a smoke run.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.learned_eval import openings
from bench.native import midgame
from service.core import Limits
from service.engines.reversi import ReversiPosition
from service.levels import reversi
from service.native import engine

DEPTH_GOAL = 12
RATE_GOAL = 0.8
SHORT_GOAL, SHORT_GAMES = 0.65, 100
LONG_GOAL, LONG_GAMES = 0.75, 100
OPENING_PLIES, BALANCED = 8, 4.0  # bench.learned_eval's openings: random plies, within this many discs of even


def mark(met: bool) -> str:
    return "met" if met else "MISSED"


def move_of(position: ReversiPosition, move_ms: int, selective: bool, width: float | None = None) -> Any:
    """Expert's move with a caller's ``move_ms`` (the service's path: ``expert_search`` under the budget);
    ``width`` replaces the model's (``--width``)."""
    model = None
    if selective:
        model = reversi.SELECTIVITY if width is None else reversi.SELECTIVITY.with_width(width)
    return reversi.expert_search(position, Limits(max_time_ms=move_ms), evaluate=reversi.LEARNED, selective=model)


def play(task: tuple[ReversiPosition, int, int, float | None]) -> float:
    """One game from an opening, the selective side on ``seat``: its final margin."""
    position, seat, move_ms, width = task
    while position.to_move:
        position = position.play(move_of(position, move_ms, position.to_move == seat, width).move)
    return position.final_value(seat)


def match(games: int, move_ms: int, goal: float, seed: int, width: float | None) -> None:
    began = time.monotonic()
    starts, _ = openings(max(1, games // 2), OPENING_PLIES, seed, BALANCED)
    tasks = [(start, seat, move_ms, width) for start in starts for seat in (1, 2)]
    with ProcessPoolExecutor(2) as pool:
        margins = list(pool.map(play, tasks))
    wins = sum(m > 0 for m in margins)
    draws = sum(m == 0 for m in margins)
    score = (wins + draws / 2) / len(margins)
    error = math.sqrt(max(score * (1 - score), 1e-9) / len(margins))
    print(
        f"  {move_ms} ms a move, {len(margins)} games: selective {wins} wins, {draws} draws, "
        f"{len(margins) - wins - draws} losses, mean margin {statistics.fmean(margins):+.1f}; score {score:.0%} "
        f"(standard error {error:.0%}; target >= {goal:.0%}) in {time.monotonic() - began:.0f} s: {mark(score >= goal)}"
    )


def depths(count: int, move_ms: int = 1000) -> None:
    print(f"Depth with a caller's {move_ms} ms on {count} midgame positions (24 discs; goal: median >= {DEPTH_GOAL})")
    found: dict[bool, list[int]] = {True: [], False: []}
    rates: dict[bool, list[float]] = {True: [], False: []}
    for seed in range(count):
        position = midgame(seed)
        row = []
        for selective in (False, True):
            cpu = time.process_time()
            result = move_of(position, move_ms, selective)
            spent = time.process_time() - cpu
            found[selective].append(result.depth)
            rates[selective].append(result.nodes / max(spent, 1e-9))
            row.append(
                f"{'selective' if selective else 'full'} depth {result.depth} {position.move_notation(result.move)}"
            )
        print(f"  #{seed}: " + "; ".join(row))
    median = statistics.median(found[True])
    rate = statistics.fmean(rates[True]) / statistics.fmean(rates[False])
    print(
        f"  median depth: selective {median:g} (min {min(found[True])}), full {statistics.median(found[False]):g}: "
        f"{mark(median >= DEPTH_GOAL)}"
    )
    print(
        f"  nodes per CPU second: selective {statistics.fmean(rates[True]):,.0f}, full "
        f"{statistics.fmean(rates[False]):,.0f}: {rate:.2f} of the full search's (goal >= {RATE_GOAL}): "
        f"{mark(rate >= RATE_GOAL)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=10, help="midgame positions for the depth (10)")
    parser.add_argument("--short-games", type=int, default=SHORT_GAMES, help=f"games at 100 ms ({SHORT_GAMES})")
    parser.add_argument("--long-games", type=int, default=24, help=f"games at 1 s (24; the full measure {LONG_GAMES})")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--width", type=float, help="the cut's width in deviations instead of the model's")
    parser.add_argument("--depth-ms", type=int, default=1000, help="the time of each depth search (1000)")
    parser.add_argument("--short-ms", type=int, default=100, help="the short match's time a move (100)")
    parser.add_argument("--quick", action="store_true", help="2 positions, 4 games at 100 ms, none at 1 s")
    args = parser.parse_args(argv)
    if not engine.available("reversi"):
        print("the native search engine is not built (make install) or GAMERULES_NO_NATIVE is set: nothing to measure")
        return 0
    if args.quick:
        args.positions, args.short_games, args.long_games = 2, 4, 0
    if args.positions:
        depths(args.positions, args.depth_ms)
    print("Matches, expert with the model against expert without it (today's), from balanced openings")
    if args.short_games:
        match(args.short_games, args.short_ms, SHORT_GOAL, args.seed, args.width)
    if args.long_games:
        match(args.long_games, 1000, LONG_GOAL, args.seed, args.width)
    return 0


if __name__ == "__main__":
    sys.exit(main())
