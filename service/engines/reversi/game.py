"""The Reversi game: identity, options and notation help, and the readers of positions
(``docs/games/reversi.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from service.core.contract import Game, int_option
from service.core.values import OptionSpec
from service.engines.reversi import notation
from service.engines.reversi.bitboards import DEFAULT_SIZE, MAX_SIZE, MIN_SIZE
from service.engines.reversi.position import ReversiPosition


class ReversiGame(Game):
    """Reversi (Othello) on even boards 4..16."""

    id: ClassVar[str] = "reversi"
    title: ClassVar[str] = "Reversi (Othello)"
    description: ClassVar[str] = (
        "Place a disc to bracket opponent discs in a line and flip them; a seat with no placement passes. "
        "When neither seat can place, the most discs wins; equal discs is a draw."
    )
    seat_names: ClassVar[tuple[str, str]] = ("Black", "White")
    options: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("size", "int", DEFAULT_SIZE, "Board side: an even number of squares.", MIN_SIZE, MAX_SIZE, step=2),
        OptionSpec("black_seat", "int", 1, "The seat that plays Black and moves first.", 1, 2),
    )
    position_notation_help: ClassVar[str] = (
        "Three fields separated by single spaces: the board rows from the top (row 1) down, joined by '/', each "
        "row its squares from column a rightwards as B (Black), W (White) or . (empty); the seat to move (1 or "
        "2, - once the game is over); black=1 or black=2, the seat playing Black. The board is square, with an "
        "even side from 4 to 16. A position is accepted only if the four centre squares are occupied, every "
        "disc touches another (through the 8 neighbouring squares) so that all discs form one group, and the "
        "seat to move is - exactly when neither seat has a placement (a seat to move without one must pass). "
        "Start of the 8x8 game: ......../......../......../...WB.../...BW.../......../......../........ 1 "
        "black=1; after d3 c5: ......../......../...B..../...BB.../..WWW.../......../......../........ 1 black=1"
    )
    move_notation_help: ClassVar[str] = (
        "A square as column letter and row number, columns a.. from the left and rows 1.. from the top (d3), "
        "in either case, or 'pass', legal only when the seat to move has no placement. A placement must be on "
        "an empty square and bracket at least one line of opponent discs."
    )

    def start_position(self, options: Mapping[str, object], seed: str) -> ReversiPosition:
        """The start position; ``seed`` is unused (Reversi has no randomness)."""
        size = int_option(options, "size")
        black_seat = int_option(options, "black_seat")
        m = size // 2
        white = (1 << ((m - 1) * size + m - 1)) | (1 << (m * size + m))
        black = (1 << ((m - 1) * size + m)) | (1 << (m * size + m - 1))
        return notation.checked_position(size, black, white, black_seat, black_seat)

    def parse_position(self, text: str) -> ReversiPosition:
        return notation.parse_position(text)

    def position_from_fields(self, fields: Mapping[str, object]) -> ReversiPosition:
        return notation.position_from_fields(fields)
