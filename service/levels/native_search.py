"""The native search engine (``service.native.engine``) as the strongest levels use it: the same search as
``service.search.search`` in C, under the budget contract (the caller's time is used until it is spent or
the game is proved; a node budget keeps an answer reproducible), or None when the engine cannot take the
position (not built, ``GAMERULES_NO_NATIVE=1``, a board its kernel does not hold), and the level stays on
the Python search."""

from __future__ import annotations

from typing import Any

from service.core.values import Limits, SearchResult, StopSignal
from service.native import engine

# Native nodes per node of a budget (``max_nodes``, the answer's ``nodes``). One: a level's budget is a count of
# the search's own nodes on both paths, so natively it costs about a fortieth of the CPU time and searches a few
# plies deeper (``python -m bench.native`` measures the native search at about 40 times the Python search's
# nodes per CPU second; ``python -m bench.level_cost`` the cost per move). Weighing native nodes 40 to one
# kept the CPU time instead and made Reversi's expert 70 times as expensive a move (2.5 s instead of 36 ms).
NATIVE_NODE_WEIGHT = 1


def native_search(
    position: Any,
    limits: Limits,
    level: Limits,
    stop: StopSignal,
    top_n: int,
    solve: bool = False,
    solve_lead: int = 0,
) -> SearchResult | None:
    """The native search of ``position`` under ``limits`` (the level's own merged with the caller's), or None.
    ``level`` is the level's own limits: when the caller gave a time of its own but no node budget (the node
    budget is the level's), the time alone bounds the search, so a given time is used until spent or the game
    is proved."""
    callers_time = limits.max_time_ms is not None and limits.max_time_ms != level.max_time_ms
    if callers_time and level.max_nodes is not None and limits.max_nodes == level.max_nodes:
        limits = Limits(max_time_ms=limits.max_time_ms, max_depth=limits.max_depth)
    return engine.search(
        position, limits, stop=stop, top_n=top_n, solve=solve, solve_lead=solve_lead, node_weight=NATIVE_NODE_WEIGHT
    )
