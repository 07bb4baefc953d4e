"""Reversi's learned evaluation at the search's leaves: the pattern weights (``service/engines/reversi/patterns.py``)
summed by the native engine's ``search/reversi_patterns.c`` when it is built, by the Python twin otherwise (the
same integers, tested), as the alpha-beta core's ``evaluate=`` (``service/search/alphabeta.py``); and the same
table handed to the native search's Reversi kernel (``PatternEvaluation.hand_to_native``), whose leaves then
compute the same doubles in C (``service.native.engine.search(..., learned=True)``).

``shipped()`` reads the weights shipped in the package; the service never trains (``service/learn/reversi.py``
makes the file).
"""

from __future__ import annotations

import array
import ctypes
from collections.abc import Callable
from typing import Any

from service import native
from service.engines.reversi import ReversiPosition
from service.engines.reversi.patterns import SIZE, TABLE_SIZE, estimate, load_weights, pattern_sum
from service.native import reversi as native_reversi

NativeSum = Callable[[int, int, Any], int]


def native_sum() -> NativeSum | None:
    """The kernel's ``gr_reversi_pattern_sum(me, opp, weights)``; None when it is not built or kernels are off."""
    u64 = ctypes.c_uint64
    argtypes = (u64, u64, ctypes.POINTER(ctypes.c_int16))
    return native.kernel(native_reversi.LIBRARY, "gr_reversi_pattern_sum", argtypes, ctypes.c_int32)


class PatternEvaluation:
    """``evaluate(position, seat)`` over one weights table: the estimated final disc margin for ``seat`` on
    8x8, the hand-written estimate corrected by the patterns (the final margin once the game is over); other
    sizes keep the hand-written ``position.evaluate``."""

    __slots__ = ("_pointer", "table")

    def __init__(self, table: array.array[int]) -> None:
        if len(table) != TABLE_SIZE or table.typecode != "h":
            raise ValueError(f"a pattern table is array('h') of {TABLE_SIZE} weights")
        self.table = table  # kept alive: the kernel reads it through the pointer
        self._pointer = ctypes.cast((ctypes.c_int16 * TABLE_SIZE).from_buffer(table), ctypes.POINTER(ctypes.c_int16))

    def total(self, me: int, opp: int) -> int:
        """The weights' sum for ``me`` to move, natively when the kernel is there."""
        kernel = native_sum()
        if kernel is not None:
            return kernel(me, opp, self._pointer)
        return pattern_sum(me, opp, self.table)

    def hand_to_native(self) -> bool:
        """Make this table the one the native search evaluates learned states with (``pack(..., learned=True)``);
        False when the native engine is not built or is turned off (the Python search still uses it)."""
        native_reversi.set_weights(self.table)
        return self.in_native()

    def in_native(self) -> bool:
        """Whether the native search's learned evaluation is this table."""
        return native_reversi.weights() is self.table

    def __call__(self, position: ReversiPosition, seat: int) -> float:
        if position.to_move == 0:
            return position.final_value(seat)
        if position.size != SIZE:
            return position.evaluate(seat)
        me, opp = position.sides()
        value = estimate(position.evaluate(position.to_move), self.total(me, opp))
        return value if seat == position.to_move else -value


def shipped() -> PatternEvaluation:
    """The evaluation with the weights shipped in the package (``patterns.WEIGHTS_FILE``), read from disk."""
    return PatternEvaluation(load_weights().table)
