"""The native search engine (``service.native.engine``) as the strongest levels use it: the same search as
``service.search.search`` in C, under the budget contract (the caller's time is used until it is spent or
the game is proved; a node budget keeps an answer reproducible), or None when the engine cannot take the
position (not built, ``GAMERULES_NO_NATIVE=1``, a board its kernel does not hold), and the level stays on
the Python search."""

from __future__ import annotations

from typing import Any

from service.core.values import Limits, SearchResult, StopSignal
from service.native import engine

# Native nodes per node of a budget (``max_nodes``, the answer's ``nodes``): ``python -m bench.native`` measures
# the native search at about 40 times the Python search's nodes per CPU second on Reversi midgames, so a level's
# budget buys about the same CPU time on both paths (and a deeper search natively).
NATIVE_NODE_WEIGHT = 40


def native_search(
    position: Any,
    limits: Limits,
    level_nodes: int | None,
    stop: StopSignal,
    top_n: int,
    solve: bool = False,
    solve_lead: int = 0,
) -> SearchResult | None:
    """The native search of ``position`` under ``limits``, or None. ``level_nodes`` is the level's own node
    budget: when the caller gave a time and no node budget of its own (``limits.max_nodes`` is the level's),
    the time alone bounds the search, so a given time is used until spent or the game is proved."""
    if limits.max_time_ms is not None and level_nodes is not None and limits.max_nodes == level_nodes:
        limits = Limits(max_time_ms=limits.max_time_ms, max_depth=limits.max_depth)
    return engine.search(
        position, limits, stop=stop, top_n=top_n, solve=solve, solve_lead=solve_lead, node_weight=NATIVE_NODE_WEIGHT
    )
