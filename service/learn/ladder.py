"""Measure each game's rated ladder (``service/levels/ladder.py``): ``make fit-ladder`` or ``python -m
service.learn.ladder [--games ID ...] [--pairs N] [--seed N] [--workers N] [--reviewed N] [--out-dir DIR]``.

1. **Players**: two fixed anchors, ``random`` (a uniformly random legal move: rating 0 by definition, so a
   game's ratings can be re-measured and compared over releases) and ``greedy`` (the move that leaves the best
   score margin right now, random among equals: a beginner who knows the rules), every rung of the ladder, and
   the game's other levels.
2. **Games**: each pair of the schedule plays ``pairs`` openings twice, seats swapped (an opening: the game's
   start dealt from a seed of its own, then ``OPENING_PLIES`` random moves). The schedule: random against greedy
   and against the first rung, greedy against the first two rungs, each rung against the next, and each other
   level against ``OTHER_OPPONENTS`` with a quarter of the openings. Every move is the level's
   ``best_move(purpose="play")`` at its own budget, seeded by the game and the ply: the same command plays the
   same games.
3. **Fit**: the Bradley–Terry model on the Elo scale (``P(a beats b) = 1 / (1 + 10^((Rb − Ra)/400))``, a draw
   half a win) by maximum likelihood, Newton's method, ``random`` held at 0; one virtual draw per pair of the
   schedule keeps a pair that never lost finite (BayesElo's prior, smaller). The 95 % intervals come from the
   inverse of the information matrix.
4. **Performance calibration**: the first ``--reviewed`` openings of each step are played again (the same games)
   and reviewed from their opening by the review's default judge, as ReviewGame does; each rung's judged moves
   are counted by the band of win chance they lost (``performance.LOSS_BANDS``); a review's performance rating
   reads a seat's moves by a model of the bands fitted to these counts (``service/levels/performance.py``).
   ``--calibrate`` does this part alone, into the shipped file.

Each game's file, ``service/levels/data/ladder/<game-id>.json``, records the command, the date, the sample, the
schedule's scores and the fit; ``python -m bench.ladder`` prints the targets of the ladder from it.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import math
import multiprocessing
import multiprocessing.pool
import random
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import numpy as np

from service.core.contract import MoveT, Position
from service.core.values import SearchResult
from service.games import BY_ID
from service.learn.winchance import GAMES, LEVELS
from service.levels import ladder, performance, winchance
from service.levels.review import PlyReview, ReviewSummary, chance_losses, collect, review

COMMAND = "python -m service.learn.ladder"
RANDOM, GREEDY = "random", "greedy"
ANCHORS = (RANDOM, GREEDY)
OPENING_PLIES = 2
OTHER_OPPONENTS = (GREEDY, "ladder-3", "ladder-6")
PRIOR_DRAWS = 1.0  # virtual draws per pair of the schedule
ELO = 400.0 / math.log(10.0)  # Elo points per unit of the natural-log odds
Z95 = 1.96
# Games of each step the performance calibration reviews with the judge: its searches cost most of the run
# (Strands' judge thinks up to a second a position).
REVIEWED = 6
REVIEWED_BY_GAME = {"strands": 3}


@dataclass(frozen=True, slots=True)
class Result:
    """One game: the players of seat 1 and seat 2, seat 1's score (1, ½, 0), the moves and the start."""

    seat1: str
    seat2: str
    score1: float
    start: str
    moves: tuple[Any, ...]
    spent: tuple[float, float]  # CPU seconds of seat 1 and seat 2
    moved: tuple[int, int]


# --- the file's records (``service/levels/data/ladder/<game-id>.json``) ---


class PairScore(TypedDict):
    """A pair of the schedule: its games and the second player's score with its 95 % interval."""

    low: str
    high: str
    games: int
    score: float
    interval: list[float]


class Calibration(TypedDict):
    """The rungs' judged moves counted by band of lost win chance (``performance.LOSS_BANDS``)."""

    form: str
    bands: list[float]
    counts: dict[str, list[int]]
    seats: dict[str, int]
    reviewed_games: NotRequired[int]


class SampleRecord(TypedDict):
    pairs_per_step: int
    games: int
    opening_plies: int
    seed: int
    reviewed_games: int
    wall_s: int


class Rating(TypedDict):
    rating: float
    low: float
    high: float


class Record(TypedDict):
    """A game's file: the command, the sample, the ratings, the schedule's scores and the calibration."""

    game: str
    command: str
    date: str
    sample: SampleRecord
    scale: str
    ladder: list[str]
    ratings: dict[str, Rating]
    pairs: list[PairScore]
    ms_per_move: dict[str, float]
    performance: Calibration | None


def anchor_move(name: str, position: Position[MoveT], rng: random.Random) -> MoveT:
    """The anchors' moves: ``random`` uniformly among the legal moves (paged: Strands' lists are never built),
    ``greedy`` the search move leaving the mover the best score margin, random among equals."""
    if name == RANDOM:
        return position.legal_moves_page(rng.randrange(position.legal_move_count()), 1)[0]
    seat = position.to_move
    best: list[MoveT] = []
    best_margin = -math.inf
    for move in position.search_moves():
        scores = position.play(move).scores()
        margin = scores[seat - 1] - scores[2 - seat]
        if margin > best_margin:
            best, best_margin = [move], margin
        elif margin == best_margin:
            best.append(move)
    return rng.choice(best)


def play(task: tuple[str, str, str, int, int]) -> Result:
    """One game: ``game_id``, the players of seat 1 and seat 2, the opening's index and the run's seed."""
    game_id, seat1, seat2, index, seed = task
    game, levels = GAMES[game_id], LEVELS[game_id]
    start_seed = f"ladder-{seed}-{index}"
    position = game.new_position({}, start_seed)
    rng = random.Random(f"{seed}/{game_id}/{index}/opening")
    moves: list[Any] = []
    for _ in range(OPENING_PLIES):
        if position.to_move:
            move = anchor_move(RANDOM, position, rng)
            moves.append(move)
            position = position.play(move)
    players = {1: seat1, 2: seat2}
    spent = [0.0, 0.0]
    moved = [0, 0]
    ply = 0
    while position.to_move:
        seat = position.to_move
        name = players[seat]
        move_seed = f"{seed}/{game_id}/{index}/{seat1}/{seat2}/{ply}"
        began = time.process_time()
        if name in ANCHORS:
            move = anchor_move(name, position, random.Random(move_seed))
        else:
            move = levels.best_move(position, name, None, move_seed, purpose="play").move
        spent[seat - 1] += time.process_time() - began
        moved[seat - 1] += 1
        moves.append(move)
        position = position.play(move)
        ply += 1
    final = position.final_value(1)
    score1 = 1.0 if final > 0 else 0.0 if final < 0 else 0.5
    return Result(seat1, seat2, score1, start_seed, tuple(moves), (spent[0], spent[1]), (moved[0], moved[1]))


def schedule(game_id: str, pairs: int) -> list[tuple[str, str, int]]:
    """The pairs of the schedule with their number of openings (each played twice, seats swapped)."""
    levels = LEVELS[game_id]
    rungs = list(levels.ladder)
    out = [(RANDOM, GREEDY, pairs), (RANDOM, rungs[0], pairs), (GREEDY, rungs[0], pairs), (GREEDY, rungs[1], pairs)]
    out += [(low, high, pairs) for low, high in itertools.pairwise(rungs)]
    others = [level.name for level in levels.levels if level.name not in rungs]
    out += [(other, opponent, max(1, pairs // 4)) for other in others for opponent in OTHER_OPPONENTS]
    return out


def tasks(game_id: str, pairs: int, seed: int) -> list[tuple[str, str, str, int, int]]:
    """Every game of the schedule: per pair and opening, both seat orders; the openings are shared by the pairs."""
    out = []
    for low, high, count in schedule(game_id, pairs):
        for index in range(count):
            out.append((game_id, low, high, index, seed))
            out.append((game_id, high, low, index, seed))
    return out


# --- the fit ---


def fit(results: Sequence[Result], anchor: str = RANDOM) -> dict[str, tuple[float, float]]:
    """Each player's rating and its standard error (Elo points) by maximum likelihood, ``anchor`` at 0."""
    names = sorted({r.seat1 for r in results} | {r.seat2 for r in results})
    index = {name: i for i, name in enumerate(names)}
    games: dict[tuple[int, int], list[float]] = {}
    for r in results:
        a, b = index[r.seat1], index[r.seat2]
        key = (min(a, b), max(a, b))
        score = r.score1 if a < b else 1.0 - r.score1
        games.setdefault(key, [0.0, 0.0])
        games[key][0] += score
        games[key][1] += 1.0
    for entry in games.values():  # the prior: virtual draws
        entry[0] += PRIOR_DRAWS / 2
        entry[1] += PRIOR_DRAWS
    free = [i for i in range(len(names)) if names[i] != anchor]
    theta = np.zeros(len(names))
    for _ in range(100):
        grad = np.zeros(len(names))
        info = np.zeros((len(names), len(names)))
        for (a, b), (score, count) in games.items():
            p = 1.0 / (1.0 + math.exp(theta[b] - theta[a]))
            grad[a] += score - count * p
            grad[b] -= score - count * p
            w = count * p * (1.0 - p)
            info[a, a] += w
            info[b, b] += w
            info[a, b] -= w
            info[b, a] -= w
        sub = info[np.ix_(free, free)]
        step = np.linalg.solve(sub, grad[free])
        theta[free] += step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    cov = np.linalg.inv(info[np.ix_(free, free)])
    out = {anchor: (0.0, 0.0)}
    for k, i in enumerate(free):
        out[names[i]] = (float(theta[i] * ELO), float(math.sqrt(cov[k, k]) * ELO))
    return out


def pair_scores(results: Sequence[Result], game_id: str, pairs: int) -> list[PairScore]:
    """Per pair of the schedule: games, the second player's score and its Wilson 95 % interval."""
    rows: list[PairScore] = []
    for low, high, _count in schedule(game_id, pairs):
        scores = [r.score1 if r.seat1 == high else 1.0 - r.score1 for r in results if {r.seat1, r.seat2} == {low, high}]
        share = sum(scores) / len(scores)
        lo, hi = wilson(share, len(scores))
        rows.append({"low": low, "high": high, "games": len(scores), "score": round(share, 4), "interval": [lo, hi]})
    return rows


def wilson(share: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share over ``n`` games (draws counted as half)."""
    if n == 0:
        return 0.0, 1.0
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


# --- performance calibration ---


def judged(game_id: str, result: Result) -> tuple[list[Position[Any]], list[PlyReview], ReviewSummary]:
    """``result``'s game from its opening reviewed as ReviewGame does by default: the judge (the strongest level
    searched at the judge's limits, for analysis) over every position, and the game's win-chance model: its
    positions from the opening, its plies and its summary."""
    game, levels = GAMES[game_id], LEVELS[game_id]
    position = game.new_position({}, result.start)
    positions = [position]
    for move in result.moves:
        position = position.play(move)
        positions.append(position)

    def search(at: Position[MoveT]) -> SearchResult | None:
        return levels.best_move(at, levels.strongest, levels.judge, 0, purpose="analysis")

    # From the opening on: its random moves are the schedule's, not the players'.
    positions, moves = positions[OPENING_PLIES:], list(result.moves[OPENING_PLIES:])
    plies, summary = collect(review(positions, moves, levels.review_scale, search, winchance.model(game_id)))
    return positions, plies, summary


def review_task(task: tuple[str, Result]) -> list[tuple[str, list[float]]]:
    """(player, the win-chance loss of each judged move with a choice: the moves accuracy reads) of each seat of
    one reviewed game but the anchors'."""
    game_id, result = task
    _positions, plies, _summary = judged(game_id, result)
    out = []
    for seat, name in ((1, result.seat1), (2, result.seat2)):
        losses = chance_losses(plies, seat)
        if name not in ANCHORS and losses:
            out.append((name, losses))
    return out


def calibrate(rows: Sequence[tuple[str, Sequence[float]]], rungs: Sequence[str]) -> Calibration:
    """How often each rung's judged moves lose each band of win chance (``performance.LOSS_BANDS``), counted over the
    reviewed seats of the rungs: what a review's performance rating weighs a seat's moves by."""
    counts = {name: [0] * (len(performance.LOSS_BANDS) + 2) for name in rungs}
    seats = dict.fromkeys(rungs, 0)
    for name, losses in rows:
        if name in counts:
            seats[name] += 1
            for loss in losses:
                counts[name][performance.band(loss)] += 1
    return {
        "form": "the posterior over the rungs of a seat's judged moves' loss bands, a uniform prior",
        "bands": list(performance.LOSS_BANDS),
        "counts": counts,
        "seats": seats,
    }


def reviewed_tasks(game_id: str, count: int, seed: int) -> list[tuple[str, str, str, int, int]]:
    """The games the calibration reviews: the first ``count`` openings of each step of the ladder, the seats
    alternating (games of the run: ``play`` gives the same game again)."""
    rungs = list(LEVELS[game_id].ladder)
    out = []
    for low, high in itertools.pairwise(rungs):
        for index in range(count):
            seats = (low, high) if index % 2 == 0 else (high, low)
            out.append((game_id, seats[0], seats[1], index, seed))
    return out


def reviewed_count(game_id: str, args: argparse.Namespace) -> int:
    """Reviewed games a step: ``--reviewed``, else the game's own number."""
    return args.reviewed if args.reviewed is not None else REVIEWED_BY_GAME.get(game_id, REVIEWED)


def calibration(game_id: str, count: int, seed: int, pool: multiprocessing.pool.Pool) -> Calibration | None:
    """The performance calibration of ``game_id`` from ``count`` reviewed games a step (None: none reviewed)."""
    if count <= 0:
        return None
    reviewed = list(pool.imap(play, reviewed_tasks(game_id, count, seed)))
    rows = [row for part in pool.imap(review_task, [(game_id, r) for r in reviewed]) for row in part]
    return calibrate(rows, LEVELS[game_id].ladder) | {"reviewed_games": len(reviewed)}


# --- the run ---


def run(game_id: str, args: argparse.Namespace, pool: multiprocessing.pool.Pool) -> Record:
    began = time.time()
    results: list[Result] = list(pool.imap(play, tasks(game_id, args.pairs, args.seed), chunksize=4))
    played = time.time() - began
    fitted = fit(results)
    levels = LEVELS[game_id]
    rungs = list(levels.ladder)
    began = time.time()
    calibrated = calibration(game_id, reviewed_count(game_id, args), args.seed, pool)
    cost: dict[str, list[float]] = {}
    for r in results:
        for name, spent, moved in ((r.seat1, r.spent[0], r.moved[0]), (r.seat2, r.spent[1], r.moved[1])):
            cost.setdefault(name, [0.0, 0.0])
            cost[name][0] += spent
            cost[name][1] += moved
    return {
        "game": game_id,
        "command": command(game_id, args),
        "date": datetime.date.today().isoformat(),
        "sample": {
            "pairs_per_step": args.pairs,
            "games": len(results),
            "opening_plies": OPENING_PLIES,
            "seed": args.seed,
            "reviewed_games": 0 if calibrated is None else calibrated["reviewed_games"],
            "wall_s": round(played + time.time() - began),
        },
        "scale": "Elo: 400 points for 10:1 odds; random = 0; one virtual draw per pair",
        "ladder": rungs,
        "ratings": {
            name: {
                "rating": round(value, 1),
                "low": round(value - Z95 * se, 1),
                "high": round(value + Z95 * se, 1),
            }
            for name, (value, se) in sorted(fitted.items(), key=lambda item: item[1][0])
        },
        "pairs": pair_scores(results, game_id, args.pairs),
        "ms_per_move": {name: round(1000 * spent / max(1, moved), 2) for name, (spent, moved) in cost.items()},
        "performance": calibrated,
    }


def command(game_id: str, args: argparse.Namespace) -> str:
    """The command that plays this game's part of a run again: its own games are seeded by the game, so the other
    games and the output's place do not change them."""
    parts = ["--games", game_id, "--pairs", str(args.pairs), "--seed", str(args.seed)]
    if args.reviewed is not None:
        parts += ["--reviewed", str(args.reviewed)]
    return " ".join([COMMAND, *map(shlex.quote, parts)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--pairs", type=int, default=100, help="openings per pair, each played twice")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=min(2, multiprocessing.cpu_count()))
    parser.add_argument(
        "--reviewed", type=int, default=None, help=f"games of each step the calibration reviews (default {REVIEWED})"
    )
    parser.add_argument("--out-dir", type=Path, help="where the files go (default: each game's shipped file)")
    parser.add_argument("--pages", action="store_true", help="only write each game's page from its shipped file")
    parser.add_argument(
        "--calibrate", action="store_true", help="only review the calibration's games into each game's file"
    )
    args = parser.parse_args(argv)
    if args.pages:
        for game_id in args.games:
            write_page(json.loads(shipped(game_id, args.out_dir).read_text()))
        return 0
    if args.out_dir is not None:
        args.out_dir.mkdir(parents=True, exist_ok=True)
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        if args.calibrate:
            for game_id in args.games:
                path = shipped(game_id, args.out_dir)
                record = json.loads(path.read_text())
                record["performance"] = calibration(
                    game_id, reviewed_count(game_id, args), record["sample"]["seed"], pool
                )
                record["sample"]["reviewed_games"] = (record["performance"] or {}).get("reviewed_games", 0)
                path.write_text(json.dumps(record, indent=1) + "\n")
                if args.out_dir is None:
                    write_page(record)
            return 0
        for game_id in args.games:
            record = run(game_id, args, pool)
            path = shipped(game_id, args.out_dir)
            path.write_text(json.dumps(record, indent=1) + "\n")
            if args.out_dir is None:
                write_page(record)
            print(summary(record))
    return 0


def summary(record: Record) -> str:
    lines = [f"{record['game']}: {record['sample']['games']} games in {record['sample']['wall_s']} s"]
    for name, entry in record["ratings"].items():
        ms = record["ms_per_move"].get(name, 0.0)
        lines.append(f"  {name:14} {entry['rating']:7.0f}  ({entry['low']:.0f} to {entry['high']:.0f})  {ms:7.1f} ms")
    for row in record["pairs"]:
        lines.append(f"  {row['high']:>14} vs {row['low']:14} {100 * row['score']:5.1f} % of {row['games']}")
    return "\n".join(lines)


# --- the games' pages ---


def shipped(game_id: str, out_dir: Path | None) -> Path:
    """Where a game's ladder file goes: its shipped file (``ladder.path_of``), or ``out_dir``."""
    return ladder.path_of(game_id) if out_dir is None else out_dir / f"{game_id}.json"


HEADING = "## Rated ladder"


def page_section(record: Record) -> str:
    """The "Rated ladder" section of a game's page (``docs/games/<id>.md``) from its measured file: what the rungs
    are, the table of the ladder, the other levels and anchors on the same scale, and the review's calibration."""
    game_id = record["game"]
    levels = LEVELS[game_id]
    rungs = record["ladder"]
    ratings = record["ratings"]
    steps = {(row["low"], row["high"]): row for row in record["pairs"]}
    sure = " ".join((levels.sure_moves.__doc__ or "").split()) if levels.sure_moves else ""
    takes = [name for name in rungs[:-1] if "does not miss" in levels.level(name).description]
    steady = [name for name in rungs[:-1] if ladder.STEADY_MARK in levels.level(name).description]
    sample = record["sample"]
    lines = [
        HEADING,
        "",
        f"BestMove's `rating` chooses the rung whose rating is nearest ([the API guide](../api.md#rated-ladder)); a "
        f"rung's name works as a `level` too. The ladder climbs from `{rungs[0]}` to `{rungs[-1]}`, the strongest "
        "level at its own budget. Each rung below it scores the moves with a search of the game's own (its level "
        "in GetGame says which, how deep and within how many positions) and errs like a person: each move it draws "
        "a tolerance of lost win chance (exponential, its mean shrinking up the ladder) and plays one of the moves "
        "within it at random; in a lost position the losses count against the chance left, so it keeps resisting.",
        "",
        f"From `{takes[0]}` up the rungs take the moves a player of their strength does not miss. {sure}"
        if takes
        else "No rung takes sure moves of its own.",
        "",
        *(
            [
                f"From `{steady[0]}` up the rungs are steady: their tolerance never passes "
                f"{100 * ladder.STEADY_LOSS:.0f} % of win chance, the review's largest mistake, so they make "
                "mistakes but never accept a move their own search sees as a blunder.",
                "",
            ]
            if steady
            else []
        ),
        f"Ratings are Elo points on this game's own scale (400 points for 10:1 odds), the uniformly random mover at "
        f"0. Measured {record['date']} by `{record['command']}` (`make fit-ladder`): {sample['games']:,} games, "
        f"{sample['pairs_per_step']} openings of {sample['opening_plies']} random moves a step, each played with "
        "the seats both ways; the intervals are 95 %. The think time is a hint a portal may pace a bot with.",
        "",
        "| rung | rating | 95 % interval | against the rung below | think time | CPU a move in the run |",
        "|---|---|---|---|---|---|",
    ]
    for k, name in enumerate(rungs):
        entry = ratings[name]
        row = steps.get((rungs[k - 1], name)) if k else steps.get(("greedy", name))
        against = f"{100 * row['score']:.1f} % of {row['games']}" if row else ""
        if k == 0 and row:
            against += " (against `greedy`)"
        lines.append(
            f"| `{name}` | {entry['rating']:.0f} | {entry['low']:.0f} to {entry['high']:.0f} | {against} | "
            f"{levels.level(name).think_ms / 1000:g} s | {record['ms_per_move'].get(name, 0.0):.1f} ms |"
        )
    others = [name for name in ratings if name not in rungs]
    placed = ", ".join(f"`{name}` {ratings[name]['rating']:.0f}" for name in others)
    lines += [
        "",
        f"On the same scale: {placed} (`greedy`: the move leaving the best score margin now, a beginner who knows "
        "the rules; the other levels played a quarter of the openings against it and two rungs).",
    ]
    calibrated = record.get("performance")
    if calibrated:
        moves = sum(sum(counts) for counts in calibrated["counts"].values())
        lines += [
            "",
            "A review's performance rating of a seat is read from its judged moves' losses of win chance, counted "
            "by bands (none, up to "
            + ", ".join(f"{band:g}" for band in calibrated["bands"])
            + "; more): a model whose chance of each band moves smoothly with the rating is fitted to the rungs' "
            f"{moves:,} judged moves of {sum(calibrated['seats'].values())} seats in the ladder's own games "
            f"({calibrated['reviewed_games']} reviewed by the default judge), and the rating is the posterior's "
            f"median from {performance.MARGIN:.0f} points below the lowest rung to as far above the "
            "highest, its interval the ratings the posterior holds 95 % within.",
        ]
    return "\n".join(lines) + "\n"


def write_page(record: Record) -> None:
    """Put ``page_section`` in the game's page (its registration's): in place of its "Rated ladder" section,
    else before its "Win chance" section."""
    path = BY_ID[record["game"]].page
    text = path.read_text()
    section = page_section(record)
    if HEADING + "\n" in text:
        start = text.index(HEADING + "\n")
        end = text.find("\n## ", start + len(HEADING))
        text = text[:start] + section + (text[end:] if end != -1 else "")
    else:
        at = text.index("\n## Win chance\n")
        text = text[: at + 1] + section + "\n" + text[at + 1 :]
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
