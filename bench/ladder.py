"""The rated ladder of every game (issue 42; ``python -m bench.ladder [--games ID ...] [--positions N]``).

Two parts:

1. **The measured ladder**, read from the shipped ratings (``service/levels/data/ladder/<game-id>.json``,
   written by ``make fit-ladder``: the games, their command and date are in the file): each rung's rating with
   its 95 % interval, each step's score over its paired games with the Wilson interval, and the targets — at
   least eight rungs, ratings rising, each rung 60–80 % against the one below, the lowest at most 50 % against
   the one-move greedy player, the highest the game's strongest level.
2. **The ladder's cost, measured now**: the CPU median of every rung's move over ``--positions`` positions of
   random games of the game's default options, on the native path, beside the strongest level's in the same run;
   target: every rung below the strongest at most 50 ms at its median, or half the strongest level's median where
   that is the larger (``RUNG_SHARE``); the 50 ms alone is printed too.

3. **Reviews of ladder games** (``--reviews N`` games a rung, default 20; 0 skips): each rung plays its
   neighbours (the rung above and below in turn, seats alternating) on openings the fit did not use, and every
   game is reviewed from its opening by the review's default judge, as ReviewGame does. Per rung: the seats'
   performance ratings against the rung's rating (target: median absolute error at most 150 points), the share
   of ``BLUNDER`` moves (target: falling up the ladder; from the middle rung up, no seat with three or more in a
   game), and how often a rung that takes the game's sure moves took one where the position offered it (target:
   99 %). Beside the two blunder targets as written, two that do not depend on the sample's size: no rise of the
   share beyond its 95 % noise, and at most 5 % of the upper seats with three or more. Beside the 150 points,
   the error of the model's own seats (the same rungs and counts of judged moves, their losses drawn from the
   band model): the least any rating read off one game's moves can err where the rungs differ little in how
   they lose (Dots and Boxes); target: the reviews' error at most 15 % above it.

Each target is printed met or missed; the exit status is 0 unless a file is missing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from service.games import GAMES, LEVELS
from service.learn import ladder as fit_ladder
from service.levels import ladder, performance
from service.levels.review import BLUNDER, chance_losses

STEP_LOW, STEP_HIGH = 0.60, 0.80
GREEDY_AT_MOST = 0.50
MIN_RUNGS = ladder.MIN_RUNGS
RUNG_MS = 50.0
# Where the strongest level itself costs more than RUNG_MS / RUNG_SHARE (Strands' tree search), a rung may cost up
# to this share of it: the 50 ms ("the ladder costs a portal nothing extra") would leave a gap of 90 % games
# below such a level, and a rung at half the strongest's cost costs a portal nothing its strongest bot does not.
RUNG_SHARE = 0.5
PERFORMANCE_ERROR = 150.0
# The model's own seats: as many drawn per reviewed seat, and how far above their error the reviews' may lie.
MODEL_DRAWS = 10
MODEL_SLACK = 0.15
SURE_TAKEN = 0.99
UPPER_BLUNDERS = 3  # blunders in one game no seat from the middle rung up should make
# The issue asks for no such seat at all: the most of many seats grows with their number (40 a rung at 20 games,
# every one of which must stay below three), so the bench also prints the share of such seats, a property of the
# rungs whatever the sample, against this bound.
UPPER_SHARE = 0.05
Z95 = 1.96
REVIEW_SEED = 1_001  # not the fit's seed: the reviews judge games the calibration never saw


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def positions(game_id: str, count: int, seed: int) -> list[Any]:
    """``count`` positions of random games (2 to 40 random plies from the start)."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    out: list[Any] = []
    index = 0
    while len(out) < count:
        position = game.new_position({}, f"ladder-cost-{index}")
        index += 1
        for _ in range(rng.randrange(2, 40)):
            if not position.to_move:
                break
            position = position.play(position.legal_moves_page(rng.randrange(position.legal_move_count()), 1)[0])
        if position.to_move:
            out.append(position)
    return out


def median_ms(game_id: str, level: str, sample: list[Any]) -> float:
    spent = []
    for index, position in enumerate(sample):
        began = time.process_time()
        LEVELS[game_id].best_move(position, level, None, index)
        spent.append(1000.0 * (time.process_time() - began))
    return statistics.median(spent)


def report(game_id: str, count: int) -> list[tuple[str, bool]]:
    """Print the game's ladder and its targets; the targets with their verdicts."""
    path = ladder.path_of(game_id)
    record = json.loads(path.read_text())
    levels = LEVELS[game_id]
    rungs = list(levels.ladder)
    ratings = record["ratings"]
    sample = record["sample"]
    print(f"\n{game_id}: {sample['games']} games, {sample['pairs_per_step']} openings a step, both seats")
    print(f"  measured {record['date']} by: {record['command']}")
    steps = {(row["low"], row["high"]): row for row in record["pairs"]}
    sample_positions = positions(game_id, count, 1)
    costs = {name: median_ms(game_id, name, sample_positions) for name in rungs}
    print(f"  {'rung':12} {'rating':>7} {'95 % interval':>15} {'vs below':>9} {'interval':>13} {'ms':>7}")
    in_band = []
    for k, name in enumerate(rungs):
        entry = ratings[name]
        below = rungs[k - 1] if k else None
        row = steps.get((below, name)) if below else None
        score = f"{100 * row['score']:.1f} %" if row else ""
        interval = f"{100 * row['interval'][0]:.0f}-{100 * row['interval'][1]:.0f} %" if row else ""
        if row:
            in_band.append(STEP_LOW <= row["score"] <= STEP_HIGH)
        print(
            f"  {name:12} {entry['rating']:7.0f} {entry['low']:7.0f}-{entry['high']:<7.0f} {score:>9} {interval:>13} "
            f"{costs[name]:7.2f}"
        )
    greedy = steps.get(("greedy", rungs[0]))
    greedy_score = f"{100 * greedy['score']:.1f} %" if greedy is not None else "not played"
    rising = all(ratings[a]["rating"] < ratings[b]["rating"] for a, b in itertools.pairwise(rungs))
    allowed = max(RUNG_MS, RUNG_SHARE * costs[rungs[-1]])
    cheap = all(costs[name] <= allowed for name in rungs[:-1])
    targets = [
        (f"at least {MIN_RUNGS} rungs ({len(rungs)})", len(rungs) >= MIN_RUNGS),
        ("ratings rise rung by rung", rising),
        (
            f"each rung {100 * STEP_LOW:.0f}-{100 * STEP_HIGH:.0f} % against the one below "
            f"({sum(in_band)} of {len(in_band)} steps)",
            all(in_band),
        ),
        (
            f"the lowest rung at most {100 * GREEDY_AT_MOST:.0f} % against greedy ({greedy_score})",
            greedy is not None and greedy["score"] <= GREEDY_AT_MOST,
        ),
        (f"the highest rung is the strongest level ({rungs[-1]})", rungs[-1] == levels.strongest),
        (
            f"every rung below the strongest at most {RUNG_MS:g} ms of CPU at its median move, or "
            f"{100 * RUNG_SHARE:.0f} % of the strongest's ({allowed:.1f} ms here; largest "
            f"{max(costs[name] for name in rungs[:-1]):.2f} ms, the strongest {costs[rungs[-1]]:.1f} ms)",
            cheap,
        ),
        (
            f"the issue's letter: every rung below the strongest at most {RUNG_MS:g} ms "
            f"({sum(costs[name] <= RUNG_MS for name in rungs[:-1])} of {len(rungs) - 1})",
            all(costs[name] <= RUNG_MS for name in rungs[:-1]),
        ),
    ]
    for text, ok in targets:
        print(f"  {verdict(ok):6} {text}")
    return [(f"{game_id}: {text}", ok) for text, ok in targets]


@dataclass
class RungReviews:
    """One rung's seats in the reviewed games: performance-rating errors and the rated seats' judged moves,
    moves judged and blunders (per seat), and its sure moves: positions that offered one, and those where it
    took one."""

    errors: list[float] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    judged: int = 0
    blunders: list[int] = field(default_factory=list)
    offered: int = 0
    taken: int = 0


def review_tasks(game_id: str, per_rung: int) -> list[tuple[str, str, str, int, int]]:
    """``per_rung`` games of each rung against its neighbours in turn, seats alternating: the fit's games, on
    openings of another seed."""
    rungs = list(LEVELS[game_id].ladder)
    tasks = []
    for k, name in enumerate(rungs):
        neighbours = [rungs[j] for j in (k - 1, k + 1) if 0 <= j < len(rungs)]
        for index in range(per_rung):
            other = neighbours[index % len(neighbours)]
            seats = (name, other) if index % 2 == 0 else (other, name)
            tasks.append((game_id, seats[0], seats[1], 10_000 * k + index, REVIEW_SEED))
    return tasks


def review_game(task: tuple[str, str, str, int, int]) -> list[tuple[str, float | None, int, int, int, int]]:
    """Play one game and review it from its opening: per seat that is a rung, (rung, performance rating or None,
    judged moves, blunders, sure moves offered, sure moves taken)."""
    game_id = task[0]
    levels = LEVELS[game_id]
    result = fit_ladder.play(task)
    positions, plies, summary = fit_ladder.judged(game_id, result)
    out = []
    for seat in summary.seats:
        name = result.seat1 if seat.seat == 1 else result.seat2
        mine = [ply for ply in plies if ply.seat == seat.seat and ply.reviewed]
        chosen = [ply for ply in mine if not ply.forced]
        rating = performance.performance_rating(game_id, chance_losses(plies, seat.seat))
        takes = "does not miss" in levels.level(name).description
        offered = taken = 0
        if takes and levels.sure_moves is not None:
            for ply in chosen:
                sure = levels.sure_moves(positions[ply.ply], list(positions[ply.ply].search_moves()))
                if sure:
                    offered += 1
                    taken += ply.move in sure
        blunders = sum(ply.judgement == BLUNDER for ply in mine)
        out.append((name, None if rating is None else rating.value, len(chosen), blunders, offered, taken))
    return out


def review_report(game_id: str, per_rung: int, workers: int) -> list[tuple[str, bool]]:
    """Print the reviews' part of the game's targets; the targets with their verdicts."""
    levels = LEVELS[game_id]
    rungs = list(levels.ladder)
    stats = {name: RungReviews() for name in rungs}
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for rows in pool.imap_unordered(review_game, review_tasks(game_id, per_rung)):
            for name, rating, judged, blunders, offered, taken in rows:
                entry = stats[name]
                measured = levels.rating(name)
                if rating is not None and measured is not None:
                    entry.errors.append(abs(rating - measured.value))
                    entry.lengths.append(judged)
                entry.judged += judged
                entry.blunders.append(blunders)
                entry.offered += offered
                entry.taken += taken
    print(f"  reviews: {per_rung} games a rung against its neighbours, seed {REVIEW_SEED}, the default judge")
    print(f"  {'rung':12} {'seats':>5} {'median |error|':>14} {'blunders':>9} {'worst seat':>10} {'sure taken':>12}")
    shares = []
    for name in rungs:
        entry = stats[name]
        median = statistics.median(entry.errors) if entry.errors else math.nan
        share = sum(entry.blunders) / max(1, entry.judged)
        shares.append(share)
        sure = f"{entry.taken}/{entry.offered}" if entry.offered else ""
        print(
            f"  {name:12} {len(entry.blunders):5} {median:14.0f} {100 * share:8.1f}% "
            f"{max(entry.blunders, default=0):10} {sure:>12}"
        )
    errors = [error for entry in stats.values() for error in entry.errors]
    overall = statistics.median(errors) if errors else math.nan
    least = model_seats_error(game_id, stats)
    middle = len(rungs) // 2
    upper_worst = max((max(stats[name].blunders, default=0) for name in rungs[middle:]), default=0)
    offered = sum(entry.offered for entry in stats.values())
    taken = sum(entry.taken for entry in stats.values())
    falling = all(a >= b for a, b in itertools.pairwise(shares))
    counted = [stats[name].judged for name in rungs]
    rises = [
        f"{low}->{high}"
        for (low, high), (a, b), (na, nb) in zip(
            itertools.pairwise(rungs), itertools.pairwise(shares), itertools.pairwise(counted), strict=True
        )
        if b - a > Z95 * math.sqrt(a * (1 - a) / max(1, na) + b * (1 - b) / max(1, nb))
    ]
    upper = [count for name in rungs[middle:] for count in stats[name].blunders]
    upper_share = sum(count >= UPPER_BLUNDERS for count in upper) / max(1, len(upper))
    targets = [
        (
            f"performance rating's median absolute error at most {PERFORMANCE_ERROR:g} points ({overall:.0f} over "
            f"{len(errors)} seats)",
            overall <= PERFORMANCE_ERROR,
        ),
        (
            f"that error at most {100 * MODEL_SLACK:.0f} % above the model's own seats' ({least:.0f}: the least "
            "a rating read off one game's moves can err, as the model has the rungs err)",
            overall <= (1 + MODEL_SLACK) * least,
        ),
        ("the share of blunders falls up the ladder, rung by rung", falling),
        (
            "the share of blunders never rises up the ladder by more than its 95 % noise "
            f"({', '.join(rises) or 'no rise'})",
            not rises,
        ),
        (
            f"from {rungs[middle]} up no seat with {UPPER_BLUNDERS} or more blunders in a game (most: {upper_worst})",
            upper_worst < UPPER_BLUNDERS,
        ),
        (
            f"from {rungs[middle]} up at most {100 * UPPER_SHARE:.0f} % of the seats with {UPPER_BLUNDERS} or more "
            f"blunders ({100 * upper_share:.1f} % of {len(upper)})",
            upper_share <= UPPER_SHARE,
        ),
        (
            f"sure moves taken in at least {100 * SURE_TAKEN:.0f} % of the positions offering them "
            f"({taken} of {offered})",
            offered > 0 and taken >= SURE_TAKEN * offered,
        ),
    ]
    for text, ok in targets:
        print(f"  {verdict(ok):6} {text}")
    return [(f"{game_id}: {text}", ok) for text, ok in targets]


def model_seats_error(game_id: str, stats: dict[str, RungReviews]) -> float:
    """The performance rating's median absolute error over the model's own seats: for each reviewed seat,
    ``MODEL_DRAWS`` seats of its rung's rating and its count of judged moves whose losses are drawn from the band
    model (``Performance.draw``). The posterior's median is the least-erring reading of a seat's bands under
    the model, so this is as well as any rating read off those bands can do, if the model is right."""
    model = performance.performance(game_id)
    rng = random.Random(REVIEW_SEED)
    errors = []
    for name, entry in stats.items():
        measured = LEVELS[game_id].rating(name)
        if model is None or measured is None:
            continue
        for moves in entry.lengths:
            for _ in range(MODEL_DRAWS):
                errors.append(abs(model.rating(model.draw(measured.value, moves, rng)).value - measured.value))
    return statistics.median(errors) if errors else math.nan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=[g for g in LEVELS if LEVELS[g].ladder])
    parser.add_argument("--positions", type=int, default=24, help="positions the cost of each rung is measured on")
    parser.add_argument("--reviews", type=int, default=20, help="reviewed games a rung (0: none)")
    parser.add_argument("--workers", type=int, default=min(2, multiprocessing.cpu_count()))
    args = parser.parse_args(argv)
    missing = [g for g in args.games if not ladder.path_of(g).exists()]
    if missing:
        print(f"no measured ladder for {', '.join(missing)}: run make fit-ladder", file=sys.stderr)
        return 1
    results = []
    for game_id in args.games:
        results += report(game_id, args.positions)
        if args.reviews:
            results += review_report(game_id, args.reviews, args.workers)
    met = sum(ok for _text, ok in results)
    print(f"\nladder targets: {met} of {len(results)} met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
