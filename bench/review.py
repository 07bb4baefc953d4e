"""Game review, measured (``python -m bench.review``).

Two parts, on each game's default options, with the review as ``ReviewGame`` runs it by default (the judge:
``service.levels.judge``, its time shared out of ``--review-s``, the REST gateway's default deadline):

- **The judge tells the players apart**: self-play games of the strongest level against itself (``purpose``
  play, so the opening varies by seed) until ``--decisive`` of them are won by somebody, each reviewed; the
  target: the loser's accuracy below the winner's in at least 75 % of them. Printed with the players' mean
  accuracies, the judgements of all their moves and what a review cost. Strands' players search
  ``--strands-ms`` a move (``hard`` takes 1.5 s by default: twenty games of it are most of an hour of a core),
  and Strands plays ``--strands-decisive`` games by default: the line says when that is fewer than the target's.
- **A whole game within the deadline**: a 60-ply Reversi game and a 40-ply Strands game (of the weakest level)
  reviewed whole with ``--review-s`` for the searches, in this process (its CPU time) and then over REST as a
  portal sends it, with no deadline header, through the gateway's code to a server on loopback; the target:
  every ply reviewed within the time, both ways. Printed with the wall and CPU time and the plan.

Nothing here leaves the loopback interface. ``--quick`` is a small run for a smoke test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

from service.api.rest import gateway_config
from service.api.rest.gateway_local import local_client
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import GameRulesServicer
from service.core import Limits, Move, Position
from service.games import GAMES, LEVELS
from service.levels import judge
from service.levels.review import JUDGEMENTS, PlyReview, ReviewSummary, collect, review, searches_needed

APART = 0.75  # of the decisive games, the share whose loser the review rates below the winner
WHOLE = {"reversi": 60, "strands": 40}  # the plies of the whole games reviewed within the deadline


@dataclass
class Played:
    positions: list[Position]
    moves: list[Move]

    @property
    def winner(self) -> int:
        """1 or 2, 0 for a draw or an unfinished game."""
        end = self.positions[-1]
        if end.to_move:
            return 0
        margin = end.final_value(1)
        return 1 if margin > 0 else 2 if margin < 0 else 0


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


def judged(game_id: str, played: Played, seconds: float) -> tuple[list[PlyReview], ReviewSummary, judge.ReviewPlan]:
    """The review of ``played`` by the judge, its searches' time shared out of ``seconds`` (as the servicer)."""
    levels = LEVELS[game_id]
    plan = judge.plan_review(levels, None, None, searches_needed(played.positions), seconds)
    shares = judge.Shares(plan, time.monotonic() + seconds)

    def search(position: Position):  # type: ignore[no-untyped-def]
        if time.monotonic() >= shares.end:
            return None
        return levels.best_move(position, plan.level, shares.next(), 0, 1, purpose="analysis")

    plies, summary = collect(review(played.positions, played.moves, levels.review_scale, search, levels.win_chance))
    return plies, summary, plan


def apart(game_id: str, decisive: int, players: Limits | None, seconds: float, max_plies: int) -> list[str]:
    """The judge on the strongest level's self-play: how often the loser is rated below the winner."""
    level = LEVELS[game_id].strongest
    below = seed = 0
    cpu = 0.0
    winners: list[float] = []
    losers: list[float] = []
    counts = dict.fromkeys(JUDGEMENTS, 0)
    games: list[int] = []
    while len(games) < decisive and seed < 3 * decisive:
        seed += 1
        played = self_play(game_id, level, seed, players, max_plies)
        if not played.winner:
            continue
        began = time.process_time()
        plies, summary, _ = judged(game_id, played, seconds)
        cpu += time.process_time() - began
        games.append(len(played.moves))
        for ply in plies:
            counts[ply.judgement] = counts.get(ply.judgement, 0) + 1
        won, lost = summary.seats[played.winner - 1].accuracy, summary.seats[2 - played.winner].accuracy
        winners.append(100.0 if won is None else won)
        losers.append(100.0 if lost is None else lost)
        below += int(lost is not None and won is not None and lost < won)
    n = len(games)
    share = below / n if n else 0.0
    fewer = f" (only {n} games: the target asks {decisive}+)" if n < decisive else ""
    return [
        f"  {level} against itself, {n} decisive games of {seed} played (median {statistics.median(games or [0]):g}"
        f" plies), each reviewed by the judge: {cpu / max(n, 1):.2f} CPU s a review",
        f"  accuracy: winners {statistics.fmean(winners or [0]):.1f}, losers {statistics.fmean(losers or [0]):.1f};"
        " judgements " + " ".join(f"{name[:4].lower()} {counts[name]}" for name in JUDGEMENTS),
        f"  target: the loser below the winner in ≥ {APART:.0%}: {below}/{n} = {share:.0%}"
        f" {'met' if share >= APART and n else 'missed'}{fewer}",
    ]


def whole(game_id: str, plies: int, seconds: float, players: Limits | None) -> list[str]:
    """A game of ``plies`` reviewed whole within ``seconds``: in this process (its CPU), then over REST as a portal
    sends it, with no deadline header (the gateway's default deadline; its plan and what it reviewed)."""
    played = self_play(game_id, LEVELS[game_id].levels[0].name, 7, players, plies)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    _, summary, plan = judged(game_id, played, seconds)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    planned = judge.limits_text(plan.limits) if plan.limits else "the level's own"
    rest_wall, rest = over_rest(game_id, played)
    done = rest["summary"].get("reviewedPlies", 0)
    ok = summary.unreviewed == 0 and wall <= seconds and done == len(played.moves)
    return [
        f"  a {len(played.moves)}-ply game, {plan.searches} searches planned at {planned}: {wall:.1f} s wall,"
        f" {cpu:.1f} CPU s, {summary.reviewed} plies reviewed, {summary.unreviewed} not",
        f"  over REST with no deadline header ({gateway_config.DEFAULT_TIMEOUT_S:g} s): {rest_wall:.1f} s wall,"
        f" {done} plies reviewed, {rest['summary'].get('unreviewedPlies', 0)} not; plan: {rest['plan']['detail']}",
        f"  target: reviewed whole within {seconds:g} s: {'met' if ok else 'missed'}",
    ]


def over_rest(game_id: str, played: Played) -> tuple[float, dict[str, Any]]:
    """``played`` reviewed through the REST gateway's code to a server on loopback, as a portal would send it:
    the wall time, and the plan and the summary it answered."""
    running = create_server(ServerConfig(), address="127.0.0.1:0")
    if isinstance(running.servicer, GameRulesServicer):
        running.servicer.start_searches()  # as a worker does: the review's deadline pays for no process start
    try:
        with local_client(f"127.0.0.1:{running.port}") as client:
            positions = played.positions
            moves = [{"notation": positions[k].move_notation(move)} for k, move in enumerate(played.moves)]
            body = {"position": {"notation": positions[0].to_notation()}, "moves": moves}
            began = time.perf_counter()
            answer = client.post(f"/v1/games/{game_id}:review", json=body)
            results = [json.loads(line)["result"] for line in answer.text.splitlines()]
            return time.perf_counter() - began, {"plan": results[0]["plan"], "summary": results[-1]["summary"]}
    finally:
        running.shutdown(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisive", type=int, default=20, help="decisive self-play games per game")
    parser.add_argument("--strands-decisive", type=int, default=6, help="Strands' decisive games")
    parser.add_argument("--strands-ms", type=int, default=300, help="Strands' players' search time a move")
    parser.add_argument("--review-s", type=float, default=judge.DEFAULT_REVIEW_S, help="a review's search time")
    parser.add_argument("--max-plies", type=int, default=400, help="stop a self-play game after this many plies")
    parser.add_argument("--only", choices=sorted(LEVELS), help="one game")
    parser.add_argument("--quick", action="store_true", help="one game, a short review: a smoke test")
    args = parser.parse_args(argv)
    for game_id in [args.only] if args.only else sorted(LEVELS):
        strands = game_id == "strands"
        players = Limits(max_time_ms=args.strands_ms) if strands else None
        decisive = args.strands_decisive if strands else args.decisive
        seconds, plies = args.review_s, WHOLE.get(game_id)
        if args.quick:
            decisive, seconds, plies = 1, 2.0, plies and 8
        levels = LEVELS[game_id]
        print(f"{game_id} (the judge: {levels.strongest} with {judge.limits_text(levels.judge)}):", flush=True)
        for line in apart(game_id, decisive, players, seconds, args.max_plies):
            print(line, flush=True)
        if plies:
            for line in whole(game_id, plies, seconds, players):
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
