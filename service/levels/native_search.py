"""The native search engine (``service.native.engine``) as the levels use it: the same search as
``service.search.search`` in C, under the budget contract, or None when the engine cannot take the position
(not built, ``GAMERULES_NO_NATIVE=1``, a board its kernel does not hold): the level then stays on the Python
search.

The limits it takes are the call's ``Budget.limits`` (``budget.py``: the budget contract of ``docs/api.md``).
"""

from __future__ import annotations

import time

from service.core.contract import MoveT, Position
from service.core.selectivity import Selectivity
from service.core.values import Limits, SearchResult, StopSignal
from service.levels.budget import TRY_SHARE, Budget, Plan
from service.native import engine

# Native nodes per node of a budget (a level's ``max_nodes``, a caller's, the answer's ``nodes``): one. A budget
# counts the search's own nodes on both paths; a native node is the same node of the same search (same
# depth rules, same ordering) at a small fraction of a Python node's CPU time (``python -m bench.native``'s
# nodes per CPU second), so a level's budget costs that fraction natively.
# Weighing native nodes by that ratio would keep the CPU time instead (a budget then buys a few plies more and
# costs what it did); one to one keeps the same nodes for a fraction of the bill (the cost per best move,
# ``python -m bench.native_levels``).
NATIVE_NODE_WEIGHT = 1


def native_search(
    position: Position[MoveT],
    limits: Limits,
    stop: StopSignal,
    top_n: int,
    solve: bool = False,
    solve_lead: int = 0,
    learned: bool = False,
    selective: Selectivity | None = None,
) -> SearchResult | None:
    """The native search of ``position`` under ``limits`` (already the caller's resources), or None.
    ``learned``: the kernel's learned evaluation (Reversi, ``reversi_learned.py``); ``selective``: multi-ProbCut's
    model (never in a proof)."""
    return engine.search(
        position,
        limits,
        stop=stop,
        top_n=top_n,
        solve=solve,
        solve_lead=solve_lead,
        node_weight=NATIVE_NODE_WEIGHT,
        learned=learned,
        selective=selective,
    )


def planned_search(
    position: Position[MoveT],
    budget: Budget,
    plan: Plan,
    stop: StopSignal,
    top_n: int,
    solve_lead: int,
    learned: bool = False,
    selective: Selectivity | None = None,
) -> SearchResult | None:
    """The native search under ``budget`` as ``plan`` says (``Budget.plan``): the search, the solve mode, or a
    proof tried with ``TRY_SHARE`` of the time left and, when it does not end, the search with the rest; None
    when the engine cannot take the position."""
    if plan != "try":
        return native_search(position, budget.limits, stop, top_n, plan == "solve", solve_lead, learned, selective)
    began = time.monotonic()
    left = budget.time_left_ms() or 0.0
    share = budget.share(1.0, max(1, int(left * TRY_SHARE)))
    proof = native_search(position, share, stop, top_n, True, solve_lead, learned)
    if proof is None or proof.exact or proof.stop_reason not in ("time", "nodes"):  # proved, or the caller stopped
        return proof
    found = native_search(position, budget.rest(proof.nodes, began), stop, top_n, learned=learned, selective=selective)
    if found is not None:
        found.nodes += proof.nodes
    return found
