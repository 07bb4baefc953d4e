"""The plug-ins a level may hand the alpha-beta core: faster searchers of part of the tree, declared here
with their exact contracts so that the core never probes an engine for them.

- ``endgame(position, alpha, beta, stop_at) -> (value, nodes) | None`` (solve mode only): the exact value of
  a small endgame for the seat to move, fail-soft within the window, from a solver of the game's last moves
  (Reversi's last empty squares, native or Python), or None to search the node as usual. It is not polled
  while it runs: it gives up (None) by itself once ``time.monotonic()`` reaches ``stop_at`` (None: no time
  limit), or stays within a few milliseconds. Its nodes count towards ``max_nodes`` after it returns.
- ``subtree(position, depth, alpha, beta, stop_at, max_nodes, poll, scratch) -> (value, nodes, proved, line)
  | None`` (only where the leaves are the engine's own ``evaluate``): the value this core would find below
  the node, found faster (a compiled kernel: the same depth rules, evaluation, fail-soft window and proved
  flag); ``nodes`` in the core's units, ``line`` its best moves from the node. ``value`` None means it gave
  up, which stops the search: at ``stop_at``, after ``max_nodes`` (None: no cap), or when ``poll()`` (the
  Deadline's clock and the caller's stop, to call every 10 ms or so) returned True. None: it does not take the
  node. ``scratch`` is a dict private to one search, for what the plug-in keeps across its calls (a table),
  dropped when the search returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic

from service.core.contract import PositionT
from service.core.values import Move

EndgameSolver = Callable[[PositionT, float, float, "float | None"], "tuple[float, int] | None"]
SubtreeSearch = Callable[
    [PositionT, int, float, float, "float | None", "int | None", Callable[[], bool], dict[str, object]],
    "tuple[float | None, int, bool, list[Move]] | None",
]


@dataclass(frozen=True, slots=True)
class Plugins(Generic[PositionT]):
    """The plug-ins of one search over one game's positions; none by default."""

    endgame: EndgameSolver[PositionT] | None = None
    subtree: SubtreeSearch[PositionT] | None = None


NO_PLUGINS: Plugins[Any] = Plugins()  # no plug-in: fits every game's search
