"""Fit Strands' learned evaluation (``service/engines/strands/learned.py``): ``make train-strands`` or
``python -m service.learn.strands [--games N] [--iterations N] [--workers N] [--seed N] [--out FILE]``.

1. Self-play on the standard board: ``games`` games, each from Black's opening stone and White's first turn drawn
   at random, then the tree search of ``hard`` at ``iterations`` iterations a move for both seats (the native
   engine's when it is built; seeded per move, so a run repeats on a machine). Every position before the board
   is full is kept with the final margin of the largest groups for its seat to move (``final_value``).
2. A least-squares fit (ridge ``RIDGE`` per weight) of those margins on ``learned.feature_vector``; every fourth
   game is held out and both the fit and the hand-written estimate (``moves.estimate``) are scored on it: the
   root mean square error in stones and how often the sign of the value names the winner.

The file records the command, the sample and those scores. ``--labels FILE`` keeps the self-play's positions
and margins so a second fit reads them instead of playing again.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from service.core.errors import InvalidPosition
from service.core.jsonvalue import JSONObject
from service.core.values import Limits, Move
from service.engines.strands import GAME, StrandsMove, StrandsPosition
from service.engines.strands.layouts import parse_rows
from service.engines.strands.learned import BASE_FEATURES, SIZE, WEIGHTS_FILE, feature_vector, read_weights
from service.engines.strands.moves import estimate
from service.levels.strands import LEVELS
from service.search import never

RIDGE = 1.0  # per weight, in stones squared: the fit has tens of thousands of positions for 27 weights
HELD_OUT = 4  # every HELD_OUT-th game is held out of the fit
OPENING_PLIES = 2

Sample = tuple[str, int, int, int, float]  # layout rows, black, white, seat to move, final margin for it


def random_move(position: StrandsPosition, rng: random.Random) -> StrandsMove:
    """A uniformly random legal move, paged: Strands' move lists are too long to build."""
    return position.legal_moves_page(rng.randrange(position.legal_move_count()), 1)[0]


def self_play(task: tuple[int, int, int]) -> list[Sample]:
    """One seeded game of the tree search against itself; every unfinished position with its final margin."""
    seed, index, iterations = task
    rng = random.Random(f"strands-train/{seed}/{index}")
    position: Any = GAME.new_position({}, f"{seed}-{index}")  # a StrandsPosition (``play`` is typed by the contract)
    line: list[StrandsPosition] = []
    limits = Limits(max_time_ms=60_000, max_nodes=iterations)
    while position.to_move:
        line.append(position)
        if len(line) <= OPENING_PLIES:
            move: Move = random_move(position, rng)
        else:
            move = LEVELS.best_move(position, "hard", limits, rng.randrange(2**31), 1, never).move
        position = position.play(move)
    return [(p.layout.rows, p.black, p.white, p.to_move, position.final_value(p.to_move)) for p in line]


def play_games(games: int, iterations: int, seed: int, workers: int) -> list[list[Sample]]:
    tasks = [(seed, i, iterations) for i in range(games)]
    if workers <= 1:
        return [self_play(t) for t in tasks]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(self_play, tasks, chunksize=4))


def design(samples: list[Sample]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The inputs, the margins, and the hand-written estimate of each sample."""
    x, y, hand = [], [], []
    for rows, black, white, seat, margin in samples:
        layout = parse_rows(rows, "labels", InvalidPosition, InvalidPosition)
        mine, theirs = (black, white) if seat == 1 else (white, black)
        x.append(feature_vector(layout, mine, theirs))
        y.append(margin)
        hand.append(estimate(layout, mine, theirs))
    return np.array(x), np.array(y), np.array(hand)


def ridge(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least squares with ``RIDGE`` on every weight, inputs scaled to unit spread first."""
    scale: np.ndarray = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = x / scale
    w: np.ndarray = np.linalg.solve(z.T @ z + RIDGE * np.eye(z.shape[1]), z.T @ y)
    scaled: np.ndarray = w / scale
    return scaled


def scores(predicted: np.ndarray, y: np.ndarray) -> dict[str, float]:
    return {
        "rms_stones": round(float(np.sqrt(np.mean((predicted - y) ** 2))), 3),
        "winner_named": round(float(np.mean(np.sign(predicted) == np.sign(y))), 4),
    }


def fit(games: list[list[Sample]]) -> tuple[np.ndarray, JSONObject]:
    train = [s for i, g in enumerate(games) if i % HELD_OUT for s in g]
    held = [s for i, g in enumerate(games) if not i % HELD_OUT for s in g]
    x, y, _ = design(train)
    w = ridge(x, y)
    hx, hy, hand = design(held)
    report: JSONObject = {
        "train_positions": len(train),
        "held_out_positions": len(held),
        "held_out_learned": scores(hx @ w, hy),
        "held_out_hand_written": scores(hand, hy),
    }
    return w, report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.learn.strands", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=800)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--out", type=Path, default=WEIGHTS_FILE)
    parser.add_argument("--labels", type=Path, help="keep the self-play here, and read it back when it is there")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.labels and args.labels.exists():
        games = json.loads(args.labels.read_text())
        games = [[tuple(s) for s in g] for g in games]
    else:
        games = play_games(args.games, args.iterations, args.seed, args.workers)
        if args.labels:
            args.labels.write_text(json.dumps(games))
    played = time.perf_counter() - start
    w, report = fit(games)
    made = {
        "command": "make train-strands",
        "games": len(games),
        "iterations": args.iterations,
        "seed": args.seed,
        "opening_plies": OPENING_PLIES,
        "ridge": RIDGE,
        "features": [f"{f}*e^{p}" for f in BASE_FEATURES for p in range(3)],
        "date": datetime.date.today().isoformat(),
        **report,
    }
    text = json.dumps({"made": made, "weights": [round(float(v), 6) for v in w]}, indent=1) + "\n"
    read_weights(text)  # what is written reads back
    assert len(w) == SIZE
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"self-play {played:.0f} s; {json.dumps(report)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
