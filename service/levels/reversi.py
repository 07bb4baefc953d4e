"""Reversi's levels: ``beginner`` and ``corner_hunter`` choose by one-ply rules, ``expert`` searches with the
learned evaluation (``reversi_learned.py``: the engine's estimate corrected by pattern weights) on the native
search engine where it takes the position (``native_search.py``; its kernel evaluates with the same weights),
else on the Python search with the endgame solver (``reversi_endgame.py``)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

from service.core.selectivity import Selectivity
from service.core.values import Level, Limits, Move, ScoredMove, SearchResult, StopSignal
from service.engines.reversi import PASS, ReversiMove, ReversiPosition
from service.levels import ladder, reversi_learned, variety
from service.levels.budget import Budget, Reach
from service.levels.driver import GameLevels
from service.levels.native_search import planned_search
from service.levels.reversi_endgame import endgame_value as _endgame_value
from service.levels.review import CHANCE_SCALE
from service.native import engine
from service.search import Deadline, Plugins, greedy, never, search

PLUGINS = Plugins(endgame=_endgame_value)  # what expert hands the search in solve mode


def _beginner(
    position: ReversiPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline
) -> SearchResult:
    """The move that flips the most discs now. Its value is the disc margin right after it (each flip moves
    the margin by two, the new disc by one), so the greedy key is already in the game's units."""
    margin = position.final_value(position.to_move)
    return greedy(position, lambda p, m: margin + 2 * p.flip_count(m) + (m != PASS), rng, top_n)


def _corner_hunter_key(position: ReversiPosition, move: ReversiMove) -> float:
    """One-ply preference: a corner above all; never an X-square, and a C-square only with care, next to an
    empty corner (a C-square is worst when the opponent could take that corner at once); then the fewest
    opponent replies; then the most flips."""
    if move == PASS:
        return 0.0
    geo = position.geometry
    bit = 1 << move
    empty = geo.full & ~(position.black | position.white)
    # Tiers: each outweighs everything below it (a 16x16 board has fewer than 256 replies and flips).
    key = 0.0
    if bit & geo.corners:
        key += 10_000_000
    for corner, x in geo.x_guards:
        if bit & x and empty & corner:
            key -= 5_000_000
    after = position.play(move)
    # The opponent's replies: none when it must pass or the game ends.
    replies = after.placements() if after.to_move not in (0, position.to_move) else 0
    for corner, c in geo.c_guards:
        if bit & c and empty & corner:
            key -= 3_000_000 if replies & corner else 500_000
    return key - 1_000 * replies.bit_count() + position.flip_count(move)


def _corner_hunter(
    position: ReversiPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline
) -> SearchResult:
    """``_corner_hunter_key``'s choice. The key only ranks moves, so the values reported are, like the
    beginner's, the disc margin right after each move (alternatives stay in the level's order of preference)."""
    result = greedy(position, _corner_hunter_key, rng, top_n)
    seat = position.to_move

    def margin(move: Move) -> float:  # one of the moves greedy chose among: this position's
        return position.play(cast(ReversiMove, move)).final_value(seat)

    result.value = margin(result.move)
    result.alternatives = [ScoredMove(a.move, margin(a.move), False) for a in result.alternatives]
    return result


EXACT_EMPTIES = 12  # expert solves the game from this many empty squares (the search's solve mode)
# And from this many on 8x8 with the native search engine under the level's own node budget: its solve mode (the
# core's proof with the kernel's exact endgame) fits the budget for most of these, one more empty square mostly
# not (then the depth-6 lead answers, weaker than iterative deepening within the budget). Measured with ``python
# -m bench.solve --games reversi --empties 12 13 14 --positions 10 --no-baseline``.
EXACT_EMPTIES_NATIVE = 12
# With a time of the caller's (and no node budget) the native solve starts earlier, as far as the time allows:
# from ``SOLVE_AT`` empties a solve takes at most ``SOLVE_AT_MS`` of CPU, and with ``SOLVE_GROWTH`` times more a
# further empty the bound stays above the slowest solve of every count measured, so a solve that starts ends in
# time nearly always (one that overruns answers with the lead). Measured with ``python -m bench.solve --games
# reversi --empties 15 16 17 18 19 20 --positions 10 --no-baseline``; the Reversi page gives the figures.
SOLVE_AT, SOLVE_AT_MS, SOLVE_GROWTH = 16, 90.0, 3.6
MIDGAME_DEPTH = 6  # expert's depth before that on the Python search, when the caller gives no resources
SOLVE_LEAD = MIDGAME_DEPTH  # iterations before the solve leaps to the end: the answer if the budget runs out
# The expert's node budget, in search nodes of either path (``native_search.NATIVE_NODE_WEIGHT``: a native
# node counts as one): on the Python path it covers a depth-6 midgame search and the solves up to
# ``EXACT_EMPTIES`` (``python -m bench.solve`` without the native engine); natively it buys iterative deepening
# with no depth cap at a fraction of the Python path's CPU, and wins more games than the Python path's 6 plies
# (``python -m bench.native_levels --only reversi --games 20 --positions 12``). A budget keeps the answer the
# same on every machine.
EXPERT_NODES = 30_000
# The review's judge (``judge.py``): the strongest level with eight times its node budget, at most JUDGE_MS a
# search (``python -m bench.review`` measures what it costs and how well it tells the players apart).
JUDGE_NODES = 8 * EXPERT_NODES
JUDGE_MS = 2_000

# The expert's own limits: the node budget (the server's cap bounds its time).
EXPERT_LIMITS = Limits(max_nodes=EXPERT_NODES)
# Seeded variety: in the opening (``variety.opening``) expert picks by its seed among the moves within this many
# discs of the best (the search's estimate of the final margin; a proved answer picks only among equals).
EXPERT_MARGIN = 1.0


def reach(position: ReversiPosition) -> Reach:
    """How far from the end expert proves ``position``: on 8x8 with the native search engine from
    ``EXACT_EMPTIES_NATIVE`` empty squares, or as many more as the caller's time allows (measured: see the
    constants); from ``EXACT_EMPTIES`` otherwise."""
    if position.size != 8 or not engine.available("reversi"):
        return Reach(EXACT_EMPTIES)
    return Reach(EXACT_EMPTIES_NATIVE, SOLVE_AT, SOLVE_AT_MS, SOLVE_GROWTH)


# The learned evaluation (``reversi_learned.py``: the hand-written estimate corrected by pattern weights),
# read from the package once, at start-up, and handed to the native kernel. ``python -m bench.learned_eval
# --positions 2000 --empties 20-24 --games 100 --rate-positions 6`` measures it against the hand-written one
# (accuracy against exact values, a match at 100 ms a move, the node rate); the Reversi page gives the figures.
LEARNED = reversi_learned.shipped()
LEARNED.hand_to_native()  # the native kernel's table: once, here (False without the engine: nothing to hand)


# Multi-ProbCut's model (``service/core/selectivity.py``), fitted to expert's own searches with the learned
# evaluation by ``python -m service.learn.probcut`` (the file records the fit). ``python -m bench.reversi_selective``
# measures what it buys: the depth reached in a second, and matches against expert without it.
SELECTIVITY_FILE = Path(__file__).resolve().parents[1] / "engines" / "reversi" / "data" / "probcut.json"
SELECTIVITY = Selectivity.read(SELECTIVITY_FILE)


def _expert(position: ReversiPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline) -> SearchResult:
    """``expert_search`` with the learned evaluation (8x8; other sizes keep the hand-written one), then, in the
    opening (``variety.opening``) of a game played, the seeded pick among the moves within ``EXPERT_MARGIN`` of
    the best."""
    plan = budget.plan(position.empties(), reach(position))
    squares = position.size * position.size - 4
    varied = budget.varied and plan == "search" and variety.opening(squares - position.empties(), squares)
    choice = variety.choose(rng, stop, EXPERT_MARGIN, top_n, varied)
    return choice.pick(expert_search(position, budget, stop, choice.width, LEARNED), top_n)


def expert_search(
    position: ReversiPosition,
    budget: Budget | Limits,
    stop: StopSignal = never,
    top_n: int = 1,
    evaluate: Callable[[ReversiPosition, int], float] | None = None,
    selective: Selectivity | None = SELECTIVITY,
) -> SearchResult:
    """The expert's search under ``budget`` (``Limits`` are read as the caller's, beside the level's own). Within
    ``reach`` of the end the solve mode (straight to the end of the game after ``SOLVE_LEAD`` shallow
    iterations), proved exact whenever the solve fits the budget; before that iterative deepening, after a proof
    tried first where a generous time of the caller's allows (``Budget.plan``). A caller's ``max_depth``
    replaces this choice: plain iterative deepening to that depth.

    ``evaluate``: None for ``position.evaluate``, or a learned evaluation (``reversi_learned.PatternEvaluation``).
    The native search engine (boards up to 8x8) searches with no depth cap and proves with the kernel's
    exact endgame, evaluating with the kernel's learned evaluation when ``evaluate`` is the table handed to it
    (``hand_to_native``; another evaluation stays on the Python search); the Python search stops at
    ``MIDGAME_DEPTH`` when the caller gave no resources of its own, and proves its last ``ENDGAME_EMPTIES``
    squares in the endgame solver (``reversi_endgame.py``). ``selective``: multi-ProbCut's model on 8x8 (its
    stages are 8x8's), on both paths, never in a proof; None searches every node in full (today's expert before
    the model, which the bench plays against)."""
    if isinstance(budget, Limits):
        budget = Budget(EXPERT_LIMITS, budget)
    plan = budget.plan(position.empties(), reach(position))
    learned = isinstance(evaluate, reversi_learned.PatternEvaluation) and evaluate.in_native()
    if position.size != 8:
        selective = None
    if evaluate is None or learned:
        found = planned_search(position, budget, plan, stop, top_n, SOLVE_LEAD, learned, selective)
        if found is not None:
            return found
    if plan == "solve":
        return search(
            position,
            budget.limits,
            stop=stop,
            top_n=top_n,
            evaluate=evaluate,
            solve=True,
            solve_lead=SOLVE_LEAD,
            plugins=PLUGINS,
        )
    limits = budget.unless_given(MIDGAME_DEPTH)
    return search(position, limits, stop=stop, top_n=top_n, evaluate=evaluate, selective=selective)


# The rated ladder (``ladder.py``; the game's page lists it with its ratings): rungs below ``expert`` that score the
# moves with its search a few moves deep and err like people; ``make fit-ladder`` measures their ratings.
RUNGS = ladder.rungs(
    depths=(1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6),
    mean_losses=(10.0, 0.9, 0.45, 0.3, 0.22, 0.16, 0.12, 0.07, 0.03, 0.03, 0.015),
    sure_from=3,
    close=((0.01, EXPERT_NODES, 4),),
    steady_from=7,
)


def sure_moves(position: ReversiPosition, moves: Sequence[ReversiMove]) -> list[ReversiMove]:
    """A free corner: a corner is never flipped back, so a player past the first rungs takes one when offered."""
    corners = position.geometry.corners
    return [move for move in moves if 0 <= move < position.geometry.n and corners >> move & 1]


_RUNG_LEVELS, _RUNG_STRATEGIES = ladder.ladder_levels(
    RUNGS,
    "expert's search",
    _expert,
    "reversi",
    sure_moves,
    f"at full depth (without the native engine {MIDGAME_DEPTH} moves ahead)",
)
LADDER = (*(rung.name for rung in RUNGS), "expert")

LEVELS: GameLevels[ReversiPosition, ReversiMove] = GameLevels(
    "reversi",
    (
        Level(
            "beginner",
            "Plays the move that flips the most discs right now (random among equals), often handing corners away.",
        ),
        Level(
            "corner_hunter",
            "Grabs any corner at once and avoids X- and C-squares next to an empty corner; otherwise leaves the "
            "opponent the fewest replies and flips the most discs.",
        ),
        *_RUNG_LEVELS,
        Level(
            "expert",
            "Searches as deep as its budget allows (the caller's time when one is given, else "
            f"{EXPERT_NODES:,} positions; without the native engine {MIDGAME_DEPTH} moves ahead unless given time), "
            "weighing mobility, frontier, corners and the squares next to them (on 8x8 with learned weights for "
            f"edge, corner, row and diagonal patterns), and from {EXACT_EMPTIES_NATIVE} "
            "empty squares on (8x8 with the native engine, and earlier as far as a time of the caller's allows; "
            f"otherwise from {EXACT_EMPTIES}) computes the game to the end exactly whenever that fits the budget. "
            "In the opening (the first quarter of the game) picks by its seed among moves within "
            f"{EXPERT_MARGIN:g} disc of the best.",
            EXPERT_LIMITS,
            think_ms=ladder.think_ms(len(LADDER)),
        ),
    ),
    "expert",
    {"beginner": _beginner, "corner_hunter": _corner_hunter, "expert": _expert, **_RUNG_STRATEGIES},
    review_scale=CHANCE_SCALE,
    judge=Limits(max_nodes=JUDGE_NODES, max_time_ms=JUDGE_MS),
    ladder=LADDER,
    sure_moves=sure_moves,
)
