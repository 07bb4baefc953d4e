"""The Petak Sawah game: identity, options and notation help, the start position and the readers of positions
(``docs/games/petak-sawah.md``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from service.core.contract import Game, cells_option, int_option
from service.core.errors import InvalidOption
from service.core.values import OptionSpec
from service.engines.petak_sawah import notation
from service.engines.petak_sawah.board import (
    DEFAULT_OPENER,
    DEFAULT_ROCKS,
    DEFAULT_SIDE,
    MAX_SIDE,
    MIN_SIDE,
    Board,
    board_of,
    rocks_from_seed,
)
from service.engines.petak_sawah.position import PetakSawahPosition


class PetakSawahGame(Game):
    """The Petak Sawah factory: options, position readers."""

    id: ClassVar[str] = "petak-sawah"
    title: ClassVar[str] = "Petak Sawah"
    description: ClassVar[str] = (
        "Rice-field plots: take empty cells of a small board with rocks in turn; each cell scores one point "
        "per orthogonal neighbour you already own. More points wins, then the larger largest group, then the "
        "seat that did not open."
    )
    seat_names: ClassVar[tuple[str, str]] = ("Seat 1", "Seat 2")
    options: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("rows", "int", DEFAULT_SIDE, "Rows of the board.", MIN_SIDE, MAX_SIDE),
        OptionSpec("cols", "int", DEFAULT_SIDE, "Columns of the board.", MIN_SIDE, MAX_SIDE),
        OptionSpec(
            "rocks",
            "int",
            DEFAULT_ROCKS,
            "How many rock cells, placed uniformly at random from the seed; the cells left must be an even "
            "number, at least 2. With rock_cells, leave it at its default or give the same count.",
            0,
            MAX_SIDE * MAX_SIDE - 2,
        ),
        OptionSpec(
            "rock_cells",
            "cells",
            (),
            "Explicit rock cells (e.g. ['c1', 'b3']); when given they replace the random rocks.",
        ),
        OptionSpec("opener", "int", DEFAULT_OPENER, "The seat that moves first.", 1, 2),
    )
    position_notation_help: ClassVar[str] = (
        "Three fields separated by spaces: the rows top to bottom joined by '/', one character per cell from "
        "column a: '.' empty, '#' rock, '1' or '2' taken by that seat; then the seat to move ('1', '2', or '-' "
        "once the game is over); then 'opener=1' or 'opener=2', the seat that moved first. The board has 2..12 "
        "rows of the same length, 2..12 cells. The cells that are not rocks (the cultivable cells) must number "
        "at least 2 and be even, so both seats get the same number of turns. The opener holds as many cells as "
        "the other seat or one more; the seat to move is the opener when both hold the same number, the other "
        "seat when the opener holds one more, and '-' exactly when every cultivable cell is taken. Start: "
        "'..#../.#.../...#./#...#/..... 1 opener=1'; after a1, e5, b1: '11#../.#.../...#./#...#/....2 2 opener=1'."
    )
    move_notation_help: ClassVar[str] = (
        "The cell to take: column letter and row number from the top, e.g. 'c2'. It must be empty and not a rock."
    )

    def start_position(self, options: Mapping[str, object], seed: str) -> PetakSawahPosition:
        """The start position; random rocks from ``seed`` unless ``rock_cells`` lists them."""
        board = board_of(int_option(options, "rows"), int_option(options, "cols"))
        listed = cells_option(options, "rock_cells")
        if listed:
            rocks = _listed_rocks(board, listed, int_option(options, "rocks"))
        else:
            count = int_option(options, "rocks")
            if not 0 <= count <= board.size - 2:
                raise InvalidOption(
                    f"rocks must be 0..{board.size - 2} on a {board.rows}x{board.cols} board, not {count}", "rocks"
                )
            rocks = sum(1 << cell for cell in rocks_from_seed(seed, board.size, count))
            notation.check_cultivable(board, rocks, InvalidOption, "rocks")
        return PetakSawahPosition(board, rocks, 0, 0, int_option(options, "opener"))

    def parse_position(self, text: str) -> PetakSawahPosition:
        """Read the notation (see ``position_notation_help``)."""
        return notation.parse_position(text)

    def position_from_fields(self, fields: Mapping[str, object]) -> PetakSawahPosition:
        """Read the ``PetakSawahPosition`` message (cell lists in any order)."""
        return notation.position_from_fields(fields)


def _listed_rocks(board: Board, listed: Sequence[str], count: int) -> int:
    """The rock mask of the option ``rock_cells``, which ``rocks`` (the count) must leave at its default or
    agree with."""
    if len(listed) > board.size:
        raise InvalidOption(f"rock_cells lists {len(listed)} cells; the board has {board.size}", "rock_cells")
    rocks = 0
    for k, value in enumerate(listed):
        cell = board.parse_cell(value)
        if cell < 0:
            raise InvalidOption(board.describe_bad_cell(value), f"rock_cells[{k}]")
        if rocks >> cell & 1:
            raise InvalidOption(f"{value} is listed twice", f"rock_cells[{k}]")
        rocks |= 1 << cell
    if count not in (DEFAULT_ROCKS, len(listed)):
        raise InvalidOption(
            f"rocks is {count} but rock_cells lists {len(listed)} cells; leave rocks out or make them agree",
            "rocks",
        )
    notation.check_cultivable(board, rocks, InvalidOption, "rock_cells")
    return rocks
