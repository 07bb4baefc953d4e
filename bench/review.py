"""Game review, measured (``python -m bench.review``; issue 33).

For each game on its default options: ``--games`` self-play games of the strongest level and as many of the
weakest (``purpose`` play, so the levels' seeded variety plays), each from its own seed; then each game is
reviewed as ``ReviewGame`` reviews it (``service.levels.review`` with the strongest level in analysis mode, on
the level's own limits, Strands' time capped at ``--strands-ms``). Printed per game and level:

- the share of moves judged ``BEST`` or ``EXCELLENT`` and the counts per judgement, with the target: at least
  90 % for the strongest level, clearly fewer for the weakest (at least ten points fewer);
- the losses' quantiles, which the game's ``ReviewScale`` (``service/levels/<game>.py``) was chosen from;
- the cost of a whole review (CPU seconds and wall time) beside the same number of separate BestMoves (one per
  ply, the strongest level in analysis mode), the way a portal would loop without a review.

Nothing here touches the network. ``--quick`` is a small run for a smoke test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass

from service.core import Limits, Move, Position
from service.games import GAMES, LEVELS
from service.levels.review import BEST, EXCELLENT, JUDGEMENTS, PlyReview, ReviewSummary, review

STRONG_SHARE = 0.90  # of the strongest level's moves BEST or EXCELLENT
WEAK_GAP = 0.10  # the weakest level's share at least this much below


@dataclass
class Played:
    positions: list[Position]
    moves: list[Move]


def limits_for(game_id: str, strands_ms: int) -> Limits | None:
    return Limits(max_time_ms=strands_ms) if game_id == "strands" else None


def self_play(game_id: str, level: str, seed: int, limits: Limits | None, max_plies: int) -> Played:
    position = GAMES[game_id].new_position({}, str(seed))
    positions: list[Position] = [position]
    moves: list[Move] = []
    while position.to_move and len(moves) < max_plies:
        found = LEVELS[game_id].best_move(position, level, limits, seed * 1000 + len(moves), 1, purpose="play")
        position = position.play(found.move)
        moves.append(found.move)
        positions.append(position)
    return Played(positions, moves)


def reviewed(game_id: str, played: Played, limits: Limits | None) -> tuple[list[PlyReview], ReviewSummary]:
    levels = LEVELS[game_id]

    def search(position: Position):  # type: ignore[no-untyped-def]
        return levels.best_move(position, levels.strongest, limits, 0, 1, purpose="analysis")

    plies: list[PlyReview] = []
    summary = None
    for item in review(played.positions, played.moves, levels.review_scale, search):
        if isinstance(item, PlyReview):
            plies.append(item)
        else:
            summary = item
    assert summary is not None
    return plies, summary


def separate_best_moves(game_id: str, played: Played, limits: Limits | None) -> None:
    levels = LEVELS[game_id]
    for position in played.positions[:-1]:
        levels.best_move(position, levels.strongest, limits, 0, 1, purpose="analysis")


def quantiles(losses: list[float]) -> str:
    if len(losses) < 2:
        return "-"
    cuts = statistics.quantiles(losses, n=20, method="inclusive")
    return f"p50 {cuts[9]:.2f}  p75 {cuts[14]:.2f}  p90 {cuts[17]:.2f}  p95 {cuts[18]:.2f}  max {max(losses):.2f}"


def measure(game_id: str, games: int, strands_ms: int, max_plies: int) -> list[str]:
    levels = LEVELS[game_id]
    limits = limits_for(game_id, strands_ms)
    shares: dict[str, float] = {}
    lines = []
    for level in (levels.strongest, levels.levels[0].name):
        counts = dict.fromkeys(JUDGEMENTS, 0)
        losses: list[float] = []
        cpu = wall = base_cpu = base_wall = 0.0
        plies = 0
        for seed in range(games):
            played = self_play(game_id, level, seed + 1, limits, max_plies)
            cpu0, wall0 = time.process_time(), time.perf_counter()
            plies_found, _ = reviewed(game_id, played, limits)
            spent = time.process_time() - cpu0, time.perf_counter() - wall0
            cpu, wall = cpu + spent[0], wall + spent[1]
            if seed == 0:  # the loop a portal would write: one BestMove a ply
                cpu0, wall0 = time.process_time(), time.perf_counter()
                separate_best_moves(game_id, played, limits)
                base_cpu, base_wall = time.process_time() - cpu0, time.perf_counter() - wall0
                first_cost = spent
            for ply in plies_found:
                counts[ply.judgement] = counts.get(ply.judgement, 0) + 1
                if not ply.forced:
                    losses.append(ply.loss)
            plies += len(played.moves)
        judged = sum(counts.values()) or 1
        shares[level] = (counts[BEST] + counts[EXCELLENT]) / judged
        lines.append(
            f"  {level:>13}: {shares[level]:6.1%} BEST/EXCELLENT of {plies} moves  "
            + " ".join(f"{name[:4].lower()} {counts[name]}" for name in JUDGEMENTS)
        )
        lines.append(f"  {'':>13}  losses {quantiles(losses)}")
        lines.append(
            f"  {'':>13}  review of game 1: {first_cost[0]:.2f} CPU s, {first_cost[1]:.2f} s wall;"
            f" {len(played.moves) if games == 1 else 'its'} separate BestMoves: {base_cpu:.2f} CPU s,"
            f" {base_wall:.2f} s wall ({first_cost[1] / max(base_wall, 1e-9):.2f}×);"
            f" all {games} reviews {cpu:.1f} CPU s"
        )
    strong, weak = shares[levels.strongest], shares[levels.levels[0].name]
    lines.append(
        f"  target: strongest ≥ {STRONG_SHARE:.0%} ({strong:.1%}: {'met' if strong >= STRONG_SHARE else 'missed'}),"
        f" weakest ≥ {WEAK_GAP:.0%} below ({weak:.1%}: {'met' if strong - weak >= WEAK_GAP else 'missed'})"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="self-play games per game and level")
    parser.add_argument("--strands-ms", type=int, default=300, help="Strands' search time per move")
    parser.add_argument("--max-plies", type=int, default=400, help="stop a self-play game after this many plies")
    parser.add_argument("--only", choices=sorted(LEVELS), help="one game")
    parser.add_argument("--quick", action="store_true", help="one short game per level: a smoke test")
    args = parser.parse_args(argv)
    games, max_plies = (1, 12) if args.quick else (args.games, args.max_plies)
    for game_id in [args.only] if args.only else sorted(LEVELS):
        print(f"{game_id} (review at {LEVELS[game_id].strongest}, scale {LEVELS[game_id].review_scale}):", flush=True)
        for line in measure(game_id, games, args.strands_ms, max_plies):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
