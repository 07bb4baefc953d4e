"""Reading tic-tac-toe positions from their notation and their structured form; both end in ``checked``, which
holds a position to what play can reach (``page.md`` lists every check)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from service.core.errors import InvalidPosition, NotationError, RulesError
from tests.tictactoe.position import (
    COLUMNS,
    DEFAULT_K,
    EMPTY_CHAR,
    MARKS,
    MAX_K,
    MAX_NOTATION,
    MAX_SIDE,
    MIN_K,
    MIN_SIDE,
    O_CHAR,
    X_CHAR,
    TicTacToePosition,
    geometry,
    lines_within,
)


def checked(rows: int, cols: int, k: int, x: int, o: int, to_move: int) -> TicTacToePosition:
    """The position, if play can reach it, else InvalidPosition naming the field at fault (``cells``, ``k``,
    ``to_move``): X moves first, so X holds as many cells as O or one more; a seat with a line made the last
    move, and that move is in every line it has (two lines apart would mean the game went on after the first);
    the seat to move is ``0`` exactly when a seat has a line or the board is full, else the one the counts say.
    These checks are exact: every position that passes them is reached by some game (play the cells in any
    order, the winner's shared cell last)."""
    if not (MIN_SIDE <= rows <= MAX_SIDE and MIN_SIDE <= cols <= MAX_SIDE):
        raise InvalidPosition(f"the board is {rows}x{cols}; rows and columns are {MIN_SIDE} to {MAX_SIDE}", "cells")
    if not MIN_K <= k <= MAX_K:
        raise InvalidPosition(f"k must be {MIN_K}..{MAX_K}, not {k}", "k")
    if k > max(rows, cols):
        raise InvalidPosition(f"k is {k}, longer than the {rows}x{cols} board's longer side ({max(rows, cols)})", "k")
    geo = geometry(rows, cols, k)
    xs, os = x.bit_count(), o.bit_count()
    if xs - os not in (0, 1):
        raise InvalidPosition(
            f"X has {_count(xs)} and O {_count(os)}: X moves first, so X has as many cells as O or one more", "cells"
        )
    x_lines, o_lines = lines_within(x, geo), lines_within(o, geo)
    if x_lines and o_lines:
        raise InvalidPosition(f"both X and O have {k} in a row: the game ends at the first line", "cells")
    lines, seat = (x_lines, 1) if x_lines else (o_lines, 2)
    line = 0
    if lines:
        if (seat == 1) != (xs == os + 1):
            other = MARKS[3 - seat]
            raise InvalidPosition(
                f"{MARKS[seat]} has {k} in a row, but {other} moved after it: the game ends with the line", "cells"
            )
        shared = geo.full
        for found in lines:
            shared &= found
        if not shared:
            raise InvalidPosition(
                f"{MARKS[seat]} has two lines with no cell in common: the game ended when the first was made", "cells"
            )
        line = lines[0]
    over = bool(line) or x | o == geo.full
    if over and to_move != 0:
        why = f"{MARKS[seat]} has {k} in a row" if line else "the board is full"
        raise InvalidPosition(f"the game is over ({why}), so no seat is to move, not {to_move}", "to_move")
    expected = 1 if xs == os else 2
    if not over and to_move == 0:
        raise InvalidPosition(
            f"the game is not over (no line, and empty cells left), so seat {expected} ({MARKS[expected]}) is to move",
            "to_move",
        )
    if not over and to_move != expected:
        raise InvalidPosition(
            f"X has {_count(xs)} and O {_count(os)}, so seat {expected} ({MARKS[expected]}) is to move, not {to_move}",
            "to_move",
        )
    return TicTacToePosition(geo, x, o, to_move, line)


def _count(cells: int) -> str:
    return f"{cells} cell{'' if cells == 1 else 's'}"


def _marks(text: str, cols: int, error: type[RulesError], field: str) -> tuple[int, int]:
    """X's and O's bitboards of the cells ``text``, row by row from the top of a board ``cols`` wide."""
    x = o = 0
    for i, ch in enumerate(text):
        if ch == X_CHAR:
            x |= 1 << i
        elif ch == O_CHAR:
            o |= 1 << i
        elif ch != EMPTY_CHAR:
            row, col = divmod(i, cols)
            raise error(f"{COLUMNS[col]}{row + 1} is {ch[:1]!r}; a cell is x, o or . (empty), in lower case", field)
    return x, o


def parse_position(text: str) -> TicTacToePosition:
    if not isinstance(text, str):
        raise NotationError(f"a tic-tac-toe position is text, not {type(text).__name__}")
    if len(text) > MAX_NOTATION:
        raise NotationError(f"the notation is {len(text)} characters long; no tic-tac-toe position needs that many")
    parts = text.split(" ")
    if len(parts) not in (2, 3) or not all(parts):
        raise NotationError(
            "a tic-tac-toe position is the board rows joined by '/', the seat to move (1, 2 or - when over) and, "
            "when k is not 3, k=K, separated by single spaces, e.g. 'x.o/.x./... 2'"
        )
    board_text, seat_text = parts[0], parts[1]
    rows = board_text.split("/")
    if not MIN_SIDE <= len(rows) <= MAX_SIDE:
        raise NotationError(f"the board has {len(rows)} rows; a board has {MIN_SIDE} to {MAX_SIDE}")
    for r, row in enumerate(rows):
        if not MIN_SIDE <= len(row) <= MAX_SIDE:
            raise NotationError(f"row {r + 1} has {len(row)} cells; a row has {MIN_SIDE} to {MAX_SIDE}")
        for c, ch in enumerate(row):  # checked row by row, so the cell is named right even in ragged rows
            if ch not in (X_CHAR, O_CHAR, EMPTY_CHAR):
                raise NotationError(f"{COLUMNS[c]}{r + 1} is {ch!r}; a cell is x, o or . (empty), in lower case")
    cols = len(rows[0])
    if any(len(row) != cols for row in rows):
        raise InvalidPosition(f"the rows have {', '.join(str(len(row)) for row in rows)} cells: every row has as many")
    x, o = _marks("".join(rows), cols, NotationError, "")
    if seat_text not in ("1", "2", "-"):
        raise NotationError(f"the seat to move is 1, 2 or '-' (game over), not {seat_text[:8]!r}")
    k = DEFAULT_K
    if len(parts) == 3:
        written = parts[2]
        if written == f"k={DEFAULT_K}":
            raise NotationError(f"k={DEFAULT_K} is the default and is left out (the notation is canonical)")
        if len(written) != 3 or not written.startswith("k=") or written[2] not in "45":
            raise NotationError(f"the third field is k=4 or k=5 (k in a row wins; 3 is left out), not {written[:12]!r}")
        k = int(written[2])
    try:
        return checked(len(rows), cols, k, x, o, 0 if seat_text == "-" else int(seat_text))
    except InvalidPosition as error:
        # A notation error names no field: the whole text is the thing being read.
        raise InvalidPosition(error.message) from None


FIELDS = ("rows", "cols", "k", "cells", "to_move")


def _whole(value: object, field: str) -> int:
    """A whole number: an int, or a float without a fraction (the generic structured form carries every number
    as a double, as JSON does)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidPosition(f"{field} must be a whole number, not {type(value).__name__}", field)
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise InvalidPosition(f"{field} must be a whole number, not {value}", field)
    return int(value)


def position_from_fields(fields: Mapping[str, object]) -> TicTacToePosition:
    """``{"rows": 3, "cols": 3, "k": 3, "cells": "x.o.x....", "to_move": 2}``: a missing field reads as 0 or
    "", as proto3 sends it."""
    if not isinstance(fields, Mapping):
        raise InvalidPosition("a tic-tac-toe position is an object with the fields " + ", ".join(FIELDS))
    for key in fields:
        if key not in FIELDS:
            raise InvalidPosition(f"unknown field {str(key)[:40]!r} in a tic-tac-toe position", str(key)[:40])
    rows, cols = _whole(fields.get("rows", 0), "rows"), _whole(fields.get("cols", 0), "cols")
    for name, side in (("rows", rows), ("cols", cols)):
        if not MIN_SIDE <= side <= MAX_SIDE:
            raise InvalidPosition(f"{name} must be {MIN_SIDE}..{MAX_SIDE}, not {side}", name)
    k = _whole(fields.get("k", 0), "k")
    cells = fields.get("cells", "")
    if not isinstance(cells, str):
        raise InvalidPosition(f"cells must be a string of x, o and ., not {type(cells).__name__}", "cells")
    if len(cells) != rows * cols:
        raise InvalidPosition(
            f"cells lists the {rows}x{cols} board row by row: {rows * cols} characters, not {len(cells)}", "cells"
        )
    x, o = _marks(cells, cols, InvalidPosition, "cells")
    to_move = _whole(fields.get("to_move", 0), "to_move")
    if to_move not in (0, 1, 2):
        raise InvalidPosition(f"to_move is {to_move}; expected 1, 2 or 0 (game over)", "to_move")
    return checked(rows, cols, k, x, o, to_move)
