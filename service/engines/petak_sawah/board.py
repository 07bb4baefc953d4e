"""Petak Sawah's board: the geometry of one rows x cols board on bit masks, and the rocks dealt from a seed."""

from __future__ import annotations

import hashlib
import re

from service.core.bits import set_bits
from service.core.seeds import Sha256Stream

MIN_SIDE = 2
MAX_SIDE = 12
DEFAULT_SIDE = 5
DEFAULT_ROCKS = 5
DEFAULT_OPENER = 1
EMPTY, ROCK = ".", "#"

# Longest canonical notation: 12 rows of 12 plus 11 slashes, the seat and "opener=1". Anything much longer
# is rejected before any work.
MAX_NOTATION = 200
CELL_NAME = re.compile(r"([a-z])([1-9][0-9]?)")


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
        return [self.names[cell] for cell in set_bits(mask)]

    def parse_cell(self, text: object) -> int:
        """The index of a cell name on this board, or -1 when it is not one (caller raises)."""
        if not isinstance(text, str) or len(text) > 3:
            return -1
        return self.index.get(text, -1)

    def describe_bad_cell(self, text: object) -> str:
        """Why ``text`` is not a cell of this board, in one sentence."""
        if not isinstance(text, str):
            return f"a cell must be a name such as 'c2', not {type(text).__name__}"
        shown = text if len(text) <= 12 else text[:12] + "..."
        if CELL_NAME.fullmatch(text) is None:
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


def rocks_from_seed(seed: str, size: int, count: int) -> list[int]:
    """``count`` distinct cells of ``0..size-1`` chosen uniformly from ``seed``, in board order.

    The recipe, for reimplementation elsewhere: a ``Sha256Stream`` whose block b is
    ``sha256(sha256(b"petak-sawah/rocks:" + seed_utf8) + b.to_bytes(8, "big"))``; start from the list of cells
    0..size-1; for j = 0..count-1 draw r = ``below(size - j)`` and swap items j and j + r; the rocks are the
    first ``count`` items, sorted.
    """
    key = hashlib.sha256(b"petak-sawah/rocks:" + seed.encode("utf-8", "surrogatepass")).digest()
    stream = Sha256Stream(lambda block: hashlib.sha256(key + block.to_bytes(8, "big")).digest())
    cells = list(range(size))
    for j in range(count):
        k = j + stream.below(size - j)
        cells[j], cells[k] = cells[k], cells[j]
    return sorted(cells[:count])
