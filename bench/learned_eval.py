"""Reversi's learned pattern evaluation against the hand-written one (``python -m bench.learned_eval``; issue 18).

Three measurements, seeded, each printed against its target with met/MISSED:

1. **Accuracy**: on ``--positions`` held-out 8x8 positions (self-play games of the training's kind from
   another seed, one position per game, a seat to move, ``--empties`` empty squares) solved exactly by the
   native endgame solver, the mean absolute error of each evaluation's estimate of the final disc margin:
   the learned one (``service/levels/reversi_learned.py``, the shipped weights) and ``ReversiPosition.evaluate``
   (the baseline). Target: the learned error at most half the hand-written one. The issue asks for 2,000
   positions with 20-24 empties; a solve takes ~2 s at 20 empties and ~10x more each two empties, so the
   default is a sample (the count and range are flags).
2. **Play**: the expert's search (``reversi.expert_search``: its depth, solve mode and endgame solver) with the
   learned evaluation against the same search with the hand-written one, ``--move-ms`` per move for both,
   ``--games`` games from seeded openings (``--opening`` random plies), each opening played twice with the
   colours swapped. Target: the learned side wins 85 % (a draw counts half).
3. **Node rate**: the same middle-game searches (``--rate-positions`` positions, depth-unlimited, ``--rate-ms``
   each) with either evaluation, nodes per CPU second. Target: the learned side keeps 60 % of the baseline's
   rate. Printed with the pattern kernel (``reversi_patterns.c``) and, for information, with its Python twin.

Needs the native endgame solver for part 1 (skipped with the reason otherwise).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from service import native
from service.core import Limits
from service.engines.reversi import GAME, ReversiPosition
from service.engines.reversi.patterns import load_weights
from service.learn.reversi import self_play
from service.levels import reversi as reversi_levels
from service.levels import reversi_learned
from service.native import engine
from service.search import search

MAE_TARGET = 0.5  # learned error / hand-written error, at most
WIN_TARGET = 0.85
RATE_TARGET = 0.6

Evaluate = Callable[[Any, int], float] | None


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def held_out(count: int, low: int, high: int, seed: int) -> list[ReversiPosition]:
    """One position per self-play game (a seed the training never uses), its empties drawn in low..high."""
    rng = random.Random(f"bench-learned-{seed}")
    out: list[ReversiPosition] = []
    while len(out) < count:
        wanted = rng.randint(low, high)
        game = self_play(1, rng)
        found = [p for p in game if p.empties() == wanted]
        if found:
            out.append(found[0])
    return out


def exact(position: ReversiPosition) -> int:
    found = engine.search(position, Limits(), solve=True)
    assert found is not None and found.exact
    return int(found.value)


def accuracy(args: argparse.Namespace, learned: Evaluate) -> bool | None:
    if args.positions <= 0:
        print("accuracy: skipped (--positions 0)")
        return None
    if not engine.available("reversi"):
        print("accuracy: skipped: the native search engine is not built (make install) or GAMERULES_NO_NATIVE is set")
        return None
    assert learned is not None
    low, high = (int(x) for x in args.empties.split("-"))
    positions = held_out(args.positions, low, high, args.seed)
    began = time.process_time()
    hand_errors, learned_errors = [], []
    for position in positions:
        value = exact(position)
        seat = position.to_move
        hand_errors.append(abs(position.evaluate(seat) - value))
        learned_errors.append(abs(learned(position, seat) - value))
    hand = statistics.fmean(hand_errors)
    mine = statistics.fmean(learned_errors)
    ratio = mine / hand
    print(
        f"accuracy: {len(positions)} positions with {low}-{high} empties solved in {time.process_time() - began:.0f} "
        f"CPU s; mean absolute error learned {mine:.2f} discs, hand-written {hand:.2f} (baseline); "
        f"ratio {ratio:.2f} (target <= {MAE_TARGET}): {verdict(ratio <= MAE_TARGET)}"
    )
    return ratio <= MAE_TARGET


def opening(index: int, plies: int, seed: int) -> ReversiPosition:
    rng = random.Random(f"bench-learned-opening-{seed}-{index}")
    while True:
        position = GAME.new_position({}, "")
        for _ in range(plies):
            if not position.to_move:
                break
            position = position.play(rng.choice(position.legal_moves()))
        if position.to_move:
            return position


def play(position: ReversiPosition, sides: dict[int, Evaluate], move_ms: int) -> ReversiPosition:
    limits = Limits(max_time_ms=move_ms)
    while position.to_move:
        result = reversi_levels.expert_search(position, limits, evaluate=sides[position.to_move])
        position = position.play(result.move)
    return position


def match(args: argparse.Namespace, learned: Evaluate) -> bool:
    wins = draws = losses = 0
    margins = []
    began = time.perf_counter()
    pairs = max(1, args.games // 2)
    for index in range(pairs):
        start = opening(index, args.opening, args.seed)
        for learned_seat in (1, 2):
            end = play(start, {learned_seat: learned, 3 - learned_seat: None}, args.move_ms)
            margin = end.final_value(learned_seat)
            margins.append(margin)
            wins += margin > 0
            draws += margin == 0
            losses += margin < 0
    rate = (wins + draws / 2) / (2 * pairs)
    print(
        f"play: expert search, learned vs hand-written evaluation, {args.move_ms} ms a move, {2 * pairs} games "
        f"({pairs} openings x both colours) in {time.perf_counter() - began:.0f} s: learned {wins} wins, {draws} "
        f"draws, {losses} losses, mean margin {statistics.fmean(margins):+.1f}; score {rate:.0%} "
        f"(target >= {WIN_TARGET:.0%}): {verdict(rate >= WIN_TARGET)}"
    )
    return rate >= WIN_TARGET


def node_rate(positions: list[ReversiPosition], evaluate: Evaluate, rate_ms: int) -> float:
    nodes = 0
    spent = 0.0
    for position in positions:
        start = time.process_time()
        result = search(position, Limits(max_time_ms=rate_ms), evaluate=evaluate)
        spent += time.process_time() - start
        nodes += result.nodes
    return nodes / spent


def rates(args: argparse.Namespace, learned: Evaluate) -> bool:
    positions = [opening(1000 + i, 20, args.seed) for i in range(args.rate_positions)]
    hand = node_rate(positions, None, args.rate_ms)
    mine = node_rate(positions, learned, args.rate_ms)
    previous = native.use_native(False)
    try:
        twin = node_rate(positions, learned, args.rate_ms)
    finally:
        native.use_native(previous)
    ratio = mine / hand
    kernel = "kernel" if reversi_learned.native_sum() is not None else "no kernel built: Python twin"
    print(
        f"node rate: {len(positions)} middle-game searches of {args.rate_ms} ms: hand-written {hand:,.0f} nodes/CPU s "
        f"(baseline), learned ({kernel}) {mine:,.0f}; ratio {ratio:.2f} (target >= {RATE_TARGET}): "
        f"{verdict(ratio >= RATE_TARGET)}; learned with the Python twin {twin:,.0f} ({twin / hand:.2f}, information)"
    )
    return ratio >= RATE_TARGET


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=20, help="held-out positions solved exactly (issue: 2000)")
    parser.add_argument("--empties", default="20-22", help="their empty squares, LOW-HIGH (issue: 20-24)")
    parser.add_argument("--games", type=int, default=10, help="games of the match (even; issue: 100)")
    parser.add_argument("--move-ms", type=int, default=100, help="time per move of both sides")
    parser.add_argument("--opening", type=int, default=8, help="random plies of each opening")
    parser.add_argument("--rate-positions", type=int, default=6, help="middle-game positions of the node rate")
    parser.add_argument("--rate-ms", type=int, default=1000, help="search time on each")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="tiny run for a smoke test")
    args = parser.parse_args(argv)
    if args.quick:
        args.positions, args.empties, args.games, args.move_ms = 2, "14-16", 2, 20
        args.rate_positions, args.rate_ms = 1, 100
    weights = load_weights()
    learned = reversi_learned.PatternEvaluation(weights.table)
    print(f"weights: version {weights.version}, trained by {weights.header['trained']}")
    results = [accuracy(args, learned), match(args, learned), rates(args, learned)]
    met = sum(ok is True for ok in results)
    print(f"  {met} of {sum(ok is not None for ok in results)} met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
