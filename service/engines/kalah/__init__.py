"""Kalah (the Mancala most portals mean): the rules engine. Rules and notation: ``docs/games/kalah.md``.

Seat 1 is **South** (bottom row, store on the east), seat 2 is **North** (top row, store on the west).
Each seat numbers its own pits ``1..N`` from its own left, so pit ``N`` is next to its own store, and a move
is just that number (``"3"``): the mover is the seat to move.

Internal state: one tuple of ints in **sowing order** (counter-clockwise) starting from South's pit 1::

    index 0 .. N-1      South's pits 1..N
    index N             South's store
    index N+1 .. 2N     North's pits 1..N
    index 2N+1          North's store

so sowing is "index + 1, wrapping, skipping the opponent's store", and the pit opposite index ``i`` (a pit) is
index ``2N - i``. A move is the int pit number ``1..N`` of the seat to move.

Position notation (one line, three space-separated fields)::

    4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4

- the board: South's pits 1..N from South's left then South's store, ``/``, North's pits 1..N from North's
  left then North's store (each side read the way its owner sees it, store at the right-hand end; the
  whole is the sowing cycle from South's pit 1);
- the seat to move, ``1`` or ``2``, or ``-`` once the game is over;
- ``seeds=K``: the seeds per pit the game started with (the position's total must be ``2 * N * K``).

Events of ``apply``: ``sow`` (cells: the pit sown from and the hole the last seed reached; count: seeds
sown), ``capture`` (cells: the landing pit and the pit opposite; count: seeds taken, the last seed included),
``extra_turn``, ``sweep`` (one per side that still held seeds at the end; count: seeds moved to the store) and
``game_over`` (seat: the winner, 0 for a draw).

Modules: ``position`` (the state and the rules, with the evaluation features the levels use), ``notation``
(reading positions, with every validity check), ``game`` (the factory). The levels and the native search
kernel's plug-in are in ``service/levels``.

Choices where the rules are silent:
- The pit count is the length of each side's list; ``seeds_per_pit`` is carried because the options chose
  it, and the total is checked against it. ``first_seat`` is not part of a position (no history).
- A finished position has every pit empty (the sweep happened) and no seat to move; a position with one side
  empty and the other not is impossible (the game would already have ended and swept), and so rejected.
- Reachability beyond counts is not checked (any non-negative split of the right total is accepted).
- Event cells name holes ``S1``..``SN``, ``N1``..``NN`` (each side's own numbering), ``S-store``, ``N-store``.
- No ``extra_turn`` event when the move that ended in the store also ended the game; ``sweep`` events
  only for a side that still held seeds.
"""

from service.engines.kalah.game import KalahGame
from service.engines.kalah.position import MAX_PITS, MAX_SEEDS, MIN_PITS, MIN_SEEDS, KalahMove, KalahPosition

GAME = KalahGame()

__all__ = ["GAME", "MAX_PITS", "MAX_SEEDS", "MIN_PITS", "MIN_SEEDS", "KalahGame", "KalahMove", "KalahPosition"]
