"""Reading Reversi positions from their notation and their structured form, with every validity check
(``docs/games/reversi.md`` lists them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.core.bits import set_bits
from service.core.contract import is_int
from service.core.errors import InvalidPosition, NotationError
from service.engines.reversi.bitboards import (
    BLACK_CHAR,
    COLUMNS,
    EMPTY_CHAR,
    GEOMETRIES,
    MAX_NOTATION,
    MAX_SIZE,
    MIN_SIZE,
    WHITE_CHAR,
    neighbour_mask,
    placement_mask,
)
from service.engines.reversi.position import ReversiPosition


def board_from_rows(rows: Sequence[object], field: str, error: type[Exception]) -> tuple[int, int, int]:
    """(size, black, white) from rows of ``B``/``W``/``.``; ``error`` is the class to raise."""
    size = len(rows)
    if size < MIN_SIZE or size > MAX_SIZE or size % 2:
        raise error(f"the board has {size} rows; a Reversi board is square with an even size from 4 to 16", field)
    black = 0
    white = 0
    for r, row in enumerate(rows):
        if not isinstance(row, str):
            raise error(f"board row {r + 1} must be a string of B, W and .", field)
        if len(row) != size:
            raise error(f"board row {r + 1} has {len(row)} squares, expected {size} (the board is square)", field)
        for c, ch in enumerate(row):
            if ch == EMPTY_CHAR:
                continue
            bit = 1 << (r * size + c)
            if ch == BLACK_CHAR:
                black |= bit
            elif ch == WHITE_CHAR:
                white |= bit
            else:
                name = f"{COLUMNS[c]}{r + 1}"
                raise error(f"board square {name} is {ch[:1]!r}; squares are B (Black), W (White) or . (empty)", field)
    return size, black, white


def checked_position(size: int, black: int, white: int, to_move: int, black_seat: int) -> ReversiPosition:
    """Reject positions no game can reach by the checks in the module docstring; InvalidPosition."""
    geo = GEOMETRIES[size]
    occupied = black | white
    if occupied & geo.centre != geo.centre:
        names = ", ".join(geo.names[i] for i in set_bits(geo.centre & ~occupied))
        raise InvalidPosition(f"centre square(s) {names} are empty, but the centre is occupied from the start", "board")
    # Flood fill from the centre: every disc was placed next to a disc already on the board.
    group = geo.centre
    while True:
        grown = (group | neighbour_mask(group, geo)) & occupied
        if grown == group:
            break
        group = grown
    if group != occupied:
        name = geo.names[set_bits(occupied & ~group)[0]]
        raise InvalidPosition(
            f"the disc on {name} is cut off from the others; each disc is placed next to one on the board", "board"
        )
    black_moves = placement_mask(black, white, geo)
    white_moves = placement_mask(white, black, geo)
    if not black_moves and not white_moves:
        if to_move != 0:
            raise InvalidPosition("neither seat has a placement, so the game is over and nobody is to move", "to_move")
        return ReversiPosition(size, black, white, 0, black_seat, 0)
    if to_move == 0:
        raise InvalidPosition("the game is not over (a placement exists), so a seat must be to move", "to_move")
    moves = black_moves if to_move == black_seat else white_moves
    return ReversiPosition(size, black, white, to_move, black_seat, moves)


def parse_position(text: str) -> ReversiPosition:
    if not isinstance(text, str):
        raise NotationError("a Reversi position notation must be a string", "")
    if len(text) > MAX_NOTATION:
        raise NotationError(f"the notation is {len(text)} characters long; no Reversi position needs that many", "")
    parts = text.split(" ")
    if len(parts) != 3 or not all(parts):
        raise NotationError(
            "expected three fields separated by single spaces: board rows joined by '/', the seat to move "
            "(1, 2 or - when over) and black=<seat>",
            "",
        )
    board, to_move_text, black_text = parts
    size, black, white = board_from_rows(board.split("/"), "board", NotationError)
    if to_move_text == "-":
        to_move = 0
    elif to_move_text in ("1", "2"):
        to_move = int(to_move_text)
    else:
        raise NotationError(f"the seat to move is {to_move_text[:8]!r}; expected 1, 2 or - (game over)", "to_move")
    if black_text not in ("black=1", "black=2"):
        raise NotationError(f"the third field is {black_text[:12]!r}; expected black=1 or black=2", "black_seat")
    return checked_position(size, black, white, to_move, int(black_text[6]))


def position_from_fields(fields: Mapping[str, object]) -> ReversiPosition:
    if not isinstance(fields, Mapping):
        raise InvalidPosition("a Reversi position must be an object with board, to_move and black_seat", "")
    unknown = set(fields) - {"board", "to_move", "black_seat"}
    if unknown:
        raise InvalidPosition(f"unknown position field {sorted(map(str, unknown))[0]!r}", "")
    rows = fields.get("board", [])
    if isinstance(rows, str) or not isinstance(rows, Sequence):
        raise InvalidPosition("board must be a list of rows (strings of B, W and .), top row first", "board")
    if len(rows) > MAX_SIZE:
        raise InvalidPosition(f"the board has {len(rows)} rows; at most {MAX_SIZE}", "board")
    size, black, white = board_from_rows(rows, "board", InvalidPosition)
    to_move = fields.get("to_move", 0)
    if not is_int(to_move) or to_move not in (0, 1, 2):
        raise InvalidPosition(f"to_move is {to_move!r:.20}; expected 1, 2 or 0 (game over)", "to_move")
    black_seat = fields.get("black_seat", 0)
    if not is_int(black_seat) or black_seat not in (0, 1, 2):
        raise InvalidPosition(f"black_seat is {black_seat!r:.20}; expected 1 or 2 (0 means 1)", "black_seat")
    return checked_position(size, black, white, to_move, black_seat or 1)
