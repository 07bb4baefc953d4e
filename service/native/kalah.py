"""Kalah's adapter for the native search (``service/native/search/kalah.c``): the engine's board tuple (holes in
sowing order) in the kernel's state; moves (pit numbers) are the same on both sides. Every option the engine
has fits (at most 12 pits a side)."""

from __future__ import annotations

import struct
from typing import Protocol

KERNEL = "kalah"
_HOLES = 26
_LAYOUT = struct.Struct(f"<{_HOLES}hhhhh")  # kl_state: holes, pits per side, to_move, seeds per pit, pad


class KalahState(Protocol):
    """What the adapter reads of the engine's ``KalahPosition`` (the layers keep the engines out of this package,
    so the adapter names the fields it reads; the engine's position class has them)."""

    @property
    def board(self) -> tuple[int, ...]: ...
    @property
    def pits_per_side(self) -> int: ...
    @property
    def to_move(self) -> int: ...
    @property
    def seeds_per_pit(self) -> int: ...


LEARNED = False  # no learned evaluation: ``pack`` is never asked for one


def pack(position: KalahState, learned: bool = False) -> bytes | None:
    board = position.board
    holes = list(board) + [0] * (_HOLES - len(board))
    return _LAYOUT.pack(*holes, position.pits_per_side, position.to_move, position.seeds_per_pit, 0)


def move_out(position: KalahState, move: int) -> int:
    return move


def move_in(position: KalahState, move: int) -> int:
    return int(move)
