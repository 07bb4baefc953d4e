"""Reading Petak Sawah positions from their notation and structured form, and the rocks of the options, with
every validity check (``docs/games/petak-sawah.md`` lists them)."""

from __future__ import annotations

from collections.abc import Mapping

from service.core.errors import InvalidPosition, NotationError
from service.engines.petak_sawah.board import EMPTY, MAX_NOTATION, MAX_SIDE, MIN_SIDE, ROCK, Board, board_of
from service.engines.petak_sawah.position import PetakSawahPosition


def check_side(value: object, name: str, error: type[Exception]) -> int:
    if type(value) is not int:
        raise error(f"{name} must be an integer, not {type(value).__name__}", name)
    if not MIN_SIDE <= value <= MAX_SIDE:
        raise error(f"{name} must be {MIN_SIDE}..{MAX_SIDE}, not {value}", name)
    return value


def check_cultivable(board: Board, rocks: int, error: type[Exception], field: str) -> None:
    cultivable = board.size - rocks.bit_count()
    if cultivable < 2:
        raise error(
            f"a {board.rows}x{board.cols} board with {rocks.bit_count()} rocks leaves {cultivable} cultivable "
            "cells; at least 2 are needed",
            field,
        )
    if cultivable % 2:
        raise error(
            f"a {board.rows}x{board.cols} board with {rocks.bit_count()} rocks leaves {cultivable} cultivable "
            "cells; the number must be even so both seats get the same number of turns",
            field,
        )


def _cell_list(board: Board, values: object, name: str, taken: int) -> int:
    """The mask of a list of cell names from the structured form, rejecting repeats and cells in ``taken``."""
    if not isinstance(values, list | tuple):
        raise InvalidPosition(f"{name} must be a list of cell names, not {type(values).__name__}", name)
    if len(values) > board.size:
        raise InvalidPosition(f"{name} lists {len(values)} cells; the board has only {board.size}", name)
    mask = 0
    for k, value in enumerate(values):
        cell = board.parse_cell(value)
        if cell < 0:
            raise InvalidPosition(board.describe_bad_cell(value), f"{name}[{k}]")
        bit = 1 << cell
        if mask & bit:
            raise InvalidPosition(f"{value} is listed twice in {name}", f"{name}[{k}]")
        if taken & bit:
            raise InvalidPosition(f"{value} is already a rock or taken by the other seat", f"{name}[{k}]")
        mask |= bit
    return mask


def parse_position(text: str) -> PetakSawahPosition:
    """Read the notation (see ``position_notation_help``)."""
    if not isinstance(text, str):
        raise NotationError(f"a position notation must be a string, not {type(text).__name__}", "")
    if len(text) > MAX_NOTATION:
        raise NotationError(f"position notation is {len(text)} characters; at most {MAX_NOTATION}", "")
    parts = text.split()
    if len(parts) != 3:
        raise NotationError(f"expected 3 space-separated fields (board, seat to move, opener=N), got {len(parts)}", "")
    board_text, seat_text, opener_text = parts
    rows_text = board_text.split("/")
    rows = len(rows_text)
    cols = len(rows_text[0])
    if not MIN_SIDE <= rows <= MAX_SIDE:
        raise NotationError(f"the board has {rows} rows; {MIN_SIDE}..{MAX_SIDE} are allowed", "")
    if not MIN_SIDE <= cols <= MAX_SIDE:
        raise NotationError(f"the first row has {cols} cells; {MIN_SIDE}..{MAX_SIDE} are allowed", "")
    for r, row in enumerate(rows_text):
        if len(row) != cols:
            raise NotationError(f"row {r + 1} has {len(row)} cells but row 1 has {cols}", "")
    board = board_of(rows, cols)
    masks = {EMPTY: 0, ROCK: 0, "1": 0, "2": 0}
    for i, char in enumerate("".join(rows_text)):
        if char not in masks:
            raise NotationError(f"unexpected {char!r} at {board.names[i]}: cells are '.', '#', '1' or '2'", "")
        masks[char] |= 1 << i
    if not opener_text.startswith("opener=") or opener_text[7:] not in ("1", "2"):
        raise NotationError(f"expected 'opener=1' or 'opener=2' as the third field, got {opener_text[:20]!r}", "")
    opener = int(opener_text[7:])
    if seat_text not in ("1", "2", "-"):
        raise NotationError(f"the seat to move must be '1', '2' or '-', got {seat_text[:20]!r}", "")
    to_move = 0 if seat_text == "-" else int(seat_text)
    return checked(board, masks[ROCK], masks["1"], masks["2"], opener, to_move, ("", "", ""))


def position_from_fields(fields: Mapping[str, object]) -> PetakSawahPosition:
    """Read the ``PetakSawahPosition`` message (cell lists in any order)."""
    if not isinstance(fields, Mapping):
        raise InvalidPosition(f"a position must be a message, not {type(fields).__name__}", "")
    rows = check_side(fields.get("rows", 0), "rows", InvalidPosition)
    cols = check_side(fields.get("cols", 0), "cols", InvalidPosition)
    board = board_of(rows, cols)
    opener = fields.get("opener", 0)
    if type(opener) is not int or opener not in (1, 2):
        raise InvalidPosition(f"opener must be 1 or 2, not {opener!r}", "opener")
    to_move = fields.get("to_move", 0)
    if type(to_move) is not int or to_move not in (0, 1, 2):
        raise InvalidPosition(f"to_move must be 0, 1 or 2, not {to_move!r}", "to_move")
    rocks = _cell_list(board, fields.get("rocks", []), "rocks", 0)
    own1 = _cell_list(board, fields.get("seat1_cells", []), "seat1_cells", rocks)
    own2 = _cell_list(board, fields.get("seat2_cells", []), "seat2_cells", rocks | own1)
    return checked(board, rocks, own1, own2, opener, to_move, ("rocks", "seat1_cells", "seat2_cells"))


def checked(
    board: Board,
    rocks: int,
    own1: int,
    own2: int,
    opener: int,
    to_move: int,
    fields: tuple[str, str, str],
) -> PetakSawahPosition:
    """The position after the checks both readers share: cultivable count, cell counts, seat to move.
    ``fields`` names where the rocks, seat 1's cells and seat 2's cells came from, for the errors."""
    check_cultivable(board, rocks, InvalidPosition, fields[0])
    count1, count2 = own1.bit_count(), own2.bit_count()
    opened, other = (count1, count2) if opener == 1 else (count2, count1)
    if opened - other not in (0, 1):
        # Name the list that holds too many cells.
        crowded = 1 if (count1 > count2) else 2
        raise InvalidPosition(
            f"seat 1 has {count1} cells and seat 2 has {count2}, but seat {opener} opened: the opener must "
            "have as many cells as the other seat or one more",
            fields[crowded],
        )
    position = PetakSawahPosition(board, rocks, own1, own2, opener)
    if to_move != position.to_move:
        expected = str(position.to_move) if position.to_move else "none (the game is over)"
        raise InvalidPosition(
            f"with {count1 + count2} cells taken and seat {opener} opening, the seat to move is {expected}, "
            f"not {to_move or 'none'}",
            "to_move" if fields[0] else "",
        )
    return position
