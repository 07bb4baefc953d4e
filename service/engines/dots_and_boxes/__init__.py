"""Dots and Boxes, with the optional pie rule: the rules engine. The rules and notations are written in
``docs/games/dots-and-boxes.md``.

Modules, each one concern:

- ``geometry.py``: the lines and boxes of every board size, their names, and the board's symmetries
  (``canonical_lines``: one key per class of equivalent line sets);
- ``chains.py``: the evaluation features: chains and loops of open boxes, the simple loony endgame's exact value
  (``loony_value``), the estimate of the boxes not yet complete (``estimate_rest``), and the sound reductions the
  search plays (``play_moves``);
- ``position.py``: the state and the rules (``DotsAndBoxesPosition``);
- ``notation.py``: reading positions from the notation and from the structured fields;
- ``game.py``: the game (``DotsAndBoxesGame``): options, notation help, the start position.

Which search each best-move level uses, and the exact solver of small endgames, are ``service/levels``' business.
"""

from service.engines.dots_and_boxes.chains import estimate_rest, loony_value, play_moves, run_lengths, side_counts
from service.engines.dots_and_boxes.game import DotsAndBoxesGame
from service.engines.dots_and_boxes.geometry import Geometry, canonical_lines, geometry, line_symmetries
from service.engines.dots_and_boxes.position import (
    CHOICE,
    KEEP,
    PLAY,
    SETUP,
    STOP,
    SWAP,
    DotsAndBoxesMove,
    DotsAndBoxesPosition,
)

GAME = DotsAndBoxesGame()

__all__ = [
    "CHOICE",
    "GAME",
    "KEEP",
    "PLAY",
    "SETUP",
    "STOP",
    "SWAP",
    "DotsAndBoxesGame",
    "DotsAndBoxesMove",
    "DotsAndBoxesPosition",
    "Geometry",
    "canonical_lines",
    "estimate_rest",
    "geometry",
    "line_symmetries",
    "loony_value",
    "play_moves",
    "run_lengths",
    "side_counts",
]
