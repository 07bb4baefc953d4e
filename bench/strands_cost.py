"""Strands' cost and strength at its levels' defaults (``python -m bench.strands_cost``; issue 45).

Every part is seeded and runs on the native engine (it stops when the engine is not built); the baselines are
measured in the same run:

1. **Cost** of ``hard`` at its default (an iteration budget) and of the former default, 1.5 s of tree search (a
   caller's ``maxTimeMs`` of 1500: the same search on the clock): CPU milliseconds a move on ``--positions``
   positions of seeded random standard games where the tree search runs. Target: median at most 75 ms.
2. **Strength**: ``hard`` at its default against the 1.5 s search, and ``hard`` given 1 s a move against it,
   over ``--games`` games on the standard board in colour-swapped pairs from seeded openings (Black's stone and
   White's first turn at random). Targets: 55 % and 70 % over at least 100 games. Printed with the score's 95 %
   interval (Wilson's). And ``medium`` (two plies with the learned evaluation) against the same
   search with the hand-written estimate, its former evaluation (no target: the learned evaluation's gain).
3. **Review**: a game of ``hard`` against itself (at most 40 plies; the standard board's take about 32)
   reviewed whole by ``ReviewGame``'s default judge under the default deadline, its CPU seconds (target: at
   most 10 s).

``--workers`` processes play the games (default 2). The exit status is 0 unless a game failed.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.review import Played, judged
from bench.strands_native import random_move
from service import native
from service.core import Limits, Position
from service.engines.strands import StrandsPosition
from service.games import GAMES, LEVELS
from service.levels import judge
from service.levels.native_search import native_search
from service.search import never

GAME = GAMES["strands"]
COST_TARGET_MS = 75.0
DEFAULT_TARGET = 0.55
ONE_SECOND_TARGET = 0.70
MATCH_GAMES = 100  # the targets' sample
REVIEW_TARGET_S = 10.0
REVIEW_PLIES = 40
FORMER_HARD = Limits(max_time_ms=1500)

Player = Callable[[Any, int], Any]  # (a StrandsPosition, a seed) -> its move


def hard(limits: Limits | None) -> Player:
    return lambda position, seed: LEVELS["strands"].best_move(position, "hard", limits, seed, 1, never).move


def medium(position: StrandsPosition, seed: int) -> Any:
    return LEVELS["strands"].best_move(position, "medium", None, seed, 1, never).move


def former_medium(position: StrandsPosition, seed: int) -> Any:
    """medium's search with the hand-written estimate at its leaves (its evaluation before the learned one)."""
    found = native_search(position, Limits(max_depth=2), never, 1)
    assert found is not None
    return found.move


PLAYERS: dict[str, Player] = {
    "hard": hard(None),
    "hard 1 s": hard(Limits(max_time_ms=1000)),
    "hard 1.5 s": hard(FORMER_HARD),
    "medium": medium,
    "medium, hand-written": former_medium,
}


def opening(seed: int, index: int) -> Any:
    rng = random.Random(f"{seed}/strands-cost/{index}")
    position: Any = GAME.new_position({}, "")
    for _ in range(2):
        position = position.play(random_move(position, rng))
    return position


def play(task: tuple[str, str, int, int, int]) -> tuple[int, float, float]:
    """One game of ``tested`` against ``other`` from the ``index``-th opening, ``tested`` holding ``seat``: its
    score (1, ½ or 0) and each side's CPU seconds a move."""
    tested, other, index, seat, seed = task
    position = opening(seed, index)
    spent: dict[int, list[float]] = {1: [], 2: []}
    ply = 0
    while position.to_move:
        mover = position.to_move
        player = PLAYERS[tested if mover == seat else other]
        start = time.process_time()
        move = player(position, seed * 1_000_003 + index * 1000 + ply)
        spent[mover].append(time.process_time() - start)
        position, _ = position.apply(move)  # checked: an illegal move fails the run
        ply += 1
    outcome = position.outcome()
    assert outcome is not None
    score = 0.5 if outcome.winner == 0 else float(outcome.winner == seat)
    return int(score * 2), statistics.mean(spent[seat]), statistics.mean(spent[3 - seat])


def match(
    tested: str, other: str, games: int, seed: int, workers: int
) -> tuple[float, tuple[float, float], float, float]:
    """The score of ``tested`` over ``games`` paired games, its 95 % interval, and each side's mean CPU seconds
    a move."""
    tasks = [(tested, other, g // 2, 1 + g % 2, seed) for g in range(games)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(play, tasks))
    else:
        results = [play(task) for task in tasks]
    scores = [r[0] / 2 for r in results]
    return (
        statistics.mean(scores),
        wilson(scores),
        statistics.mean(r[1] for r in results),
        statistics.mean(r[2] for r in results),
    )


def wilson(scores: list[float], z: float = 1.96) -> tuple[float, float]:
    """The score's 95 % interval (Wilson's, which stays inside 0..1 and is not empty at 0 % or 100 %)."""
    n, p = len(scores), statistics.mean(scores)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def probe_positions(count: int, seed: int) -> list[StrandsPosition]:
    """Positions of seeded random standard games where the tree search runs, a few from each game."""
    out: list[StrandsPosition] = []
    game = 0
    while len(out) < count:
        rng = random.Random(f"{seed}/strands-cost-probe/{game}")
        position: Any = GAME.new_position({}, "")
        line = []
        while position.to_move:
            line.append(position)
            position = position.play(random_move(position, rng))
        searched = [p for p in line if not p.search_moves_complete()]
        out.extend(searched[1 :: max(1, len(searched) // 4)][:4])
        game += 1
    return out[:count]


def cost(limits: Limits | None, positions: list[StrandsPosition]) -> list[float]:
    spent = []
    for i, position in enumerate(positions):
        start = time.process_time()
        LEVELS["strands"].best_move(position, "hard", limits, i, 1, never)
        spent.append((time.process_time() - start) * 1000.0)
    return spent


def review_cost(seed: int) -> tuple[float, int, int]:
    """A game of ``hard`` against itself cut at REVIEW_PLIES plies (or its end), reviewed by the default judge
    with the default deadline (``judge.DEFAULT_REVIEW_S``): the CPU seconds, the plies, and how many came back
    reviewed."""
    position = opening(seed, 0)
    positions: list[Position] = [position]
    moves: list[Any] = []
    while position.to_move and len(moves) < REVIEW_PLIES:
        move = PLAYERS["hard"](position, len(moves))
        moves.append(move)
        position = position.play(move)
        positions.append(position)
    start = time.process_time()
    plies, _, _ = judged("strands", Played(positions, moves), judge.DEFAULT_REVIEW_S)
    return time.process_time() - start, len(moves), sum(1 for p in plies if p.reviewed)


def verdict(ok: bool) -> str:
    return "met" if ok else "missed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=MATCH_GAMES, help="games of each match (even; 0: none)")
    parser.add_argument("--games-1s", type=int, help="games of the 1 s match (default: --games; 0: none)")
    parser.add_argument("--positions", type=int, default=24, help="positions of the cost probe")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=45)
    args = parser.parse_args(argv)
    if not native.engine.available("strands"):
        raise SystemExit("the native engine is not built or turned off: `make install` builds it")

    positions = probe_positions(args.positions, args.seed)
    new, old = cost(None, positions), cost(FORMER_HARD, positions)
    median, former = statistics.median(new), statistics.median(old)
    print(f"cost of hard a move, CPU ms over {len(positions)} positions (median, max):")
    print(f"  default (its iterations) {median:.1f}, {max(new):.1f}; 1.5 s of tree search {former:.1f}, {max(old):.1f}")
    print(f"  ratio {median / former:.3f} of the 1.5 s search's median")
    print(f"target: hard's median at most {COST_TARGET_MS:g} ms: {verdict(median <= COST_TARGET_MS)}")

    one_second = args.games if args.games_1s is None else args.games_1s
    rows = (
        ("hard", "hard 1.5 s", DEFAULT_TARGET, args.games),
        ("hard 1 s", "hard 1.5 s", ONE_SECOND_TARGET, one_second),
        ("medium", "medium, hand-written", None, args.games),
    )
    for tested, other, target, games in rows:
        if not games:
            continue
        rate, (low, high), own, theirs = match(tested, other, games, args.seed, args.workers)
        print(
            f"{tested} against {other}: {rate:.1%} (95 % interval {low:.1%} to {high:.1%}) of {games} games; "
            f"CPU a move {own * 1000:.1f} ms against {theirs * 1000:.1f} ms",
            flush=True,
        )
        if target is not None:
            decided = games >= MATCH_GAMES
            result = verdict(rate >= target) if decided else f"not decided under {MATCH_GAMES} games"
            print(f"target: {tested} scores at least {target:.0%} against {other}: {result}")

    seconds, plies, judged = review_cost(args.seed)
    print(f"review of a {plies}-ply game of hard by the default judge: {seconds:.1f} CPU s, {judged} plies judged")
    print(f"target: at most {REVIEW_TARGET_S:g} CPU s: {verdict(seconds <= REVIEW_TARGET_S)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
