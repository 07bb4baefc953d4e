"""The native search engine (``service.native.engine``) as the levels use it: the same search as
``service.search.search`` in C, under the budget contract, or None when the engine cannot take the position
(not built, ``GAMERULES_NO_NATIVE=1``, a board its kernel does not hold): the level then stays on the Python
search.

The budget contract (``docs/api.md``): a level sets the skill, the caller's ``max_time_ms``, ``max_depth`` and
``max_nodes`` set the resources. A level's own node budget keeps its answer reproducible for a seed when the
caller gives no time; when the caller gives a time of its own and no node budget, the time alone bounds the
search (``callers_resources``), so a given time is used until it is spent or the game is proved.
"""

from __future__ import annotations

import math
from typing import Any

from service.core.values import Limits, SearchResult, StopSignal
from service.native import engine
from service.search.deadline import given_limit

# Native nodes per node of a budget (a level's ``max_nodes``, a caller's, the answer's ``nodes``): one. A budget
# counts the search's own nodes on both paths; a native node is the same node of the same search (same
# depth rules, same ordering) at a small fraction of a Python node's CPU time (Reversi: about a hundredth,
# ``python -m bench.native``'s nodes per CPU second), so a level's budget costs that fraction natively.
# Weighing native nodes by that ratio would keep the CPU time instead (a budget then buys a few plies more and
# costs what it did); one to one keeps the same nodes for a fraction of the bill (the cost per best move,
# ``python -m bench.native_levels``).
NATIVE_NODE_WEIGHT = 1


def callers_resources(limits: Limits, level: Limits) -> Limits:
    """``limits`` (the level's own merged with the caller's) without the level's node budget when the caller
    gave a time of its own and no node budget: the caller's time is then used until it is spent."""
    callers_time = limits.max_time_ms is not None and limits.max_time_ms != level.max_time_ms
    if callers_time and level.max_nodes is not None and limits.max_nodes == level.max_nodes:
        return Limits(max_time_ms=limits.max_time_ms, max_depth=limits.max_depth)
    return limits


def solve_reach(limits: Limits, own: int, at: int, at_ms: float, growth: float) -> int:
    """From how far from the end (empty squares, seeds in the pits) a level proves the game natively under
    ``limits`` (the caller's resources): its ``own`` threshold, or, with a time of the caller's and no node
    budget, as far as that time allows, never less: ``at`` where the level's measured solves took at most
    ``at_ms`` (CPU), one further for each ``growth`` times more time."""
    time_ms = given_limit(limits.max_time_ms)
    if limits.max_nodes is not None or time_ms is None:
        return own
    return max(own, at + math.floor(math.log(time_ms / at_ms, growth)))


def native_search(
    position: Any,
    limits: Limits,
    stop: StopSignal,
    top_n: int,
    solve: bool = False,
    solve_lead: int = 0,
    learned: bool = False,
) -> SearchResult | None:
    """The native search of ``position`` under ``limits`` (already the caller's resources), or None.
    ``learned``: the kernel's learned evaluation (Reversi, ``reversi_learned.py``)."""
    return engine.search(
        position,
        limits,
        stop=stop,
        top_n=top_n,
        solve=solve,
        solve_lead=solve_lead,
        node_weight=NATIVE_NODE_WEIGHT,
        learned=learned,
    )
