"""The registry of the games' rules engines: one line per game. The transport and the tests are generic over it.

Each engine is a package here (state and rules, notation, evaluation features) written against the contract
in ``service/core/contract.py``; each game's rules and notation are in ``docs/games/<game-id>.md``. Engines
import only ``service.core``, so this registry loads them eagerly.
"""

from __future__ import annotations

from service.core.contract import Game
from service.engines import dots_and_boxes, kalah, petak_sawah, reversi, strands

# Adding a game = one entry here (and one in ``service/levels``).
GAMES: dict[str, Game] = {
    engine.GAME.id: engine.GAME for engine in (reversi, kalah, dots_and_boxes, petak_sawah, strands)
}

__all__ = ["GAMES"]
