"""Strands' best-move levels: ``easy`` plays the candidate cover that evaluates best one move ahead, ``medium`` is
a two-move alpha-beta, ``hard`` (Monte Carlo tree search with the engine's group-growing playouts) hands over to
alpha-beta, and so to proofs, once every full cover fits the search (``search_moves_complete``).

Both searches run natively when the native engine is built and holds the layout, and in Python otherwise
(``GAMERULES_NO_NATIVE=1``, no compiler, a layout the kernel refuses): the alpha-beta on the native search core
(``native_search.py``: the same search over the C twin of the engine's candidate covers and evaluation, so the
same moves and values at a small fraction of the CPU), ``hard``'s tree search on ``service.native.mcts`` (the
same search with the C twin of the playouts, some fifteen times the iterations in the same time). The tree
search uses the whole time it is given, and the seed drives the playouts, so games do not repeat.
"""

from __future__ import annotations

from typing import Any

from service.core.values import Level, Limits, SearchResult
from service.engines.strands import StrandsPosition
from service.levels.budget import Budget
from service.levels.driver import GameLevels
from service.levels.native_search import native_search
from service.levels.review import CHANCE_SCALE
from service.native import mcts as native
from service.search import Deadline, greedy, mcts, search

# The review's judge (``judge.py``): ``hard`` given up to twice its time a search, as the call's deadline allows
# (``python -m bench.review`` measures what it costs and how it tells the players apart).
JUDGE_MS = 3_000


def _easy(position: StrandsPosition, budget: Budget, rng: Any, top_n: int, stop: Deadline) -> SearchResult:
    mover = position.to_move
    return greedy(position, lambda p, m: p.play(m).evaluate(mover), rng, top_n)


def _alpha_beta(position: StrandsPosition, budget: Budget, rng: Any, top_n: int, stop: Deadline) -> SearchResult:
    """The alpha-beta search (``medium``, and ``hard`` once every full cover fits): on the native engine when it
    holds the position, else in Python."""
    limits = budget.limits
    found = native_search(position, limits, stop, top_n)
    if found is not None:
        return found
    return search(position, limits, stop=stop, top_n=top_n, rng=rng)


def _hard(position: StrandsPosition, budget: Budget, rng: Any, top_n: int, stop: Deadline) -> SearchResult:
    if position.search_moves_complete():
        # Every full cover fits the search from here to the end: alpha-beta can prove the result.
        return _alpha_beta(position, budget, rng, top_n, stop)
    limits = budget.limits
    found = native.mcts(position, limits, stop=stop, top_n=top_n, rng=rng)
    if found is not None:
        return found
    return mcts(position, limits, stop=stop, top_n=top_n, rng=rng, rollout=StrandsPosition.playout_move)


LEVELS = GameLevels(
    "strands",
    levels=(
        Level("easy", "Plays the candidate cover that evaluates best one move ahead.", Limits()),
        Level(
            "medium",
            "Alpha-beta two moves deep over group-aware candidate covers.",
            Limits(max_time_ms=1000, max_depth=2),
        ),
        Level(
            "hard",
            "Monte Carlo tree search with group-growing playouts for 1.5 seconds, then alpha-beta to the proved "
            "end once every full cover fits the search.",
            Limits(max_time_ms=1500),
        ),
    ),
    default="medium",
    strategies={"easy": _easy, "medium": _alpha_beta, "hard": _hard},
    review_scale=CHANCE_SCALE,
    judge=Limits(max_time_ms=JUDGE_MS),
)
