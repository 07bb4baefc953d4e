"""Petak Sawah's adapter for the native search (``service/native/search/petak_sawah.c``): the engine's cell masks in
the kernel's state; moves (cell indices) are the same on both sides. Boards of at most 64 cells fit (the
default 5x5 among them); larger ones answer None and stay on the Python search."""

from __future__ import annotations

import struct
from typing import Protocol

KERNEL = "petak_sawah"
_LAYOUT = struct.Struct("<QQQiiii")  # ps_state: rocks, own1, own2, rows, cols, opener, to_move
MAX_CELLS = 64  # the kernel's cell masks are 64-bit


class Board(Protocol):
    """What the adapter reads of the engine's board."""

    @property
    def size(self) -> int: ...
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...


class PetakSawahState(Protocol):
    """What the adapter reads of the engine's ``PetakSawahPosition`` (the layers keep the engines out of this
    package, so the adapter names the fields it reads; the engine's position class has them)."""

    @property
    def board(self) -> Board: ...
    @property
    def rocks(self) -> int: ...
    @property
    def own1(self) -> int: ...
    @property
    def own2(self) -> int: ...
    @property
    def opener(self) -> int: ...
    @property
    def to_move(self) -> int: ...


LEARNED = False  # no learned evaluation: ``pack`` is never asked for one


def pack(position: PetakSawahState, learned: bool = False) -> bytes | None:
    board = position.board
    if board.size > MAX_CELLS:
        return None
    return _LAYOUT.pack(
        position.rocks, position.own1, position.own2, board.rows, board.cols, position.opener, position.to_move
    )


def move_out(position: PetakSawahState, move: int) -> int:
    return move


def move_in(position: PetakSawahState, move: int) -> int:
    return int(move)
