"""The levels: which algorithm, evaluation and budget each best-move level of each game uses.

One module per game (``reversi.py``, ``kalah.py``, …) declares its levels as GetGame lists them and the
strategy that plays each, composed from the game-independent search (``service/search``), the engine's
evaluation features and, where a game has them, its plug-ins (endgame solvers, native kernels). The transport
is generic over ``LEVELS``; ``driver.py`` is what every game shares (seeds, the Deadline), ``budget.py`` the
budget policy: what the caller asked beside what the level declares, and every bound the search runs with.
"""

from __future__ import annotations

from service.core.contract import Position
from service.core.values import Limits, Purpose, SearchResult, StopSignal
from service.levels import dots_and_boxes, kalah, petak_sawah, reversi, strands
from service.levels.budget import Budget
from service.levels.driver import GameLevels, Strategy, play_level
from service.search.deadline import never

# Adding a game = one entry here (and one in ``service/engines``).
LEVELS: dict[str, GameLevels] = {
    module.LEVELS.game_id: module.LEVELS for module in (reversi, kalah, dots_and_boxes, petak_sawah, strands)
}


def best_move(
    game_id: str,
    position: Position,
    level: str | None = None,
    limits: Limits | None = None,
    seed: int | str = 0,
    top_n: int = 1,
    stop: StopSignal = never,
    *,
    cap_ms: int | None = None,
    purpose: Purpose = "play",
) -> SearchResult:
    """Choose a move for ``position`` of the game ``game_id`` (see ``driver.play_level``)."""
    return play_level(LEVELS[game_id], position, level, limits, seed, top_n, stop, cap_ms=cap_ms, purpose=purpose)


__all__ = ["LEVELS", "Budget", "GameLevels", "Strategy", "best_move", "play_level"]
