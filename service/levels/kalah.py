"""Kalah's levels: ``easy`` takes a free move when it sees one, else a random pit; ``medium`` is alpha-beta to 4
plies counting only the stores; ``hard`` (the default) is iterative-deepening alpha-beta with the engine's
``evaluate`` (stores, seeds on each side, free moves, capture threats) under a node budget, or until the
caller's time limit when one is given, and the search's solve mode once few seeds are left in the pits. ``hard``
searches on the native search engine when it is there (``native_search.py``: the same search and values in C,
some forty times the positions a second), else on the Python search. Both searching levels pick by their seed
among the moves within their margin of the best (``variety.py``)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from service.core.values import Level, Limits, SearchResult
from service.engines.kalah import KalahMove, KalahPosition
from service.levels import ladder, variety
from service.levels.budget import Budget, Reach
from service.levels.driver import GameLevels
from service.levels.native_search import planned_search
from service.levels.review import CHANCE_SCALE
from service.native import engine
from service.search import Deadline, greedy, search

# Seeded variety: the searching levels pick by their seed among the moves within this many seeds of the best
# (a proved answer only among equals); hard only in the opening (``variety.opening``).
MARGIN = 1.5


def _easy(position: KalahPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline) -> SearchResult:
    """A beginner: takes a free move when it sees one, otherwise any pit (greedy's random tie-break). The
    key is in seeds: the store margin now, plus the seed a free move drops into the mover's store."""
    margin = position.final_value(position.to_move)
    free = {pit for pit, extra, _capture in position.move_hints() if extra}
    return greedy(position, lambda p, move: margin + (move in free), rng, top_n)


def _medium(position: KalahPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline) -> SearchResult:
    """Alpha-beta to the level's depth (4 plies) counting only the stores: blind to threats past it. It stays
    on the Python search (the native kernel's evaluation is hard's; a 4-ply search costs little)."""
    choice = variety.choose(rng, stop, MARGIN, top_n, budget.varied)
    result = search(
        position, budget.limits, stop=stop, top_n=choice.width, rng=rng, evaluate=KalahPosition.store_difference
    )
    return choice.pick(result, top_n)


# The hard level's node budget when the caller gives no time limit: answers are then the same on every
# machine. With a time limit it searches until the time is up instead (the budget would stop it long before
# on a fast machine, and a caller who gives time wants it used).
HARD_NODES = 100_000
# The review's judge (``judge.py``): the strongest level with eight times its node budget, at most JUDGE_MS a
# search (``python -m bench.review`` measures what it costs and how well it tells the players apart).
JUDGE_NODES = 8 * HARD_NODES
JUDGE_MS = 2_000

# From this many seeds left in the pits, hard proves the game to its end (the search's solve mode): the proofs
# of random endgames with this many fit the node budget, two seeds more often do not (``python -m bench.solve
# --games kalah``).
SOLVE_SEEDS = 14
# Iterations before the solve leaps to the end of the game: the answer if the proof does not fit the budget.
SOLVE_LEAD = 8
# With a time of the caller's (and no node budget) the native solve starts earlier, as far as the time allows,
# on boards of at most six pits a side: from ``SOLVE_AT`` seeds in the pits the solves took at most
# ``SOLVE_AT_MS`` of CPU, each further seed about ``SOLVE_GROWTH`` times more, measured with ``python -m
# bench.solve --games kalah --empties 20 22 24 26 28 30 --positions 10 --no-baseline`` (the Kalah page gives
# the reach per time). A proof that does not fit answers with its lead iterations, so the threshold takes the
# slowest solve, not the median.
SOLVE_AT, SOLVE_AT_MS, SOLVE_GROWTH = 28, 139.0, 2.6
HARD_LIMITS = Limits(max_nodes=HARD_NODES)


def reach(position: KalahPosition) -> Reach:
    """How far from the end (seeds in the pits) hard proves ``position``: from ``SOLVE_SEEDS``, or as many more as
    the caller's time allows on the native search engine, boards of at most six pits a side (measured: see the
    constants)."""
    if position.pits_per_side > 6 or not engine.available("kalah"):
        return Reach(SOLVE_SEEDS)
    return Reach(SOLVE_SEEDS, SOLVE_AT, SOLVE_AT_MS, SOLVE_GROWTH)


def _hard(position: KalahPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline) -> SearchResult:
    """Iterative-deepening alpha-beta with ``KalahPosition.evaluate``: under the level's node budget when no
    time is given (no depth cap, so the answer does not depend on the clock), until the time is up when it
    is; within ``reach`` of the end the solve mode, straight to the end of the game after ``SOLVE_LEAD``
    iterations (a proof tried first a little further where a generous time allows: ``Budget.plan``). It ends
    early, exact, once every line reaches the end. Extra turns need no care here: the search keeps the sign of
    a child whose seat to move has not changed. The native search engine when it is there, else the Python
    search; then, in the opening (``variety.opening``) of a game played, the seeded pick."""
    plan = budget.plan(position.seeds_in_play(), reach(position))
    seeds = 2 * position.pits_per_side * position.seeds_per_pit
    varied = budget.varied and plan == "search" and variety.opening(sum(position.scores()), seeds)
    choice = variety.choose(rng, stop, MARGIN, top_n, varied)
    result = planned_search(position, budget, plan, stop, choice.width, SOLVE_LEAD)
    if result is None:
        solve = plan == "solve"
        result = search(
            position, budget.limits, stop=stop, top_n=choice.width, rng=rng, solve=solve, solve_lead=SOLVE_LEAD
        )
    return choice.pick(result, top_n)


# The rated ladder (``ladder.py``; the game's page lists it with its ratings): rungs below ``hard`` that score the
# moves with its search a few moves deep and err like people; ``make fit-ladder`` measures their ratings.
RUNGS = ladder.rungs(
    depths=(1, 1, 1, 2, 3, 5),
    mean_losses=(1.5, 0.5, 0.7, 0.2, 0.08, 0.03),
    sure_from=3,
    close=((0.12, HARD_NODES, 4),),
)


def sure_moves(position: KalahPosition, moves: Sequence[KalahMove]) -> list[KalahMove]:
    """An extra turn: a sowing that ends in the mover's store is the first thing a Kalah player looks for."""
    free = {pit for pit, extra, _capture in position.move_hints() if extra}
    return [move for move in moves if move in free]


_RUNG_LEVELS, _RUNG_STRATEGIES = ladder.ladder_levels(RUNGS, "hard's search", _hard, "kalah", sure_moves)
LADDER = (*(rung.name for rung in RUNGS), "hard")

LEVELS: GameLevels[KalahPosition, KalahMove] = GameLevels(
    "kalah",
    (
        Level("easy", "Takes a free move when it sees one, otherwise plays a random pit."),
        Level(
            "medium",
            "Looks four moves ahead (extra turns count as moves) and counts only the seeds in the stores; picks by "
            f"its seed among moves within {MARGIN:g} seeds of the best.",
            Limits(max_depth=4),
        ),
        *_RUNG_LEVELS,
        Level(
            "hard",
            f"Searches deep ({HARD_NODES:,} positions, or until the time limit when one is given; on the native "
            "engine when the service has it), chaining extra turns and weighing the "
            f"stores, the seeds on each side, free moves and capture threats; from {SOLVE_SEEDS} seeds left in the "
            "pits (more with a time of the caller's, on the native engine) it computes the game to the end exactly "
            "whenever that fits its budget. In the opening (until a "
            f"quarter of the seeds are in the stores) picks by its seed among moves within {MARGIN:g} seeds of the "
            "best.",
            HARD_LIMITS,
            think_ms=ladder.think_ms(len(LADDER)),
        ),
    ),
    "hard",
    {"easy": _easy, "medium": _medium, "hard": _hard, **_RUNG_STRATEGIES},
    review_scale=CHANCE_SCALE,
    judge=Limits(max_nodes=JUDGE_NODES, max_time_ms=JUDGE_MS),
    ladder=LADDER,
    sure_moves=sure_moves,
)
