"""Dots and Boxes' adapter for the native search (``service/native/search/dots_and_boxes.c``): the engine's line
and box masks, colour to move, seat of A, pie phase and n in the kernel's state. Lines keep their numbers on
both sides; the pie rule's words (negative in the engine) are the kernel's 1021 (stop), 1022 (keep), 1023
(swap). Every board size and option the engine has fits in the state, but a node holds at most 256 moves in
the core, so boards with more lines than that (11x11 and larger: 264 to 312 lines, each a move on the empty
board) answer None and stay on the Python search."""

from __future__ import annotations

import struct
from typing import Protocol

KERNEL = "dots_and_boxes"
MAX_MOVES = 256  # GR_MAX_MOVES of kernel.h: every line plus stop must fit
_WORD = (1 << 64) - 1
# db_state: lines (5 words), boxes of A (3), of B (3), rows, cols, colour, seat of A, phase, to_move, n, padding
_LAYOUT = struct.Struct("<5Q3Q3Qhhbbbbhhi")
_WORD_BASE = 1020  # the engine's words -1, -2, -3 are the kernel's 1021, 1022, 1023


def _words(mask: int, count: int) -> list[int]:
    return [(mask >> (64 * i)) & _WORD for i in range(count)]


class Geometry(Protocol):
    """What the adapter reads of the engine's board geometry."""

    @property
    def line_count(self) -> int: ...
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...


class DotsAndBoxesState(Protocol):
    """What the adapter reads of the engine's ``DotsAndBoxesPosition`` (the layers keep the engines out of this
    package, so the adapter names the fields it reads; the engine's position class has them)."""

    @property
    def geometry(self) -> Geometry: ...
    @property
    def colour_to_move(self) -> str: ...
    @property
    def phase(self) -> str: ...
    @property
    def lines(self) -> int: ...
    @property
    def to_move(self) -> int: ...
    @property
    def pie_lines(self) -> int: ...
    def seat_colour(self, seat: int) -> str: ...
    def box_mask(self, colour: str) -> int: ...


LEARNED = False  # no learned evaluation: ``pack`` is never asked for one


def pack(position: DotsAndBoxesState, learned: bool = False) -> bytes | None:
    geo = position.geometry
    if geo.line_count + 1 > MAX_MOVES:
        return None
    colour = 0 if position.colour_to_move != "B" else 1
    a_seat = 0 if position.phase != "play" else (1 if position.seat_colour(1) == "A" else 2)
    phase = ("setup", "choice", "play").index(position.phase)
    return _LAYOUT.pack(
        *_words(position.lines, 5),
        *_words(position.box_mask("A"), 3),
        *_words(position.box_mask("B"), 3),
        geo.rows,
        geo.cols,
        colour,
        a_seat,
        phase,
        position.to_move,
        position.pie_lines,
        0,
        0,
    )


def move_out(position: DotsAndBoxesState, move: int) -> int:
    return _WORD_BASE - move if move > _WORD_BASE else move


def move_in(position: DotsAndBoxesState, move: int) -> int:
    return _WORD_BASE - move if move < 0 else int(move)
