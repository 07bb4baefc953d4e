"""Reversi's adapter for the native search (``service/native/search/reversi.c``): the engine's bitboards in the
kernel's state, and moves both ways. Boards of side 4, 6 and 8 fit the kernel's 64-bit bitboards; larger
boards answer None and stay on the Python search.

The learned evaluation (``search/reversi_patterns.c``, the twin of ``service/engines/reversi/patterns.py``):
``set_weights(table)`` hands the kernel one weights table, once, before the searches that use it (the caller
reads the weights file; C never parses it), and ``pack(position, learned=True)`` marks a state to be
evaluated with it; without it the kernel keeps the hand-written estimate.
"""

from __future__ import annotations

import array
import ctypes
import struct
from typing import Protocol

from service import native

KERNEL = "reversi"
LIBRARY = "gamerules_native"  # the engine's library (service/native/engine.py), which holds the kernel
PASS_MOVE = 64  # the kernel's number for the engine's PASS (-1)
LEARNED_SIZE = 8  # the only board size with learned weights (patterns.SIZE)
_PASS = -1
_LAYOUT = struct.Struct("<QQiiii")  # rv_state: black, white, to_move, black_seat, size, learned
_weights: list[array.array[int] | None] = [None]  # the table the kernel reads, kept alive here while it may


class ReversiState(Protocol):
    """What the adapter reads of the engine's ``ReversiPosition`` (the layers keep the engines out of this package,
    so the adapter names the fields it reads; the engine's position class has them)."""

    @property
    def size(self) -> int: ...
    @property
    def black(self) -> int: ...
    @property
    def white(self) -> int: ...
    @property
    def to_move(self) -> int: ...
    @property
    def black_seat(self) -> int: ...


LEARNED = True  # ``pack(..., learned=True)``: the table of ``set_weights``


def pack(position: ReversiState, learned: bool = False) -> bytes | None:
    """The kernel's state of ``position``, None when the board is larger than 8x8. ``learned``: evaluate it
    with the table of ``set_weights`` (8x8 only; other sizes keep the hand-written estimate)."""
    if position.size > 8:
        return None
    if learned and _weights[0] is None:
        raise LookupError("the learned evaluation has no weights: set_weights(table) first")
    flag = int(learned and position.size == LEARNED_SIZE)
    return _LAYOUT.pack(position.black, position.white, position.to_move, position.black_seat, position.size, flag)


def set_weights(table: array.array[int] | None) -> array.array[int] | None:
    """Hand the kernel ``table`` (``array('h')`` of ``patterns.TABLE_SIZE`` weights, the layout checked by its
    loader) for the states packed ``learned``; returns the table it replaces (None at first). The kernel reads
    the table in place: a caller may change its entries between searches (the training does), never during
    one. Returns None without a change when the engine is not built or is turned off."""
    function = native.kernel(LIBRARY, "gr_reversi_set_weights", (ctypes.c_void_p,), None)
    if function is None:
        return None
    previous = _weights[0]
    if table is None:
        function(None)
    else:
        address, _ = table.buffer_info()
        function(address)
    _weights[0] = table
    return previous


def weights() -> array.array[int] | None:
    """The table the kernel evaluates learned states with (None when none was handed)."""
    return _weights[0]


def move_out(position: ReversiState, move: int) -> int:
    """The engine's move for the kernel's ``move``."""
    return _PASS if move == PASS_MOVE else move


def move_in(position: ReversiState, move: int) -> int:
    """The kernel's number for the engine's ``move``."""
    return PASS_MOVE if move == _PASS else int(move)
