"""The shipped win-chance models (``service/levels/winchance.py``, fitted by ``make fit-winchance``) on fresh
self-play games (``python -m bench.winchance``). Per game, the fitter's own sample (``service.learn.winchance``:
every level against every level, positions labelled by the game's labelling search, proved ones left out) with
a seed the fit did not use, and a quarter of the fit's rounds by default. Each target is printed met/missed:

- **Calibration**: per tenth of predicted chance, the observed mean score (win 1, draw ½, loss 0 for the
  mover); target: every tenth within ``GAP_GOAL`` of its mean prediction. The standard error of each gap is
  clustered by game (a game's positions share its end); a gap within about twice its error of the target is
  noise, not a miss.
- **What a sample this size can decide**: the positions' mean gap (the expected calibration error; target at
  most ``MEAN_GAP_GOAL``), and no tenth beyond both ``GAP_GOAL`` and twice its standard error.
- **Log-loss**: the model's mean cross-entropy against the stage-less curve σ(b0 + a0·v) fitted beside it (in
  the model's file); target: lower.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from service.games import GAMES
from service.learn import winchance as learn
from service.levels import winchance

SEED = 1001  # the fit uses 1 (make fit-winchance): a stream of games of its own
GAP_GOAL = learn.GAP_GOAL
MEAN_GAP_GOAL = 0.03  # the positions' mean calibration gap (expected calibration error)


def mark(met: bool) -> str:
    return "met" if met else "MISSED"


def measure(game_id: str, rounds: int, seed: int, levels: list[str] | None) -> None:
    began = time.process_time()
    plan = learn.PLANS.get(game_id, learn.DEFAULT_PLAN)
    sample = learn.self_play(game_id, rounds, seed, plan, levels)
    games, stages, values, scores = sample.arrays()
    print(
        f"{game_id}: {sample.played} games ({rounds} of each pairing of levels, seed {seed}), "
        f"{len(values)} positions, {sample.proved} proved left out"
    )
    if not len(values):
        print("  no position with an estimate: nothing to measure")
        return
    model = winchance.model(game_id)
    w = np.array([*model.offset, *model.slope])
    flat = json.loads(winchance.path_of(game_id).read_text())["fit"]["stageless"]
    chance = learn.sigmoid(learn.features(stages, values) @ w)
    flat_chance = learn.sigmoid(
        learn.features(stages, values, staged=False) @ np.array([flat["offset"], flat["slope"]])
    )
    rows = learn.calibration(chance, scores, games)
    print("  | predicted | mean predicted | observed | standard error | positions |")
    for row in rows:
        if row["positions"]:
            print(
                f"  | {row['from']:.1f}-{row['to']:.1f} | {row['predicted']:.3f} | {row['observed']:.3f} | "
                f"{row['standard_error']:.3f} | {row['positions']} |"
            )
    worst = learn.largest_gap(rows)
    print(
        f"  largest gap {worst['gap']:.3f} (standard error {worst['standard_error']:.3f}) in the tenth from "
        f"{worst['from']:.1f} (target <= {GAP_GOAL}): {mark(worst['gap'] <= GAP_GOAL)}"
    )
    # The measure a sample of this size can decide (the every-tenth-within-0.05 cannot, where a tenth
    # holds a few dozen games): the positions' mean gap, and every tenth within the goal or twice its error.
    filled = [row for row in rows if row["positions"]]
    mean_gap = sum(row["positions"] * abs(row["predicted"] - row["observed"]) for row in filled) / len(values)
    print(
        f"  mean gap over the positions {mean_gap:.3f} (target <= {MEAN_GAP_GOAL}): {mark(mean_gap <= MEAN_GAP_GOAL)}"
    )
    beyond = [
        row for row in filled if abs(row["predicted"] - row["observed"]) > max(GAP_GOAL, 2 * row["standard_error"])
    ]
    print(
        f"  tenths beyond both {GAP_GOAL} and twice their standard error: {len(beyond)}"
        + "".join(f" (from {row['from']:.1f})" for row in beyond)
        + f": {mark(not beyond)}"
    )
    loss, flat_loss = learn.log_loss(chance, scores), learn.log_loss(flat_chance, scores)
    print(
        f"  log-loss {loss:.4f} against the stage-less fit's {flat_loss:.4f} (target: lower): {mark(loss < flat_loss)}"
    )
    print(f"  {time.process_time() - began:.1f} CPU s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES), help="game ids (all)")
    parser.add_argument("--rounds", type=int, help="games of each ordered pairing (a quarter of the fit's)")
    parser.add_argument("--levels", nargs="+", help="only these levels play (their names in every game given)")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    for game_id in args.games:
        rounds = args.rounds or max(1, learn.PLANS.get(game_id, learn.DEFAULT_PLAN).rounds // 4)
        measure(game_id, rounds, args.seed, args.levels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
