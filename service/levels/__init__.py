"""The levels: which algorithm, evaluation and budget each best-move level of each game uses.

One module per game (``reversi.py``, ``kalah.py``, …) declares its levels as GetGame lists them and the
strategy that plays each, composed from the game-independent search (``service/search``), the engine's
evaluation features and, where a game has them, its plug-ins (endgame solvers, native kernels). Each game's
registration (``service/games``) names its levels; ``driver.py`` is what every game shares (seeds, the
Deadline), ``budget.py`` the budget policy: what the caller asked beside what the level declares, and every
bound the search runs with.
"""

from __future__ import annotations

from service.levels.budget import Budget
from service.levels.driver import GameLevels, play_level
from service.levels.ladder import Strategy

__all__ = ["Budget", "GameLevels", "Strategy", "play_level"]
