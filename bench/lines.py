"""The lines Reversi's expert answers (``python -m bench.lines``): the principal variation of every answer and the
own line of every alternative (``ScoredMove.pv``), through the levels (``service.games``, the service's path:
the native core when it is built, the Python search otherwise) with a caller's ``max_time_ms`` on midgame
positions. Each target is printed met/missed:

- **The answer's line**: in play mode (the seeded pick) and in analysis, one move asked for: the ``pv`` has at
  least ``PV_GOAL`` moves in every answer whose depth is ``PV_DEPTH`` or more.
- **The alternatives' lines**: the same, four moves asked for (``top_n`` 4): every alternative's line has at least
  ``ALT_GOAL`` moves in every answer whose depth is ``ALT_DEPTH`` or more.

The positions are self-play openings, reproducible by seed: expert in play mode (its seeded variety) at two
plies a move, 20 to 30 plies in (drawn by the position's seed).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from dataclasses import dataclass, field
from typing import Any

from service.core import Limits, Purpose, SearchResult
from service.games import GAMES, LEVELS
from service.native import engine

PV_GOAL, PV_DEPTH = 4, 6
ALT_GOAL, ALT_DEPTH = 2, 4
PLIES = (20, 30)  # a position's plies of self-play from the start, drawn
LEVEL = "expert"


def mark(met: bool) -> str:
    return "met" if met else "MISSED"


def midgame(seed: int) -> Any:
    """Expert's self-play from the start, 20 to 30 plies (drawn by ``seed``), each move picked by its seeded variety
    at two plies; the position reached (the game may end sooner: then the position before its end)."""
    rng = random.Random(seed)
    position: Any = GAMES["reversi"].new_position({}, "")
    for ply in range(rng.randint(*PLIES)):
        answer = LEVELS["reversi"].best_move(position, LEVEL, Limits(max_depth=2), f"{seed}-{ply}", 1, purpose="play")
        after = position.play(answer.move)
        if after.to_move == 0:
            break
        position = after
    return position


@dataclass
class Run:
    """One way of asking (purpose, moves asked for) over every position: the answers' depths and lines."""

    purpose: Purpose
    top_n: int
    depths: list[int] = field(default_factory=list)
    pv_short: int = 0  # answers of depth >= PV_DEPTH whose pv is shorter than PV_GOAL
    pv_deep: int = 0  # answers of depth >= PV_DEPTH
    pv_lengths: list[int] = field(default_factory=list)
    alt_short: int = 0  # alternatives of answers of depth >= ALT_DEPTH with a line shorter than ALT_GOAL
    alt_checked: int = 0
    alt_lengths: list[int] = field(default_factory=list)

    def take(self, position: Any, result: SearchResult) -> None:
        self.depths.append(result.depth)
        self.pv_lengths.append(len(result.pv))
        if result.depth >= PV_DEPTH:
            self.pv_deep += 1
            self.pv_short += len(result.pv) < PV_GOAL
        if self.top_n > 1 and result.depth >= ALT_DEPTH:
            for scored in result.alternatives:
                if position.play(scored.move).to_move == 0:
                    continue  # the game ends with the move: its line is the move
                self.alt_checked += 1
                self.alt_lengths.append(len(scored.pv))
                self.alt_short += len(scored.pv) < ALT_GOAL

    def row(self) -> str:
        alternatives = (
            f"{self.alt_checked:>5} {min(self.alt_lengths, default=0):>7} {self.alt_short:>5}"
            if self.top_n > 1
            else f"{'-':>5} {'-':>7} {'-':>5}"
        )
        return (
            f"  {self.purpose:<8} {self.top_n:>5} {len(self.depths):>7} {statistics.median(self.depths):>6g} "
            f"{min(self.depths):>5} {self.pv_deep:>6} {min(self.pv_lengths):>6} {self.pv_short:>5}  {alternatives}"
        )


def measure(positions: int, time_ms: int, seed: int) -> list[Run]:
    runs = [Run(purpose, top_n) for top_n in (1, 4) for purpose in ("play", "analysis")]
    for index in range(positions):
        position = midgame(seed * 1000 + index)
        for run in runs:
            answer = LEVELS["reversi"].best_move(
                position, LEVEL, Limits(max_time_ms=time_ms), index, run.top_n, purpose=run.purpose
            )
            run.take(position, answer)
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=50, help="midgame positions (50)")
    parser.add_argument("--time-ms", type=int, default=1000, help="the caller's max_time_ms of each answer (1000)")
    parser.add_argument("--seed", type=int, default=0, help="the positions' seed (0)")
    args = parser.parse_args(argv)
    path = "native core" if engine.available("reversi") else "Python search"
    print(
        f"Reversi {LEVEL}, {args.time_ms} ms an answer on {args.positions} self-play midgame positions "
        f"({PLIES[0]}-{PLIES[1]} plies in, seed {args.seed}), the {path}"
    )
    runs = measure(args.positions, args.time_ms, args.seed)
    print(
        f"  {'purpose':<8} {'top_n':>5} {'answers':>7} {'depth':>6} {'min':>5} {'d>=' + str(PV_DEPTH):>6} "
        f"{'min pv':>6} {'short':>5}  {'alts':>5} {'min alt':>7} {'short':>5}"
    )
    for run in runs:
        print(run.row())
    for run in runs:
        print(
            f"  {run.purpose}, top_n {run.top_n}: pv >= {PV_GOAL} moves whenever depth >= {PV_DEPTH} "
            f"({run.pv_deep - run.pv_short} of {run.pv_deep} answers): {mark(run.pv_short == 0)}"
        )
    for run in runs:
        if run.top_n > 1:
            print(
                f"  {run.purpose}, top_n {run.top_n}: every alternative's line >= {ALT_GOAL} moves whenever depth >= "
                f"{ALT_DEPTH} ({run.alt_checked - run.alt_short} of {run.alt_checked}): {mark(run.alt_short == 0)}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
