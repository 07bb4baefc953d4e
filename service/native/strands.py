"""Strands' adapter for the native search (``service/native/search/strands.c``): the engine's layout and stone masks
in the kernel's state, and moves both ways.

The kernel numbers cells 0.. in board order (the engine's grid bits, sorted) and holds the layout in its state
(each cell's label in three bit planes), so a state is self-contained. A move is one int: the colex rank of its
cells among the layout's cells of its label, how many cells, the label (``rank << 6 | count << 3 | label``).
Every board side (2..9), layout and ``exact_count`` fits, except a layout where some label has so many cells that
a rank would not fit 25 bits (more than comb(n, k) = 2**25 covers of one size: e.g. 60 cells labelled 6); ``pack``
answers None for it, and the levels stay on the Python search.

The kernel serves both native searches: the Monte Carlo tree search (``service.native.mcts``) and the alpha-beta
core (``engine.search``), where ranks above its move range share history slots by a hash (``core.c``).
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Mapping, Sequence
from functools import lru_cache
from math import comb
from typing import Protocol

from service import native
from service.core.bits import set_bits

KERNEL = "strands"
LIBRARY = "gamerules_native"
_RANK_BITS = 25
_WORDS_BYTES = 32  # four 64-bit words: 256 cells, a side-9 board's 217 among them
_TAIL = struct.Struct("<iiii")  # st_state after the masks: side, to_move, exact, learned


class Layout(Protocol):
    """What the adapter reads of the engine's layout."""

    @property
    def side(self) -> int: ...
    @property
    def cells(self) -> Sequence[int]: ...
    @property
    def cell_label(self) -> Mapping[int, int]: ...
    @property
    def label_cells(self) -> tuple[tuple[int, ...], ...]: ...
    def __hash__(self) -> int: ...  # the packed layouts are cached by layout


class StrandsState(Protocol):
    """What the adapter reads of the engine's ``StrandsPosition`` (the layers keep the engines out of this package,
    so the adapter names the fields it reads; the engine's position class has them)."""

    @property
    def layout(self) -> Layout: ...
    @property
    def black(self) -> int: ...
    @property
    def white(self) -> int: ...
    @property
    def to_move(self) -> int: ...
    @property
    def exact_count(self) -> bool: ...


LEARNED = True  # ``pack(..., learned=True)``: the weights of ``set_weights``


class _Packed:
    """What a layout contributes to every state and move: its label planes, cell numbering and label cells."""

    __slots__ = ("index", "label_cells", "label_index", "planes", "side")

    def __init__(self, layout: Layout) -> None:
        self.side = layout.side
        self.index = {bit: i for i, bit in enumerate(layout.cells)}  # grid bit -> kernel cell
        planes = [0, 0, 0]
        for i, bit in enumerate(layout.cells):
            for b in range(3):
                if layout.cell_label[bit] >> b & 1:
                    planes[b] |= 1 << i
        self.planes = b"".join(p.to_bytes(_WORDS_BYTES, "little") for p in planes)
        self.label_cells: tuple[tuple[int, ...], ...] = layout.label_cells  # grid bits per label, ascending
        self.label_index = {bit: j for cells in self.label_cells for j, bit in enumerate(cells)}


@lru_cache(maxsize=64)
def _packed(layout: Layout) -> _Packed | None:
    for label in range(1, 7):
        n = len(layout.label_cells[label])
        if n and max(comb(n, k) for k in range(1, min(label, n) + 1)) >= 1 << _RANK_BITS:
            return None
    return _Packed(layout)


def _cells(packed: _Packed, mask: int) -> bytes:
    index = packed.index
    compact = 0
    for bit in set_bits(mask):
        compact |= 1 << index[bit]
    return compact.to_bytes(_WORDS_BYTES, "little")


_weights: list[ctypes.Array[ctypes.c_double] | None] = [
    None
]  # the array the kernel reads, kept alive here while it may


_given: list[tuple[float, ...] | None] = [None]  # the weights last given, handed on when the kernel is turned on


def set_weights(weights: Sequence[float]) -> None:
    """Hand the kernel the learned evaluation's weights (a sequence of ``learned.SIZE`` floats) for the states
    packed ``learned``; the kernel keeps a pointer to a copy held here. C never reads the weights file. With the
    kernels off (``GAMERULES_NO_NATIVE=1``) they are kept, and handed on by ``pack`` once the kernels are on."""
    setter = native.kernel(LIBRARY, "gr_strands_set_weights", (ctypes.c_void_p,), ctypes.c_int32)
    if setter is None:
        _given[0] = tuple(weights)
        return
    table = (ctypes.c_double * len(weights))(*weights)
    size = setter(ctypes.cast(table, ctypes.c_void_p))
    if size != len(weights):
        previous = _weights[0]  # the kernel keeps the weights it had, not none at all
        setter(None if previous is None else ctypes.cast(previous, ctypes.c_void_p))
        raise ValueError(f"the Strands kernel takes {size} learned weights, not {len(weights)}")
    _weights[0] = table
    _given[0] = tuple(weights)


def weights() -> ctypes.Array[ctypes.c_double] | None:
    """The weights the kernel evaluates learned states with (None when none were handed)."""
    return _weights[0]


def pack(position: StrandsState, learned: bool = False) -> bytes | None:
    """The kernel's state of ``position``; ``learned`` marks it to be evaluated with the learned weights
    (``set_weights`` first). None for a layout the kernel does not hold."""
    packed = _packed(position.layout)
    if packed is None:
        return None
    if learned and _weights[0] is None and _given[0] is not None:
        set_weights(_given[0])  # given while the kernels were off
    if learned and _weights[0] is None:
        raise LookupError("the learned evaluation has no weights: set_weights(weights) first")
    return (
        packed.planes
        + _cells(packed, position.black)
        + _cells(packed, position.white)
        + _TAIL.pack(packed.side, position.to_move, int(position.exact_count), int(learned))
    )


def move_out(position: StrandsState, move: int) -> tuple[int, ...]:
    """The engine's move (its grid bits, ascending) of a kernel move."""
    packed = _packed(position.layout)
    assert packed is not None
    label, count, rank = move & 7, move >> 3 & 7, move >> 6
    cells = packed.label_cells[label]
    at = len(cells)
    out = []
    for i in range(count, 0, -1):  # colex: the largest j with comb(j, i) <= rank
        j = i - 1
        while j + 1 < at and comb(j + 1, i) <= rank:
            j += 1
        rank -= comb(j, i)
        out.append(cells[j])
        at = j
    return tuple(reversed(out))


def move_in(position: StrandsState, move: Sequence[int]) -> int:
    """The kernel move of an engine move (grid bits of one label)."""
    packed = _packed(position.layout)
    assert packed is not None
    cells = sorted(move)
    label = position.layout.cell_label[cells[0]]
    rank = sum(comb(packed.label_index[bit], i + 1) for i, bit in enumerate(cells))
    return rank << 6 | len(cells) << 3 | label
