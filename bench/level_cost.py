"""What a best move costs at each level of each game (``python -m bench.level_cost``): the figures of the
"Levels" tables in ``docs/games/*.md``.

For every game (default options) and every level, ``best_move`` with the level's own limits (no caller
limits, seed 0, top 1) on ``--positions`` positions of a seeded random game, taken at even intervals from the
start to the last few plies. Printed per level: the median and the largest CPU time per move (CPU seconds of
this process, ``time.process_time``, so other load on the machine does not inflate them), the median wall
time (what a level with a time limit spends whatever the load), the median nodes and depth, and how often the
answer was proved exact. A server adds its transport on top. The baseline is the game's cheapest level in
the same run (the ratio column, of the CPU medians).

Goal, per level: its slowest move ends within the server's default cap on a search (``--max-think-ms``,
10 s), so the cap never cuts a level short and a level's answer depends on its node budget, not the clock.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Any

from service.api.rpc.servicer import ServiceConfig
from service.games import GAMES, LEVELS


def sample_positions(game_id: str, count: int, seed: int) -> list[Any]:
    """``count`` positions of one seeded random game, from the start to near its end, evenly spaced."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    line = [game.new_position({}, str(seed))]
    while line[-1].to_move:
        position = line[-1]
        # A page of one at a random offset: Strands has too many moves to list.
        move = position.legal_moves_page(rng.randrange(position.legal_move_count()), 1)[0]
        line.append(position.play(move))
    playable = [position for position in line if position.to_move]
    step = max(1, len(playable) // count)
    return playable[::step][:count]


def measure(game_id: str, level: str, positions: list[Any]) -> dict[str, float]:
    seconds, walls, nodes, depths, exact = [], [], [], [], 0
    for position in positions:
        start, wall = time.process_time(), time.perf_counter()
        result = LEVELS[game_id].best_move(position, level, None, 0, 1)
        seconds.append(time.process_time() - start)
        walls.append(time.perf_counter() - wall)
        nodes.append(result.nodes)
        depths.append(result.depth)
        exact += bool(result.exact)
    return {
        "median_s": statistics.median(seconds),
        "max_s": max(seconds),
        "wall_s": statistics.median(walls),
        "nodes": statistics.median(nodes),
        "depth": statistics.median(depths),
        "exact": exact / len(positions),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=6, help="positions per game (default 6)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games (default 1)")
    parser.add_argument("--games", nargs="*", default=sorted(GAMES), help="game ids (default: all)")
    args = parser.parse_args(argv)
    cap_s = ServiceConfig().max_think_ms / 1000
    print(f"CPU time per best move at each level's own limits; {args.positions} positions per game, seed {args.seed}")
    header = f"{'game':15} {'level':14} {'CPU med':>9} {'CPU max':>9} {'ratio':>7} {'wall med':>9}"
    print(f"{header} {'nodes':>9} {'depth':>6} {'exact':>6}  goal")
    for game_id in args.games:
        positions = sample_positions(game_id, args.positions, args.seed)
        rows = [(level.name, measure(game_id, level.name, positions)) for level in LEVELS[game_id].levels]
        baseline = min(row["median_s"] for _, row in rows) or 1e-9
        for name, row in rows:
            met = row["max_s"] <= cap_s
            print(
                f"{game_id:15} {name:14} {row['median_s'] * 1000:7.1f}ms {row['max_s'] * 1000:7.1f}ms "
                f"{row['median_s'] / baseline:6.0f}x {row['wall_s'] * 1000:7.1f}ms "
                f"{row['nodes']:9.0f} {row['depth']:6.0f} {row['exact']:6.0%}  "
                f"{'met' if met else 'missed'} (slowest move within the {cap_s:.0f} s cap)"
            )
    return 0  # a missed goal is reported (as every benchmark here does), not a failed run


if __name__ == "__main__":
    sys.exit(main())
