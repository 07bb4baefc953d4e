"""Strands board layouts: hexhex geometry, cell names and the label layouts of ``docs/games/strands.md``.

A layout is written as its label rows, top to bottom, joined by ``/`` (``655556/5333335/...``): the same
text the position notation carries, so any layout — named, random or custom — travels with the position.

Geometry. Cells use axial coordinates (q, r) with q, r in -(n-1)..n-1 and |q + r| <= n-1 for side n; the
drawing's row is r (top row r = -(n-1)) and, within a row, q grows to the right (pointy-top hexes, each row
offset half a cell). Each cell is a bit of a padded grid: bit = (r + n-1) * stride + (q + n-1) with
stride = 2n, so the six neighbours are the shifts ±1, ±stride, ±(stride-1) and a spare column (never a
cell) stops a row's end from wrapping onto the next row. Grid order is board order (by row, then by place
in the row), so sorting bits sorts cells the way the notation lists them.

Random layouts (``random6``, ``random7``) follow the rules' dealing: ring by ring, labels highest first,
first onto the ring's corner cells in random order, then onto its other cells in random order. Where
the rules are silent: the randomness is a Fisher–Yates shuffle (corners, then the other cells, of each ring
from the centre outwards) drawing 64-bit words from SHA-256 of ``"strands:<layout>:<seed>:<block>"``
(block = 0, 1, ...; each digest gives four big-endian words) with rejection sampling for uniformity, so
the same seed gives the same board on every machine and Python version.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from functools import lru_cache

from service.core.bits import set_bits
from service.core.errors import RulesError
from service.core.seeds import Sha256Stream

MIN_SIDE = 2
MAX_SIDE = 9
MAX_LABELS_TEXT = 3 * MAX_SIDE * (MAX_SIDE - 1) + 1 + 2 * MAX_SIDE  # every cell digit plus the slashes, rounded up
ROW_LETTERS = "abcdefghijklmnopq"  # 2 * MAX_SIDE - 1 rows

# Per-ring label counts (label 1..6) for the random layouts, from the rules.
RANDOM_RING_COUNTS: dict[str, tuple[tuple[int, ...], ...]] = {
    "random6": (
        (1, 0, 0, 0, 0, 0),
        (2, 4, 0, 0, 0, 0),
        (0, 11, 1, 0, 0, 0),
        (0, 12, 6, 0, 0, 0),
        (0, 0, 22, 2, 0, 0),
        (0, 0, 0, 10, 20, 0),
    ),
    "random7": (
        (1, 0, 0, 0, 0, 0),
        (3, 3, 0, 0, 0, 0),
        (5, 7, 0, 0, 0, 0),
        (1, 17, 0, 0, 0, 0),
        (0, 15, 9, 0, 0, 0),
        (0, 0, 28, 2, 0, 0),
        (0, 0, 0, 8, 28, 0),
    ),
}

SIDE7_ROWS = (
    "6655566/64333346/533222335/5322222235/53222222235/632222122246/6432211122346/"
    "642221222236/53222222235/5322222235/533222335/64333346/6655566"
)


def row_lengths(side: int) -> list[int]:
    """Cells per row of a hexhex board of ``side``, top to bottom."""
    return [side + min(row, 2 * side - 2 - row) for row in range(2 * side - 1)]


def axial_cells(side: int) -> Iterator[tuple[int, int]]:
    """The (q, r) of every cell in board order."""
    m = side - 1
    for r in range(-m, m + 1):
        for q in range(max(-m, -m - r), min(m, m - r) + 1):
            yield q, r


def ring_of(q: int, r: int) -> int:
    """Distance from the centre: the ring the cell lies on (0 = centre)."""
    return max(abs(q), abs(r), abs(q + r))


def is_corner(q: int, r: int) -> bool:
    """One of the six corner cells of its ring (two of q, r, s have the ring's absolute value)."""
    k = ring_of(q, r)
    return k > 0 and sorted((abs(q), abs(r), abs(q + r))) == [0, k, k]


def _rows_from_rule(side: int, rule: Callable[[int, bool], int]) -> str:
    """Label rows from a rule ``(ring, corner) -> label``."""
    digits = [str(rule(ring_of(q, r), is_corner(q, r))) for q, r in axial_cells(side)]
    rows, at = [], 0
    for length in row_lengths(side):
        rows.append("".join(digits[at : at + length]))
        at += length
    return "/".join(rows)


def _standard(ring: int, corner: bool) -> int:
    return (1, 2, 2, 2, 3, 6 if corner else 5)[ring]


def _side6_fours(ring: int, corner: bool) -> int:
    return (1, 2, 2, 2, 3, 6 if corner else 4)[ring]


def _side6_low(ring: int, corner: bool) -> int:
    return (1, 2, 2, 2, 2, 3)[ring]


def _side5(ring: int, corner: bool) -> int:
    return (1, 2, 2, 3, 6 if corner else 4)[ring]


def _side4(ring: int, corner: bool) -> int:
    return (1, 2, 2, 4 if corner else 3)[ring]


NAMED_LAYOUTS: dict[str, str] = {
    "standard": _rows_from_rule(6, _standard),
    "side6-fours": _rows_from_rule(6, _side6_fours),
    "side6-low": _rows_from_rule(6, _side6_low),
    "side5": _rows_from_rule(5, _side5),
    "side4": _rows_from_rule(4, _side4),
    "side7": SIDE7_ROWS,
}

LAYOUT_CHOICES = (*NAMED_LAYOUTS, *RANDOM_RING_COUNTS, "custom")


def random_rows(layout: str, seed: str) -> str:
    """The label rows of ``random6`` / ``random7`` dealt from ``seed``."""
    ring_counts = RANDOM_RING_COUNTS[layout]
    side = len(ring_counts)
    cells = list(axial_cells(side))
    labels = [0] * len(cells)
    key = f"strands:{layout}:{seed}"
    stream = Sha256Stream(lambda block: hashlib.sha256(f"{key}:{block}".encode()).digest())
    for ring, counts in enumerate(ring_counts):
        corners = [i for i, (q, r) in enumerate(cells) if ring_of(q, r) == ring and is_corner(q, r)]
        others = [i for i, (q, r) in enumerate(cells) if ring_of(q, r) == ring and not is_corner(q, r)]
        stream.shuffle(corners)
        stream.shuffle(others)
        deal = [label for label in range(6, 0, -1) for _ in range(counts[label - 1])]
        for cell, label in zip(corners + others, deal, strict=True):
            labels[cell] = label
    rows, at = [], 0
    for length in row_lengths(side):
        rows.append("".join(map(str, labels[at : at + length])))
        at += length
    return "/".join(rows)


class Layout:
    """One board: its labels and everything derived from them, precomputed once per layout text."""

    __slots__ = (
        "board",
        "cell_label",
        "cells",
        "index",
        "label_cells",
        "label_masks",
        "names",
        "neighbours",
        "ring",
        "rows",
        "side",
        "size",
        "stride",
    )

    def __init__(self, rows: str, side: int, labels: list[int]) -> None:
        self.rows = rows  # the label rows joined by "/": the layout's identity
        self.side = side
        self.stride = 2 * side
        self.size = len(labels)  # number of cells
        m = side - 1
        self.cells: tuple[int, ...] = tuple((r + m) * self.stride + (q + m) for q, r in axial_cells(side))
        names: list[str] = []
        for row, length in enumerate(row_lengths(side)):
            names.extend(f"{ROW_LETTERS[row]}{place}" for place in range(1, length + 1))
        self.names: dict[int, str] = dict(zip(self.cells, names, strict=True))  # bit -> "f6"
        self.index: dict[str, int] = {name: bit for bit, name in self.names.items()}
        self.cell_label: dict[int, int] = dict(zip(self.cells, labels, strict=True))
        self.board = sum(1 << bit for bit in self.cells)
        masks = [0] * 7
        for bit, label in self.cell_label.items():
            masks[label] |= 1 << bit
        self.label_masks: tuple[int, ...] = tuple(masks)  # index = label; [0] unused
        self.label_cells: tuple[tuple[int, ...], ...] = tuple(
            tuple(bit for bit in self.cells if self.cell_label[bit] == label) for label in range(7)
        )
        self.neighbours: dict[int, int] = {bit: self.dilate(1 << bit) & ~(1 << bit) for bit in self.cells}
        self.ring: dict[int, int] = {
            bit: ring_of(q, r) for bit, (q, r) in zip(self.cells, axial_cells(side), strict=True)
        }  # distance from the centre

    def dilate(self, mask: int) -> int:
        """``mask`` plus every cell adjacent to it."""
        s = self.stride
        grown = mask | mask << 1 | mask >> 1 | mask << s | mask >> s | mask << (s - 1) | mask >> (s - 1)
        return grown & self.board

    def cell_names(self, mask: int) -> list[str]:
        """The names of the cells of ``mask`` in board order."""
        return [self.names[cell] for cell in set_bits(mask)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and self.rows == other.rows

    def __hash__(self) -> int:
        return hash(self.rows)

    def __repr__(self) -> str:
        return f"Layout({self.rows!r})"


def parse_rows(text: object, field: str, shape_error: type[RulesError], syntax_error: type[RulesError]) -> Layout:
    """Read label rows (``655556/5333335/...``) into a Layout.

    ``syntax_error`` is raised for text that is not rows of digits, ``shape_error`` for digits that do not
    make a board: not hexhex-shaped, a side outside 2..9, a label outside 1..6, no cell labelled 2.
    """
    if not isinstance(text, str):
        raise shape_error(f"labels must be a string of label rows, got {type(text).__name__}", field)
    if len(text) > MAX_LABELS_TEXT:
        raise shape_error(f"labels is {len(text)} characters; the largest board (side 9) needs fewer", field)
    found = _parse_rows(text)
    if isinstance(found, Layout):
        return found
    syntax, message = found
    raise (syntax_error if syntax else shape_error)(message, field)


@lru_cache(maxsize=64)
def _parse_rows(text: str) -> Layout | tuple[bool, str]:
    """The layout of ``text``, or (is a syntax problem, what is wrong). Cached: boards repeat across calls."""
    if not text:
        return False, "labels is empty: give the label rows joined by '/'"
    rows = text.split("/")
    for row in rows:
        if not row or not row.isascii() or not row.isdigit():
            return True, f"label row {row[:20]!r} is not a run of digits 1..6"
    if len(rows) % 2 == 0:
        return False, f"a hexhex board has an odd number of rows, got {len(rows)}"
    side = (len(rows) + 1) // 2
    if not MIN_SIDE <= side <= MAX_SIDE:
        return False, f"board side must be {MIN_SIDE}..{MAX_SIDE}, got {side} ({len(rows)} rows)"
    expected = row_lengths(side)
    got = [len(row) for row in rows]
    if got != expected:
        return False, (
            f"not a hexhex board: side {side} needs row lengths {'/'.join(map(str, expected))}, "
            f"got {'/'.join(map(str, got))}"
        )
    labels = [int(ch) for row in rows for ch in row]
    bad = sorted({label for label in labels if not 1 <= label <= 6})
    if bad:
        return False, f"labels must be 1..6, got {', '.join(map(str, bad))}"
    if 2 not in labels:
        return False, "the layout needs at least one cell labelled 2 for Black's opening"
    return Layout(text, side, labels)


def cell_bit(layout: Layout, name: object, error: type[RulesError], field: str) -> int:
    """The grid bit of a cell name such as ``f6``; ``error`` naming ``field`` when there is no such cell."""
    if not isinstance(name, str):
        raise error(f"a cell name must be a string, got {type(name).__name__}", field)
    bit = layout.index.get(name.strip())
    if bit is None:
        last_row = chr(ord("a") + 2 * layout.side - 2)
        raise error(
            f"{name.strip()[:8]!r} is not a cell of this side-{layout.side} board (rows a..{last_row}, "
            "cells 1.. from the left of each row)",
            field,
        )
    return bit
