"""Petak Sawah's levels: ``easy`` takes the cell scoring most now (seeded random ties); ``medium`` weighs each
move by the engine's evaluation one move deep; ``hard`` is the shared alpha-beta with ``evaluate`` (points now
plus the hot cells shared out alternately) under a node budget (``HARD_NODES``), switching to the search's
solve mode (straight to the end of the game) from ``HARD_SOLVE_EMPTIES`` empty cells (more with a caller's time
on the native engine: ``solve_empties``), where it proves the exact final margin."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from service.core.values import Level, Limits, SearchResult
from service.engines.petak_sawah import PetakSawahMove, PetakSawahPosition
from service.levels import ladder, variety
from service.levels.budget import Budget, Reach
from service.levels.driver import GameLevels
from service.levels.native_search import planned_search
from service.levels.review import CHANCE_SCALE
from service.native import engine
from service.search import Deadline, greedy, search

# Medium weighs each move by hard's evaluation one move deep. Deeper medium searches played almost as well as
# hard at the benchmark's time per move, and counting only the points on the board (3 moves deep) lost games to
# easy's greedy rule (``python -m bench.strength --only petak-sawah``).
MEDIUM_DEPTH = 1
# The hard level's budget, in search nodes (deterministic, unlike a time limit). From ``HARD_SOLVE_EMPTIES``
# empty cells hard uses the search's solve mode (``HARD_SOLVE_LEAD`` shallow iterations, then straight to the
# end): on 5x5 boards an exact solve from that many cells fits well inside this budget (``python -m
# bench.solve``). Above that it searches as deep as the budget allows.
HARD_NODES = 250_000
# The review's judge (``judge.py``): the strongest level with eight times its node budget, at most JUDGE_MS a
# search (``python -m bench.review`` measures what it costs and how well it tells the players apart).
JUDGE_NODES = 8 * HARD_NODES
JUDGE_MS = 2_000

HARD_SOLVE_EMPTIES = 14
HARD_SOLVE_LEAD = 4
HARD_LIMITS = Limits(max_nodes=HARD_NODES)
# With a time of the caller's (and no node budget) the native solve starts earlier, as far as the time allows:
# from ``SOLVE_AT`` empty cells the native solves took at most ``SOLVE_AT_MS`` of CPU, each further cell about
# ``SOLVE_GROWTH`` times more, measured with ``python -m bench.solve --games petak-sawah --empties 14 15 16 17 18
# --positions 10 --no-baseline`` (the Petak Sawah page gives the reach per time). Measured on the default 5x5
# board and used on every board the kernel holds: a proof's width and depth are the empty cells on any board. A
# proof that does not fit answers with its lead iterations, so the threshold takes the slowest solve, not the
# median.
SOLVE_AT, SOLVE_AT_MS, SOLVE_GROWTH = 16, 108.0, 2.6
# Seeded variety: medium and hard pick by their seed among the moves within this many points of the best (a
# proved answer only among equals; hard only in the opening, ``variety.opening``). Half a point: values are whole
# points and a tie-break is worth half, so the pick is among the moves valued equal. Games between good players
# end a point or a tie-break apart (``python -m bench.native_levels --only petak-sawah``: the mean margins), so
# a point of slack gave games away.
MARGIN = 0.5


def margin_now(position: PetakSawahPosition, seat: int) -> float:
    """The points margin for ``seat`` as the board stands (easy's measure): no look at what is to come."""
    if position.to_move == 0:
        return position.final_value(seat)
    points1, points2 = position.scores()
    return float(points1 - points2 if seat == 1 else points2 - points1)


def _margin_after(position: PetakSawahPosition, move: PetakSawahMove) -> float:
    seat = position.to_move
    return margin_now(position.play(move), seat)


def _easy(position: PetakSawahPosition, budget: Budget, rng: Random, top_n: int, stop: Deadline) -> SearchResult:
    return greedy(position, _margin_after, rng, top_n, moves=position.legal_moves())


def _medium(position: PetakSawahPosition, budget: Budget, rng: Random, top_n: int, stop: Deadline) -> SearchResult:
    choice = variety.choose(rng, stop, MARGIN, top_n, budget.varied)
    return choice.pick(search(position, budget.limits, stop=stop, top_n=choice.width, rng=rng), top_n)


def reach(position: PetakSawahPosition) -> Reach:
    """How far from the end (empty cells) hard proves ``position``: from ``HARD_SOLVE_EMPTIES``, or as many more as
    the caller's time allows on the native search engine (measured: see the constants)."""
    if not engine.holds(position):
        return Reach(HARD_SOLVE_EMPTIES)
    return Reach(HARD_SOLVE_EMPTIES, SOLVE_AT, SOLVE_AT_MS, SOLVE_GROWTH)


def _hard(position: PetakSawahPosition, budget: Budget, rng: Random, top_n: int, stop: Deadline) -> SearchResult:
    """The search under the level's node budget, or the caller's time when given (the native search engine
    when it takes the board, else the Python search); the solve mode within ``reach`` of the end (a proof tried
    first a little further where a generous time allows: ``Budget.plan``); then, in the opening
    (``variety.opening``) of a game played, the seeded pick."""
    empty = position.empty.bit_count()
    plan = budget.plan(empty, reach(position))
    taken = (position.own1 | position.own2).bit_count()
    varied = budget.varied and plan == "search" and variety.opening(taken, taken + empty)
    choice = variety.choose(rng, stop, MARGIN, top_n, varied)
    result = planned_search(position, budget, plan, stop, choice.width, HARD_SOLVE_LEAD)
    if result is None:
        solve = plan == "solve"
        result = search(
            position, budget.limits, stop=stop, top_n=choice.width, rng=rng, solve=solve, solve_lead=HARD_SOLVE_LEAD
        )
    return choice.pick(result, top_n)


# The rated ladder (``ladder.py``; the game's page lists it with its ratings): rungs below ``hard`` that score the
# moves with its search a few moves deep and err like people; ``make fit-ladder`` measures their ratings.
RUNGS = ladder.rungs(
    depths=(1, 1, 2, 2, 3, 6),
    mean_losses=(3.0, 0.6, 0.4, 0.2, 0.1, 0.02),
    sure_from=3,
    close=((0.05, HARD_NODES // 10, 8),),
)


def sure_moves(position: PetakSawahPosition, moves: Sequence[PetakSawahMove]) -> list[PetakSawahMove]:
    """A contested double: a cell worth two points or more to the mover and as much to the opponent, who would
    take it next: a player past the first rungs takes the biggest of them."""
    own, other = (position.own1, position.own2) if position.to_move == 1 else (position.own2, position.own1)
    neighbours = position.board.neighbours
    worth = {move: (neighbours[move] & own).bit_count() for move in moves}
    doubles = [m for m in moves if worth[m] >= 2 and (neighbours[m] & other).bit_count() >= 2]
    top = max((worth[m] for m in doubles), default=0)
    return [m for m in doubles if worth[m] == top]


_RUNG_LEVELS, _RUNG_STRATEGIES = ladder.ladder_levels(RUNGS, "hard's search", _hard, "petak-sawah", sure_moves)
LADDER = (*(rung.name for rung in RUNGS), "hard")

LEVELS: GameLevels[PetakSawahPosition, PetakSawahMove] = GameLevels(
    "petak-sawah",
    (
        Level("easy", "Takes the cell that scores the most points right now, at random among equals."),
        Level(
            "medium",
            "Looks one move ahead, weighing the points now and the points still to be won around each empty cell; "
            f"picks by its seed among moves within {MARGIN:g} point of the best.",
            Limits(max_depth=MEDIUM_DEPTH),
        ),
        *_RUNG_LEVELS,
        Level(
            "hard",
            "Searches deep, estimating the points still to be won around every empty cell, and plays "
            "perfectly (the exact final margin, tie-breaks included) once few enough cells are left to search "
            f"to the end: {HARD_SOLVE_EMPTIES}, more with a time of the caller's on the native engine. In the "
            f"opening (the first quarter of the cells taken) picks by its seed among moves within {MARGIN:g} point "
            "of the best.",
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
