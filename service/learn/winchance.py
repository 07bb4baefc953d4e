"""Fit each game's win-chance model (``service/levels/winchance.py``): ``make fit-winchance`` or ``python -m
service.learn.winchance [--games ID ...] [--seed N] [--rounds N] [--levels NAME ...] [--out-dir DIR]``.

1. Games: every level of the game against every level, itself included, seat 1 and seat 2 alike (``rounds``
   games of each ordered pairing), from the game's start dealt from a seed of the game's own (Petak Sawah's
   rocks), ``RANDOM_PLIES`` random search moves first for variety, then each level's move with
   ``purpose="play"`` and a seed of the move's own.
2. Labels: every position with a seat to move is searched by the labelling search, the game's strongest level
   in ``purpose="analysis"`` at its own budget (what a review or an analysis feeds the model), from the mover's
   view; where that is too slow a game's ``Plan`` gives it a node budget (Strands: its tree search's iterations
   instead of its 1.5 s, so the labels repeat; ``--scale-check N`` measures the values against the level's own
   budget on N positions). A proved label is a known result, not the model's: counted and left out.
3. Targets: the mover's score at the end, 1 a win, ½ a draw, 0 a loss (the sign of ``final_value``).
4. Fit: every ``HOLD_OUT``-th game is held out (the split is by game: a game's positions are alike); the
   model's five coefficients by maximum likelihood on the rest (cross-entropy with soft targets, Newton's
   method, a tiny ridge), and the stage-less curve σ(b0 + a0·v) beside it for comparison. The held-out part
   gives both log-losses and the calibration by tenths of the predicted chance, each with its standard error
   (clustered by game).

Seeded and in one process: with node and depth budgets only (every level's own but Strands' ``hard``, which a
Plan gives a node budget), the same command writes the same file but its date. Each file records its command,
the sample and the fit; ``python -m bench.winchance`` measures the shipped models on fresh games.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import random
import shlex
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import numpy as np

from service.core.contract import Game, MoveT, Position
from service.core.values import Limits, SearchResult
from service.games import REGISTRATIONS
from service.levels import GameLevels, winchance

# The games the registry serves (a game from outside the tree too, ``GAMERULES_EXTRA_GAMES``): their engines and
# levels.
GAMES: dict[str, Game] = {registration.id: registration.game for registration in REGISTRATIONS}
LEVELS: dict[str, GameLevels[Any, Any]] = {registration.id: registration.levels for registration in REGISTRATIONS}

COMMAND = "python -m service.learn.winchance"
HOLD_OUT = 4  # every fourth game (index % 4 == 3) is held out
RANDOM_PLIES = 2
RIDGE = 1e-6  # per position, on standardised features: keeps a separable tiny sample finite
BINS = 10
SCALE_PLIES = 40  # a scale check's positions are up to this many plies in
GAP_GOAL = 0.05  # every tenth of predicted chance within this of the observed score (held out)


@dataclass(frozen=True, slots=True)
class Plan:
    """A game's sample: ``rounds`` games of each ordered pairing of levels; ``label`` the labelling search's
    limits (None: the strongest level's own); ``play`` the strongest level's limits when it plays (None: its
    own); ``why`` says why a limit is not the level's own."""

    rounds: int
    label: Limits | None = None
    play: Limits | None = None
    why: str = ""


# Sizes chosen for a few thousand held-out positions a game within about 30 CPU minutes for the five games
# (the run prints its time). Strands' ``hard`` thinks 1.5 s a move; 10,000 iterations of its tree search are
# 0.05 to 0.3 s and give values on the same scale (``--scale-check``).
STRANDS_NODES = 10_000
PLANS: dict[str, Plan] = {
    "reversi": Plan(rounds=40),
    "kalah": Plan(rounds=45),
    "dots-and-boxes": Plan(rounds=36),
    "petak-sawah": Plan(rounds=100),
    "strands": Plan(
        rounds=12,
        label=Limits(max_nodes=STRANDS_NODES),
        play=Limits(max_nodes=STRANDS_NODES),
        why="hard's own 1.5 s a move would allow some forty games in the time; its tree search's iterations "
        "repeat where its time does not",
    ),
}
DEFAULT_PLAN = Plan(rounds=20)


# --- the file's records (``service/levels/data/winchance/<game-id>.json``) ---

# A tenth of predicted chance held out: the figures only where it has positions.
CalibrationRow = TypedDict(
    "CalibrationRow",
    {
        "from": float,
        "to": float,
        "positions": int,
        "predicted": NotRequired[float],
        "observed": NotRequired[float],
        "standard_error": NotRequired[float],
    },
)
LargestGap = TypedDict("LargestGap", {"gap": float, "from": float, "standard_error": float})


class ModelRecord(TypedDict):
    offset: list[float]
    slope: list[float]


class LogLoss(TypedDict):
    train: float
    held_out: float
    stageless_held_out: float


class Stageless(TypedDict):
    offset: float
    slope: float


class Targets(TypedDict):
    every_tenth_within: float
    calibration_met: bool
    beats_stageless: bool


class FitReport(TypedDict):
    log_loss: LogLoss
    slope_terms: int
    stageless: Stageless
    calibration: list[CalibrationRow]
    largest_gap: LargestGap
    targets: Targets


class ScaleCheck(TypedDict):
    positions: int
    slope_own_on_label: NotRequired[float]
    mean_difference: NotRequired[float]
    rms_difference: NotRequired[float]
    rms_value: NotRequired[float]


class SampleRecord(TypedDict):
    seed: int
    games: int
    rounds: int
    pairings: dict[str, int]
    random_opening_plies: int
    labels: str
    strongest_plays_with: str
    why: str | None
    positions: int
    proved_skipped: int
    held_out: str
    held_out_games: int
    held_out_positions: int
    label_scale: NotRequired[ScaleCheck]


class Record(TypedDict):
    """A game's file: its model, how it was made, and the fit's figures."""

    game: str
    model: ModelRecord
    command: str
    date: str
    sample: SampleRecord
    fit: FitReport


@dataclass(slots=True)
class Sample:
    """Labelled positions of one game's self-play: per fitted position its game's index, stage, label (the
    mover's view) and the mover's score; with the counts the file records."""

    game_id: str
    games: list[int] = field(default_factory=list)
    stages: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    proved: int = 0
    played: int = 0
    pairings: Counter[str] = field(default_factory=Counter)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return (
            np.array(self.games, dtype=np.int64),
            np.array(self.stages, dtype=float),
            np.array(self.values, dtype=float),
            np.array(self.scores, dtype=float),
        )


def score(final: float) -> float:
    """The mover's score from its final margin: 1 a win, ½ a draw, 0 a loss."""
    return 1.0 if final > 0 else 0.0 if final < 0 else 0.5


def label(game_id: str, position: Position[MoveT], plan: Plan) -> SearchResult:
    """The labelling search's answer: the strongest level, for analysis, at the plan's budget."""
    levels = LEVELS[game_id]
    return levels.best_move(position, level=levels.strongest, limits=plan.label, seed=0, purpose="analysis")


def play_one(sample: Sample, index: int, seats: tuple[str, str], seed: str, plan: Plan) -> None:
    """Game ``index`` of ``sample``: ``seats`` are the levels of seat 1 and seat 2; its labelled positions are
    added once it ends."""
    game_id = sample.game_id
    levels = LEVELS[game_id]
    rng = random.Random(f"{seed}/opening")
    position = GAMES[game_id].new_position({}, seed)
    seen: list[tuple[int, float, float]] = []  # (mover, stage, value) of the positions with an estimate
    ply = 0
    while position.to_move:
        found = label(game_id, position, plan)
        if found.exact:
            sample.proved += 1
        else:
            seen.append((position.to_move, position.stage(), found.value))
        if ply < RANDOM_PLIES:
            move = rng.choice(list(position.search_moves()))
        else:
            level = seats[position.to_move - 1]
            limits = plan.play if level == levels.strongest else None
            move = levels.best_move(position, level=level, limits=limits, seed=f"{seed}/{ply}", purpose="play").move
        position = position.play(move)
        ply += 1
    for mover, stage, value in seen:
        sample.games.append(index)
        sample.stages.append(stage)
        sample.values.append(value)
        sample.scores.append(score(position.final_value(mover)))
    sample.played += 1


def self_play(game_id: str, rounds: int, seed: int, plan: Plan, names: list[str] | None = None) -> Sample:
    """``rounds`` games of every ordered pairing of ``names`` (default: every level of the game)."""
    names = names or [level.name for level in LEVELS[game_id].levels]
    pairings = [(a, b) for a in names for b in names]
    sample = Sample(game_id)
    began = time.process_time()
    for round_ in range(rounds):
        for seats in pairings:
            index = sample.played
            play_one(sample, index, seats, f"{seed}/{game_id}/{index}", plan)
            sample.pairings[f"{seats[0]}-{seats[1]}"] += 1
        done = f"{len(sample.values)} positions, {time.process_time() - began:.0f} CPU s"
        print(f"  {game_id}: round {round_ + 1}/{rounds}, {done}", file=sys.stderr, flush=True)
    return sample


# --- the fit ---


def features(stages: np.ndarray, values: np.ndarray, staged: bool = True) -> np.ndarray:
    """The model's terms: (1, s, v, v·s, v·s²), or (1, v) stage-less."""
    s = np.clip(stages, 0.0, 1.0)
    if not staged:
        return np.column_stack([np.ones_like(values), values])
    return np.column_stack([np.ones_like(values), s, values, values * s, values * s * s])


def sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0))))


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """Coefficients of σ(x·w) minimising the cross-entropy against the soft targets ``y`` (Newton's method on
    features scaled to unit size, a ridge of ``ridge`` per position on all but the constant)."""
    scale = np.sqrt(np.mean(x * x, axis=0))
    scale[scale == 0] = 1.0
    z = x / scale
    penalty = np.full(z.shape[1], ridge * len(y))
    penalty[0] = 0.0
    w = np.zeros(z.shape[1])
    for _ in range(100):
        p = sigmoid(z @ w)
        gradient = z.T @ (p - y) + penalty * w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty) + 1e-12 * np.eye(z.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return np.asarray(w / scale)


def fit_rising(stages: np.ndarray, values: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, int]:
    """The model's coefficients, with a slope that is positive at every stage: the quadratic slope where the fit
    gives one, else a line in the stage, else a constant (a stage with no estimate to fit, the end of a game
    the search proves, leaves the quadratic free to turn), and how many of the slope's terms were fitted."""
    x = features(stages, values)
    grid = np.linspace(0.0, 1.0, 101)
    for terms in (3, 2, 1):
        kept = fit_logistic(x[:, : 2 + terms], scores)
        w = np.concatenate([kept, np.zeros(3 - terms)])
        if np.all(w[2] + w[3] * grid + w[4] * grid * grid > 0):
            return w, terms
    raise SystemExit("the value does not raise the chance at all: the labels do not fit the outcomes")


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """The mean cross-entropy of chances ``p`` against soft targets ``y`` (nats)."""
    q = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


def calibration(p: np.ndarray, y: np.ndarray, games: np.ndarray) -> list[CalibrationRow]:
    """Per tenth of predicted chance: its mean prediction, the observed mean score, the positions, and the
    standard error of the gap between them (clustered by game: a game's positions share its end)."""
    rows = []
    which = np.minimum((p * BINS).astype(int), BINS - 1)
    for b in range(BINS):
        mine = which == b
        n = int(mine.sum())
        row: CalibrationRow = {"from": b / BINS, "to": (b + 1) / BINS, "positions": n}
        if n:
            residual = y[mine] - p[mine]
            gap = float(residual.mean())
            per_game: dict[int, float] = {}
            for g, r in zip(games[mine].tolist(), (residual - gap).tolist(), strict=True):
                per_game[g] = per_game.get(g, 0.0) + r
            error = math.sqrt(sum(t * t for t in per_game.values())) / n
            row |= {
                "predicted": round(float(p[mine].mean()), 4),
                "observed": round(float(y[mine].mean()), 4),
                "standard_error": round(error, 4),
            }
        rows.append(row)
    return rows


def largest_gap(rows: list[CalibrationRow]) -> LargestGap:
    """The tenth whose observed score is furthest from its prediction."""
    worst = max((r for r in rows if r["positions"]), key=lambda r: abs(r["observed"] - r["predicted"]))
    return {
        "gap": round(abs(worst["observed"] - worst["predicted"]), 4),
        "from": worst["from"],
        "standard_error": worst["standard_error"],
    }


def fit(sample: Sample) -> tuple[ModelRecord, FitReport]:
    """The model (``{"offset", "slope"}``) and the fit's figures from ``sample``."""
    games, stages, values, scores = sample.arrays()
    held = games % HOLD_OUT == HOLD_OUT - 1
    train = ~held
    if not train.any() or not held.any():
        raise SystemExit(f"{sample.game_id}: too few games for a held-out part (at least {HOLD_OUT})")
    w, terms = fit_rising(stages[train], values[train], scores[train])
    flat = fit_logistic(features(stages[train], values[train], staged=False), scores[train])
    chance = sigmoid(features(stages, values) @ w)
    flat_chance = sigmoid(features(stages, values, staged=False) @ flat)
    rows = calibration(chance[held], scores[held], games[held])
    model: ModelRecord = {"offset": [float(w[0]), float(w[1])], "slope": [float(w[2]), float(w[3]), float(w[4])]}
    held_loss = log_loss(chance[held], scores[held])
    flat_loss = log_loss(flat_chance[held], scores[held])
    worst = largest_gap(rows)
    report: FitReport = {
        "log_loss": {
            "train": round(log_loss(chance[train], scores[train]), 4),
            "held_out": round(held_loss, 4),
            "stageless_held_out": round(flat_loss, 4),
        },
        "slope_terms": terms,
        "stageless": {"offset": float(flat[0]), "slope": float(flat[1])},
        "calibration": rows,
        "largest_gap": worst,
        "targets": {
            "every_tenth_within": GAP_GOAL,
            "calibration_met": worst["gap"] <= GAP_GOAL,
            "beats_stageless": held_loss < flat_loss,
        },
    }
    return model, report


# --- the labels' scale (Strands) ---


def scale_check(game_id: str, sample_positions: Sequence[Position[MoveT]], plan: Plan) -> ScaleCheck:
    """The plan's labels against the strongest level's own budget on ``sample_positions``: the slope of the own
    values on the plan's (through the origin), the mean difference and its spread."""
    levels = LEVELS[game_id]
    pairs = []
    for position in sample_positions:
        mine = label(game_id, position, plan)
        own = levels.best_move(position, level=levels.strongest, seed=0, purpose="analysis")
        if not (mine.exact or own.exact):
            pairs.append((mine.value, own.value))
    a = np.array(pairs, dtype=float).reshape(-1, 2)
    if not len(a):
        return {"positions": 0}
    return {
        "positions": len(a),
        "slope_own_on_label": round(float(a[:, 0] @ a[:, 1] / max(a[:, 0] @ a[:, 0], 1e-12)), 3),
        "mean_difference": round(float(np.mean(a[:, 1] - a[:, 0])), 3),
        "rms_difference": round(float(np.sqrt(np.mean((a[:, 1] - a[:, 0]) ** 2))), 3),
        "rms_value": round(float(np.sqrt(np.mean(a[:, 1] ** 2))), 3),
    }


def check_positions(game_id: str, count: int, seed: int) -> list[Position[Any]]:
    """``count`` positions of games between the game's levels but the strongest (seed ``seed``, a stream apart
    from the fit's), each a random number of plies in."""
    levels = LEVELS[game_id]
    names = [level.name for level in levels.levels if level.name != levels.strongest] or [levels.strongest]
    rng = random.Random(f"{seed}/{game_id}/scale")
    out: list[Position[Any]] = []
    while len(out) < count:
        position = GAMES[game_id].new_position({}, f"{seed}/{game_id}/scale/{len(out)}")
        stops = rng.randrange(SCALE_PLIES)
        ply = 0
        while position.to_move and ply < stops:
            position = position.play(levels.best_move(position, level=rng.choice(names), seed=ply).move)
            ply += 1
        if position.to_move:
            out.append(position)
    return out


def describe_limits(game_id: str, limits: Limits | None) -> str:
    levels = LEVELS[game_id]
    own = levels.level(levels.strongest).limits
    shown = limits or own
    parts = [f"{name} {value:,}" for name, value in (("nodes", shown.max_nodes), ("ms", shown.max_time_ms)) if value]
    parts += [f"depth {shown.max_depth}"] if shown.max_depth else []
    budget = ", ".join(parts) or "no limit"
    return f"{budget} ({'its own' if limits is None else 'given by the plan'})"


def write(game_id: str, sample: Sample, plan: Plan, args: argparse.Namespace, command: str, out: Path | None) -> Record:
    model, report = fit(sample)
    games, *_ = sample.arrays()
    held = games % HOLD_OUT == HOLD_OUT - 1
    levels = LEVELS[game_id]
    labels = (
        f"{levels.strongest}, purpose analysis, seed 0, {describe_limits(game_id, plan.label)}; "
        f"the mover's view, in the game's units"
    )
    record: Record = {
        "game": game_id,
        "model": model,
        "command": command,
        "date": datetime.date.today().isoformat(),
        "sample": {
            "seed": args.seed,
            "games": sample.played,
            "rounds": args.rounds or plan.rounds,
            "pairings": dict(sample.pairings),
            "random_opening_plies": RANDOM_PLIES,
            "labels": labels,
            "strongest_plays_with": describe_limits(game_id, plan.play),
            "why": plan.why or None,
            "positions": len(sample.values),
            "proved_skipped": sample.proved,
            "held_out": "every fourth game (index % 4 == 3)",
            "held_out_games": len(set(games[held].tolist())),
            "held_out_positions": int(held.sum()),
        },
        "fit": report,
    }
    if args.scale_check and plan.label is not None:
        record["sample"]["label_scale"] = scale_check(
            game_id, check_positions(game_id, args.scale_check, args.seed), plan
        )
    path = winchance.path_of(game_id) if out is None else out / f"{game_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    return record


def summary(record: Record) -> str:
    fit_ = record["fit"]
    loss = fit_["log_loss"]
    worst = fit_["largest_gap"]
    lines = [
        f"{record['game']}: {record['sample']['games']} games, {record['sample']['positions']} positions "
        f"({record['sample']['held_out_positions']} held out), {record['sample']['proved_skipped']} proved skipped",
        f"  log-loss held out {loss['held_out']:.4f} (stage-less {loss['stageless_held_out']:.4f}), "
        f"train {loss['train']:.4f}; largest gap {worst['gap']:.3f} ± {worst['standard_error']:.3f} "
        f"at {worst['from']:.1f}",
    ]
    for row in fit_["calibration"]:
        if row["positions"]:
            lines.append(
                f"  {row['from']:.1f}-{row['to']:.1f}: predicted {row['predicted']:.3f} observed "
                f"{row['observed']:.3f} ± {row['standard_error']:.3f} ({row['positions']})"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES), help="game ids (all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, help="games of each ordered pairing of levels (the game's plan)")
    parser.add_argument("--levels", nargs="+", help="only these levels play (their names in every game given)")
    parser.add_argument("--scale-check", type=int, default=0, help="positions to compare a plan's labels on")
    parser.add_argument("--out-dir", type=Path, help="where the files go (default: each game's shipped file)")
    args = parser.parse_args(argv)
    shown = [a for i, a in enumerate(argv) if a != "--out-dir" and (i == 0 or argv[i - 1] != "--out-dir")]
    command = shlex.join([*COMMAND.split(), *shown])
    for game_id in args.games:
        plan = PLANS.get(game_id, DEFAULT_PLAN)
        began = time.process_time()
        sample = self_play(game_id, args.rounds or plan.rounds, args.seed, plan, args.levels)
        record = write(game_id, sample, plan, args, command, args.out_dir)
        print(summary(record))
        print(f"  {time.process_time() - began:.0f} CPU s: wrote {game_id}.json", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
