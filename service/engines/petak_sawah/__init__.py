"""Petak Sawah ("rice-field plots"): the rules engine. Rules and notation:
``docs/games/petak-sawah.md``.

A rows×cols grid (default 5×5) with some rock cells; the two seats alternate taking one empty cultivable
cell each, and a cell scores one point per orthogonal neighbour the taker already owns. When every
cultivable cell is taken, more points wins, then the larger largest orthogonal group, then the seat that
did not open: never a draw.

Inside, a position is a few integers over the cells numbered ``row * cols + col`` (row 0 at the top):
the rock mask, each seat's mask and the opener, all packed again into one ``key`` for cheap hashing and
equality (the search's transposition table). Points are counted from the board (each orthogonally
adjacent pair of a seat's cells is one point), so a position needs no history.

Choices made where the rules are silent:

- Seat names are plain "Seat 1" / "Seat 2": the game has no side names of its own.
- Cells are named like every square grid here: column letter then row number from the top (``c2``).
- Random rocks (``Game.new_position`` with no ``rock_cells``) are a partial Fisher–Yates shuffle of the cells
  in board order driven by a SHA-256 stream, so they are the same on every machine and Python version; see
  ``rocks_from_seed`` for the exact recipe. Only the rocks depend on the seed.
- Option ``rock_cells`` (explicit rocks) replaces the random rocks when non-empty. Option ``rocks`` (the
  count) must then be left at its default (5, or absent) or equal the number of listed cells; any other
  count is an error. An empty ``rock_cells`` list means "random rocks"; ask for no rocks with ``rocks=0``.
- The seat to move is not free: with *k* cells taken it is the opener when *k* is even, the other seat when
  *k* is odd, and none (0) once every cultivable cell is taken; positions saying otherwise are rejected,
  as are positions where the opener does not own exactly as many cells as the other seat or one more.
- ``ApplyMove`` reports a ``place`` event, then a ``points`` event on every move (count 0 included; its
  cells are the taken cell followed by the own neighbours that scored), then ``game_over`` after the last.
- Values for best move are points margins from the mover's view; a finished game tied on points counts
  ±½ for the tie-break winner/loser (the rules), so an exact value of 0.5 means "wins on a tie-break".

Modules: ``board`` (the geometry of one board size, seeded rocks), ``position`` (the state and the rules,
with the evaluation features), ``notation`` (reading positions and options' cells, with every validity check),
``game`` (the factory). The levels are in ``service/levels/petak_sawah.py``.
"""

from service.engines.petak_sawah.board import rocks_from_seed
from service.engines.petak_sawah.game import PetakSawahGame
from service.engines.petak_sawah.position import PetakSawahMove, PetakSawahPosition

GAME = PetakSawahGame()

__all__ = ["GAME", "PetakSawahGame", "PetakSawahMove", "PetakSawahPosition", "rocks_from_seed"]
