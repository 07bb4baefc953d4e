"""Strands' best-move levels: ``easy`` plays the candidate cover that evaluates best one move ahead, ``medium`` is
a two-move alpha-beta with the learned evaluation (``service/engines/strands/learned.py``), ``hard`` (Monte Carlo
tree search with the engine's group-growing playouts, on an iteration budget) hands over to alpha-beta, and so to
proofs, once every full cover fits the search (``search_moves_complete``).

Both searches run natively when the native engine is built and holds the layout, and in Python otherwise
(``GAMERULES_NO_NATIVE=1``, no compiler, a layout the kernel refuses): the alpha-beta on the native search core
(``native_search.py``: the same search over the C twin of the engine's candidate covers and evaluation, so the
same moves and values at a small fraction of the CPU), ``hard``'s tree search on ``service.native.mcts`` (the
same search with the C twin of the playouts, many times the iterations in the same time: the Strands page gives
the ratio). The tree search runs its iterations, or the caller's time when one is given; the seed drives the
playouts, so a seed and a budget give the same move every time.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from service.core.values import Level, Limits, SearchResult
from service.engines.strands import StrandsMove, StrandsPosition
from service.engines.strands.learned import Weights, shipped
from service.levels import ladder
from service.levels.budget import Budget
from service.levels.driver import GameLevels
from service.levels.native_search import native_search
from service.levels.review import CHANCE_SCALE
from service.native import mcts as native
from service.native import strands as native_strands
from service.search import Deadline, greedy, mcts, search
from service.search.deadline import given_limit

# hard's iterations of its tree search when the caller gives no resources: natively a fraction of the CPU of the
# former 1.5 s of tree search, a little below its strength, and the same move for a seed everywhere
# (``python -m bench.strands_cost`` measures both; the Strands page gives the figures). The Python search,
# many times slower an iteration, takes PYTHON_ITERATIONS instead: under a second at its median.
HARD_ITERATIONS = 60_000
PYTHON_ITERATIONS = 2_000
# The review's judge (``judge.py``): ``hard`` with twice its iterations, at most JUDGE_MS a search, each
# search's time also a share of the call's deadline (``python -m bench.strands_cost`` measures a review's CPU).
JUDGE_ITERATIONS = 2 * HARD_ITERATIONS
JUDGE_MS = 1_000
ANALYSIS_SEED = 0

# The learned evaluation, read from the package once, at start-up, and handed to the native kernel.
LEARNED = shipped()
native_strands.set_weights(LEARNED.values)


def learned(position: StrandsPosition, seat: int) -> float:
    """The learned evaluation as the search's ``evaluate``: the estimated final margin for ``seat`` (the final
    value once the board is full)."""
    return evaluate_with(LEARNED, position, seat)


def evaluate_with(weights: Weights, position: StrandsPosition, seat: int) -> float:
    if not position.to_move:
        return position.final_value(seat)
    mover = position.to_move
    value = weights.value(position.layout, position.stones(mover), position.stones(3 - mover))
    return value if seat == mover else -value


def _easy(position: StrandsPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline) -> SearchResult:
    mover = position.to_move
    return greedy(position, lambda p, m: p.play(m).evaluate(mover), rng, top_n)


def _alpha_beta(
    position: StrandsPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline
) -> SearchResult:
    """The alpha-beta search (``medium``, and ``hard`` once every full cover fits): on the native engine when it
    holds the position, else in Python."""
    limits = budget.limits
    found = native_search(position, limits, stop, top_n, learned=True)
    if found is not None:
        return found
    return search(position, limits, stop=stop, top_n=top_n, rng=rng, evaluate=learned)


def _hard(position: StrandsPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline) -> SearchResult:
    if position.search_moves_complete():
        # Every full cover fits the search from here to the end: alpha-beta can prove the result.
        return _alpha_beta(position, budget, rng, top_n, stop)
    limits = budget.limits
    if not budget.varied:  # analysis: the playouts' seed is the search's own, so every seed gets the same answer
        rng = random.Random(ANALYSIS_SEED)
    # A bot's one move ends its iterations once no other move can overtake it: the same move for less CPU
    # (python -m bench.strands_cost measures it). Analysis and scored alternatives (the ladder, reviews) get the
    # whole budget, whose values they read.
    settle = budget.varied and top_n == 1
    found = native.mcts(position, limits, stop=stop, top_n=top_n, rng=rng, settle=settle)
    if found is not None:
        return found
    if budget.callers_time_ms is None and given_limit(budget.asked.max_nodes) is None:
        # The Python search's own budget when the caller's limits do not bound it (a depth does not: a tree
        # search has none), where HARD_ITERATIONS would take it minutes.
        limits = Limits(limits.max_time_ms, limits.max_depth, PYTHON_ITERATIONS, limits.spend)
    return mcts(position, limits, stop=stop, top_n=top_n, rng=rng, rollout=StrandsPosition.playout_move, settle=settle)


# The rated ladder (``ladder.py``; the game's page lists it with its ratings): rungs below ``hard`` that score the
# moves with its search a few moves deep and err like people; ``make fit-ladder`` measures their ratings.
RUNGS = ladder.rungs(
    depths=(1, 1, 1, 2, 2),
    mean_losses=(1.5, 0.5, 0.2, 0.2, 0.02),
    sure_from=3,
    close=(
        (0.02, 400, 4),
        (0.02, 1_000, 4),
        (0.01, 2_500, 4),
        (0.01, 9_000, 4),
        (0.01, 28_000, 4),
    ),
)


def sure_moves(position: StrandsPosition, moves: Sequence[StrandsMove]) -> list[StrandsMove]:
    """A full turn: covering as many cells as the label allows (fewer gives the opponent the tempo for nothing
    in all but rare endings), so rungs past the first two never cover fewer."""
    empty, masks = position.empty, position.layout.label_masks
    full = []
    for move in moves:
        label = position.layout.cell_label[move[0]]
        if len(move) == min(label, (masks[label] & empty).bit_count()):
            full.append(move)
    return full


_RUNG_LEVELS, _RUNG_STRATEGIES = ladder.ladder_levels(
    RUNGS,
    "medium's search",
    _alpha_beta,
    "strands",
    sure_moves,
    f"at full depth (at most {PYTHON_ITERATIONS:,} iterations without the native engine)",
    close_scorer=("hard's tree search", _hard),
)
LADDER = (*(rung.name for rung in RUNGS), "hard")

LEVELS: GameLevels[StrandsPosition, StrandsMove] = GameLevels(
    "strands",
    levels=(
        Level("easy", "Plays the candidate cover that evaluates best one move ahead.", Limits()),
        Level(
            "medium",
            "Alpha-beta two moves deep over group-aware candidate covers, with an evaluation learned from self-play.",
            Limits(max_time_ms=1000, max_depth=2),
        ),
        *_RUNG_LEVELS,
        Level(
            "hard",
            f"Monte Carlo tree search with group-growing playouts ({HARD_ITERATIONS:,} iterations, "
            f"{PYTHON_ITERATIONS:,} iterations without the native engine, or the caller's resources; a bot's move "
            "ends them once no other move can overtake it), then alpha-beta to the proved end once every full "
            "cover fits the search.",
            Limits(max_nodes=HARD_ITERATIONS),
            think_ms=ladder.think_ms(len(LADDER)),
        ),
    ),
    default="medium",
    strategies={"easy": _easy, "medium": _alpha_beta, "hard": _hard, **_RUNG_STRATEGIES},
    review_scale=CHANCE_SCALE,
    judge=Limits(max_nodes=JUDGE_ITERATIONS, max_time_ms=JUDGE_MS),
    ladder=LADDER,
    sure_moves=sure_moves,
)
