"""Reversi's adapter for the native search (``service/native/search/reversi.c``): the engine's bitboards in the
kernel's state, and moves both ways. Boards of side 4, 6 and 8 fit the kernel's 64-bit bitboards; larger
boards answer None and stay on the Python search."""

from __future__ import annotations

import struct
from typing import Any

KERNEL = "reversi"
PASS_MOVE = 64  # the kernel's number for the engine's PASS (-1)
_PASS = -1
_LAYOUT = struct.Struct("<QQiiii")  # rv_state: black, white, to_move, black_seat, size, pad


def pack(position: Any) -> bytes | None:
    """The kernel's state of ``position``, None when the board is larger than 8x8."""
    if position.size > 8:
        return None
    return _LAYOUT.pack(position.black, position.white, position.to_move, position.black_seat, position.size, 0)


def move_out(position: Any, move: int) -> Any:
    """The engine's move for the kernel's ``move``."""
    return _PASS if move == PASS_MOVE else move


def move_in(position: Any, move: Any) -> int:
    """The kernel's number for the engine's ``move``."""
    return PASS_MOVE if move == _PASS else int(move)
