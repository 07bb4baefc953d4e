"""Strands on the native engine against the Python search (``python -m bench.strands_native``; issue 14).

Three parts, seeded, in one process (the baseline is measured in the same run):

1. **Iterations per second**: the Monte Carlo tree search of ``hard`` (the engine's candidate covers, its
   group-growing playouts, progressive widening) for ``--probe-ms`` on ``--positions`` positions of a seeded
   random standard game, natively (``service.native.mcts``) and in Python (``service.search.mcts``). Printed:
   each side's iterations per CPU second (``time.process_time``: both run in this thread, and other load on the
   machine does not count) and the ratio (no goal of its own: strength is the goal).
2. **Native ``hard`` against today's ``hard``** (the same level on the Python path, ``service.native.use_native``
   turned off for its moves) at equal time per move (``--move-ms`` for both), on the standard board. Games come
   in pairs on the same seeded opening (Black's opening stone and White's first turn, random), colours
   swapped. Both sides hand over to the same alpha-beta (on the native core for the native side: the same
   answers) once every full cover fits the search. Target: the native side wins at least 75 % of the games.
3. **Cost at the default level** (``medium``, its own limits) on both paths, as ``bench.native_levels`` measures
   the other games' (its ``cost``): best moves per CPU second natively over the same in Python, target 10x.
   ``medium`` is the same alpha-beta on both paths (the native search core over the kernel's candidate covers,
   tested to give the Python search's moves and values), so strength is equal by construction.

A final line says met or missed. The exit status is 0 unless a game failed (an illegal move, an engine error).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Any

from bench.level_cost import sample_positions
from bench.native_levels import COST_TARGET, cost
from service import native
from service.core import Limits
from service.engines.strands import StrandsPosition
from service.games import GAMES, LEVELS
from service.native import mcts as native_mcts
from service.search import mcts, never

WIN_TARGET = 0.75
GAME = GAMES["strands"]


def random_move(position: Any, rng: random.Random) -> Any:
    """A uniformly random legal move, paged: Strands' move lists are too long to build."""
    return position.legal_moves_page(rng.randrange(position.legal_move_count()), 1)[0]


def probe_positions(count: int, seed: int) -> list[Any]:
    """``count`` positions of a seeded random game on the standard board where the tree search runs (more full
    covers than the candidate cap), evenly spaced."""
    rng = random.Random(seed)
    line = [GAME.new_position({}, str(seed))]
    while line[-1].to_move:
        line.append(line[-1].play(random_move(line[-1], rng)))
    searched = [p for p in line if p.to_move and not p.search_moves_complete()]
    step = max(1, len(searched) // count)
    return searched[::step][:count]


def iterations_per_second(positions: list[Any], probe_ms: int) -> tuple[list[float], list[float]]:
    native_rates, python_rates = [], []
    for i, position in enumerate(positions):
        limits = Limits(max_time_ms=probe_ms)
        start = time.process_time()
        found = native_mcts.mcts(position, limits, rng=random.Random(i))
        seconds = time.process_time() - start
        if found is None:
            raise SystemExit("the native engine is not built or turned off: `make install` builds it")
        native_rates.append(found.nodes / seconds)
        start = time.process_time()
        found = mcts(position, limits, rng=random.Random(i), rollout=StrandsPosition.playout_move)
        python_rates.append(found.nodes / (time.process_time() - start))
    return native_rates, python_rates


def opening(seed: int, index: int) -> Any:
    rng = random.Random(f"{seed}/strands-native/{index}")
    position = GAME.new_position({}, "")
    for _ in range(2):
        position = position.play(random_move(position, rng))
    return position


def play(index: int, native_seat: int, seed: int, move_ms: int) -> tuple[int, float, list[float], list[float]]:
    """One game from the ``index``-th opening; returns (1 native win / -1 loss, native margin, each side's
    seconds per move)."""
    position = opening(seed, index)
    limits = Limits(max_time_ms=move_ms)
    spent: dict[bool, list[float]] = {True: [], False: []}
    ply = 0
    while position.to_move:
        on_native = position.to_move == native_seat
        previous = native.use_native(on_native)
        try:
            start = time.perf_counter()
            result = LEVELS["strands"].best_move(
                position, "hard", limits, seed * 1_000_003 + index * 1000 + ply, 1, never
            )
            spent[on_native].append(time.perf_counter() - start)
        finally:
            native.use_native(previous)
        position, _ = position.apply(result.move)  # checked: an illegal move fails the run
        ply += 1
    outcome = position.outcome()
    assert outcome is not None
    return (1 if outcome.winner == native_seat else -1), position.final_value(native_seat), spent[True], spent[False]


def play_games(games: int, seed: int, move_ms: int) -> None:
    wins, margins, native_times, python_times = 0, [], [], []
    print(f"\nnative hard against python hard, {move_ms} ms a move each, {games} games, colours swapped:")
    for g in range(games):
        native_seat = 1 + g % 2
        score, margin, t_native, t_python = play(g // 2, native_seat, seed, move_ms)
        wins += score > 0
        margins.append(margin)
        native_times += t_native
        python_times += t_python
        colour = "Black" if native_seat == 1 else "White"
        print(f"  game {g + 1}: native as {colour}: {'win' if score > 0 else 'loss'} by {abs(margin):g}", flush=True)
    rate = wins / games
    print(
        f"  native won {wins}/{games} ({rate:.0%}), mean margin {statistics.mean(margins):+.2f}; seconds per move: "
        f"native {statistics.mean(native_times):.3f}, python {statistics.mean(python_times):.3f}"
    )
    verdict = "met" if rate >= WIN_TARGET else "missed"
    print(f"target: native hard beats python hard in >= {WIN_TARGET:.0%} of games: {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=8, help="games (even: colours swap on each opening; 0: none)")
    parser.add_argument("--move-ms", type=int, default=500, help="time per move of both sides")
    parser.add_argument("--positions", type=int, default=5, help="positions of the iterations probe")
    parser.add_argument("--probe-ms", type=int, default=1000, help="search time per position of the probe")
    parser.add_argument("--cost-positions", type=int, default=4, help="positions of the default level's cost")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    if not native_mcts.available("strands"):
        print("the native engine is not built or turned off (GAMERULES_NO_NATIVE): nothing to compare")
        return 0

    positions = probe_positions(args.positions, args.seed)
    native_rates, python_rates = iterations_per_second(positions, args.probe_ms)
    print(f"MCTS iterations per CPU second, {len(positions)} standard positions, {args.probe_ms} ms each:")
    for i, (n, p) in enumerate(zip(native_rates, python_rates, strict=True)):
        print(f"  position {i}: native {n:10,.0f}/s   python {p:8,.0f}/s   {n / p:6.1f}x")
    n_med, p_med = statistics.median(native_rates), statistics.median(python_rates)
    print(f"  median: native {n_med:,.0f}/s, python {p_med:,.0f}/s: {n_med / p_med:.1f}x")

    games = args.games - args.games % 2
    if games:
        play_games(games, args.seed, args.move_ms)

    level = LEVELS["strands"].default
    fast, slow, _, _ = cost("strands", sample_positions("strands", args.cost_positions, args.seed), None)
    ratio = slow / fast if fast else float("inf")
    verdict = "met" if ratio >= COST_TARGET else "missed"
    print(
        f"\nstrands {level} (the default level), own limits, {args.cost_positions} positions: CPU per move median "
        f"native path {fast * 1000:.1f} ms, Python {slow * 1000:.1f} ms: {ratio:.1f}x the best moves per CPU second "
        f"(target >= {COST_TARGET:g}x): {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
