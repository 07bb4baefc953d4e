"""Reversi's pattern evaluation (8x8): an estimate of the final disc margin corrected by a sum of learned
weights, one per board pattern instance, looked up by the pattern's contents, in a table per game stage.

The idea of the strong Reversi programs (Logistello, Edax): the value of a position is mostly local, so a
table giving a weight to every configuration of a few squares (an edge with its X-squares, a corner block, a
diagonal...) learns what the hand-written features (``evaluation.py``) can only approximate. The weights are
fitted by ``service/learn/reversi.py`` and ship as data (``WEIGHTS_FILE``); nothing here learns.

The patterns (``FAMILIES``), each an ordered list of squares, ``(row, col)`` with a1 = (0, 0):

- ``edge_2x``: an edge's eight squares and the two X-squares next to it (10 squares);
- ``corner_3x3``: the 3x3 block at a corner (9); ``corner_2x5``: the 2x5 block along an edge from a corner (10);
- ``line_2``, ``line_3``, ``line_4``: the second, third and fourth row (8 each);
- ``diag_8``, ``diag_7``, ``diag_6``, ``diag_5``, ``diag_4``: the diagonals of 8 down to 4 squares;
- ``bias``: no square, one weight per number of empty squares within the stage (``STAGE_WIDTH`` weights: the
  count's mean). One weight per stage is not enough: who plays the last move follows the parity of the empty
  squares, and a stage's mean value differs between odd and even counts by a few discs, a bias the training
  carried from each stage's labels into the searches labelling the stage before it.

Each family is applied at every place the board's 8 symmetries take it (``INSTANCES``: 47 in all), and all
places of a family share its table, so the value is the same for a position and its mirror images whenever
a family's table gives the same weight to contents that its own symmetries exchange: the training ties those
weights (``canonical_indices``). A pattern's contents are read from the seat to move's point of view: index
``sum(digit(square_k) * 3**k)``, digit 0 empty, 1 the mover's disc, 2 the opponent's.

What the weights learn is a correction: the estimate is the hand-written one (``evaluation.estimate``:
mobility, frontier, corners...) plus the patterns' sum (``estimate``), so the patterns add what those
features miss (which edge and corner configurations are sound, which lose) without having to learn
mobility, which no pattern of a few squares sees.

Stages: the number of empty squares in buckets of ``STAGE_WIDTH`` (``stage_of``): the same pattern is worth
different things early and late. Weights are integers (``int16``) in 1/``SCALE`` discs; the sum is an int,
the same in the native twin ``service/native/search/reversi_patterns.c`` (tested identical), and the correction is
the sum divided by ``SCALE``.

The weights file (``load_weights``): one JSON header line (``format``, ``version`` of the layout below,
``scale``, ``stages``, ``stage_width``, the families' names and sizes, what trained it), then the table as
little-endian int16, stage after stage, family after family (``Family.size`` entries each: ``3**len(squares)``,
the bias ``STAGE_WIDTH``); gzip compressed.
"""

from __future__ import annotations

import array
import gzip
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.core.jsonvalue import JSONObject

SIZE = 8  # the only board size with learned weights
FORMAT = "gamerules-reversi-patterns"
VERSION = 2  # of the layout: families, their square order and sizes, stages, the file format (2: the bias by count)
SCALE = 32  # a weight's unit: 1/SCALE disc
STAGE_WIDTH = 6  # empty squares per stage
STAGES = 10  # stage 9 holds 54..60 empty squares
WEIGHTS_FILE = Path(__file__).resolve().parent / "data" / "patterns.bin.gz"
BOUND = SIZE * SIZE - 1  # an estimate never claims a margin as large as a proved wipe-out

Square = tuple[int, int]

_BASE: tuple[tuple[str, tuple[Square, ...]], ...] = (
    ("edge_2x", (*((0, c) for c in range(8)), (1, 1), (1, 6))),
    ("corner_3x3", tuple((r, c) for r in range(3) for c in range(3))),
    ("corner_2x5", tuple((r, c) for r in range(2) for c in range(5))),
    ("line_2", tuple((1, c) for c in range(8))),
    ("line_3", tuple((2, c) for c in range(8))),
    ("line_4", tuple((3, c) for c in range(8))),
    ("diag_8", tuple((i, i) for i in range(8))),
    ("diag_7", tuple((i, i + 1) for i in range(7))),
    ("diag_6", tuple((i, i + 2) for i in range(6))),
    ("diag_5", tuple((i, i + 3) for i in range(5))),
    ("diag_4", tuple((i, i + 4) for i in range(4))),
    ("bias", ()),
)


def symmetries() -> tuple[tuple[int, ...], ...]:
    """The board's 8 symmetries, each as the image square of every square (index = row * 8 + col)."""
    last = SIZE - 1
    maps: tuple[Callable[[int, int], tuple[int, int]], ...] = (
        lambda r, c: (r, c),
        lambda r, c: (r, last - c),
        lambda r, c: (last - r, c),
        lambda r, c: (last - r, last - c),
        lambda r, c: (c, r),
        lambda r, c: (c, last - r),
        lambda r, c: (last - c, r),
        lambda r, c: (last - c, last - r),
    )
    out = []
    for f in maps:
        image = []
        for square in range(SIZE * SIZE):
            r, c = f(*divmod(square, SIZE))
            image.append(r * SIZE + c)
        out.append(tuple(image))
    return tuple(out)


SYMMETRIES = symmetries()


@dataclass(frozen=True, slots=True)
class Family:
    """One pattern: its name, its squares in index order, its table's offset within a stage."""

    name: str
    squares: tuple[int, ...]
    offset: int

    @property
    def size(self) -> int:
        """Its table's entries: one per contents of its squares; the squareless bias, one per count of empty
        squares within a stage (``within``)."""
        return 3 ** len(self.squares) if self.squares else STAGE_WIDTH


def _families() -> tuple[tuple[Family, ...], int]:
    families = []
    offset = 0
    for name, cells in _BASE:
        family = Family(name, tuple(r * SIZE + c for r, c in cells), offset)
        families.append(family)
        offset += family.size
    return tuple(families), offset


FAMILIES, STAGE_SIZE = _families()
TABLE_SIZE = STAGES * STAGE_SIZE


def _instances() -> tuple[tuple[int, tuple[int, ...]], ...]:
    """(family index, squares) of every distinct place of every family: the images of its squares under the
    symmetries, one per distinct set of squares (the first symmetry's order)."""
    out = []
    for f, family in enumerate(FAMILIES):
        seen: set[frozenset[int]] = set()
        for image in SYMMETRIES:
            squares = tuple(image[s] for s in family.squares)
            if frozenset(squares) not in seen:
                seen.add(frozenset(squares))
                out.append((f, squares))
    return tuple(out)


INSTANCES = _instances()


def stage_of(empties: int) -> int:
    """The stage of a position with ``empties`` empty squares."""
    return min(STAGES - 1, empties // STAGE_WIDTH)


def within(empties: int) -> int:
    """The index of the bias's weight for ``empties`` empty squares (the last stage's 60 shares 54's)."""
    return empties % STAGE_WIDTH


def self_symmetries(family: Family) -> list[tuple[int, ...]]:
    """The permutations of a family's squares made by the symmetries that keep its set of squares: ``p`` with
    ``image[squares[k]] == squares[p[k]]``. Contents they exchange must weigh the same (``canonical_indices``)."""
    out = []
    for image in SYMMETRIES:
        moved = [image[s] for s in family.squares]
        if set(moved) == set(family.squares):
            out.append(tuple(family.squares.index(s) for s in moved))
    return out


def canonical_indices(family: Family) -> list[int]:
    """For every index of the family's table, the smallest index its self-symmetries map it to: the training
    fits one weight per canonical index, so the evaluation is the same on all 8 images of a position."""
    n = len(family.squares)
    if not n:  # the bias: its entries are counts of empty squares, which no symmetry exchanges
        return list(range(family.size))
    perms = self_symmetries(family)
    out = []
    for index in range(family.size):
        digits = [(index // 3**k) % 3 for k in range(n)]
        out.append(min(sum(digits[p[k]] * 3**k for k in range(n)) for p in perms))
    return out


# Reading every instance's index square by square costs ~400 bit operations in Python. Instead every index is
# a field of one packed int: each row of the board adds, for its 8 bits of ``me`` and of ``opp``, the digits
# those squares give every instance (precomputed per row and byte), and the fields are read out at the end.
_FIELD = 17  # bits per packed index: 3**10 - 1 < 2**17, and fields never carry into each other
_MASK = (1 << _FIELD) - 1


def _row_tables() -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """For each row: (the packed digits of ``me``'s discs, of ``opp``'s) for every byte of that row."""
    out = []
    for row in range(SIZE):
        mine = []
        for byte in range(256):
            packed = 0
            for i, (_, squares) in enumerate(INSTANCES):
                for k, square in enumerate(squares):
                    if square // SIZE == row and byte >> (square % SIZE) & 1:
                        packed += 3**k << (_FIELD * i)
            mine.append(packed)
        out.append((tuple(mine), tuple(2 * x for x in mine)))
    return tuple(out)


_ROWS = _row_tables()
# (field shift, family offset) of the instances with squares, in INSTANCES' order; the squareless one (the
# bias, the last instance) is indexed by the count of empty squares instead (``within``).
_FIELDS = tuple((_FIELD * i, FAMILIES[f].offset) for i, (f, squares) in enumerate(INSTANCES) if squares)
_SQUARELESS = tuple(FAMILIES[f].offset for f, squares in INSTANCES if not squares)


def _packed(me: int, opp: int) -> int:
    packed = 0
    for row, (mine, theirs) in enumerate(_ROWS):
        packed += mine[(me >> (8 * row)) & 255] + theirs[(opp >> (8 * row)) & 255]
    return packed


def indices(me: int, opp: int) -> list[int]:
    """The table index of every instance (``INSTANCES``' order) of the 8x8 position (``me`` to move), stage
    included: the features the training fits and the evaluation sums."""
    empties = SIZE * SIZE - (me | opp).bit_count()
    base = stage_of(empties) * STAGE_SIZE
    packed = _packed(me, opp)
    out = [base + offset + ((packed >> shift) & _MASK) for shift, offset in _FIELDS]
    return out + [base + offset + within(empties) for offset in _SQUARELESS]


def pattern_sum(me: int, opp: int, weights: Sequence[int]) -> int:
    """The weights' sum for the 8x8 position with ``me`` to move, in 1/``SCALE`` discs (``weights``: the
    whole table, ``TABLE_SIZE`` ints). The native twin is ``gr_reversi_pattern_sum``."""
    empties = SIZE * SIZE - (me | opp).bit_count()
    base = stage_of(empties) * STAGE_SIZE
    packed = _packed(me, opp)
    total = sum(weights[base + offset + within(empties)] for offset in _SQUARELESS)
    for shift, offset in _FIELDS:
        total += weights[base + offset + ((packed >> shift) & _MASK)]
    return total


def estimate(base: float, total: int) -> float:
    """The learned estimate: the hand-written one (``base``, ``evaluation.estimate``) corrected by a weights'
    sum, as a disc margin clamped short of a proved wipe-out."""
    return max(-float(BOUND), min(float(BOUND), base + total / SCALE))


# --------------------------------------------------------------------------------------------------
# The weights file.


class WeightsError(ValueError):
    """A weights file this code cannot read: another format, version or layout, or a truncated table."""


@dataclass(frozen=True, slots=True)
class Weights:
    """A loaded table (``array('h')``, ``TABLE_SIZE`` entries) and the file's header."""

    table: array.array[int]
    header: dict[str, Any]

    @property
    def version(self) -> int:
        return int(self.header["version"])


def layout() -> JSONObject:
    """The header fields that must match this code for a table to be read by it."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "scale": SCALE,
        "stages": STAGES,
        "stage_width": STAGE_WIDTH,
        "families": [[f.name, len(f.squares), f.size] for f in FAMILIES],
    }


def dump_weights(path: Path, table: Iterable[int], trained: JSONObject) -> None:
    """Write ``table`` (``TABLE_SIZE`` ints within int16) with the header; ``trained`` says how it was made.
    The bytes depend only on the table and ``trained`` (gzip's timestamp is fixed), so a training run
    reproduces its file bit for bit."""
    values = array.array("h", table)
    if len(values) != TABLE_SIZE:
        raise WeightsError(f"a table has {TABLE_SIZE} weights, not {len(values)}")
    if sys.byteorder != "little":
        values.byteswap()
    header = json.dumps({**layout(), "trained": trained}, sort_keys=True).encode() + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as out:
        out.write(header + values.tobytes())


def load_weights(path: Path = WEIGHTS_FILE) -> Weights:
    """Read a weights file, checking that its layout is this code's (``WeightsError`` otherwise)."""
    data = gzip.decompress(path.read_bytes())
    line, _, body = data.partition(b"\n")
    try:
        header = json.loads(line)
    except ValueError as error:
        raise WeightsError(f"{path.name}: no header line") from error
    wanted = layout()
    got = {key: header.get(key) for key in wanted}
    if got != wanted:
        raise WeightsError(f"{path.name}: layout {got} is not this code's {wanted}")
    table = array.array("h")
    table.frombytes(body)
    if sys.byteorder != "little":
        table.byteswap()
    if len(table) != TABLE_SIZE:
        raise WeightsError(f"{path.name}: {len(table)} weights, expected {TABLE_SIZE}")
    return Weights(table, header)
