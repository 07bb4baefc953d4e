"""Reversi's bitboards: the board geometry of every size and the bit tricks the rules are made of.

Square ``row * size + col`` is bit ``1 << (row * size + col)`` of a Python int, with column letters ``a``..
left to right and row numbers ``1``.. top to bottom (``docs/games/reversi.md``), so ``a1`` is 0: the same
numbering as OpenSpiel's ``othello``.
"""

from __future__ import annotations

import string

MIN_SIZE = 4
MAX_SIZE = 16
DEFAULT_SIZE = 8

BLACK_CHAR = "B"
WHITE_CHAR = "W"
EMPTY_CHAR = "."

# Longest notation a 16×16 position can have ("black=2" and friends included), with slack; longer text is
# rejected before any splitting.
MAX_NOTATION = MAX_SIZE * (MAX_SIZE + 1) + 32
COLUMNS = string.ascii_lowercase[:MAX_SIZE]


# --------------------------------------------------------------------------------------------------
# Geometry: everything that depends only on the board size, computed once per size.


class Geometry:
    """Masks, shifts and square names of one board size."""

    __slots__ = (
        "c_guards",
        "centre",
        "corners",
        "directions",
        "full",
        "n",
        "names",
        "neighbour_shifts",
        "order",
        "size",
        "x_guards",
    )

    def __init__(self, size: int) -> None:
        self.size = size
        n = size * size
        self.n = n
        self.full = (1 << n) - 1
        self.names = tuple(f"{COLUMNS[i % size]}{i // size + 1}" for i in range(n))
        # Discs in the first or last column may not be passed through sideways: a shift would wrap rows.
        inner = 0
        for i in range(n):
            if 0 < i % size < size - 1:
                inner |= 1 << i
        # Four lines through a square, as (shift, mask of the opponent discs a line may run through); each is
        # walked both ways: ``<<`` towards higher indices (east, south, ...), ``>>`` towards lower ones.
        self.directions = ((1, inner), (size, self.full), (size - 1, inner), (size + 1, inner))
        # Neighbours: the source mask keeps a shift from wrapping (no column 0 moving west, etc.).
        not_last = 0
        not_first = 0
        for i in range(n):
            if i % size != size - 1:
                not_last |= 1 << i
            if i % size != 0:
                not_first |= 1 << i
        self.neighbour_shifts = (
            (1, not_last),  # east: << 1
            (-1, not_first),  # west: >> 1
            (size, self.full),
            (-size, self.full),
            (size + 1, not_last),
            (-(size + 1), not_first),
            (size - 1, not_first),
            (-(size - 1), not_last),
        )
        m = size // 2
        self.centre = (1 << ((m - 1) * size + m - 1)) | (1 << (m * size + m)) | (1 << ((m - 1) * size + m))
        self.centre |= 1 << (m * size + m - 1)
        last = size - 1
        corner_squares = ((0, 0), (0, last), (last, 0), (last, last))
        self.corners = 0
        x_guards = []
        c_guards = []
        for r, c in corner_squares:
            corner = 1 << (r * size + c)
            self.corners |= corner
            dr = 1 if r == 0 else -1
            dc = 1 if c == 0 else -1
            x_guards.append((corner, 1 << ((r + dr) * size + c + dc)))
            c_guards.append((corner, (1 << ((r + dr) * size + c)) | (1 << (r * size + c + dc))))
        # For each corner: the X-square diagonal to it and the two C-squares beside it on the edges.
        self.x_guards = tuple(x_guards)
        self.c_guards = tuple(c_guards)
        x_all = 0
        for _, x in x_guards:
            x_all |= x
        c_all = 0
        for _, c in c_guards:
            c_all |= c
        edges = 0
        for i in range(n):
            r, c = divmod(i, size)
            if r in (0, last) or c in (0, last):
                edges |= 1 << i
        edges &= ~(self.corners | c_all)
        interior = self.full & ~(self.corners | c_all | x_all | edges)
        # search_moves' order by cheap hints: corners, safe edges, the interior, C-squares, X-squares last.
        self.order = (self.corners, edges, interior, c_all, x_all)


GEOMETRIES = {size: Geometry(size) for size in range(MIN_SIZE, MAX_SIZE + 1, 2)}


def placement_mask(me: int, opp: int, geo: Geometry) -> int:
    """Bitboard of the squares where ``me`` may place a disc (brackets at least one ``opp`` disc)."""
    empty = geo.full & ~(me | opp)
    moves = 0
    for s, mask in geo.directions:
        o = opp & mask
        t = (me << s) & o
        acc = t
        while t:
            t = (t << s) & o
            acc |= t
        moves |= acc << s
        t = (me >> s) & o
        acc = t
        while t:
            t = (t >> s) & o
            acc |= t
        moves |= acc >> s
    return moves & empty


def flip_mask(me: int, opp: int, bit: int, geo: Geometry) -> int:
    """The ``opp`` discs a disc of ``me`` placed on ``bit`` flips: every bracketed line in every direction."""
    flips = 0
    for s, mask in geo.directions:
        o = opp & mask
        # Masking ``o`` stops a line at the side columns, so a walk never wraps into the next row.
        line = 0
        x = bit << s
        while x & o:
            line |= x
            x <<= s
        if x & me:
            flips |= line
        line = 0
        x = bit >> s
        while x & o:
            line |= x
            x >>= s
        if x & me:
            flips |= line
    return flips


def neighbour_mask(discs: int, geo: Geometry) -> int:
    """Every square next to (8 directions) one of ``discs``."""
    out = 0
    for s, src in geo.neighbour_shifts:
        if s > 0:
            out |= (discs & src) << s
        else:
            out |= (discs & src) >> -s
    return out & geo.full
