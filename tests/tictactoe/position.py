"""The m,n,k tic-tac-toe position: the board's geometry, the state (a bitboard per mark, the seat to move) and
the rules (``page.md`` beside this file)."""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NewType, cast

from service.core.bits import set_bits
from service.core.contract import Position, is_int
from service.core.errors import GameOverError, IllegalMove, InvalidMove
from service.core.jsonvalue import JSONObject
from service.core.values import Event, Outcome, ResultReason

# A tic-tac-toe move: the index ``row * cols + col`` of the empty cell the mover marks.
TicTacToeMove = NewType("TicTacToeMove", int)

MIN_SIDE, MAX_SIDE, DEFAULT_SIDE = 3, 5, 3
MIN_K, MAX_K, DEFAULT_K = 3, 5, 3
X_CHAR, O_CHAR, EMPTY_CHAR = "x", "o", "."
MARKS = ("", "X", "O")  # seat 1 plays X and moves first, seat 2 plays O
# The rule that decides a win: k in a row. The service's closed vocabulary (``ResultReason`` in
# ``service/core/values.py``) has no word for it yet, so the word is cast in; the registry must list it.
LINE_REASON = cast("ResultReason", "line")
COLUMNS = string.ascii_lowercase[:MAX_SIDE]
# The longest canonical notation: 5 rows of 5 cells, 4 slashes, " 2 k=5".
MAX_NOTATION = 5 * 5 + 4 + 6


@dataclass(frozen=True, slots=True)
class Geometry:
    """What every position of one board shape and one ``k`` shares, computed once: the cells' names, every
    window of ``k`` cells in a row (horizontal, vertical, both diagonals) as a bitmask, the windows through
    each cell, and the cells by how many windows pass through them (the centre first)."""

    rows: int
    cols: int
    k: int
    full: int  # every cell's bit
    names: tuple[str, ...]  # by cell index: "a1" is the top-left cell
    lines: tuple[int, ...]
    lines_at: tuple[tuple[int, ...], ...]
    order: tuple[int, ...]

    @property
    def cells(self) -> int:
        return self.rows * self.cols


@cache
def geometry(rows: int, cols: int, k: int) -> Geometry:
    """The geometry of a ``rows`` x ``cols`` board where ``k`` in a row wins (unchecked sizes)."""
    lines = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= end_r < rows and 0 <= end_c < cols:
                    lines.append(sum(1 << ((r + dr * i) * cols + c + dc * i) for i in range(k)))
    size = rows * cols
    lines_at = tuple(tuple(line for line in lines if line >> cell & 1) for cell in range(size))
    # Ties in board order, so the order is the same on every run.
    order = tuple(sorted(range(size), key=lambda cell: (-len(lines_at[cell]), cell)))
    names = tuple(f"{COLUMNS[cell % cols]}{cell // cols + 1}" for cell in range(size))
    return Geometry(rows, cols, k, (1 << size) - 1, names, tuple(lines), lines_at, order)


def lines_within(mask: int, geo: Geometry) -> list[int]:
    """The windows of ``geo`` whose every cell is in ``mask``."""
    return [line for line in geo.lines if line & mask == line]


def _wins(mine: int, cell: int, geo: Geometry) -> int:
    """The first window through ``cell`` that ``mine`` (which holds ``cell``) fills, or 0."""
    for line in geo.lines_at[cell]:
        if line & mine == line:
            return line
    return 0


class TicTacToePosition(Position[TicTacToeMove]):
    """A position: the geometry, X's and O's cells as bitboards, the seat to move (0 once the game is over) and
    the winning line (0 while nobody has one).

    Immutable and hashable; equal iff the notation is equal. Build one with ``GAME.new_position``,
    ``GAME.parse_position`` or ``GAME.position_from_fields``: the constructor does not validate."""

    __slots__ = ("_geo", "_hash", "line", "o", "to_move", "x")
    to_move: int  # a slot: the search reads it at every node

    def __init__(self, geo: Geometry, x: int, o: int, to_move: int, line: int) -> None:
        self._geo = geo
        self.x = x  # bitboard of X's cells (seat 1), bit ``row * cols + col``
        self.o = o  # bitboard of O's cells (seat 2)
        self.to_move = to_move
        self.line = line  # the winner's k cells in a row, 0 if none
        self._hash = hash((geo.rows, geo.cols, geo.k, x, o, to_move))

    # --- identity ---

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TicTacToePosition):
            return NotImplemented
        return (
            self.x == other.x
            and self.o == other.o
            and self.to_move == other.to_move
            and self._geo is other._geo  # geometries are cached: one object per shape and k
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"GAME.parse_position({self.to_notation()!r})"

    # --- plain facts ---

    @property
    def geometry(self) -> Geometry:
        return self._geo

    @property
    def empty(self) -> int:
        """Bitboard of the empty cells."""
        return self._geo.full & ~(self.x | self.o)

    @property
    def winner(self) -> int:
        """The seat whose line ended the game, 0 for none (a draw, or the game goes on)."""
        if not self.line:
            return 0
        return 1 if self.line & self.x else 2

    def marks(self, seat: int) -> int:
        """Bitboard of ``seat``'s cells."""
        return self.x if seat == 1 else self.o

    def stage(self) -> float:
        """The empty cells' share of the board: every move fills one."""
        return self.empty.bit_count() / self._geo.cells

    def plies_left(self) -> int:
        """At most one move per empty cell."""
        return self.empty.bit_count() if self.to_move else 0

    # --- notation and fields ---

    def board_rows(self) -> list[str]:
        """The rows top to bottom, ``x``, ``o`` or ``.`` a cell."""
        geo = self._geo
        chars = [
            X_CHAR if self.x >> cell & 1 else O_CHAR if self.o >> cell & 1 else EMPTY_CHAR for cell in range(geo.cells)
        ]
        return ["".join(chars[r * geo.cols : (r + 1) * geo.cols]) for r in range(geo.rows)]

    def to_notation(self) -> str:
        """``<rows joined by /> <seat to move or ->``, then ``k=K`` when K is not the default 3."""
        seat = str(self.to_move) if self.to_move else "-"
        k = f" k={self._geo.k}" if self._geo.k != DEFAULT_K else ""
        return f"{'/'.join(self.board_rows())} {seat}{k}"

    def to_fields(self) -> JSONObject:
        geo = self._geo
        return {
            "rows": geo.rows,
            "cols": geo.cols,
            "k": geo.k,
            "cells": "".join(self.board_rows()),
            "to_move": self.to_move,
        }

    # --- moves ---

    def legal_moves(self) -> list[TicTacToeMove]:
        """The empty cells in board order (row by row from the top, left to right); [] once the game is over."""
        if not self.to_move:
            return []
        return cast("list[TicTacToeMove]", set_bits(self.empty))

    def legal_move_count(self) -> int:
        return self.empty.bit_count() if self.to_move else 0

    def _cell(self, name: str, field: str) -> TicTacToeMove:
        geo = self._geo
        last = geo.names[-1]
        text = name.lower()
        if len(text) < 2 or text[0] not in COLUMNS or not text[1:].isascii() or not text[1:].isdigit():
            raise InvalidMove(f"{name[:12]!r} is not a cell such as 'b2' (column letter, row number)", field)
        if text[1] == "0":
            raise InvalidMove(f"{name!r}: row numbers start at 1 and have no leading zero", field)
        col, row = COLUMNS.index(text[0]), int(text[1:]) - 1
        if col >= geo.cols or row >= geo.rows:
            raise InvalidMove(f"{name!r} is off the {geo.rows}x{geo.cols} board (a1 to {last})", field)
        return TicTacToeMove(row * geo.cols + col)

    def parse_move(self, text: str) -> TicTacToeMove:
        """A cell: column letter and row number from the top (``b2``), in either case."""
        if not isinstance(text, str):
            raise InvalidMove(f"a move is a cell such as 'b2' as text, not {type(text).__name__}")
        if len(text) > 3:
            raise InvalidMove(f"{text[:12]!r} is not a cell such as 'b2'")
        return self._cell(text, "")

    def move_from_fields(self, fields: Mapping[str, object]) -> TicTacToeMove:
        """``{"cell": "b2"}``."""
        if not isinstance(fields, Mapping):
            raise InvalidMove("a move is an object with the field 'cell'")
        for key in fields:
            if key != "cell":
                raise InvalidMove(f"unknown move field {str(key)[:40]!r}: a tic-tac-toe move has only 'cell'", str(key))
        cell = fields.get("cell", "")
        if not isinstance(cell, str) or not cell:
            raise InvalidMove("cell must be a cell name such as 'b2'", "cell")
        if len(cell) > 3:
            raise InvalidMove(f"{cell[:12]!r} is not a cell such as 'b2'", "cell")
        return self._cell(cell, "cell")

    def move_notation(self, move: TicTacToeMove) -> str:
        return self._geo.names[move]

    def move_to_fields(self, move: TicTacToeMove) -> JSONObject:
        return {"cell": self._geo.names[move]}

    # --- playing ---

    def play(self, move: TicTacToeMove) -> TicTacToePosition:
        """The position after ``move`` (an empty cell, the game not over): ``apply(move)[0]`` unchecked."""
        geo, seat = self._geo, self.to_move
        bit = 1 << move
        x, o = (self.x | bit, self.o) if seat == 1 else (self.x, self.o | bit)
        line = _wins(x if seat == 1 else o, move, geo)
        if line:
            return TicTacToePosition(geo, x, o, 0, line)
        return TicTacToePosition(geo, x, o, 0 if x | o == geo.full else 3 - seat, 0)

    def apply(self, move: TicTacToeMove) -> tuple[TicTacToePosition, list[Event]]:
        """Check and play ``move``; events: ``place``, then ``game_over`` when it ends the game (its cells: the
        winning line, none for a draw)."""
        if not self.to_move:
            raise GameOverError("the game is over: no more moves")
        geo = self._geo
        if not is_int(move) or not 0 <= move < geo.cells:
            raise InvalidMove(f"{move!r:.20} is not a cell of the {geo.rows}x{geo.cols} board")
        name = geo.names[move]
        if not self.empty >> move & 1:
            raise IllegalMove(f"{name} is already marked")
        seat = self.to_move
        after = self.play(move)
        events = [Event("place", seat, (name,), 1, f"{MARKS[seat]} (seat {seat}) marks {name}.")]
        outcome = after.outcome()
        if outcome is not None:
            cells = tuple(geo.names[cell] for cell in set_bits(after.line))
            events.append(Event("game_over", outcome.winner, cells, len(cells), f"The game is over: {outcome.detail}"))
        return after, events

    # --- result ---

    def outcome(self) -> Outcome | None:
        if self.to_move:
            return None
        winner = self.winner
        if winner:
            cells = ", ".join(self._geo.names[cell] for cell in set_bits(self.line))
            mark = MARKS[winner]
            return Outcome(winner, LINE_REASON, f"{mark} (seat {winner}) has {self._geo.k} in a row: {cells}.")
        return Outcome(0, "draw", f"the board is full without {self._geo.k} in a row; a draw.")

    def scores(self) -> tuple[int, int]:
        """Each seat's longest run of its own marks in a row (the headline a player reads: k wins)."""
        return self._longest(self.x), self._longest(self.o)

    def _longest(self, mine: int) -> int:
        geo = self._geo
        best = 0
        for cell in set_bits(mine):
            r, c = divmod(cell, geo.cols)
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                # Count only from the run's first cell: the cell before it is not ``mine``.
                pr, pc = r - dr, c - dc
                if 0 <= pr < geo.rows and 0 <= pc < geo.cols and mine >> (pr * geo.cols + pc) & 1:
                    continue
                run = 0
                rr, cc = r, c
                while 0 <= rr < geo.rows and 0 <= cc < geo.cols and mine >> (rr * geo.cols + cc) & 1:
                    run += 1
                    rr, cc = rr + dr, cc + dc
                best = max(best, run)
        return best

    def final_value(self, seat: int) -> float:
        """1 for the winner, -1 for the loser, 0 for both in a draw: the game has no margin to win by."""
        winner = self.winner
        if not winner:
            return 0.0
        return 1.0 if winner == seat else -1.0

    # --- search hooks ---

    def threats(self) -> tuple[int, int]:
        """(the cells where the seat to move completes a line now, the cells where the other seat would):
        each window missing one cell of one seat's marks and holding none of the other's."""
        geo, seat = self._geo, self.to_move
        mine, theirs = (self.x, self.o) if seat == 1 else (self.o, self.x)
        empty = self.empty
        need = geo.k - 1
        wins = blocks = 0
        for line in geo.lines:
            m, t = line & mine, line & theirs
            if not t:
                if m.bit_count() == need:
                    wins |= line & empty
            elif not m and t.bit_count() == need:
                blocks |= line & empty
        return wins, blocks

    def search_moves(self) -> Sequence[TicTacToeMove]:
        """Every legal move: the winning cells first, then the blocks of the other seat's wins, then the rest
        by how many windows pass through them (the centre first)."""
        if not self.to_move:
            return []
        wins, blocks = self.threats()
        empty = self.empty
        order = self._geo.order
        first = [c for c in order if wins >> c & 1]
        second = [c for c in order if blocks >> c & 1 and not wins >> c & 1]
        rest = [c for c in order if empty >> c & 1 and not (wins | blocks) >> c & 1]
        return cast("list[TicTacToeMove]", first + second + rest)

    def evaluate(self, seat: int) -> float:
        """An estimate of the result for ``seat``, strictly between -1 and 1 so that a proved result always
        outranks it: the windows still open to one seat only, each weighed by ``_WEIGHTS`` for the marks it
        holds (a window both seats have marked can no longer be a line), with the seat to move's windows counted
        a step up (it is its turn to add to them), squashed by ``v / (|v| + _SQUASH)``."""
        if not self.to_move:
            return self.final_value(seat)
        geo = self._geo
        x, o = self.x, self.o
        up_x = 1 if self.to_move == 1 else 0
        value = 0
        for line in geo.lines:
            a, b = line & x, line & o
            if a and not b:
                value += _WEIGHTS[a.bit_count() + up_x]
            elif b and not a:
                value -= _WEIGHTS[b.bit_count() + 1 - up_x]
        estimate = value / (abs(value) + _SQUASH)
        return estimate if seat == 1 else -estimate


# The weight of an open window by the marks in it (plus one for the seat to move's): each mark more in a window
# is worth some three times as much, since it leaves one cell fewer to find. With the squash below a lead of one
# two-mark window reads about 0.5, the scale of a real advantage on a small board; searches at fixed depths are
# the only use (``medium``, ``hard`` past its proofs), and the tests check only that a proved result outranks it.
_WEIGHTS = (0, 1, 3, 9, 27, 81, 243)
_SQUASH = 9.0


def perft(position: TicTacToePosition, depth: int) -> int:
    """The positions ``depth`` plies after ``position``; a game that ends sooner counts for nothing (the usual
    convention of the tic-tac-toe counts: 255,168 games end within nine plies on 3x3). On bitboards directly."""
    if depth <= 0:
        return 1
    if not position.to_move:
        return 0
    geo = position.geometry
    mine, theirs = (position.x, position.o) if position.to_move == 1 else (position.o, position.x)
    return _perft(mine, theirs, depth, geo)


def _perft(mine: int, theirs: int, depth: int, geo: Geometry) -> int:
    empty = geo.full & ~(mine | theirs)
    if depth == 1:
        return empty.bit_count()
    total = 0
    for cell in set_bits(empty):
        placed = mine | 1 << cell
        if _wins(placed, cell, geo) or placed | theirs == geo.full:
            continue  # the game ended: no leaf deeper down
        total += _perft(theirs, placed, depth - 1, geo)
    return total
