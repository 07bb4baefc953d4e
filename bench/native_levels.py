"""The levels on the native search engine against the same levels on the Python search, in one process
(``python -m bench.native_levels``; issue 14's cost and strength targets for Reversi, Kalah, Petak Sawah and Dots
and Boxes on its default 5x5 board; Strands' are ``bench.strands_native``'s).

The Python path is the same code with the native engine turned off (``service.native.use_native(False)``,
what ``GAMERULES_NO_NATIVE=1`` does), measured in the same run: the baseline.

1. **Cost** at each game's default level with its own limits (no caller limits, seed 0): CPU seconds per
   best move (``time.process_time``, one core) natively and in Python on ``--positions`` positions of a
   seeded random game (``bench.level_cost``'s sample), the median depth each reached, and best moves per CPU
   second natively over the same in Python. Target: at least 10x, at equal or better strength (part 2).
2. **Strength at the default level's own limits**: native against Python, both with the level's own
   budget, ``--games`` games per game from seeded openings (pairs with the colours swapped). Target for "equal
   or better strength": at least as many wins as losses.
3. **Strength at equal time per move**: the strongest level natively against the same level in Python, each
   with ``--move-ms`` of the caller's per move (``limits.maxTimeMs``). Targets: 95 % of the games for Reversi
   (issue 14: against today's expert), 90 % for the others (draws count as not won).

4. **Control** (``--control N``, information): the strongest level natively with N times ``--move-ms`` against
   itself natively with ``--move-ms``, from the same openings. Where even that side wins little more than half,
   the games are decided by the openings more than by strength, and part 3's target measures the openings.

The matches start from seeded openings, each played twice with the colours swapped, and
only openings the native search finds close to even (``BALANCE``; ``--any-opening`` plays every one).
Game counts are modest (the box is shared); every line says how many games it played. ``--own-nodes N``
puts a node budget of N in place of the levels' own in parts 1 and 2 (a quick run, as the smoke test does).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from bench.level_cost import sample_positions
from bench.strength import balanced_openings, opening
from service import native
from service.core import Limits
from service.games import GAMES, LEVELS
from service.native import engine

GAMES_TESTED = ("reversi", "kalah", "petak-sawah", "dots-and-boxes")
OPENING_PLIES = {"reversi": 4, "kalah": 2, "petak-sawah": 2, "dots-and-boxes": 4}
COST_TARGET = 10.0
TIME_TARGETS = {"reversi": 0.95, "kalah": 0.90, "petak-sawah": 0.90, "dots-and-boxes": 0.90}
# Openings kept (``openings``): (search depth, largest |value|) by game, in discs, seeds and points; depth None:
# the exact value (the solve mode: Petak Sawah's 18 empty cells take the native search well under a second).
# Petak Sawah's games are decided by a point or by the tie-breaks (worth half a point in the values), so only
# openings worth at most a point either way are kept.
BALANCE: dict[str, tuple[int | None, float]] = {"reversi": (8, 4.0), "kalah": (12, 4.0), "petak-sawah": (None, 1.0)}


def on_path(use_native: bool, work: Callable[[], Any]) -> Any:
    previous = native.use_native(use_native)
    try:
        return work()
    finally:
        native.use_native(previous)


def cost(game_id: str, positions: list[Any], own: Limits | None) -> tuple[float, float, float, float]:
    """(native CPU s median, Python CPU s median, native depth median, Python depth median) per best move."""
    level = LEVELS[game_id].default
    spent: dict[bool, list[float]] = {True: [], False: []}
    depths: dict[bool, list[int]] = {True: [], False: []}
    for position in positions:
        for use in (True, False):
            start = time.process_time()
            result = on_path(use, partial(LEVELS[game_id].best_move, position, level, own, 0, 1))
            spent[use].append(time.process_time() - start)
            depths[use].append(result.depth)
    return (
        statistics.median(spent[True]),
        statistics.median(spent[False]),
        statistics.median(depths[True]),
        statistics.median(depths[False]),
    )


def openings(game_id: str, count: int, seed: int, balanced: bool) -> list[Any]:
    """``count`` seeded openings of ``OPENING_PLIES`` random plies; with ``balanced``, where ``BALANCE`` has the
    game, only those its native search (the game's hand-written evaluation, a fixed depth) finds close to even
    (``bench.strength.balanced_openings``)."""
    game = GAMES[game_id]
    depth, within = BALANCE.get(game_id, (0, 0.0)) if balanced else (0, 0.0)

    def judge(position: Any) -> float:
        judged = on_path(True, lambda: engine.search(position, Limits(max_depth=depth), solve=depth is None))
        return judged.value if judged is not None else 0.0

    def draw(index: int) -> Any:
        return opening(game, {}, OPENING_PLIES[game_id], seed, "native", index)

    return balanced_openings(draw, count, judge, within)[0]


Side = tuple[bool, Limits | None]  # (on the native engine, limits) of one side of a match


def play(game_id: str, level: str, start: Any, sides: dict[int, Side], seed: int, index: int) -> float:
    """One game from ``start`` (the ``index``-th opening), ``level`` in each seat as ``sides`` has it; the final
    margin for seat 1."""
    position = start
    ply = 0
    while position.outcome() is None:
        seat = position.to_move
        move_seed = seed * 1_000_003 + index * 1000 + ply
        use, limits = sides[seat]
        result = on_path(use, partial(LEVELS[game_id].best_move, position, level, limits, move_seed, 1))
        position, _ = position.apply(result.move)
        ply += 1
    return float(position.final_value(1))


def match(
    game_id: str, level: str, starts: list[Any], seed: int, tested: Side, other: Side
) -> tuple[int, int, int, float]:
    """(wins, draws, losses, mean margin) of the ``tested`` side against the ``other`` over two games from each of
    ``starts`` (colours swapped)."""
    margins = []
    for k in range(2 * len(starts)):
        seat = 1 + k % 2
        margin = play(game_id, level, starts[k // 2], {seat: tested, 3 - seat: other}, seed, k // 2)
        margins.append(margin if seat == 1 else -margin)
    wins = sum(m > 0 for m in margins)
    draws = sum(m == 0 for m in margins)
    return wins, draws, len(margins) - wins - draws, statistics.mean(margins)


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=8, help="games per match, an even number (default 8)")
    parser.add_argument("--positions", type=int, default=8, help="positions of the cost part (default 8)")
    parser.add_argument("--move-ms", type=int, default=100, help="time per move of part 3 (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=list(GAMES_TESTED), choices=GAMES_TESTED)
    parser.add_argument(
        "--any-opening", action="store_true", help="play every drawn opening, lopsided ones too (see BALANCE)"
    )
    parser.add_argument(
        "--control",
        type=int,
        default=0,
        help="also play the strongest level natively with N >= 2 times the time against itself (part 4; 0: not)",
    )
    parser.add_argument(
        "--own-nodes", type=int, default=0, help="a node budget in place of the levels' own (a quick run; 0: theirs)"
    )
    args = parser.parse_args(argv)
    if args.control == 1 or args.control < 0:
        parser.error("--control: N >= 2 times the time (or 0: no control)")
    if not on_path(True, engine.available):
        print("the native search engine is not built (`make install` builds it with a C compiler): nothing to compare")
        return 0
    summary = []
    for game_id in args.only:
        level = LEVELS[game_id].default
        positions = sample_positions(game_id, args.positions, args.seed)
        own = Limits(max_nodes=args.own_nodes) if args.own_nodes > 0 else None
        fast, slow, deep, shallow = cost(game_id, positions, own)
        ratio = slow / fast if fast else float("inf")
        print(
            f"{game_id} {level}, own limits, {len(positions)} positions: CPU per move median native "
            f"{fast * 1000:.1f} ms (depth {deep:g}), Python {slow * 1000:.1f} ms (depth {shallow:g}): "
            f"{ratio:.1f}x the best moves per CPU second (target >= {COST_TARGET:g}x)",
            flush=True,
        )
        starts = openings(game_id, max(1, args.games // 2), args.seed, not args.any_opening)
        wins, draws, losses, margin = match(game_id, level, starts, args.seed, (True, own), (False, own))
        equal = wins >= losses
        print(
            f"{game_id} {level}, own limits, native vs Python: {wins} wins, {draws} draws, {losses} losses in "
            f"{args.games} games, mean margin {margin:+.1f} (target: wins >= losses): {verdict(equal)}",
            flush=True,
        )
        summary.append(
            f"{game_id}: cost {ratio:.1f}x at equal or better strength: {verdict(ratio >= COST_TARGET and equal)}"
        )
        strongest = LEVELS[game_id].strongest
        timed = Limits(max_time_ms=args.move_ms)
        wins, draws, losses, margin = match(game_id, strongest, starts, args.seed, (True, timed), (False, timed))
        rate = wins / args.games
        target = TIME_TARGETS[game_id]
        print(
            f"{game_id} {strongest}, {args.move_ms} ms a move each, native vs Python: {wins} wins, {draws} draws, "
            f"{losses} losses in {args.games} games ({rate:.0%}), mean margin {margin:+.1f} "
            f"(target >= {target:.0%}): {verdict(rate >= target)}",
            flush=True,
        )
        summary.append(f"{game_id}: {strongest} at equal time wins {rate:.0%}: {verdict(rate >= target)}")
        if args.control:
            longer = Limits(max_time_ms=args.move_ms * args.control)
            wins, draws, losses, margin = match(game_id, strongest, starts, args.seed, (True, longer), (True, timed))
            print(
                f"{game_id} {strongest}, control: native with {args.control}x the time against native with "
                f"{args.move_ms} ms: {wins} wins, {draws} draws, {losses} losses in {wins + draws + losses} games "
                f"({wins / (wins + draws + losses):.0%}), mean margin {margin:+.1f} (information: what these openings "
                "let a stronger side win)",
                flush=True,
            )
    for line in summary:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
