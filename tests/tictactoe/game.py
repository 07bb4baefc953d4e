"""The tic-tac-toe game: identity, options and notation help, and the readers of positions (``page.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from service.core.contract import Game, int_option
from service.core.errors import InvalidOption
from service.core.values import OptionSpec
from tests.tictactoe import notation
from tests.tictactoe.position import (
    DEFAULT_K,
    DEFAULT_SIDE,
    MAX_K,
    MAX_SIDE,
    MIN_K,
    MIN_SIDE,
    TicTacToePosition,
    geometry,
)


class TicTacToeGame(Game):
    """m,n,k tic-tac-toe: the factory of ``TicTacToePosition``s."""

    id: ClassVar[str] = "tic-tac-toe"
    title: ClassVar[str] = "Tic-tac-toe"
    description: ClassVar[str] = (
        "m,n,k tic-tac-toe: X and O take turns marking an empty cell of a board of 3 to 5 rows and columns; "
        "the first to have k marks in a row, across, down or diagonally, wins; a full board without one is a draw."
    )
    seat_names: ClassVar[tuple[str, str]] = ("X", "O")
    # A win by k in a row: a way of ending no game of the service's shares (its page, "Result").
    result_reasons: ClassVar[tuple[str, ...]] = ("line",)
    options: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("rows", "int", DEFAULT_SIDE, "Rows of the board.", MIN_SIDE, MAX_SIDE),
        OptionSpec("cols", "int", DEFAULT_SIDE, "Columns of the board.", MIN_SIDE, MAX_SIDE),
        OptionSpec(
            "k", "int", DEFAULT_K, "Marks in a row that win: at most the longer side of the board.", MIN_K, MAX_K
        ),
    )
    position_notation_help: ClassVar[str] = (
        "Two fields separated by a single space, and a third when k is not 3: the board rows from the top (row 1) "
        "down, joined by '/', each row its cells from column a rightwards as x, o or . (empty), in lower case; "
        "the seat to move (1 or 2, - once the game is over); k=4 or k=5, the marks in a row that win, left out "
        "when it is 3. The board has 3 to 5 rows of the same length, 3 to 5 cells, and k is at most the longer "
        "side. Seat 1 plays x and moves first, so x has as many cells as o or one more. A seat with k in a row made "
        "the last move, and that move is in every line it has; the other seat has no line. The seat to move is - "
        "exactly when a seat has k in a row or the board is full, otherwise 1 when x and o have as many cells and "
        "2 when x has one more. Start of the 3x3 game: '.../.../... 1'; after b2 a1: 'o../.x./... 1'; four in a "
        "row on 5x5: '...../...../...../...../..... 1 k=4'."
    )
    move_notation_help: ClassVar[str] = (
        "A cell as column letter and row number, columns a.. from the left and rows 1.. from the top (b2 is the "
        "centre of 3x3), in either case. The cell must be empty; the mover is the seat to move."
    )

    def new_position(self, options: Mapping[str, object] | None = None, seed: str = "") -> TicTacToePosition:
        """``Game.new_position``, typed as this game's position."""
        return self.start_position(self.checked_options(options or {}), seed)

    def start_position(self, options: Mapping[str, object], seed: str) -> TicTacToePosition:
        """The empty board, X (seat 1) to move; ``seed`` is unused (the game has no randomness)."""
        rows, cols, k = int_option(options, "rows"), int_option(options, "cols"), int_option(options, "k")
        if k > max(rows, cols):
            raise InvalidOption(f"k is {k}, longer than the {rows}x{cols} board's longer side ({max(rows, cols)})", "k")
        return TicTacToePosition(geometry(rows, cols, k), 0, 0, 1, 0)

    def parse_position(self, text: str) -> TicTacToePosition:
        return notation.parse_position(text)

    def position_from_fields(self, fields: Mapping[str, object]) -> TicTacToePosition:
        return notation.position_from_fields(fields)
