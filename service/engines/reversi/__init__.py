"""Reversi (Othello): the rules engine, with bitboards on Python ints.

The rules and notation are written in ``docs/games/reversi.md``; the engine contract in
``service/core/contract.py``. Modules: ``bitboards`` (geometry and bit tricks), ``position`` (the state and the
rules, perft), ``notation`` (reading positions, with every validity check), ``evaluation`` (the features of
the estimate), ``game`` (the factory). The levels and the endgame solver are in ``service/levels``.

Board and squares. Square ``row * size + col`` is bit ``1 << (row * size + col)`` of a Python int, with
column letters ``a``.. left to right and row numbers ``1``.. top to bottom (``c2`` is the third column of the
second row), so ``a1`` is 0 -- the same numbering as OpenSpiel's ``othello``. Boards are any
even size 4..16; the centre pattern is the 8×8 one scaled (on 8×8: d4 and e5 White, e4 and d5 Black).

Choices made where the rules are silent (each documented where it is implemented too):

- Moves are ints: a square index, or ``PASS`` (-1). ``legal_moves`` lists placements in board order (row by
  row from the top, left to right); when the seat to move has no placement but the other seat has one, the
  single move ``pass``.
- ``apply`` and ``play`` play forced passes themselves: after a placement, if the next seat has no placement
  but the mover still has one, the next seat passes at once (reported as a ``pass`` event) and the mover
  moves again. So positions reached by play never need ``pass``; a caller's position may still ask for it.
- A position names the seat that holds Black (``black_seat``, default 1); Black moves first at the start.
- Position validation: beyond sizes and characters, the four centre squares must be occupied and all discs
  must form one 8-connected group (each disc is placed next to an opponent disc and discs never leave the
  board, so every reachable position has both); ``to_move`` is ``-``/0 exactly when neither seat has a
  placement. Other unreachable positions are accepted: deciding reachability is a search of its own.
- Perft (``perft``) counts a forced pass as a ply and a finished game contributes 0 at any remaining depth,
  matching the reference figures of the rules.
- ``final_value`` is the disc margin, empty squares counted for nobody (the rules: "Empty squares count for
  nobody"); ``evaluate`` estimates the same margin.
- Position notation: ``<rows from the top joined by /> <seat to move, or - when over> black=<seat>``, squares
  ``B`` Black, ``W`` White, ``.`` empty; the start of the 8×8 game is
  ``......../......../......../...WB.../...BW.../......../......../........ 1 black=1``. Parsing is strict
  (canonical form only). Moves read ``d3`` or ``pass`` in either case and are written in lower case.
- Error fields name the proto field of ``ReversiPosition`` / ``ReversiMove`` (``board``, ``to_move``,
  ``black_seat``, ``square``, ``is_pass``); the same names are used for the matching part of the notation, and
  "" when a notation string is wrong as a whole.
"""

from service.engines.reversi.bitboards import DEFAULT_SIZE, MAX_SIZE, MIN_SIZE
from service.engines.reversi.game import ReversiGame
from service.engines.reversi.position import PASS, ReversiMove, ReversiPosition, perft

GAME = ReversiGame()

__all__ = [
    "DEFAULT_SIZE",
    "GAME",
    "MAX_SIZE",
    "MIN_SIZE",
    "PASS",
    "ReversiGame",
    "ReversiMove",
    "ReversiPosition",
    "perft",
]
