"""The Petak Sawah position: rocks, each seat's cells and the opener on bit masks, and the rules
(``docs/games/petak-sawah.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NewType, cast

from service.core.contract import Position
from service.core.errors import GameOverError, IllegalMove, InvalidMove
from service.core.jsonvalue import JSONObject
from service.core.values import Event, Outcome
from service.engines.petak_sawah.board import EMPTY, ROCK, Board

# A Petak Sawah move: the index of the cell taken (``board``'s numbering).
PetakSawahMove = NewType("PetakSawahMove", int)

# Layout of a position's key, low bits first: rows (4 bits), cols (4), opener - 1 (1), then seat 1's mask,
# seat 2's mask and the rock mask, ``size`` bits each. The low byte fixes the size, so keys never collide
# across boards; a move sets one bit, at ``_OWN_SHIFT`` (seat 1) or ``_OWN_SHIFT + size`` (seat 2).
_OWN_SHIFT = 9

# (mover's neighbours, opponent's neighbours) of an empty cell, hottest first, for ``evaluate``.
_HOT_ORDER = tuple((mine, hot - mine) for hot in range(4, 0, -1) for mine in range(hot, -1, -1))


def _key(board: Board, rocks: int, own1: int, own2: int, opener: int) -> int:
    size = board.size
    return (
        board.rows
        | board.cols << 4
        | (opener - 1) << 8
        | own1 << _OWN_SHIFT
        | own2 << (_OWN_SHIFT + size)
        | rocks << (_OWN_SHIFT + 2 * size)
    )


class PetakSawahPosition(Position[PetakSawahMove]):
    """A Petak Sawah position: the board, the rocks, each seat's cells and the opener.

    Immutable and hashable. Build one with ``GAME.new_position``, ``GAME.parse_position`` or
    ``GAME.position_from_fields`` (all validate); ``play`` / ``apply`` make the next one.
    """

    __slots__ = ("board", "empty", "key", "opener", "own1", "own2", "rocks", "to_move")

    board: Board
    rocks: int  # mask of rock cells
    own1: int  # mask of seat 1's cells
    own2: int  # mask of seat 2's cells
    opener: int  # the seat that moved first: 1 or 2
    empty: int  # mask of empty cultivable cells
    to_move: int  # 1 or 2; 0 once the game is over
    key: int  # everything above in one int (see ``_key``): equality and hashing cost one int operation

    def __init__(self, board: Board, rocks: int, own1: int, own2: int, opener: int) -> None:
        """Unchecked: the factories in ``PetakSawahGame`` validate first."""
        self.board = board
        self.rocks = rocks
        self.own1 = own1
        self.own2 = own2
        self.opener = opener
        self.empty = board.full & ~(rocks | own1 | own2)
        if not self.empty:
            self.to_move = 0
        elif (own1 | own2).bit_count() % 2 == 0:
            self.to_move = opener
        else:
            self.to_move = 3 - opener
        self.key = _key(board, rocks, own1, own2, opener)

    # --- identity ---

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not PetakSawahPosition:
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"GAME.parse_position({self.to_notation()!r})"

    # --- notation and fields ---

    def to_notation(self) -> str:
        """Rows top to bottom joined by ``/`` (``.`` empty, ``#`` rock, ``1``/``2`` owned), then the seat to
        move (``-`` once over), then ``opener=N``: e.g. ``..#../.#.../...#./#...#/..... 1 opener=1``."""
        board = self.board
        chars = []
        for i in range(board.size):
            bit = 1 << i
            if self.own1 & bit:
                chars.append("1")
            elif self.own2 & bit:
                chars.append("2")
            elif self.rocks & bit:
                chars.append(ROCK)
            else:
                chars.append(EMPTY)
            if i % board.cols == board.cols - 1 and i != board.size - 1:
                chars.append("/")
        seat = str(self.to_move) if self.to_move else "-"
        return f"{''.join(chars)} {seat} opener={self.opener}"

    def to_fields(self) -> JSONObject:
        """The ``PetakSawahPosition`` message as a dict; cell lists in board order."""
        board = self.board
        return {
            "rows": board.rows,
            "cols": board.cols,
            "rocks": board.cell_names(self.rocks),
            "seat1_cells": board.cell_names(self.own1),
            "seat2_cells": board.cell_names(self.own2),
            "opener": self.opener,
            "to_move": self.to_move,
        }

    # --- moves ---

    def legal_moves(self) -> list[PetakSawahMove]:
        """The empty cultivable cells, in board order (row by row from the top, left to right)."""
        moves: list[int] = []
        empty = self.empty
        while empty:
            low = empty & -empty
            moves.append(low.bit_length() - 1)
            empty ^= low
        return cast("list[PetakSawahMove]", moves)

    def legal_move_count(self) -> int:
        return self.empty.bit_count()

    def parse_move(self, text: str) -> PetakSawahMove:
        """A cell name such as ``c2``. InvalidMove if it is not a cell of this board."""
        cell = self.board.parse_cell(text)
        if cell < 0:
            raise InvalidMove(self.board.describe_bad_cell(text), "")
        return PetakSawahMove(cell)

    def move_from_fields(self, fields: Mapping[str, object]) -> PetakSawahMove:
        """The ``PetakSawahMove`` message: ``{"cell": "c2"}``."""
        if not isinstance(fields, Mapping):
            raise InvalidMove(f"a move must be a message with a cell, not {type(fields).__name__}", "")
        value = fields.get("cell", "")
        if value == "":
            raise InvalidMove("the move names no cell", "cell")
        cell = self.board.parse_cell(value)
        if cell < 0:
            raise InvalidMove(self.board.describe_bad_cell(value), "cell")
        return PetakSawahMove(cell)

    def move_notation(self, move: PetakSawahMove) -> str:
        return self.board.names[move]

    def move_to_fields(self, move: PetakSawahMove) -> JSONObject:
        return {"cell": self.board.names[move]}

    def points_for(self, move: PetakSawahMove) -> int:
        """The points the seat to move scores by taking ``move`` now."""
        own = self.own1 if self.to_move == 1 else self.own2
        return (self.board.neighbours[move] & own).bit_count()

    def apply(self, move: PetakSawahMove) -> tuple[PetakSawahPosition, list[Event]]:
        """Take a cell, with checks; events: ``place``, ``points`` and, after the last cell, ``game_over``."""
        if self.to_move == 0:
            raise GameOverError("the game is over: every cultivable cell is taken", "")
        board = self.board
        if type(move) is not int or not 0 <= move < board.size:
            raise InvalidMove(f"{move!r} is not a cell of this board", "")
        bit = 1 << move
        name = board.names[move]
        if self.rocks & bit:
            raise IllegalMove(f"{name} is a rock; rocks are never taken", "")
        if not self.empty & bit:
            owner = 1 if self.own1 & bit else 2
            raise IllegalMove(f"{name} is already taken by seat {owner}", "")
        seat = self.to_move
        own = self.own1 if seat == 1 else self.own2
        scorers = board.neighbours[move] & own
        gained = scorers.bit_count()
        after = self.play(move)
        plural = "point" if gained == 1 else "points"
        events = [
            Event("place", seat, (name,), 1, f"Seat {seat} takes {name}."),
            Event(
                "points",
                seat,
                (name, *board.cell_names(scorers)),
                gained,
                f"Seat {seat} scores {gained} {plural}: {name} touches {gained} of its cells.",
            ),
        ]
        outcome = after.outcome()
        if outcome is not None:
            events.append(Event("game_over", outcome.winner, (), 0, outcome.detail))
        return after, events

    # --- result ---

    def scores(self) -> tuple[int, int]:
        """Each seat's points now: its orthogonally adjacent pairs of own cells."""
        return self.board.pairs(self.own1), self.board.pairs(self.own2)

    def group_sizes(self, seat: int) -> list[int]:
        """The sizes of ``seat``'s orthogonally connected groups, largest first."""
        return self.board.group_sizes(self.own1 if seat == 1 else self.own2)

    def outcome(self) -> Outcome | None:
        """Points, then largest group, then the seat that did not open (docs/games/petak-sawah.md)."""
        if self.to_move:
            return None
        points1, points2 = self.scores()
        if points1 != points2:
            winner = 1 if points1 > points2 else 2
            return Outcome(winner, "points", f"Seat 1 has {points1} points, seat 2 has {points2}.")
        group1 = self.board.largest_group(self.own1)
        group2 = self.board.largest_group(self.own2)
        if group1 != group2:
            winner = 1 if group1 > group2 else 2
            return Outcome(
                winner,
                "largest_group",
                f"Both seats have {points1} points; seat 1's largest group has {group1} cells, seat 2's {group2}.",
            )
        winner = 3 - self.opener
        return Outcome(
            winner,
            "non_opener",
            f"Both seats have {points1} points and a largest group of {group1} cells; "
            f"seat {winner} wins as the seat that did not open.",
        )

    # --- search hooks ---

    def play(self, move: PetakSawahMove) -> PetakSawahPosition:
        """``apply`` without checks or events."""
        after = object.__new__(PetakSawahPosition)
        after.board = self.board
        after.rocks = self.rocks
        after.opener = self.opener
        bit = 1 << move
        if self.to_move == 1:
            after.own1 = self.own1 | bit
            after.own2 = self.own2
            after.key = self.key | bit << _OWN_SHIFT
        else:
            after.own1 = self.own1
            after.own2 = self.own2 | bit
            after.key = self.key | bit << (_OWN_SHIFT + self.board.size)
        after.empty = empty = self.empty ^ bit
        after.to_move = 3 - self.to_move if empty else 0
        return after

    def search_moves(self) -> list[PetakSawahMove]:
        """Every empty cell, hottest first: most taken neighbours (points for the mover, or points denied to
        the opponent), then most empty neighbours (room to grow), then board order. Counted for all cells
        at once on bit slices, so the cost hardly grows with the board."""
        board = self.board
        empty = self.empty
        heat = board.count_slices(self.own1 | self.own2)
        room = board.count_slices(empty)
        moves: list[int] = []
        for hot in range(4, -1, -1):
            bucket = heat[hot] & empty
            if not bucket:
                continue
            for free in range(4 - hot, -1, -1):
                cells = bucket & room[free]
                while cells:
                    low = cells & -cells
                    moves.append(low.bit_length() - 1)
                    cells ^= low
        return cast("list[PetakSawahMove]", moves)

    def stage(self) -> float:
        """The empty cultivable cells' share of all of them."""
        empty = self.empty.bit_count()
        return empty / max(1, empty + (self.own1 | self.own2).bit_count())

    def plies_left(self) -> int:
        """Moves left to the end of the game: one per empty cultivable cell (the search's solve mode)."""
        return self.empty.bit_count()

    def evaluate(self, seat: int) -> float:
        """Estimated final points margin for ``seat``: the margin now, plus the empty cells next to taken
        ones shared out as if the seats took them alternately from the hottest (most taken neighbours, then
        most of the mover's), each taker scoring its own neighbours of the cell it takes."""
        if self.to_move == 0:
            return self.final_value(seat)
        board = self.board
        points1, points2 = board.pairs(self.own1), board.pairs(self.own2)
        if self.to_move == 1:
            margin = points1 - points2
            mine, theirs = board.count_slices(self.own1), board.count_slices(self.own2)
        else:
            margin = points2 - points1
            mine, theirs = board.count_slices(self.own2), board.count_slices(self.own1)
        empty = self.empty
        rank = 0
        for gain_mine, gain_theirs in _HOT_ORDER:
            count = (mine[gain_mine] & theirs[gain_theirs] & empty).bit_count()
            if count:
                taken_by_mover = (count + 1 - (rank & 1)) >> 1
                margin += taken_by_mover * gain_mine - (count - taken_by_mover) * gain_theirs
                rank += count
        return float(margin if seat == self.to_move else -margin)

    def final_value(self, seat: int) -> float:
        """The final points margin for ``seat``, ± ½ for the tie-break when the points are equal."""
        points1, points2 = self.scores()
        margin = points1 - points2 if seat == 1 else points2 - points1
        if margin:
            return float(margin)
        outcome = self.outcome()
        assert outcome is not None
        return 0.5 if outcome.winner == seat else -0.5
