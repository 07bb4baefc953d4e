"""Strands (Nick Bentley, 2022): the rules engine. The rules and notations are written in ``docs/games/strands.md``.

Black opens by covering one empty 2; then White and Black alternate, each turn covering up to X (option
``exact_count``: exactly min(X, empty)) empty cells of one label X. When the board is full, the sorted group sizes
are compared entry by entry (a longer list wins over its own prefix).

Modules, each one concern:

- ``layouts.py``: hexhex geometry, cell names, the named and the random label layouts;
- ``groups.py``: a colour's groups and the comparison of group sizes that decides the game;
- ``moves.py``: the evaluation features and move hints: the covers a search considers (full covers, capped at
  CANDIDATE_CAP), the estimated margin, the quick moves of playouts;
- ``position.py``: the state and the rules (``StrandsPosition``), moves paged without listing them;
- ``notation.py``: reading positions from the notation and the structured fields, and checking they could arise;
- ``game.py``: the game (``StrandsGame``): options, notation help, the start position.

Which search each best-move level uses is ``service/levels``' business.
"""

from service.engines.strands.game import StrandsGame
from service.engines.strands.groups import compare_group_sizes, group_masks, sorted_group_sizes
from service.engines.strands.layouts import Layout
from service.engines.strands.moves import CANDIDATE_CAP, StrandsMove
from service.engines.strands.position import StrandsPosition

GAME = StrandsGame()

__all__ = [
    "CANDIDATE_CAP",
    "GAME",
    "Layout",
    "StrandsGame",
    "StrandsMove",
    "StrandsPosition",
    "compare_group_sizes",
    "group_masks",
    "sorted_group_sizes",
]
