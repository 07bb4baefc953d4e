"""Would a learned evaluation help the other games? (``python -m bench.learned_other_games``; issue 18's other games).

Reversi's pipeline (``service/learn/reversi.py``) in small, measured and not shipped, for Kalah's middle game
(6 pits, 4 seeds) and for Dots and Boxes before its chains settle (5x5, the default board); ``--games-only``
picks one. For each game (``CASES``):

1. Positions: self-play games from randomised openings (``OPENING`` random moves, then the hand-written
   evaluation one ply ahead with a ``NOISE`` share of random moves, as Reversi's training plays), one position
   per game with a seat to move and a count ``left`` (Kalah: seeds in the pits; Dots and Boxes: lines not yet
   drawn) drawn uniformly in ``--left`` (the case's middle game by default): ``--train`` positions from one
   seed, ``--held-out`` from another.
2. Labels: each position's final margin for the seat to move, proved exactly by the native search engine's solve
   mode (``--workers`` processes); without the engine the bench says why it cannot run.
3. The model, a correction to the hand-written estimate (the position's ``evaluate``) fitted by ridge regression
   on the training positions, as Reversi's patterns are: Reversi's pattern tables with the game's own small
   patterns (Kalah: a weight per pit, from the mover's view, and per number of seeds in it, up to ``CAP``; Dots
   and Boxes: a weight per box and per set of its sides drawn), and a bias per count ``left``. Measured against
   the exact values of the held-out positions.
4. Play: the Python search ``--depth`` plies deep with the model (the hand-written estimate outside the range it
   was fitted on) against the same search with the hand-written evaluation, ``--games`` games from positions
   drawn as the held-out ones from 1 to 4 counts before the range (so that the searches' leaves reach it), each
   played twice with the colours swapped. Equal depth, not equal time: it measures the evaluation, not its cost.

It prints each evaluation's mean absolute error, the ratio of the learned one's to the hand-written one's (the
ratio Reversi's target reads, at most 0.5 there), the model's own error on its training positions, and the
match's score. No target: this is the measurement the issue asks for before a learned evaluation is shipped for
another game.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from service.core import Limits
from service.engines.dots_and_boxes import GAME as DOTS_AND_BOXES
from service.engines.dots_and_boxes.game import DEFAULT_SIZE
from service.engines.dots_and_boxes.geometry import geometry
from service.engines.kalah import GAME as KALAH
from service.levels import kalah as kalah_levels
from service.native import engine
from service.search import search

OPENING = (2, 8)  # uniformly random moves at the start of a self-play game (inclusive range)
NOISE = 0.1  # share of random moves after the opening
CAP = 15  # Kalah: a pit with more seeds shares this count's weight
RIDGE = 4.0  # the penalty per weight, in the game's units squared


def kalah_left(position: Any) -> int:
    return int(position.seeds_in_play())


def kalah_patterns(position: Any) -> list[int]:
    """The table index of every pit: the mover's pits, then the other seat's, each from its first pit."""
    me = position.to_move
    pits = [*position.pits(me), *position.pits(3 - me)]
    return [pit * (CAP + 1) + min(seeds, CAP) for pit, seeds in enumerate(pits)]


def dots_left(position: Any) -> int:
    return int(position.geometry.line_count - position.lines.bit_count())


def dots_patterns(position: Any) -> list[int]:
    """The table index of every box: its four sides drawn or not, as four bits."""
    lines = position.lines
    out = []
    for box, sides in enumerate(position.geometry.box_sides):
        out.append(box * 16 + sum(1 << k for k, line in enumerate(sides) if lines >> line & 1))
    return out


@dataclass(frozen=True)
class Case:
    """One game as the bench measures it."""

    name: str
    game: Any
    unit: str  # of the margin
    counted: str  # what ``left`` counts
    left: Callable[[Any], int]
    patterns: Callable[[Any], list[int]]  # the table index of each of the position's small patterns
    table: int  # entries of the patterns' table
    middle: tuple[int, int]  # the default ``--left``
    quick: tuple[int, int]  # ``--quick``'s (cheap proofs)
    solve_lead: int = 0


DOTS_BOXES = geometry(DEFAULT_SIZE, DEFAULT_SIZE).box_count  # on the default board

CASES = {
    case.name: case
    for case in (
        Case(
            name="kalah",
            game=KALAH,
            unit="seeds",
            counted="seeds in the pits",
            left=kalah_left,
            patterns=kalah_patterns,
            table=12 * (CAP + 1),
            middle=(24, 30),
            quick=(16, 18),
            solve_lead=kalah_levels.SOLVE_LEAD,
        ),
        Case(
            name="dots-and-boxes",
            game=DOTS_AND_BOXES,
            unit="boxes",
            counted="lines not drawn",
            left=dots_left,
            patterns=dots_patterns,
            table=DOTS_BOXES * 16,
            middle=(26, 30),  # beyond the 21 undrawn lines from which hard proves the game
            quick=(12, 14),
        ),
    )
}


def self_play(rng: random.Random, case: Case) -> list[Any]:
    """The positions with a seat to move of one self-play game (``OPENING``, ``NOISE``)."""
    position = case.game.new_position({}, "")
    opening = rng.randint(*OPENING)
    out = []
    while position.to_move:
        out.append(position)
        moves = position.legal_moves()
        if len(out) <= opening or rng.random() < NOISE:
            move = rng.choice(moves)
        else:
            seat = position.to_move
            move = max(moves, key=lambda m: position.play(m).evaluate(seat))
        position = position.play(move)
    return out


def positions(case: Case, count: int, low: int, high: int, seed: str) -> list[Any]:
    """One position per self-play game, its count ``left`` drawn in ``low..high`` (a game without it is skipped)."""
    rng = random.Random(f"bench-{case.name}-{seed}")
    out: list[Any] = []
    while len(out) < count:
        wanted = rng.randint(low, high)
        found = [p for p in self_play(rng, case) if case.left(p) == wanted]
        if found:
            out.append(found[0])
    return out


_CASE: Case | None = None  # a solving worker's game


def exact(position: Any) -> float:
    """The proved final margin for the seat to move."""
    lead = _CASE.solve_lead if _CASE is not None else 0
    result = engine.search(position, Limits(), solve=True, solve_lead=lead)
    assert result is not None and result.exact
    return result.value


def _start_worker(case: Case) -> None:
    global _CASE
    _CASE = case


def solve_all(case: Case, group: list[Any], workers: int) -> np.ndarray:
    """Every position proved, by ``workers`` forked processes."""
    _start_worker(case)
    if workers <= 1:
        return np.array([exact(p) for p in group])
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=(case,)) as pool:
        return np.array(list(pool.map(exact, group, chunksize=16)))


def features(case: Case, group: list[Any], low: int, high: int) -> np.ndarray:
    """One-hot rows: the patterns' table entries, then the bias of the position's count ``left``."""
    out = np.zeros((len(group), case.table + high - low + 1))
    for i, position in enumerate(group):
        out[i, case.patterns(position)] = 1.0
        out[i, case.table + case.left(position) - low] = 1.0
    return out


def ridge_fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Weights minimising ``|x w - y|^2 + RIDGE |w|^2`` (a few hundred weights: the normal equations)."""
    return np.linalg.solve(x.T @ x + RIDGE * np.eye(x.shape[1]), x.T @ y)


class Learned:
    """The fitted weights as a search's ``evaluate(position, seat)``: the hand-written estimate corrected within
    ``low..high``, the hand-written estimate elsewhere."""

    def __init__(self, case: Case, weights: np.ndarray, low: int, high: int) -> None:
        self.case, self.weights, self.low, self.high = case, weights, low, high

    def __call__(self, position: Any, seat: int) -> float:
        if not position.to_move or not self.low <= self.case.left(position) <= self.high:
            return float(position.evaluate(seat))
        row = features(self.case, [position], self.low, self.high)[0]
        value = position.evaluate(position.to_move) + float(row @ self.weights)
        return value if seat == position.to_move else -value


def match(starts: list[Any], learned: Learned, depth: int) -> tuple[int, int, int]:
    """Wins, draws and losses of the learned side, each start played twice with the colours swapped."""
    score = [0, 0, 0]
    for start in starts:
        for learned_seat in (1, 2):
            position = start
            while position.to_move:
                evaluate = learned if position.to_move == learned_seat else None
                position = position.play(search(position, Limits(max_depth=depth), evaluate=evaluate).move)
            margin = position.final_value(learned_seat)
            score[0 if margin > 0 else 1 if margin == 0 else 2] += 1
    return score[0], score[1], score[2]


def measure(case: Case, args: argparse.Namespace) -> None:
    low, high = case.quick if args.quick else case.middle
    if args.left:
        low, high = (int(part) for part in args.left.split("-"))
    train = positions(case, args.train, low, high, "train")
    test = positions(case, args.held_out, low, high, "held-out")
    train_values, test_values = solve_all(case, train, args.workers), solve_all(case, test, args.workers)
    train_hand = np.array([p.evaluate(p.to_move) for p in train])
    test_hand = np.array([p.evaluate(p.to_move) for p in test])
    hand_error = float(np.mean(np.abs(test_hand - test_values)))
    x = features(case, train, low, high)
    weights = ridge_fit(x, train_values - train_hand)
    fitted = float(np.mean(np.abs(x @ weights + train_hand - train_values)))
    error = float(np.mean(np.abs(features(case, test, low, high) @ weights + test_hand - test_values)))
    print(
        f"{case.name}: {low}-{high} {case.counted}; {len(train)} training and {len(test)} held-out positions, exact "
        f"values (native solve); spread of the held-out values {statistics.pstdev(test_values):.2f} {case.unit}"
    )
    print(f"  hand-written evaluation: mean absolute error {hand_error:.2f} {case.unit} (baseline)")
    print(
        f"  learned tables ({len(weights)} weights): {error:.2f} {case.unit}, ratio {error / hand_error:.2f} "
        f"(on its training positions {fitted:.2f})"
    )
    starts = positions(case, args.games // 2, high + 1, high + 4, "play")
    wins, draws, losses = match(starts, Learned(case, weights, low, high), args.depth)
    share = (wins + draws / 2) / max(1, wins + draws + losses)
    print(
        f"  play, {args.depth}-ply searches from {len(starts)} starts with {high + 1}-{high + 4} {case.counted}, "
        f"colours swapped: learned {wins} wins, {draws} draws, {losses} losses against the hand-written ({share:.0%})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-only", choices=sorted(CASES), help="measure this game only")
    parser.add_argument("--train", type=int, default=4000, help="training positions (exact labels)")
    parser.add_argument("--held-out", type=int, default=1000, help="held-out positions (exact values)")
    parser.add_argument("--left", help="the count left, LOW-HIGH, in place of the game's middle game")
    parser.add_argument("--workers", type=int, default=max(1, multiprocessing.cpu_count()), help="solving processes")
    parser.add_argument("--games", type=int, default=400, help="games of each match (two per start)")
    parser.add_argument("--depth", type=int, default=4, help="the matches' search depth, plies")
    parser.add_argument("--quick", action="store_true", help="a small run (the smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.train, args.held_out, args.games, args.depth = 150, 60, 4, 2
    for case in [CASES[args.games_only]] if args.games_only else CASES.values():
        if not engine.available(case.name):
            print(f"{case.name}: skipped (the native search engine is not built: exact labels need its solver)")
            continue
        measure(case, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
