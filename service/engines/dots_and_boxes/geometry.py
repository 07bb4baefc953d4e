"""Dots and Boxes board geometry: lines and boxes of every board size, their names, and the board's symmetries.

A board of ``rows`` x ``cols`` boxes has ``(rows + 1) x (cols + 1)`` dots, named like squares (columns ``a``.. left
to right, rows ``1``.. top to bottom). Boxes are named by their top-left dot, so box ``a1`` is the top-left box and
its corners are the dots ``a1``, ``b1``, ``a2``, ``b2``. Lines are numbered the way OpenSpiel numbers them (which
keeps the differential test plain): first the horizontal lines row by row (dot row ``y``, the line from column
``x`` to ``x + 1`` is ``y * cols + x``), then the vertical lines (from dot row ``y`` to ``y + 1`` at column ``x``
is ``(rows + 1) * cols + y * (cols + 1) + x``). A set of lines is a bitmask over those numbers.
"""

from __future__ import annotations

import re
from functools import cache

from service.core.errors import InvalidMove

MIN_SIZE, MAX_SIZE = 1, 12
MAX_LINES = 2 * MAX_SIZE * (MAX_SIZE + 1)  # 312 on 12x12

_LINE_TEXT = re.compile(r"([a-z])([1-9][0-9]?)-([a-z])([1-9][0-9]?)")


class Geometry:
    """The lines and boxes of one board size, and the names of each."""

    __slots__ = (
        "box_count",
        "box_edges",
        "box_index",
        "box_lines",
        "box_names",
        "box_sides",
        "cols",
        "full",
        "line_boxes",
        "line_count",
        "line_names",
        "line_pairs",
        "rows",
        "shared_lines",
    )

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        horizontal = (rows + 1) * cols
        self.line_count = horizontal + rows * (cols + 1)
        self.box_count = rows * cols
        self.full = (1 << self.line_count) - 1

        def h(y: int, x: int) -> int:
            return y * cols + x

        def v(y: int, x: int) -> int:
            return horizontal + y * (cols + 1) + x

        names = [""] * self.line_count
        for y in range(rows + 1):
            for x in range(cols):
                names[h(y, x)] = f"{chr(97 + x)}{y + 1}-{chr(98 + x)}{y + 1}"
        for y in range(rows):
            for x in range(cols + 1):
                names[v(y, x)] = f"{chr(97 + x)}{y + 1}-{chr(97 + x)}{y + 2}"
        self.line_names = tuple(names)
        sides = []
        touching: list[list[int]] = [[] for _ in range(self.line_count)]
        for r in range(rows):
            for c in range(cols):
                box = r * cols + c
                four = (h(r, c), h(r + 1, c), v(r, c), v(r, c + 1))  # top, bottom, left, right
                sides.append(four)
                for line in four:
                    touching[line].append(box)
        self.box_sides: tuple[tuple[int, int, int, int], ...] = tuple(sides)
        self.box_lines = tuple((1 << a) | (1 << b) | (1 << c) | (1 << d) for a, b, c, d in sides)
        self.line_boxes: tuple[tuple[int, ...], ...] = tuple(tuple(t) for t in touching)
        self.shared_lines = tuple(line for line in range(self.line_count) if len(touching[line]) == 2)
        # The two boxes of each line, the one box twice at the border: a cheap "is this line safe" test.
        self.line_pairs = tuple((t[0], t[-1]) for t in touching)
        # For walking along chains: each box's four (line, box across it or -1 at the border).
        self.box_edges = tuple(
            tuple((line, next((o for o in touching[line] if o != box), -1)) for line in four)
            for box, four in enumerate(sides)
        )
        self.box_names = tuple(f"{chr(97 + c)}{r + 1}" for r in range(rows) for c in range(cols))
        self.box_index = {name: i for i, name in enumerate(self.box_names)}

    def across(self, line: int, box: int) -> int:
        """The box on the other side of ``line`` from ``box``, or -1 at the border."""
        two = self.line_boxes[line]
        if len(two) == 1:
            return -1
        return two[1] if two[0] == box else two[0]

    def parse_line(self, text: str) -> int:
        """A line from its two dots in either order; InvalidMove naming what is wrong."""
        match = _LINE_TEXT.fullmatch(text)
        if not match:
            shown = text if len(text) <= 20 else text[:20] + "..."
            raise InvalidMove(
                f"{shown!r} is not a line: a line is written by its two dots, like 'a1-b1' or 'a1-a2' "
                "(or one of the words stop, keep, swap)"
            )
        x1, y1, x2, y2 = ord(match[1]) - 97, int(match[2]) - 1, ord(match[3]) - 97, int(match[4]) - 1
        last = f"{chr(97 + self.cols)}{self.rows + 1}"
        for x, y, dot in ((x1, y1, match[1] + match[2]), (x2, y2, match[3] + match[4])):
            if x > self.cols or y > self.rows:
                raise InvalidMove(f"dot {dot} is off the grid: the dots of this board run from a1 to {last}")
        if (x1, y1) > (x2, y2):
            x1, y1, x2, y2 = x2, y2, x1, y1
        if y1 == y2 and x2 == x1 + 1:
            return y1 * self.cols + x1
        if x1 == x2 and y2 == y1 + 1:
            return (self.rows + 1) * self.cols + y1 * (self.cols + 1) + x1
        if x1 == x2 and y1 == y2:
            raise InvalidMove(f"{text!r} is not a line: it joins a dot to itself")
        if x1 != x2 and y1 != y2:
            raise InvalidMove(f"{text!r} is not a line: lines are horizontal or vertical, never diagonal")
        raise InvalidMove(f"{text!r} is not a line: a line joins two neighbouring dots")


@cache
def geometry(rows: int, cols: int) -> Geometry:
    """The shared geometry of a board of ``rows`` x ``cols`` boxes."""
    return Geometry(rows, cols)


# --------------------------------------------------------------------------------------------------
# Symmetries: the value of the rest of a game does not change when the board is mirrored or turned, so an
# exact solver may key its table by one line set per class (``canonical_lines``).


# The symmetry tables read the lines this many at a time: 12 (4096-entry tables, two reads on 3x3) up to 4x4,
# 8 on larger boards (where the solver only meets the last lines, and 12-line tables would cost megabytes).
def _chunk(geo: Geometry) -> int:
    return 12 if geo.line_count <= 40 else 8


@cache
def line_symmetries(geo: Geometry) -> tuple[tuple[int, ...], ...]:
    """The board's symmetries as permutations of the line numbers, identity first: the four of a rectangle
    (mirrors and the half turn), the eight of a square (with the quarter turns and the diagonal mirrors)."""
    rows, cols = geo.rows, geo.cols
    index: dict[frozenset[tuple[int, int]], int] = {}
    for line, name in enumerate(geo.line_names):
        ends = name.split("-")
        index[frozenset((ord(end[0]) - 97, int(end[1:]) - 1) for end in ends)] = line
    maps = [(1, 0, 0, 1), (-1, 0, 0, 1), (1, 0, 0, -1), (-1, 0, 0, -1)]  # (x, y) -> (ax + by, cx + dy), recentred
    if rows == cols:
        maps += [(0, 1, 1, 0), (0, -1, 1, 0), (0, 1, -1, 0), (0, -1, -1, 0)]
    perms = []
    for a, b, c, d in maps:

        def image(x: int, y: int, a: int = a, b: int = b, c: int = c, d: int = d) -> tuple[int, int]:
            # Doubled coordinates centred on the board keep the maps integral.
            u, v = 2 * x - cols, 2 * y - rows
            return (a * u + b * v + cols) // 2, (c * u + d * v + rows) // 2

        perm = [0] * geo.line_count
        for dots, line in index.items():
            perm[line] = index[frozenset(image(x, y) for x, y in dots)]
        perms.append(tuple(perm))
    return tuple(perms)


@cache
def _symmetry_tables(geo: Geometry) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each symmetry but the identity, one table per ``_chunk`` lines mapping those lines' bits to the
    bits of their images: a line set's image is the OR of one read per chunk."""
    tables = []
    size = _chunk(geo)
    chunks = (geo.line_count + size - 1) // size
    for perm in line_symmetries(geo)[1:]:
        per_chunk = []
        for k in range(chunks):
            table = [0]
            for i in range(size):
                line = size * k + i
                bit = 1 << perm[line] if line < geo.line_count else 0
                table += [image | bit for image in table]
            per_chunk.append(tuple(table))
        tables.append(tuple(per_chunk))
    return tuple(tables)


def canonical_lines(geo: Geometry, lines: int) -> int:
    """The least image of ``lines`` under the board's symmetries: one key for all equivalent line sets."""
    best = lines
    size = _chunk(geo)
    mask = (1 << size) - 1
    for tables in _symmetry_tables(geo):
        image, rest = 0, lines
        for table in tables:
            image |= table[rest & mask]
            rest >>= size
        if image < best:
            best = image
    return best
