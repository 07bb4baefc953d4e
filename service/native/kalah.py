"""Kalah's adapter for the native search (``service/native/search/kalah.c``): the engine's board tuple (holes in
sowing order) in the kernel's state; moves (pit numbers) are the same on both sides. Every option the engine
has fits (at most 12 pits a side)."""

from __future__ import annotations

import struct
from typing import Any

KERNEL = "kalah"
_HOLES = 26
_LAYOUT = struct.Struct(f"<{_HOLES}hhhhh")  # kl_state: holes, pits per side, to_move, seeds per pit, pad


def pack(position: Any) -> bytes | None:
    board = position.board
    holes = list(board) + [0] * (_HOLES - len(board))
    return _LAYOUT.pack(*holes, position.pits_per_side, position.to_move, position.seeds_per_pit, 0)


def move_out(position: Any, move: int) -> Any:
    return move


def move_in(position: Any, move: Any) -> int:
    return int(move)
