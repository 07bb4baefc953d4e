"""Petak Sawah ("rice-field plots"): the rules engine. Rules: ``shared/spec/rules.md`` §1.

A rows×cols grid (default 5×5) with some rock cells; the two seats alternate taking one empty cultivable
cell each, and a cell scores one point per orthogonal neighbour the taker already owns. When every
cultivable cell is taken, more points wins, then the larger largest orthogonal group, then the seat that
did not open: never a draw.

Inside, a position is a few integers over the cells numbered ``row * cols + col`` (row 0 at the top):
the rock mask, each seat's mask and the opener, all packed again into one ``key`` for cheap hashing and
equality (the search's transposition table). Points are counted from the board (each orthogonally
adjacent pair of a seat's cells is one point), so a position needs no history.

Choices made where rules.md is silent:

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
  ±½ for the tie-break winner/loser (rules.md), so an exact value of 0.5 means "wins on a tie-break".

Levels (``service.search.play_level`` strategies): ``easy`` takes the cell scoring most now (seeded random
ties); ``medium`` is a 3-ply alpha-beta on the points already scored; ``hard`` is the shared alpha-beta with
``evaluate`` (points now plus the hot cells shared out alternately) under a node budget (``HARD_NODES``),
switching to the search's solve mode (straight to the end of the game) from ``HARD_SOLVE_EMPTIES`` empty
cells, where it proves the exact final margin.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from random import Random
from typing import Any

from service.games.base import (
    Event,
    GameOverError,
    IllegalMove,
    InvalidMove,
    InvalidOption,
    InvalidPosition,
    Level,
    Limits,
    NotationError,
    OptionSpec,
    Outcome,
    PlaysLevels,
    SearchResult,
    StopSignal,
)

MIN_SIDE = 2
MAX_SIDE = 12
DEFAULT_SIDE = 5
DEFAULT_ROCKS = 5
DEFAULT_OPENER = 1
EMPTY, ROCK = ".", "#"

# Longest canonical notation: 12 rows of 12 plus 11 slashes, the seat and "opener=1". Anything much longer
# is rejected before any work.
_MAX_NOTATION = 200
_CELL_NAME = re.compile(r"([a-z])([1-9][0-9]?)")


# --------------------------------------------------------------------------------------------------
# Board geometry: one shared object per (rows, cols).


class Board:
    """The fixed geometry of a rows×cols grid: cell names and neighbour masks. Shared, never copied."""

    __slots__ = ("cols", "full", "has_right", "index", "names", "neighbours", "rows", "size")

    def __init__(self, rows: int, cols: int) -> None:
        self.rows = rows
        self.cols = cols
        self.size = rows * cols
        self.full = (1 << self.size) - 1
        self.names = tuple(f"{chr(97 + i % cols)}{i // cols + 1}" for i in range(self.size))
        self.index = {name: i for i, name in enumerate(self.names)}
        # Cells with a neighbour to their right: pairs (i, i+1) are adjacent only from these.
        self.has_right = sum(1 << i for i in range(self.size) if i % cols != cols - 1)
        neighbours = []
        for i in range(self.size):
            row, col = divmod(i, cols)
            mask = 0
            if row > 0:
                mask |= 1 << (i - cols)
            if row < rows - 1:
                mask |= 1 << (i + cols)
            if col > 0:
                mask |= 1 << (i - 1)
            if col < cols - 1:
                mask |= 1 << (i + 1)
            neighbours.append(mask)
        self.neighbours = tuple(neighbours)

    def spread(self, mask: int) -> int:
        """The cells orthogonally adjacent to any cell of ``mask`` (not including ``mask`` itself)."""
        right = self.has_right
        return (
            ((mask & right) << 1) | ((mask >> 1) & right) | ((mask << self.cols) & self.full) | (mask >> self.cols)
        ) & ~mask

    def count_slices(self, mask: int) -> tuple[int, int, int, int, int]:
        """For every cell, how many of its orthogonal neighbours are in ``mask``, as five masks: the cells
        with 0, 1, 2, 3 and 4 such neighbours. Computed with a bit-sliced adder over the four shifted masks."""
        full, right, cols = self.full, self.has_right, self.cols
        below = mask >> cols
        above = (mask << cols) & full
        left_of = (mask >> 1) & right
        right_of = (mask & right) << 1
        s1, c1 = below ^ above, below & above
        s2, c2 = left_of ^ right_of, left_of & right_of
        ones = s1 ^ s2
        carry = s1 & s2
        twos = c1 ^ c2 ^ carry
        fours = (c1 & c2) | ((c1 ^ c2) & carry)
        return (full & ~(ones | twos | fours), ones & ~twos, twos & ~ones, ones & twos, fours)

    def pairs(self, mask: int) -> int:
        """How many orthogonally adjacent pairs lie inside ``mask``: a seat's points."""
        return (mask & (mask >> 1) & self.has_right).bit_count() + (mask & (mask >> self.cols)).bit_count()

    def group_sizes(self, mask: int) -> list[int]:
        """Sizes of the orthogonally connected groups of ``mask``, largest first."""
        sizes = []
        rest = mask
        while rest:
            group = frontier = rest & -rest
            while frontier:
                frontier = self.spread(group) & rest & ~group
                group |= frontier
            sizes.append(group.bit_count())
            rest &= ~group
        sizes.sort(reverse=True)
        return sizes

    def largest_group(self, mask: int) -> int:
        sizes = self.group_sizes(mask)
        return sizes[0] if sizes else 0

    def cell_names(self, mask: int) -> list[str]:
        """The names of the cells of ``mask`` in board order."""
        names = []
        while mask:
            low = mask & -mask
            names.append(self.names[low.bit_length() - 1])
            mask ^= low
        return names

    def parse_cell(self, text: Any) -> int:
        """The index of a cell name on this board, or -1 when it is not one (caller raises)."""
        if not isinstance(text, str) or len(text) > 3:
            return -1
        return self.index.get(text, -1)

    def describe_bad_cell(self, text: Any) -> str:
        """Why ``text`` is not a cell of this board, in one sentence."""
        if not isinstance(text, str):
            return f"a cell must be a name such as 'c2', not {type(text).__name__}"
        shown = text if len(text) <= 12 else text[:12] + "..."
        if _CELL_NAME.fullmatch(text) is None:
            return f"{shown!r} is not a cell name (column letter then row number, e.g. 'c2')"
        return (
            f"{shown!r} is off the {self.rows}x{self.cols} board (columns a-{chr(96 + self.cols)}, rows 1-{self.rows})"
        )


_BOARDS: dict[tuple[int, int], Board] = {}


def board_of(rows: int, cols: int) -> Board:
    """The shared geometry of a rows×cols grid (2..12 each; the caller has checked)."""
    board = _BOARDS.get((rows, cols))
    if board is None:
        board = _BOARDS[(rows, cols)] = Board(rows, cols)
    return board


# --------------------------------------------------------------------------------------------------
# Seeded rocks.


class _Sha256Stream:
    """Unbiased integers from SHA-256: word *j* of block *b* is bytes 8j..8j+8 (big-endian) of
    ``sha256(sha256(b"petak-sawah/rocks:" + seed_utf8) + b.to_bytes(8, "big"))``, j = 0..3."""

    def __init__(self, seed: str) -> None:
        self._key = hashlib.sha256(b"petak-sawah/rocks:" + seed.encode("utf-8", "surrogatepass")).digest()
        self._block = 0
        self._words: list[int] = []

    def _word(self) -> int:
        if not self._words:
            digest = hashlib.sha256(self._key + self._block.to_bytes(8, "big")).digest()
            self._block += 1
            self._words = [int.from_bytes(digest[j : j + 8], "big") for j in (24, 16, 8, 0)]
        return self._words.pop()

    def below(self, bound: int) -> int:
        """Uniform in 0..bound-1 by rejection: words at or above the largest multiple of ``bound`` are
        skipped, so there is no modulo bias."""
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            word = self._word()
            if word < limit:
                return word % bound


def rocks_from_seed(seed: str, size: int, count: int) -> list[int]:
    """``count`` distinct cells of ``0..size-1`` chosen uniformly from ``seed``, in board order.

    The recipe, for reimplementation elsewhere: start from the list of cells 0..size-1; for j = 0..count-1
    draw r = ``below(size - j)`` from the stream above and swap items j and j + r; the rocks are the first
    ``count`` items, sorted.
    """
    stream = _Sha256Stream(seed)
    cells = list(range(size))
    for j in range(count):
        k = j + stream.below(size - j)
        cells[j], cells[k] = cells[k], cells[j]
    return sorted(cells[:count])


# --------------------------------------------------------------------------------------------------
# Validation helpers shared by notation, fields and options.


def _check_side(value: Any, name: str, error: type[Exception]) -> int:
    if type(value) is not int:
        raise error(f"{name} must be an integer, not {type(value).__name__}", name)
    if not MIN_SIDE <= value <= MAX_SIDE:
        raise error(f"{name} must be {MIN_SIDE}..{MAX_SIDE}, not {value}", name)
    return value


def _check_cultivable(board: Board, rocks: int, error: type[Exception], field: str) -> None:
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


def _cell_list(board: Board, values: Any, name: str, taken: int) -> int:
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


# --------------------------------------------------------------------------------------------------
# The position.

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


class PetakSawahPosition:
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
        return self.key == other.key  # type: ignore[attr-defined]

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

    def to_fields(self) -> dict[str, Any]:
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

    def legal_moves(self) -> list[int]:
        """The empty cultivable cells, in board order (row by row from the top, left to right)."""
        moves = []
        empty = self.empty
        while empty:
            low = empty & -empty
            moves.append(low.bit_length() - 1)
            empty ^= low
        return moves

    def legal_move_count(self) -> int:
        return self.empty.bit_count()

    def legal_moves_page(self, start: int, count: int) -> list[int]:
        if count <= 0 or start >= self.empty.bit_count():
            return []
        return self.legal_moves()[max(start, 0) : max(start, 0) + count]

    def parse_move(self, text: str) -> int:
        """A cell name such as ``c2``. InvalidMove if it is not a cell of this board."""
        cell = self.board.parse_cell(text)
        if cell < 0:
            raise InvalidMove(self.board.describe_bad_cell(text), "")
        return cell

    def move_from_fields(self, fields: Mapping[str, Any]) -> int:
        """The ``PetakSawahMove`` message: ``{"cell": "c2"}``."""
        if not isinstance(fields, Mapping):
            raise InvalidMove(f"a move must be a message with a cell, not {type(fields).__name__}", "")
        value = fields.get("cell", "")
        if value == "":
            raise InvalidMove("the move names no cell", "cell")
        cell = self.board.parse_cell(value)
        if cell < 0:
            raise InvalidMove(self.board.describe_bad_cell(value), "cell")
        return cell

    def move_notation(self, move: int) -> str:
        return self.board.names[move]

    def move_to_fields(self, move: int) -> dict[str, Any]:
        return {"cell": self.board.names[move]}

    def points_for(self, move: int) -> int:
        """The points the seat to move scores by taking ``move`` now."""
        own = self.own1 if self.to_move == 1 else self.own2
        return (self.board.neighbours[move] & own).bit_count()

    def apply(self, move: Any) -> tuple[PetakSawahPosition, list[Event]]:
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
        """Points, then largest group, then the seat that did not open (rules.md §1)."""
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

    def play(self, move: int) -> PetakSawahPosition:
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

    def search_moves(self) -> list[int]:
        """Every empty cell, hottest first: most taken neighbours (points for the mover, or points denied to
        the opponent), then most empty neighbours (room to grow), then board order. Counted for all cells
        at once on bit slices, so the cost hardly grows with the board."""
        board = self.board
        empty = self.empty
        heat = board.count_slices(self.own1 | self.own2)
        room = board.count_slices(empty)
        moves = []
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
        return moves

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


# --------------------------------------------------------------------------------------------------
# Levels: strategies for ``service.search.play_level``.

# Medium weighs each move by hard's evaluation one move deep. Deeper medium searches played almost as well as
# hard at the benchmark's time per move, and counting only the points on the board (3 moves deep) lost to
# easy's greedy rule in 3 of 8 games (``python -m bench.strength --only petak-sawah``).
MEDIUM_DEPTH = 1
# The hard level's budget, in search nodes (deterministic, unlike a time limit). From ``HARD_SOLVE_EMPTIES``
# empty cells hard uses the search's solve mode (``HARD_SOLVE_LEAD`` shallow iterations, then straight to the
# end): on 5x5 boards an exact solve takes about 20k nodes from 12 empty cells and 75k-120k from 14 (about
# 0.2 s and 0.7-1.1 s on one core; ``python -m bench.solve``), well inside this budget. Above that it
# searches as deep as the budget allows.
HARD_NODES = 250_000
HARD_SOLVE_EMPTIES = 14
HARD_SOLVE_LEAD = 4


def margin_now(position: PetakSawahPosition, seat: int) -> float:
    """The points margin for ``seat`` as the board stands (easy's measure): no look at what is to come."""
    if position.to_move == 0:
        return position.final_value(seat)
    points1, points2 = position.scores()
    return float(points1 - points2 if seat == 1 else points2 - points1)


def _margin_after(position: Any, move: Any) -> float:
    seat = position.to_move
    return margin_now(position.play(move), seat)


def _easy(position: Any, limits: Limits, rng: Random, top_n: int, stop: StopSignal) -> SearchResult:
    from service.search import greedy

    return greedy(position, _margin_after, rng, top_n, moves=position.legal_moves())


def _medium(position: Any, limits: Limits, rng: Random, top_n: int, stop: StopSignal) -> SearchResult:
    from service.search import search

    return search(position, limits, stop=stop, top_n=top_n, rng=rng)


def _hard(position: Any, limits: Limits, rng: Random, top_n: int, stop: StopSignal) -> SearchResult:
    from service.search import search

    solve = position.empty.bit_count() <= HARD_SOLVE_EMPTIES
    return search(position, limits, stop=stop, top_n=top_n, rng=rng, solve=solve, solve_lead=HARD_SOLVE_LEAD)


_STRATEGIES = {"easy": _easy, "medium": _medium, "hard": _hard}


# --------------------------------------------------------------------------------------------------
# The game.


class PetakSawahGame(PlaysLevels):
    """The Petak Sawah factory: options, levels, position readers and best move."""

    strategies = _STRATEGIES

    id = "petak-sawah"
    title = "Petak Sawah"
    description = (
        "Rice-field plots: take empty cells of a small board with rocks in turn; each cell scores one point "
        "per orthogonal neighbour you already own. More points wins, then the larger largest group, then the "
        "seat that did not open."
    )
    seat_names = ("Seat 1", "Seat 2")
    options = (
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
    position_notation_help = (
        "Three fields separated by spaces: the rows top to bottom joined by '/', one character per cell from "
        "column a: '.' empty, '#' rock, '1' or '2' taken by that seat; then the seat to move ('1', '2', or '-' "
        "once the game is over); then 'opener=1' or 'opener=2', the seat that moved first. The board has 2..12 "
        "rows of the same length, 2..12 cells. The cells that are not rocks (the cultivable cells) must number "
        "at least 2 and be even, so both seats get the same number of turns. The opener holds as many cells as "
        "the other seat or one more; the seat to move is the opener when both hold the same number, the other "
        "seat when the opener holds one more, and '-' exactly when every cultivable cell is taken. Start: "
        "'..#../.#.../...#./#...#/..... 1 opener=1'; after a1, e5, b1: '11#../.#.../...#./#...#/....2 2 opener=1'."
    )
    move_notation_help = (
        "The cell to take: column letter and row number from the top, e.g. 'c2'. It must be empty and not a rock."
    )

    # --- readers ---

    def new_position(self, options: Mapping[str, Any], seed: str) -> PetakSawahPosition:
        """The start position; random rocks from ``seed`` unless ``rock_cells`` lists them."""
        if not isinstance(options, Mapping):
            raise InvalidOption(f"options must be a mapping, not {type(options).__name__}", "")
        for name in options:
            if name not in _OPTION_NAMES:
                known = ", ".join(sorted(_OPTION_NAMES))
                raise InvalidOption(
                    f"unknown option {str(name)[:40]!r} for Petak Sawah; options are: {known}", str(name)[:40]
                )
        rows = _check_side(options.get("rows", DEFAULT_SIDE), "rows", InvalidOption)
        cols = _check_side(options.get("cols", DEFAULT_SIDE), "cols", InvalidOption)
        board = board_of(rows, cols)
        opener = options.get("opener", DEFAULT_OPENER)
        if type(opener) is not int or opener not in (1, 2):
            raise InvalidOption(f"opener must be 1 or 2, not {opener!r}", "opener")
        count = options.get("rocks", DEFAULT_ROCKS)
        if type(count) is not int:
            raise InvalidOption(f"rocks must be an integer, not {type(count).__name__}", "rocks")
        listed = options.get("rock_cells", ())
        if listed is None:
            listed = ()
        if not isinstance(listed, list | tuple):
            raise InvalidOption(f"rock_cells must be a list of cell names, not {type(listed).__name__}", "rock_cells")
        if listed:
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
            _check_cultivable(board, rocks, InvalidOption, "rock_cells")
        else:
            if not 0 <= count <= board.size - 2:
                raise InvalidOption(f"rocks must be 0..{board.size - 2} on a {rows}x{cols} board, not {count}", "rocks")
            if not isinstance(seed, str):
                raise InvalidOption(f"the seed must be a string, not {type(seed).__name__}", "seed")
            rocks = sum(1 << cell for cell in rocks_from_seed(seed, board.size, count))
            _check_cultivable(board, rocks, InvalidOption, "rocks")
        return PetakSawahPosition(board, rocks, 0, 0, opener)

    def parse_position(self, text: str) -> PetakSawahPosition:
        """Read the notation (see ``position_notation_help``)."""
        if not isinstance(text, str):
            raise NotationError(f"a position notation must be a string, not {type(text).__name__}", "")
        if len(text) > _MAX_NOTATION:
            raise NotationError(f"position notation is {len(text)} characters; at most {_MAX_NOTATION}", "")
        parts = text.split()
        if len(parts) != 3:
            raise NotationError(
                f"expected 3 space-separated fields (board, seat to move, opener=N), got {len(parts)}", ""
            )
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
        return self._checked(board, masks[ROCK], masks["1"], masks["2"], opener, to_move, ("", "", ""))

    def position_from_fields(self, fields: Mapping[str, Any]) -> PetakSawahPosition:
        """Read the ``PetakSawahPosition`` message (cell lists in any order)."""
        if not isinstance(fields, Mapping):
            raise InvalidPosition(f"a position must be a message, not {type(fields).__name__}", "")
        rows = _check_side(fields.get("rows", 0), "rows", InvalidPosition)
        cols = _check_side(fields.get("cols", 0), "cols", InvalidPosition)
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
        return self._checked(board, rocks, own1, own2, opener, to_move, ("rocks", "seat1_cells", "seat2_cells"))

    def _checked(
        self,
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
        _check_cultivable(board, rocks, InvalidPosition, fields[0])
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

    # --- best move ---

    levels = (
        Level("easy", "Takes the cell that scores the most points right now, at random among equals."),
        Level(
            "medium",
            "Looks one move ahead, weighing the points now and the points still to be won around each empty cell.",
            Limits(max_depth=MEDIUM_DEPTH),
        ),
        Level(
            "hard",
            "Searches deep, estimating the points still to be won around every empty cell, and plays "
            "perfectly (the exact final margin, tie-breaks included) once few enough cells are left to search "
            "to the end.",
            Limits(max_nodes=HARD_NODES),
        ),
    )
    default_level = "hard"


_OPTION_NAMES = frozenset(spec.name for spec in PetakSawahGame.options)

GAME = PetakSawahGame()
