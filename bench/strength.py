"""Strength of every best-move level, measured (``python -m bench.strength``; issue 7).

Three parts, all seeded, none on the network:

1. **Round robin of the levels** of each game (each adjacent pair, and strongest against weakest). Games come
   in pairs on the same seeded opening (a few random legal plies, the same for both colour assignments) with
   the colours swapped, so neither side profits from the first move or a lucky opening. Every move is
   ``LEVELS[game].best_move(position, level, limits, seed, 1, never)`` with the game's default options (Dots and Boxes
   also on 3×3); ``limits`` only caps the level's time per move at ``--move-ms`` (the level's own node and
   depth limits stay), which keeps the run within its time budget on a busy 2-core machine. Per pair: the
   stronger level's wins / draws / losses, its mean final margin (``final_value``), and the target: the
   stronger level wins at least 75 % of the games.
2. **Against OpenSpiel's MCTS bot** (random rollouts, ``uct_c`` 2) in ``othello``, ``mancala`` and
   ``dots_and_boxes`` 3×3, at equal time per move: our strongest level gets ``--move-ms`` per move; the bot's
   simulation count is calibrated so its mean time per move on sample positions matches ours, then adjusted
   move by move during each game so the bot's time per move tracks our mean so far (the bot has no clock of
   its own). Both sides' measured times per move are printed, for the calibration and for the matches. Our
   state and OpenSpiel's are kept in lock-step and checked to agree (the same player to move, the same end of
   the game, the same winner). Target: 90 % wins.
3. **Proved play**: how long exact solves take: Reversi ``expert`` on endgames of 12, 14, 16 and 18 empties
   on the native search engine and, up to 14 empties, without it (pure Python, the baseline; target: 14
   empties exact within 1 s, natively), Kalah ``hard`` on endgames with few seeds left in the pits, Petak
   Sawah ``hard`` with 12 and 14 empty cells, and (``--solve-dots``, it may take minutes) Dots and Boxes
   ``hard`` on the empty 3×3 board, whose value is −3 for the first player.

Games run in ``--jobs`` worker processes (default: one per core, at most 2); the solve timings run alone in
the main process afterwards. ``--quick`` is a tiny run for a smoke test. A final summary says which targets
were met. The exit status is 0 unless a game failed (an engine raised, an illegal move, states out of lock-step); missed
strength targets are reported, not failed: they are measurements, not tests.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from service import native
from service.core import Game, Limits, Position
from service.games import GAMES, LEVELS
from service.search import never

WIN_TARGET = 0.75  # each level against the one below it
MCTS_TARGET = 0.90  # the strongest level against OpenSpiel's MCTS bot
REVERSI_SOLVE = (14, 1000.0)  # empties, milliseconds
DOTS_3X3_VALUE = -3.0  # first player's value of the empty 3×3 board
UNLIMITED_NODES = 10**12


@dataclass(frozen=True)
class Setup:
    """One game on one set of options, as the round robin plays it."""

    label: str
    game_id: str
    options: dict[str, Any] = field(default_factory=dict)
    opening_plies: int = 2
    max_games: int | None = None  # per pair, below --games for slow games
    capped: bool = True  # False: the levels keep their own limits (they are time-limited already)
    note: str = ""


SETUPS = (
    Setup("reversi", "reversi", opening_plies=4),
    Setup("kalah", "kalah", opening_plies=2),
    Setup("dots-and-boxes 3x3", "dots-and-boxes", {"rows": 3, "cols": 3}, opening_plies=2),
    Setup("dots-and-boxes 5x5", "dots-and-boxes", {}, opening_plies=4, max_games=2, note="slow: 2 games a pair"),
    Setup("petak-sawah", "petak-sawah", opening_plies=2, note="rocks seeded per opening"),
    Setup(
        "strands",
        "strands",
        opening_plies=1,
        max_games=2,
        capped=False,
        note="slow: 2 games a pair; levels at their own time limits (medium 1 s, hard 1.5 s a move), not capped",
    ),
)


@dataclass(frozen=True)
class Outside:
    """A game OpenSpiel has, and how its actions map to our moves (player p is our seat p + 1 in all three)."""

    game_id: str
    options: dict[str, Any]
    spiel_name: str
    spiel_params: dict[str, Any]
    opening_plies: int


OUTSIDE = (
    Outside("reversi", {}, "othello", {}, 4),
    Outside("kalah", {}, "mancala", {}, 2),
    Outside("dots-and-boxes", {"rows": 3, "cols": 3}, "dots_and_boxes", {"num_rows": 3, "num_cols": 3}, 2),
)
OTHELLO_PASS = 64


def to_action(game_id: str, position: Position, move: Any) -> int:
    """OpenSpiel's action for our move: squares and lines are numbered alike; Kalah's North pits are 7 + pit."""
    if game_id == "kalah":
        return int(move) if position.to_move == 1 else 7 + int(move)
    return int(move)


def from_action(game_id: str, action: int) -> int:
    if game_id == "kalah":
        return action if action < 7 else action - 7
    return action


# --------------------------------------------------------------------------------------------------
# Playing.


def capped(game: Game, level: str, move_ms: int) -> Limits | None:
    """The level's own limits with its time per move capped at ``move_ms`` (0: no cap)."""
    if move_ms <= 0:
        return None
    own = next(lv.limits.max_time_ms for lv in LEVELS[game.id].levels if lv.name == level)
    return Limits(max_time_ms=move_ms if own is None else min(own, move_ms))


def random_move(position: Position, rng: random.Random) -> Any:
    """A uniformly random legal move, paged so Strands' huge move lists are never built."""
    return position.legal_moves_page(rng.randrange(position.legal_move_count()), 1)[0]


def opening(game: Game, options: dict[str, Any], plies: int, seed: int, label: str, index: int) -> Position:
    """The ``index``-th seeded opening: the start (its own seed, so Petak Sawah's rocks vary) and random plies."""
    position = game.new_position({**game.default_options(), **options}, f"strength-{seed}-{index}")
    rng = random.Random(f"{seed}/{label}/{index}")
    for _ in range(plies):
        if position.outcome() is not None:
            break
        position, _ = position.apply(random_move(position, rng))
    return position


def balanced_openings(
    draw: Callable[[int], Any], count: int, judge: Callable[[Any], float], within: float
) -> tuple[list[Any], int]:
    """The first ``count`` of the openings ``draw(0), draw(1), ...`` that ``judge`` (a value for the seat to
    move) finds within ``within`` points of even, every one when ``within`` is 0; and how many were set aside.
    From a lopsided opening each side wins with the favoured colour whatever its strength, so a colour-swapped
    pair from it measures nothing: engine matches play balanced openings (Othello's XOT set: random plies,
    kept when a deep search finds them close)."""
    out: list[Any] = []
    index = skipped = 0
    while len(out) < count:
        position = draw(index)
        index += 1
        if within and abs(judge(position)) > within:
            skipped += 1
        else:
            out.append(position)
    return out, skipped


@dataclass
class GameResult:
    """One finished game from the point of view of the side under test (the stronger level / ours)."""

    score: int  # 1 win, 0 draw, -1 loss
    margin: float
    plies: int
    time_side: float  # seconds spent by the side under test
    moves_side: int
    time_other: float
    moves_other: int
    error: str = ""
    simulations: float = 0.0  # the MCTS bot's mean simulations per move


def play_levels(task: tuple[Any, ...]) -> GameResult:
    """One game of ``strong`` against ``weak`` from the ``index``-th opening; ``strong`` holds ``strong_seat``."""
    setup, strong, weak, index, strong_seat, seed, move_ms = task
    game = GAMES[setup.game_id]
    position = opening(game, setup.options, setup.opening_plies, seed, setup.label, index)
    levels = {strong_seat: strong, 3 - strong_seat: weak}
    limits = {seat: capped(game, level, move_ms if setup.capped else 0) for seat, level in levels.items()}
    spent = {1: 0.0, 2: 0.0}
    moves = {1: 0, 2: 0}
    plies = 0
    while position.outcome() is None:
        seat = position.to_move
        start = time.perf_counter()
        result = LEVELS[game.id].best_move(
            position, levels[seat], limits[seat], seed * 1_000_003 + index * 1000 + plies, 1, never
        )
        spent[seat] += time.perf_counter() - start
        moves[seat] += 1
        position, _ = position.apply(result.move)
        plies += 1
    outcome = position.outcome()
    assert outcome is not None
    score = 0 if outcome.winner == 0 else (1 if outcome.winner == strong_seat else -1)
    other = 3 - strong_seat
    return GameResult(
        score,
        position.final_value(strong_seat),
        plies,
        spent[strong_seat],
        moves[strong_seat],
        spent[other],
        moves[other],
    )


_SPIEL_GAMES: dict[tuple[str, str], Any] = {}


def spiel_game(outside: Outside) -> Any:
    import pyspiel

    key = (outside.spiel_name, repr(sorted(outside.spiel_params.items())))
    if key not in _SPIEL_GAMES:
        _SPIEL_GAMES[key] = pyspiel.load_game(outside.spiel_name, outside.spiel_params)
    return _SPIEL_GAMES[key]


def mcts_bot(outside: Outside, simulations: int, seed: int) -> Any:
    import numpy as np
    from open_spiel.python.algorithms import mcts

    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    return mcts.MCTSBot(
        spiel_game(outside),
        uct_c=2,
        max_simulations=simulations,
        evaluator=evaluator,
        random_state=np.random.RandomState(seed + 1),
    )


def play_outside(task: tuple[Any, ...]) -> GameResult:
    """One game of our ``level`` (seat ``our_seat``) against the MCTS bot, both states in lock-step."""
    outside, level, index, our_seat, seed, move_ms, simulations, target_ms = task
    game = GAMES[outside.game_id]
    position = opening(game, outside.options, 0, seed, outside.spiel_name, index)
    state = spiel_game(outside).new_initial_state()
    rng = random.Random(f"{seed}/{outside.spiel_name}/{index}")
    bot = mcts_bot(outside, simulations, seed * 1000 + index * 10 + our_seat)
    limits = capped(game, level, move_ms)
    spent = {1: 0.0, 2: 0.0}
    moves = {1: 0, 2: 0}
    plies = 0
    used: list[int] = []
    try:
        while True:
            if state.is_terminal() or position.outcome() is not None:
                if state.is_terminal() != (position.outcome() is not None):
                    raise AssertionError(f"one side finished alone: {position.to_notation()} / {state}")
                break
            if outside.game_id == "reversi" and state.legal_actions() == [OTHELLO_PASS]:
                state.apply_action(OTHELLO_PASS)  # our ``apply`` played this forced pass already
                continue
            seat = position.to_move
            if state.current_player() != seat - 1:
                raise AssertionError(f"player to move differs: ours {seat}, OpenSpiel {state.current_player()}")
            start = time.perf_counter()
            if plies < outside.opening_plies:
                move = random_move(position, rng)
                action = to_action(outside.game_id, position, move)
            elif seat == our_seat:
                result = LEVELS[game.id].best_move(
                    position, level, limits, seed * 1_000_003 + index * 1000 + plies, 1, never
                )
                move = result.move
                action = to_action(outside.game_id, position, move)
            else:
                action = bot.step(state)
                move = from_action(outside.game_id, action)
                used.append(bot.max_simulations)
                if target_ms > 0:
                    # Track our mean time per move so far: the next position costs about what this one did per
                    # simulation; the step is bounded so one quick solved position does not swing it.
                    ours = spent[our_seat] / moves[our_seat] if moves[our_seat] else target_ms / 1000
                    wanted = bot.max_simulations * ours / max(time.perf_counter() - start, 1e-4)
                    bot.max_simulations = max(10, round(min(2 * used[-1], max(used[-1] / 2, wanted))))
            if plies >= outside.opening_plies:
                spent[seat] += time.perf_counter() - start
                moves[seat] += 1
            if action not in state.legal_actions():
                raise AssertionError(f"move {position.move_notation(move)} is not legal for OpenSpiel")
            state.apply_action(action)
            position, _ = position.apply(move)  # checked: raises on a move our rules refuse
            plies += 1
    except Exception as error:  # reported as a disagreement; the run goes on
        return GameResult(0, 0.0, plies, 0.0, 0, 0.0, 0, error=f"{type(error).__name__}: {error}")
    outcome = position.outcome()
    assert outcome is not None
    returns = state.returns()
    spiel_winner = 0 if returns[0] == returns[1] else (1 if returns[0] > returns[1] else 2)
    if spiel_winner != outcome.winner:
        return GameResult(0, 0.0, plies, 0.0, 0, 0.0, 0, error=f"winner differs: ours {outcome.winner}, OpenSpiel")
    score = 0 if outcome.winner == 0 else (1 if outcome.winner == our_seat else -1)
    other = 3 - our_seat
    return GameResult(
        score,
        position.final_value(our_seat),
        plies,
        spent[our_seat],
        moves[our_seat],
        spent[other],
        moves[other],
        simulations=statistics.fmean(used) if used else 0.0,
    )


def run_task(task: tuple[str, tuple[Any, ...]]) -> GameResult:
    kind, payload = task
    try:
        return play_levels(payload) if kind == "levels" else play_outside(payload)
    except Exception as error:  # an engine that raised: reported with its row, the run goes on
        return GameResult(0, 0.0, 0, 0.0, 0, 0.0, 0, error=f"{type(error).__name__}: {error}")


# --------------------------------------------------------------------------------------------------
# Calibration of the MCTS bot to our time per move.


def sample_positions(outside: Outside, seed: int, count: int) -> list[tuple[Position, Any]]:
    """Positions spread over random games, each with the OpenSpiel state that matches it."""
    game = GAMES[outside.game_id]
    rng = random.Random(f"{seed}/calibrate/{outside.spiel_name}")
    samples: list[tuple[Position, Any]] = []
    attempt = 0
    while len(samples) < count:
        position = opening(game, outside.options, 0, seed, "calibrate", attempt)
        state = spiel_game(outside).new_initial_state()
        attempt += 1
        keep = rng.randrange(0, 8)
        ply = 0
        while position.outcome() is None and len(samples) < count:
            if outside.game_id == "reversi" and state.legal_actions() == [OTHELLO_PASS]:
                state.apply_action(OTHELLO_PASS)
                continue
            if ply % 8 == keep % 8 and ply >= keep:
                samples.append((position, state.clone()))
            move = random_move(position, rng)
            state.apply_action(to_action(outside.game_id, position, move))
            position, _ = position.apply(move)
            ply += 1
    return samples


def calibrate(outside: Outside, level: str, move_ms: int, seed: int, count: int) -> tuple[int, float, float]:
    """Simulations that give the bot our mean time per move: (simulations, ours ms, the bot's ms measured at that)."""
    game = GAMES[outside.game_id]
    samples = sample_positions(outside, seed, count)
    limits = capped(game, level, move_ms)
    start = time.perf_counter()
    for index, (position, _) in enumerate(samples):
        LEVELS[game.id].best_move(position, level, limits, seed + index, 1, never)
    ours = (time.perf_counter() - start) / len(samples)
    trial = 100
    bot = mcts_bot(outside, trial, seed)
    start = time.perf_counter()
    for _, state in samples:
        bot.step(state)
    per_simulation = (time.perf_counter() - start) / len(samples) / trial
    simulations = max(10, round(ours / per_simulation))
    bot = mcts_bot(outside, simulations, seed)
    start = time.perf_counter()
    for _, state in samples:
        bot.step(state)
    return simulations, ours * 1000, (time.perf_counter() - start) / len(samples) * 1000


# --------------------------------------------------------------------------------------------------
# Solve timings.


@dataclass
class Solve:
    limits: str  # how the level was asked: its own limits, or which were lifted
    result: Any
    seconds: float


def solve(
    game: Game, position: Position, level: str, limit_ms: int | None, seed: int, depth: int | None = None
) -> Solve:
    """The level's answer and how long it took: with the level's own limits when ``limit_ms`` is None, else
    with no node budget, that time limit and (if given) ``max_depth``, which makes Reversi's expert search
    to the end instead of choosing its depth itself."""
    if limit_ms is None:
        limits, said = None, f"{level}, own limits"
    else:
        limits = Limits(max_time_ms=limit_ms, max_depth=depth, max_nodes=UNLIMITED_NODES)
        said = f"{level}, no node cap" + (f", depth {depth}" if depth else "")
    start = time.perf_counter()
    result = LEVELS[game.id].best_move(position, level, limits, seed, 1, never)
    return Solve(said, result, time.perf_counter() - start)


def solve_reversi_python(position: Position, seed: int) -> Solve:
    """Reversi's expert with its own limits and the native search engine off: the pure-Python baseline."""
    previous = native.use_native(False)
    try:
        solved = solve(GAMES["reversi"], position, "expert", None, seed)
    finally:
        native.use_native(previous)
    solved.limits = "expert, own, pure Python"
    return solved


def random_play_until(game: Game, options: dict[str, Any], seed: str, done: Any) -> Position | None:
    """Random play from the start until ``done(position, plies)``; None when the game ended first."""
    rng = random.Random(seed)
    position = game.new_position({**game.default_options(), **options}, seed)
    plies = 0
    while position.outcome() is None:
        if done(position, plies):
            return position
        position, _ = position.apply(random_move(position, rng))
        plies += 1
    return None


def endgames(game: Game, options: dict[str, Any], seed: int, key: str, count: int, done: Any) -> list[Position]:
    found: list[Position] = []
    attempt = 0
    while len(found) < count and attempt < 50 * count:
        position = random_play_until(game, options, f"{seed}/{key}/{attempt}", done)
        attempt += 1
        if position is not None:
            found.append(position)
    return found


def solve_rows(args: argparse.Namespace, wanted: set[str]) -> Iterator[tuple[str, str, Solve]]:
    """(game, description, solve) for every endgame the run times, in print order."""
    count = 1 if args.quick else args.solve_positions
    if "reversi" in wanted:
        game = GAMES["reversi"]
        for empties in (12,) if args.quick else (12, 14, 16, 18):
            positions = endgames(
                game, {}, args.seed, f"reversi{empties}", count, lambda p, _, e=empties: 64 - sum(p.scores()) == e
            )
            for position in positions:
                yield "reversi", f"{empties} empties", solve(game, position, "expert", None, args.seed)
                if empties <= 14:  # beyond, the pure-Python expert no longer solves (its limit is 12 empties)
                    yield "reversi", f"{empties} empties", solve_reversi_python(position, args.seed)
    if "kalah" in wanted:
        game = GAMES["kalah"]
        for seeds in (10,) if args.quick else (10, 15, 20):
            positions = endgames(
                game, {}, args.seed, f"kalah{seeds}", count, lambda p, _, s=seeds: 48 - sum(p.scores()) <= s
            )
            for position in positions:
                pits = 48 - sum(position.scores())
                yield "kalah", f"{pits} seeds in pits", solve(game, position, "hard", args.solve_ms, args.seed)
    if "petak-sawah" in wanted:
        game = GAMES["petak-sawah"]
        for empties in (12,) if args.quick else (12, 14):
            positions = endgames(
                game, {}, args.seed, f"petak{empties}", count, lambda _, plies, e=empties: plies == 20 - e
            )
            for position in positions:
                yield "petak-sawah", f"{empties} empty cells", solve(game, position, "hard", args.solve_ms, args.seed)
    if "dots-and-boxes" in wanted and args.solve_dots:
        game = GAMES["dots-and-boxes"]
        position = game.new_position({**game.default_options(), "rows": 3, "cols": 3}, "")
        yield "dots-and-boxes", "3x3 empty board", solve(game, position, "hard", args.solve_dots_ms, args.seed)


# --------------------------------------------------------------------------------------------------
# Reporting.


@dataclass
class Tally:
    results: list[GameResult] = field(default_factory=list)

    def add(self, result: GameResult) -> None:
        self.results.append(result)

    @property
    def errors(self) -> list[str]:
        return [r.error for r in self.results if r.error]

    def wdl(self) -> tuple[int, int, int]:
        played = [r for r in self.results if not r.error]
        return (
            sum(r.score == 1 for r in played),
            sum(r.score == 0 for r in played),
            sum(r.score == -1 for r in played),
        )

    def win_rate(self) -> float:
        w, d, lost = self.wdl()
        return w / max(1, w + d + lost)

    def margin(self) -> float:
        played = [r.margin for r in self.results if not r.error]
        return statistics.fmean(played) if played else 0.0

    def ms_per_move(self, side: bool) -> float:
        spent = sum(r.time_side if side else r.time_other for r in self.results)
        moves = sum(r.moves_side if side else r.moves_other for r in self.results)
        return 1000 * spent / max(1, moves)


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=8, help="games per pair of levels (even: colours swap)")
    parser.add_argument("--mcts-games", type=int, default=0, help="games against MCTS per game (default --games)")
    parser.add_argument("--move-ms", type=int, default=500, help="cap on each level's time per move (0: none)")
    parser.add_argument("--only", "--game", choices=sorted(GAMES), help="one game only (--game under python -m bench)")
    parser.add_argument("--seed", type=int, default=7, help="seed of openings, rocks, tie-breaks and bots")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    parser.add_argument("--quick", action="store_true", help="tiny run for a smoke test")
    parser.add_argument("--no-5x5", action="store_true", help="skip Dots and Boxes on 5x5")
    parser.add_argument("--solve-ms", type=int, default=10000, help="time limit of each endgame solve")
    parser.add_argument("--solve-positions", type=int, default=3, help="endgames per size")
    parser.add_argument("--solve-dots", action="store_true", help="also solve the empty 3x3 Dots and Boxes board")
    parser.add_argument("--solve-dots-ms", type=int, default=300000, help="time limit of that solve")
    args = parser.parse_args()
    if args.quick:
        args.games, args.move_ms, args.no_5x5, args.solve_ms = 2, 100, True, 5000
    games = max(2, args.games + args.games % 2)
    mcts_games = max(2, (args.mcts_games or games) + (args.mcts_games or games) % 2)
    wanted = {args.only} if args.only else set(GAMES)
    setups = [s for s in SETUPS if s.game_id in wanted and not (args.no_5x5 and s.label.endswith("5x5"))]
    outsides = [o for o in OUTSIDE if o.game_id in wanted]
    began = time.perf_counter()

    print(
        f"Strength of the levels. {games} games per pair of levels (fewer where noted), colours swapped every game, "
        f"openings seeded (--seed {args.seed}); time per move capped at "
        f"{f'{args.move_ms} ms' if args.move_ms > 0 else 'nothing (--move-ms 0)'} "
        f"(each level keeps its own node/depth limits and any lower time limit); {args.jobs} worker process(es)."
    )
    print(
        f"MCTS: {mcts_games} games per game against OpenSpiel's MCTSBot (uct_c=2, one random rollout per "
        f"simulation), simulations calibrated to our strongest level's time per move ({args.move_ms} ms cap) "
        "and adjusted move by move to track it."
    )
    print(f"Targets: each level wins >= {WIN_TARGET:.0%} against the one below; >= {MCTS_TARGET:.0%} against MCTS.")
    print(flush=True)

    # Calibrate first, alone on the machine.
    simulations: dict[str, tuple[int, float]] = {}
    if outsides:
        print("MCTS calibration (mean time per move on sample positions)")
        print(f"  {'game':<16} {'our level':<10} {'ours ms':>8} {'sims':>6} {'MCTS ms':>8}")
        for outside in outsides:
            level = LEVELS[outside.game_id].levels[-1].name
            sims, ours_ms, bot_ms = calibrate(outside, level, args.move_ms, args.seed, 3 if args.quick else 6)
            simulations[outside.game_id] = (sims, ours_ms)
            print(f"  {outside.spiel_name:<16} {level:<10} {ours_ms:>8.0f} {sims:>6} {bot_ms:>8.0f}", flush=True)
        print()

    # Every game of both parts, grouped into rows.
    rows: list[tuple[str, str, Any, int]] = []  # (section, row label, setup/outside, games in the row)
    tasks: list[tuple[str, tuple[Any, ...]]] = []
    for setup in setups:
        levels = [lv.name for lv in LEVELS[setup.game_id].levels]
        pairs = [(levels[i + 1], levels[i]) for i in range(len(levels) - 1)]
        if len(levels) > 2:
            pairs.append((levels[-1], levels[0]))
        count = min(games, setup.max_games or games)
        for strong, weak in pairs:
            rows.append(("levels", f"{strong} vs {weak}", setup, count))
            for g in range(count):
                tasks.append(("levels", (setup, strong, weak, g // 2, 1 + g % 2, args.seed, args.move_ms)))
    for outside in outsides:
        level = LEVELS[outside.game_id].levels[-1].name
        rows.append(("mcts", f"{level} vs MCTS", outside, mcts_games))
        sims, target_ms = simulations[outside.game_id]
        for g in range(mcts_games):
            tasks.append(("mcts", (outside, level, g // 2, 1 + g % 2, args.seed, args.move_ms, sims, target_ms)))

    summary: list[tuple[str, bool | None]] = []
    failed = False
    noted: set[str] = set()
    context = multiprocessing.get_context("spawn")
    with context.Pool(args.jobs) as pool:
        results = pool.imap(run_task, tasks)
        section = ""
        for kind, label, subject, count in rows:
            if kind != section:
                section = kind
                if kind == "levels":
                    print("Round robin of the levels (W/D/L and mean margin for the first-named, stronger level)")
                else:
                    print("Strongest level against OpenSpiel's MCTS bot at equal time per move")
                print(
                    f"  {'game':<19} {'pair':<34} {'games':>5} {'W-D-L':>8} {'win %':>6} {'margin':>7} "
                    f"{'ms/move':>13} {'target':>7}"
                )
            tally = Tally()
            for _ in range(count):
                tally.add(next(results))
            w, d, lost = tally.wdl()
            target = MCTS_TARGET if kind == "mcts" else WIN_TARGET
            ok = tally.win_rate() >= target and not tally.errors
            game_name = subject.label if kind == "levels" else subject.spiel_name
            if kind == "mcts":
                label += f" (~{statistics.fmean(r.simulations for r in tally.results):.0f} sims)"
            times = f"{tally.ms_per_move(True):.0f}/{tally.ms_per_move(False):.0f}"
            print(
                f"  {game_name:<19} {label:<34} {count:>5} {f'{w}-{d}-{lost}':>8} {100 * tally.win_rate():>5.0f}% "
                f"{tally.margin():>+7.1f} {times:>13} {verdict(ok):>7}",
                flush=True,
            )
            for error in tally.errors:
                failed = True
                print(f"    ERROR: {error}")
            what = f"{game_name}: {label} wins >= {target:.0%}"
            summary.append((what, ok))
            if kind == "levels" and subject.note and subject.label not in noted:
                noted.add(subject.label)
                print(f"    ({subject.label}: {subject.note})")
    print("  (ms/move: the first-named side's mean time per move / the other side's)")
    print()

    # Proved play, alone in this process.
    print(
        f"Exact solves: endgames from seeded random play, each level with its own limits or with no node cap and "
        f"{args.solve_ms} ms (Dots and Boxes 3x3: {args.solve_dots_ms} ms); one process, nothing else of ours running"
    )
    print(
        f"  {'game':<15} {'position':<18} {'asked':<28} {'value':>6} {'exact':>6} {'depth':>5} {'nodes':>9} "
        f"{'ms':>7} {'stop':>7}"
    )
    reversi_ok: list[bool] = []
    dots_row: Solve | None = None
    for game_id, label, solved in solve_rows(args, wanted):
        r = solved.result
        print(
            f"  {game_id:<15} {label:<18} {solved.limits:<28} {r.value:>+6.1f} {r.exact!s:>6} {r.depth:>5} "
            f"{r.nodes:>9} {1000 * solved.seconds:>7.0f} {r.stop_reason:>7}",
            flush=True,
        )
        if game_id == "reversi" and label.startswith(f"{REVERSI_SOLVE[0]} ") and solved.limits.endswith("own limits"):
            reversi_ok.append(r.exact and 1000 * solved.seconds <= REVERSI_SOLVE[1])
        if game_id == "dots-and-boxes":
            dots_row = solved
    if "dots-and-boxes" in wanted and not args.solve_dots:
        print("  dots-and-boxes  3x3 empty board    not run (--solve-dots)")
    print()
    if "reversi" in wanted and not args.quick:
        summary.append(
            (f"reversi: expert solves {REVERSI_SOLVE[0]} empties exactly within 1 s", all(reversi_ok or [False]))
        )
    if "dots-and-boxes" in wanted:
        proved: bool | None = None
        if dots_row is not None:
            proved = dots_row.result.exact and dots_row.result.value == DOTS_3X3_VALUE
        summary.append(("dots-and-boxes: hard proves the empty 3x3 board is -3", proved))

    print("Summary of targets")
    for what, outcome in summary:
        print(f"  {'not run' if outcome is None else verdict(outcome):>7}  {what}")
    met = sum(outcome is True for _, outcome in summary)
    run = sum(outcome is not None for _, outcome in summary)
    print(f"  {met} of {run} met; total {time.perf_counter() - began:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
