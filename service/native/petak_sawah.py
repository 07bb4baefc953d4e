"""Petak Sawah's adapter for the native search (``service/native/search/petak_sawah.c``): the engine's cell masks in
the kernel's state; moves (cell indices) are the same on both sides. Boards of at most 64 cells fit (the
default 5x5 among them); larger ones answer None and stay on the Python search."""

from __future__ import annotations

import struct
from typing import Any

KERNEL = "petak_sawah"
_LAYOUT = struct.Struct("<QQQiiii")  # ps_state: rocks, own1, own2, rows, cols, opener, to_move
MAX_CELLS = 64  # the kernel's cell masks are 64-bit


def pack(position: Any) -> bytes | None:
    board = position.board
    if board.size > MAX_CELLS:
        return None
    return _LAYOUT.pack(
        position.rocks, position.own1, position.own2, board.rows, board.cols, position.opener, position.to_move
    )


def move_out(position: Any, move: int) -> Any:
    return move


def move_in(position: Any, move: Any) -> int:
    return int(move)
