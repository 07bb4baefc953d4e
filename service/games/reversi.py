"""Reversi (Othello): the rules engine, with bitboards on Python ints.

The rules are written in ``shared/spec/rules.md`` §4; the engine interface in ``service/games/base.py``.
Endgames are solved by ``_endgame`` here or, on 8×8, by the optional C kernel ``reversi_endgame.c`` beside this
file (built by the Makefile, loaded with ctypes: "The native endgame kernel" below); both give the same values.

Board and squares. Square ``row * size + col`` is bit ``1 << (row * size + col)`` of a Python int, with
column letters ``a``.. left to right and row numbers ``1``.. top to bottom (rules.md: ``c2`` is the third
column of the second row), so ``a1`` is 0 -- the same numbering as OpenSpiel's ``othello``. Boards are any
even size 4..16; the centre pattern is the 8×8 one scaled (on 8×8: d4 and e5 White, e4 and d5 Black).

Choices made where rules.md is silent (each documented where it is implemented too):

- Moves are ints: a square index, or ``PASS`` (-1). ``legal_moves`` lists placements in board order (row by
  row from the top, left to right); when the seat to move has no placement but the other seat has one, the
  single move ``pass``.
- ``apply`` and ``play`` play forced passes themselves: after a placement, if the next seat has no placement
  but the mover still has one, the next seat passes at once (reported as a ``pass`` event) and the mover
  moves again. So positions reached by play never need ``pass``; a caller's position may still ask for it.
- A position names the seat that holds Black (``black_seat``, default 1); Black moves first at the start.
- Position validation: beyond sizes and characters, the four centre squares must be occupied and all discs
  must form one 8-connected group (each disc is placed next to an opponent disc and discs never leave the
  board, so every reachable position has both); ``to_move`` is ``-``/0 exactly when neither seat has a
  placement. Other unreachable positions are accepted: deciding reachability is a search of its own.
- Perft (``perft``) counts a forced pass as a ply and a finished game contributes 0 at any remaining depth,
  matching the reference figures of rules.md.
- ``final_value`` is the disc margin, empty squares counted for nobody (rules.md: "Empty squares count for
  nobody"); ``evaluate`` estimates the same margin.
- Position notation: ``<rows from the top joined by /> <seat to move, or - when over> black=<seat>``, squares
  ``B`` Black, ``W`` White, ``.`` empty; the start of the 8×8 game is
  ``......../......../......../...WB.../...BW.../......../......../........ 1 black=1``. Parsing is strict
  (canonical form only). Moves read ``d3`` or ``pass`` in either case and are written in lower case.
- Error fields name the proto field of ``ReversiPosition`` / ``ReversiMove`` (``board``, ``to_move``,
  ``black_seat``, ``square``, ``is_pass``); the same names are used for the matching part of the notation, and
  "" when a notation string is wrong as a whole.
"""

from __future__ import annotations

import ctypes
import math
import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from service.games import native
from service.games.base import (
    Event,
    GameOverError,
    IllegalMove,
    InvalidMove,
    InvalidOption,
    InvalidPosition,
    Level,
    Limits,
    NotationError,
    OptionSpec,
    Outcome,
    PlaysLevels,
    ScoredMove,
    SearchResult,
    StopSignal,
)

PASS = -1  # the move of a seat with no placement
MIN_SIZE = 4
MAX_SIZE = 16
DEFAULT_SIZE = 8

BLACK_CHAR = "B"
WHITE_CHAR = "W"
EMPTY_CHAR = "."

# Longest notation a 16×16 position can have ("black=2" and friends included), with slack; longer text is
# rejected before any splitting.
_MAX_NOTATION = MAX_SIZE * (MAX_SIZE + 1) + 32
_COLUMNS = string.ascii_lowercase[:MAX_SIZE]


# --------------------------------------------------------------------------------------------------
# Geometry: everything that depends only on the board size, computed once per size.


class _Geometry:
    """Masks, shifts and square names of one board size."""

    __slots__ = (
        "c_guards",
        "centre",
        "corners",
        "directions",
        "full",
        "n",
        "names",
        "neighbour_shifts",
        "order",
        "size",
        "x_guards",
    )

    def __init__(self, size: int) -> None:
        self.size = size
        n = size * size
        self.n = n
        self.full = (1 << n) - 1
        self.names = tuple(f"{_COLUMNS[i % size]}{i // size + 1}" for i in range(n))
        # Discs in the first or last column may not be passed through sideways: a shift would wrap rows.
        inner = 0
        for i in range(n):
            if 0 < i % size < size - 1:
                inner |= 1 << i
        # Four lines through a square, as (shift, mask of the opponent discs a line may run through); each is
        # walked both ways: ``<<`` towards higher indices (east, south, ...), ``>>`` towards lower ones.
        self.directions = ((1, inner), (size, self.full), (size - 1, inner), (size + 1, inner))
        # Neighbours: the source mask keeps a shift from wrapping (no column 0 moving west, etc.).
        not_last = 0
        not_first = 0
        for i in range(n):
            if i % size != size - 1:
                not_last |= 1 << i
            if i % size != 0:
                not_first |= 1 << i
        self.neighbour_shifts = (
            (1, not_last),  # east: << 1
            (-1, not_first),  # west: >> 1
            (size, self.full),
            (-size, self.full),
            (size + 1, not_last),
            (-(size + 1), not_first),
            (size - 1, not_first),
            (-(size - 1), not_last),
        )
        m = size // 2
        self.centre = (1 << ((m - 1) * size + m - 1)) | (1 << (m * size + m)) | (1 << ((m - 1) * size + m))
        self.centre |= 1 << (m * size + m - 1)
        last = size - 1
        corner_squares = ((0, 0), (0, last), (last, 0), (last, last))
        self.corners = 0
        x_guards = []
        c_guards = []
        for r, c in corner_squares:
            corner = 1 << (r * size + c)
            self.corners |= corner
            dr = 1 if r == 0 else -1
            dc = 1 if c == 0 else -1
            x_guards.append((corner, 1 << ((r + dr) * size + c + dc)))
            c_guards.append((corner, (1 << ((r + dr) * size + c)) | (1 << (r * size + c + dc))))
        # For each corner: the X-square diagonal to it and the two C-squares beside it on the edges.
        self.x_guards = tuple(x_guards)
        self.c_guards = tuple(c_guards)
        x_all = 0
        for _, x in x_guards:
            x_all |= x
        c_all = 0
        for _, c in c_guards:
            c_all |= c
        edges = 0
        for i in range(n):
            r, c = divmod(i, size)
            if r in (0, last) or c in (0, last):
                edges |= 1 << i
        edges &= ~(self.corners | c_all)
        interior = self.full & ~(self.corners | c_all | x_all | edges)
        # search_moves' order by cheap hints: corners, safe edges, the interior, C-squares, X-squares last.
        self.order = (self.corners, edges, interior, c_all, x_all)


_GEOMETRIES = {size: _Geometry(size) for size in range(MIN_SIZE, MAX_SIZE + 1, 2)}


def _placements(me: int, opp: int, geo: _Geometry) -> int:
    """Bitboard of the squares where ``me`` may place a disc (brackets at least one ``opp`` disc)."""
    empty = geo.full & ~(me | opp)
    moves = 0
    for s, mask in geo.directions:
        o = opp & mask
        t = (me << s) & o
        acc = t
        while t:
            t = (t << s) & o
            acc |= t
        moves |= acc << s
        t = (me >> s) & o
        acc = t
        while t:
            t = (t >> s) & o
            acc |= t
        moves |= acc >> s
    return moves & empty


def _flips(me: int, opp: int, bit: int, geo: _Geometry) -> int:
    """The ``opp`` discs a disc of ``me`` placed on ``bit`` flips: every bracketed line in every direction."""
    flips = 0
    for s, mask in geo.directions:
        o = opp & mask
        # Masking ``o`` stops a line at the side columns, so a walk never wraps into the next row.
        line = 0
        x = bit << s
        while x & o:
            line |= x
            x <<= s
        if x & me:
            flips |= line
        line = 0
        x = bit >> s
        while x & o:
            line |= x
            x >>= s
        if x & me:
            flips |= line
    return flips


def _neighbours(discs: int, geo: _Geometry) -> int:
    """Every square next to (8 directions) one of ``discs``."""
    out = 0
    for s, src in geo.neighbour_shifts:
        if s > 0:
            out |= (discs & src) << s
        else:
            out |= (discs & src) >> -s
    return out & geo.full


def _squares(bits: int) -> list[int]:
    """The indices of the set bits, lowest first."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def _endgame(me: int, opp: int, moves: int, alpha: int, beta: int, geo: _Geometry, counter: list[int]) -> int:
    """Exact final disc margin for the owner of ``me`` (``moves`` = its placements, given; none means it
    passes or the game is over), fail-soft negamax within (alpha, beta); ``counter[0]`` counts nodes.
    Moves leaving the opponent the fewest replies go first; the last ``_LAST_EMPTIES`` squares go to ``_last``."""
    empty = geo.full & ~(me | opp)
    if empty.bit_count() <= _LAST_EMPTIES:
        return _last(me, opp, empty, alpha, beta, False, geo, counter)
    counter[0] += 1
    if not moves:
        replies = _placements(opp, me, geo)
        if not replies:
            return me.bit_count() - opp.bit_count()
        return -_endgame(opp, me, replies, -beta, -alpha, geo, counter)
    ordered = []
    while moves:
        bit = moves & -moves
        moves ^= bit
        flips = _flips(me, opp, bit, geo)
        mine = me | bit | flips
        theirs = opp ^ flips
        replies = _placements(theirs, mine, geo)
        ordered.append((replies.bit_count(), mine, theirs, replies))
    if len(ordered) > 1:
        ordered.sort(key=_first)
    best = -geo.n - 1
    for _, mine, theirs, replies in ordered:
        v = -_endgame(theirs, mine, replies, -beta, -alpha, geo, counter)
        if v > best:
            best = v
            if v > alpha:
                if v >= beta:
                    return v
                alpha = v
    return best


def _first(item: tuple[int, int, int, int]) -> int:
    return item[0]


def _last(
    me: int, opp: int, empty: int, alpha: int, beta: int, passed: bool, geo: _Geometry, counter: list[int]
) -> int:
    """``_endgame`` for the last few empty squares: tries each empty square (no move generation, no
    ordering); ``passed`` says the other seat has just passed, so a second pass ends the game."""
    counter[0] += 1
    best = -geo.n - 1
    rest = empty
    while rest:
        bit = rest & -rest
        rest ^= bit
        flips = _flips(me, opp, bit, geo)
        if not flips:
            continue
        v = -_last(opp ^ flips, me | bit | flips, empty ^ bit, -beta, -alpha, False, geo, counter)
        if v > best:
            best = v
            if v > alpha:
                if v >= beta:
                    return v
                alpha = v
    if best > -geo.n - 1:
        return best
    if passed or not empty:
        return me.bit_count() - opp.bit_count()
    return -_last(opp, me, empty, -beta, -alpha, True, geo, counter)


# --------------------------------------------------------------------------------------------------
# The native endgame kernel: ``reversi_endgame.c`` (the same solver as ``_endgame`` in C, 8x8 only),
# compiled by the Makefile next to the generated gRPC code and loaded here with ctypes on first use. Without
# it (no compiler, another platform, ``GAMERULES_NO_NATIVE=1``) everything runs in ``_endgame`` as before.

# With at most this many empty squares an 8x8 solve-mode node goes to the kernel in one call. A call cannot
# be interrupted: the search sees its time limit and ``stop`` only between calls. Expert asks only about the
# children of a root with at most ``EXACT_EMPTIES_NATIVE`` empties, so this bounds only other solve-mode
# callers (``bench.solve``). Measured (``bench.solve``, CPU s): a 20-empty solve takes a median of 3.7 s and
# up to 10 s; each two more empties cost about ten times as much.
NATIVE_EMPTIES = 20
# Kernel nodes per search node. The search's node count (and so every node budget: ``EXPERT_NODES``, a
# caller's ``max_nodes``) is in Python search nodes, each ~100 times the CPU of a kernel node (measured:
# ~7 us against ~0.07 us). Counting a kernel node as 1/100 keeps a budget about the same CPU time on both
# paths and, kernel nodes being deterministic, the answer the same on every machine. Counting it as 1 would
# spend the expert's budget on one 15-empty solve of a tenth of a second; not counting it would let a budget
# guard nothing. The budget is checked between kernel calls only: a call in progress always finishes.
NATIVE_NODE_WEIGHT = 100
NATIVE_LIBRARY = native.library_path("reversi_endgame")

NativeSolver = Callable[[int, int, int, int, float, Any], int]
NATIVE_GAVE_UP = 1000  # the kernel's answer when its clock passed ``stop_at`` (GAVE_UP in the C file)
use_native = native.use_native  # turns every kernel on or off (tests and benchmarks compare both paths)


def native_solver() -> NativeSolver | None:
    """The kernel's ``gr_reversi_solve(me, opp, alpha, beta, stop_at, byref(c_uint64 nodes))``: the exact
    final disc margin of an 8x8 position for the owner of ``me`` (to move), fail-soft within (alpha, beta), or
    ``NATIVE_GAVE_UP`` once ``time.monotonic()`` reaches ``stop_at`` (0: never); None when it is not built
    or turned off (``GAMERULES_NO_NATIVE=1``, ``use_native(False)``)."""
    u64 = ctypes.c_uint64
    argtypes = (u64, u64, ctypes.c_int, ctypes.c_int, ctypes.c_double, ctypes.POINTER(u64))
    return native.kernel("reversi_endgame", "gr_reversi_solve", argtypes, ctypes.c_int)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------------------------------
# Evaluation weights (disc units; an estimate of the final margin, see ``ReversiPosition.evaluate``).

_W_CORNER = 20.0
_W_X_SQUARE = 10.0
_W_C_SQUARE = 3.0
_W_MOBILITY = 2.0
_W_FRONTIER = 0.75


def _estimate(me: int, opp: int, my_moves: int, geo: _Geometry) -> float:
    """Heuristic final disc margin for the owner of ``me`` (``my_moves`` = its placements, given)."""
    occupied = me | opp
    empty = geo.full & ~occupied
    empties = empty.bit_count()
    their_moves = _placements(opp, me, geo).bit_count()
    mobility = my_moves.bit_count() - their_moves
    # Potential mobility: empty squares next to the opponent's discs are where we may play later.
    frontier = (_neighbours(opp, geo) & empty).bit_count() - (_neighbours(me, geo) & empty).bit_count()
    corners = (me & geo.corners).bit_count() - (opp & geo.corners).bit_count()
    x_squares = 0
    for corner, x in geo.x_guards:
        if empty & corner:
            x_squares += bool(me & x) - bool(opp & x)
    c_squares = 0
    for corner, c in geo.c_guards:
        if empty & corner:
            c_squares += (me & c).bit_count() - (opp & c).bit_count()
    # Disc count matters only late: early on few discs usually mean more mobility.
    late = max(0.0, 1.0 - 2.0 * empties / geo.n)
    discs = me.bit_count() - opp.bit_count()
    value = (
        _W_CORNER * corners
        - _W_X_SQUARE * x_squares
        - _W_C_SQUARE * c_squares
        + _W_MOBILITY * mobility
        + _W_FRONTIER * frontier
        + late * discs
    )
    bound = float(geo.n - 1)  # a heuristic never claims a margin as large as a proved wipe-out
    return max(-bound, min(bound, value))


# --------------------------------------------------------------------------------------------------
# The position.


def _colour_name(is_black: bool) -> str:
    return "Black" if is_black else "White"


class ReversiPosition:
    """A Reversi position: board size, Black's and White's discs as bitboards, seat to move, Black's seat.

    Immutable and hashable; equal iff the notation is equal. Build one with ``GAME.new_position``,
    ``GAME.parse_position`` or ``GAME.position_from_fields``; the constructor does not validate.
    """

    __slots__ = ("_geo", "_hash", "_moves", "black", "black_seat", "size", "to_move", "white")

    def __init__(
        self, size: int, black: int, white: int, to_move: int, black_seat: int, moves: int | None = None
    ) -> None:
        self.size = size  # board side, an even number 4..16
        self.black = black  # bitboard of Black's discs (bit row * size + col)
        self.white = white  # bitboard of White's discs
        self.to_move = to_move  # seat to move, 1 or 2; 0 once the game is over
        self.black_seat = black_seat  # the seat playing Black (1 or 2)
        self._geo = _GEOMETRIES[size]
        # Placements of the seat to move, computed once (play() often knows them already).
        self._moves = moves
        self._hash = hash((size, black, white, to_move, black_seat))

    # --- identity ---

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReversiPosition):
            return NotImplemented
        return (
            self.black == other.black
            and self.white == other.white
            and self.to_move == other.to_move
            and self.black_seat == other.black_seat
            and self.size == other.size
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"GAME.parse_position({self.to_notation()!r})"

    # --- helpers ---

    def _sides(self) -> tuple[int, int]:
        """(mover's discs, opponent's discs); Black first when the game is over."""
        if self.to_move == 0 or self.to_move == self.black_seat:
            return self.black, self.white
        return self.white, self.black

    def _placements(self) -> int:
        moves = self._moves
        if moves is None:
            if self.to_move == 0:
                moves = 0
            else:
                me, opp = self._sides()
                moves = _placements(me, opp, self._geo)
            self._moves = moves
        return moves

    def _seat_of(self, is_black: bool) -> int:
        return self.black_seat if is_black else 3 - self.black_seat

    def _who(self, seat: int) -> str:
        return f"{_colour_name(seat == self.black_seat)} (seat {seat})"

    def empties(self) -> int:
        """How many squares are empty."""
        return self._geo.n - (self.black | self.white).bit_count()

    # --- notation and fields ---

    def board_rows(self) -> list[str]:
        """The board as rows top to bottom, ``B`` Black, ``W`` White, ``.`` empty."""
        size = self.size
        rows = []
        for r in range(size):
            chars = []
            for c in range(size):
                bit = 1 << (r * size + c)
                chars.append(BLACK_CHAR if self.black & bit else WHITE_CHAR if self.white & bit else EMPTY_CHAR)
            rows.append("".join(chars))
        return rows

    def to_notation(self) -> str:
        """``<rows top to bottom joined by /> <seat to move or -> black=<seat>``."""
        to_move = str(self.to_move) if self.to_move else "-"
        return f"{'/'.join(self.board_rows())} {to_move} black={self.black_seat}"

    def to_fields(self) -> dict[str, Any]:
        return {"board": self.board_rows(), "to_move": self.to_move, "black_seat": self.black_seat}

    # --- moves ---

    def legal_moves(self) -> list[Any]:
        """Placements in board order; ``[PASS]`` when only the other seat can place; [] when over."""
        if self.to_move == 0:
            return []
        moves = self._placements()
        return _squares(moves) if moves else [PASS]

    def legal_move_count(self) -> int:
        if self.to_move == 0:
            return 0
        return self._placements().bit_count() or 1

    def legal_moves_page(self, start: int, count: int) -> list[Any]:
        if start < 0 or count <= 0:
            return []
        return self.legal_moves()[start : start + count]

    def parse_move(self, text: str) -> int:
        """``d3`` (column letter, row number; either case) or ``pass``."""
        if not isinstance(text, str):
            raise InvalidMove("a move must be a string such as 'd3' or 'pass'", "")
        if len(text) > 4:
            raise InvalidMove(f"{text[:12]!r}... is not a square such as 'd3' or 'pass'", "")
        word = text.lower()
        if word == "pass":
            return PASS
        return self._square(word, "")

    def _square(self, name: str, field: str) -> int:
        size = self.size
        if len(name) < 2 or name[0] not in _COLUMNS or not name[1:].isdigit() or not name[1:].isascii():
            raise InvalidMove(f"{name!r} is not a square such as 'd3' or the word 'pass'", field)
        col = _COLUMNS.index(name[0])
        if name[1] == "0":
            raise InvalidMove(f"{name!r}: row numbers start at 1 and have no leading zero", field)
        row = int(name[1:]) - 1
        if col >= size or row >= size:
            last = f"{_COLUMNS[size - 1]}{size}"
            raise InvalidMove(f"{name!r} is off the {size}x{size} board (a1 to {last})", field)
        return row * size + col

    def move_from_fields(self, fields: Mapping[str, Any]) -> int:
        """``{"square": "d3", "is_pass": False}`` or ``{"square": "", "is_pass": True}``."""
        if not isinstance(fields, Mapping):
            raise InvalidMove("a move must be an object with 'square' or 'is_pass'", "")
        unknown = set(fields) - {"square", "is_pass"}
        if unknown:
            raise InvalidMove(f"unknown move field {sorted(map(str, unknown))[0]!r}", "")
        square = fields.get("square", "")
        is_pass = fields.get("is_pass", False)
        if not isinstance(square, str):
            raise InvalidMove("square must be a string such as 'd3'", "square")
        if not isinstance(is_pass, bool):
            raise InvalidMove("is_pass must be true or false", "is_pass")
        if is_pass:
            if square:
                raise InvalidMove("a pass names no square: send either square or is_pass", "square")
            return PASS
        if not square:
            raise InvalidMove("square is required (or is_pass for a pass)", "square")
        if len(square) > 3:
            raise InvalidMove(f"{square[:12]!r} is not a square such as 'd3'", "square")
        return self._square(square.lower(), "square")

    def move_notation(self, move: Any) -> str:
        if move == PASS:
            return "pass"
        return self._geo.names[move]

    def move_to_fields(self, move: Any) -> dict[str, Any]:
        if move == PASS:
            return {"square": "", "is_pass": True}
        return {"square": self._geo.names[move], "is_pass": False}

    # --- playing ---

    def _check_move(self, move: Any) -> None:
        if self.to_move == 0:
            raise GameOverError("the game is over: neither seat has a placement", "")
        if isinstance(move, bool) or not isinstance(move, int) or not (move == PASS or 0 <= move < self._geo.n):
            raise InvalidMove(f"{move!r} is not a Reversi move (a square index or pass)", "")
        moves = self._placements()
        if move == PASS:
            if moves:
                raise IllegalMove(
                    f"{self._who(self.to_move)} has {moves.bit_count()} placement(s), so passing is illegal", ""
                )
            return
        if not moves >> move & 1:
            name = self._geo.names[move]
            if (self.black | self.white) >> move & 1:
                raise IllegalMove(f"{name} is already occupied", "")
            if not moves:
                raise IllegalMove(f"{self._who(self.to_move)} has no placement and must pass", "")
            raise IllegalMove(f"a disc on {name} would not bracket any opponent disc", "")

    def play(self, move: Any) -> ReversiPosition:
        """The position after ``move`` (a legal one), forced passes played: the same as ``apply(move)[0]``."""
        geo = self._geo
        seat = self.to_move
        if move == PASS:
            # Only asked for when the other seat has a placement, so the game goes on with it.
            return ReversiPosition(self.size, self.black, self.white, 3 - seat, self.black_seat)
        me, opp = self._sides()
        bit = 1 << move
        flips = _flips(me, opp, bit, geo)
        me |= bit | flips
        opp ^= flips
        if seat == self.black_seat:
            black, white = me, opp
        else:
            black, white = opp, me
        replies = _placements(opp, me, geo)
        if replies:
            return ReversiPosition(self.size, black, white, 3 - seat, self.black_seat, replies)
        again = _placements(me, opp, geo)
        if again:  # the other seat has no placement: it passes and the mover goes on
            return ReversiPosition(self.size, black, white, seat, self.black_seat, again)
        return ReversiPosition(self.size, black, white, 0, self.black_seat, 0)

    def apply(self, move: Any) -> tuple[ReversiPosition, list[Event]]:
        """Check and play ``move``; events: ``place``, ``flip``, then any ``pass`` and ``game_over``.

        A ``pass`` move gives one ``pass`` event. A forced pass of the next seat is played here too.
        """
        self._check_move(move)
        seat = self.to_move
        events: list[Event] = []
        if move == PASS:
            events.append(Event("pass", seat, (), 0, f"{self._who(seat)} has no placement and passes."))
            return self.play(PASS), events
        geo = self._geo
        me, opp = self._sides()
        name = geo.names[move]
        flipped = _flips(me, opp, 1 << move, geo)
        colour = _colour_name(seat == self.black_seat)
        events.append(Event("place", seat, (name,), 1, f"{self._who(seat)} places a disc on {name}."))
        cells = tuple(geo.names[i] for i in _squares(flipped))
        count = len(cells)
        plural = "disc flips" if count == 1 else "discs flip"
        events.append(Event("flip", seat, cells, count, f"{count} {plural} to {colour}: {', '.join(cells)}."))
        after = self.play(move)
        if after.to_move == seat:
            other = 3 - seat
            events.append(
                Event("pass", other, (), 0, f"{after._who(other)} has no placement and passes; {colour} moves again.")
            )
        elif (result := after.outcome()) is not None:
            events.append(Event("game_over", result.winner, (), 0, f"The game is over: {result.detail}"))
        return after, events

    # --- result ---

    def outcome(self) -> Outcome | None:
        if self.to_move != 0:
            return None
        black = self.black.bit_count()
        white = self.white.bit_count()
        black_seat = self.black_seat
        white_seat = 3 - black_seat
        counts = f"Black (seat {black_seat}) {black} discs, White (seat {white_seat}) {white}"
        if black > white:
            return Outcome(black_seat, "discs", f"{counts}; Black wins.")
        if white > black:
            return Outcome(white_seat, "discs", f"{counts}; White wins.")
        return Outcome(0, "draw", f"{counts}; a draw.")

    def scores(self) -> tuple[int, int]:
        """Discs of seat 1 and of seat 2."""
        black = self.black.bit_count()
        white = self.white.bit_count()
        return (black, white) if self.black_seat == 1 else (white, black)

    def final_value(self, seat: int) -> float:
        """The disc margin for ``seat`` (empty squares count for nobody)."""
        mine, theirs = self.scores() if seat == 1 else self.scores()[::-1]
        return float(mine - theirs)

    # --- search hooks ---

    def search_moves(self) -> Sequence[int]:
        """Legal moves, corners first, then safe edges, the interior, C-squares, X-squares last."""
        if self.to_move == 0:
            return []
        moves = self._placements()
        if not moves:
            return [PASS]
        out: list[int] = []
        for mask in self._geo.order:
            out.extend(_squares(moves & mask))
        return out

    def plies_left(self) -> int:
        """At most this many moves to the end of the game (the search's solve mode): one per empty square,
        plus a pass at the root (``play`` makes every later forced pass itself)."""
        return self.empties() + 1 if self.to_move else 0

    def endgame_value(self, alpha: float, beta: float, stop_at: float | None = None) -> tuple[float, int] | None:
        """The search core's solve-mode hook: the exact final disc margin for the seat to move (fail-soft
        within ``alpha``..``beta``) and the nodes it took, from a solver that makes no position objects: the
        native kernel on 8x8 with at most ``NATIVE_EMPTIES`` empty squares (its nodes weighted by
        ``NATIVE_NODE_WEIGHT``; None if it reaches ``stop_at`` on ``time.monotonic()`` first, for the search
        to stop in time), else ``_endgame`` with at most ``ENDGAME_EMPTIES``; None with more."""
        if self.to_move == 0:
            return None
        me, opp = self._sides()
        geo = self._geo
        empties = geo.n - (me | opp).bit_count()
        lo = max(-geo.n - 1, math.floor(alpha)) if alpha > -math.inf else -geo.n - 1
        hi = min(geo.n + 1, math.ceil(beta)) if beta < math.inf else geo.n + 1
        if empties <= NATIVE_EMPTIES and geo.size == 8:
            solve = native_solver()
            if solve is not None:
                nodes = ctypes.c_uint64()
                value = solve(me, opp, lo, hi, stop_at or 0.0, ctypes.byref(nodes))
                if value == NATIVE_GAVE_UP:
                    return None
                return float(value), -(-nodes.value // NATIVE_NODE_WEIGHT)
        if empties > ENDGAME_EMPTIES:
            return None
        counter = [0]
        value = _endgame(me, opp, self._placements(), lo, hi, geo, counter)
        return float(value), counter[0]

    def evaluate(self, seat: int) -> float:
        """Estimated final disc margin for ``seat``: mobility, potential mobility (frontier), corners,
        X- and C-squares next to an empty corner, and the disc count weighted in only late in the game."""
        if self.to_move == 0:
            return self.final_value(seat)
        me, opp = self._sides()
        value = _estimate(me, opp, self._placements(), self._geo)
        return value if seat == self.to_move else -value

    def flip_count(self, move: int) -> int:
        """How many discs ``move`` (a legal move) flips now; 0 for a pass."""
        if move == PASS:
            return 0
        me, opp = self._sides()
        return _flips(me, opp, 1 << move, self._geo).bit_count()


# --------------------------------------------------------------------------------------------------
# Perft.


def _perft(me: int, opp: int, depth: int, geo: _Geometry) -> int:
    moves = _placements(me, opp, geo)
    if depth == 1:
        if moves:
            return moves.bit_count()
        return 1 if _placements(opp, me, geo) else 0
    if not moves:
        if _placements(opp, me, geo):
            return _perft(opp, me, depth - 1, geo)  # the forced pass is a ply
        return 0  # a finished game contributes nothing
    total = 0
    while moves:
        bit = moves & -moves
        moves ^= bit
        flips = _flips(me, opp, bit, geo)
        total += _perft(opp ^ flips, me | bit | flips, depth - 1, geo)
    return total


def perft(position: ReversiPosition, depth: int) -> int:
    """Leaf count of the game tree to ``depth`` plies (rules.md §4): a forced pass is a ply, and a game that
    ends before ``depth`` contributes 0. Works on bitboards directly, handling passes explicitly."""
    if depth <= 0:
        return 1
    if position.to_move == 0:
        return 0
    me, opp = position._sides()
    return _perft(me, opp, depth, position._geo)


# --------------------------------------------------------------------------------------------------
# Parsing and validation.


def _board_from_rows(rows: Sequence[Any], field: str, error: type[Exception]) -> tuple[int, int, int]:
    """(size, black, white) from rows of ``B``/``W``/``.``; ``error`` is the class to raise."""
    size = len(rows)
    if size < MIN_SIZE or size > MAX_SIZE or size % 2:
        raise error(f"the board has {size} rows; a Reversi board is square with an even size from 4 to 16", field)
    black = 0
    white = 0
    for r, row in enumerate(rows):
        if not isinstance(row, str):
            raise error(f"board row {r + 1} must be a string of B, W and .", field)
        if len(row) != size:
            raise error(f"board row {r + 1} has {len(row)} squares, expected {size} (the board is square)", field)
        for c, ch in enumerate(row):
            if ch == EMPTY_CHAR:
                continue
            bit = 1 << (r * size + c)
            if ch == BLACK_CHAR:
                black |= bit
            elif ch == WHITE_CHAR:
                white |= bit
            else:
                name = f"{_COLUMNS[c]}{r + 1}"
                raise error(f"board square {name} is {ch[:1]!r}; squares are B (Black), W (White) or . (empty)", field)
    return size, black, white


def _checked_position(size: int, black: int, white: int, to_move: int, black_seat: int) -> ReversiPosition:
    """Reject positions no game can reach by the checks in the module docstring; InvalidPosition."""
    geo = _GEOMETRIES[size]
    occupied = black | white
    if occupied & geo.centre != geo.centre:
        names = ", ".join(geo.names[i] for i in _squares(geo.centre & ~occupied))
        raise InvalidPosition(f"centre square(s) {names} are empty, but the centre is occupied from the start", "board")
    # Flood fill from the centre: every disc was placed next to a disc already on the board.
    group = geo.centre
    while True:
        grown = (group | _neighbours(group, geo)) & occupied
        if grown == group:
            break
        group = grown
    if group != occupied:
        name = geo.names[_squares(occupied & ~group)[0]]
        raise InvalidPosition(
            f"the disc on {name} is cut off from the others; each disc is placed next to one on the board", "board"
        )
    black_moves = _placements(black, white, geo)
    white_moves = _placements(white, black, geo)
    if not black_moves and not white_moves:
        if to_move != 0:
            raise InvalidPosition("neither seat has a placement, so the game is over and nobody is to move", "to_move")
        return ReversiPosition(size, black, white, 0, black_seat, 0)
    if to_move == 0:
        raise InvalidPosition("the game is not over (a placement exists), so a seat must be to move", "to_move")
    moves = black_moves if to_move == black_seat else white_moves
    return ReversiPosition(size, black, white, to_move, black_seat, moves)


def _parse_position(text: str) -> ReversiPosition:
    if not isinstance(text, str):
        raise NotationError("a Reversi position notation must be a string", "")
    if len(text) > _MAX_NOTATION:
        raise NotationError(f"the notation is {len(text)} characters long; no Reversi position needs that many", "")
    parts = text.split(" ")
    if len(parts) != 3 or not all(parts):
        raise NotationError(
            "expected three fields separated by single spaces: board rows joined by '/', the seat to move "
            "(1, 2 or - when over) and black=<seat>",
            "",
        )
    board, to_move_text, black_text = parts
    size, black, white = _board_from_rows(board.split("/"), "board", NotationError)
    if to_move_text == "-":
        to_move = 0
    elif to_move_text in ("1", "2"):
        to_move = int(to_move_text)
    else:
        raise NotationError(f"the seat to move is {to_move_text[:8]!r}; expected 1, 2 or - (game over)", "to_move")
    if black_text not in ("black=1", "black=2"):
        raise NotationError(f"the third field is {black_text[:12]!r}; expected black=1 or black=2", "black_seat")
    return _checked_position(size, black, white, to_move, int(black_text[6]))


def _position_from_fields(fields: Mapping[str, Any]) -> ReversiPosition:
    if not isinstance(fields, Mapping):
        raise InvalidPosition("a Reversi position must be an object with board, to_move and black_seat", "")
    unknown = set(fields) - {"board", "to_move", "black_seat"}
    if unknown:
        raise InvalidPosition(f"unknown position field {sorted(map(str, unknown))[0]!r}", "")
    rows = fields.get("board", [])
    if isinstance(rows, str) or not isinstance(rows, Sequence):
        raise InvalidPosition("board must be a list of rows (strings of B, W and .), top row first", "board")
    if len(rows) > MAX_SIZE:
        raise InvalidPosition(f"the board has {len(rows)} rows; at most {MAX_SIZE}", "board")
    size, black, white = _board_from_rows(rows, "board", InvalidPosition)
    to_move = fields.get("to_move", 0)
    if isinstance(to_move, bool) or not isinstance(to_move, int) or to_move not in (0, 1, 2):
        raise InvalidPosition(f"to_move is {to_move!r:.20}; expected 1, 2 or 0 (game over)", "to_move")
    black_seat = fields.get("black_seat", 0)
    if isinstance(black_seat, bool) or not isinstance(black_seat, int) or black_seat not in (0, 1, 2):
        raise InvalidPosition(f"black_seat is {black_seat!r:.20}; expected 1 or 2 (0 means 1)", "black_seat")
    return _checked_position(size, black, white, to_move, black_seat or 1)


# --------------------------------------------------------------------------------------------------
# Levels.


# The levels import the search core when they run: ``service.search`` imports ``service.games.base``, whose
# package imports the registry and so this module, so a module-level import here would be circular.


def _beginner(position: ReversiPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    """The move that flips the most discs now. Its value is the disc margin right after it (each flip moves
    the margin by two, the new disc by one), so the greedy key is already in the game's units."""
    from service.search import greedy

    margin = position.final_value(position.to_move)
    return greedy(position, lambda p, m: margin + 2 * p.flip_count(m) + (m != PASS), rng, top_n)


def _corner_hunter_key(position: ReversiPosition, move: Any) -> float:
    """One-ply preference: a corner above all; never an X-square, and a C-square only with care, next to an
    empty corner (a C-square is worst when the opponent could take that corner at once); then the fewest
    opponent replies; then the most flips."""
    if move == PASS:
        return 0.0
    geo = position._geo
    bit = 1 << move
    empty = geo.full & ~(position.black | position.white)
    # Tiers: each outweighs everything below it (a 16x16 board has fewer than 256 replies and flips).
    key = 0.0
    if bit & geo.corners:
        key += 10_000_000
    for corner, x in geo.x_guards:
        if bit & x and empty & corner:
            key -= 5_000_000
    after = position.play(move)
    # The opponent's replies: none when it must pass or the game ends.
    replies = after._placements() if after.to_move not in (0, position.to_move) else 0
    for corner, c in geo.c_guards:
        if bit & c and empty & corner:
            key -= 3_000_000 if replies & corner else 500_000
    return key - 1_000 * replies.bit_count() + position.flip_count(move)


def _corner_hunter(position: ReversiPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    """``_corner_hunter_key``'s choice. The key only ranks moves, so the values reported are, like the
    beginner's, the disc margin right after each move (alternatives stay in the level's order of preference)."""
    from service.search import greedy

    result = greedy(position, _corner_hunter_key, rng, top_n)
    seat = position.to_move

    def margin(move: Any) -> float:
        return position.play(move).final_value(seat)

    result.value = margin(result.move)
    result.alternatives = [ScoredMove(a.move, margin(a.move), False) for a in result.alternatives]
    return result


EXACT_EMPTIES = 12  # expert solves the game from this many empty squares (the search's solve mode)
# And from this many on 8x8 with the native kernel. Measured (expert's own limits, 10 random positions each,
# CPU s): 17 empties take a median of 0.08 s, at most 0.23 s (35k weighted nodes); 18 a median of 0.3 s but one
# in ten ~1.7 s and 220k nodes, past ``EXPERT_NODES``. With the kernel the solve's first iteration is already
# the whole proof (the hook answers every child of the root), so a solve past the budget has no shallower
# iteration to fall back on: keep the hard cases inside the budget.
EXACT_EMPTIES_NATIVE = 17
MIDGAME_DEPTH = 6  # expert's depth before that, when the caller gives none
SOLVE_LEAD = MIDGAME_DEPTH  # iterations before the solve leaps to the end: the answer if the budget runs out
ENDGAME_EMPTIES = 8  # from this many empty squares a solve goes on in ``_endgame``, on bitboards alone
_LAST_EMPTIES = 5  # and from this many in ``_last``: every empty square tried, no move generation
# The expert's node budget (core nodes and ``_endgame`` nodes alike; a native kernel node counts as
# 1/``NATIVE_NODE_WEIGHT``, so the budget is about the same CPU time on both paths). Measured on 8x8 with
# ``python -m bench.solve`` without the kernel (a node costs about 7 us there): solving takes a median of
# about 20k nodes (0.15 s) at 11 empties, 45k (0.3 s) at 12 and 150k (1 s) at 13, with a tail of hard
# positions at 12 up to 300k; a depth-6 midgame search takes under 16k. With the kernel, see
# ``EXACT_EMPTIES_NATIVE``. A budget keeps the answer the same on every machine.
EXPERT_NODES = 150_000


def exact_empties(position: ReversiPosition) -> int:
    """From how many empty squares expert solves ``position`` exactly: ``EXACT_EMPTIES_NATIVE`` on 8x8 with
    the native kernel, ``EXACT_EMPTIES`` otherwise (measured: see the constants)."""
    return EXACT_EMPTIES_NATIVE if position.size == 8 and native_solver() is not None else EXACT_EMPTIES


def _expert(position: ReversiPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    """Alpha-beta (``service.search.search``) with ``evaluate``; from ``EXACT_EMPTIES`` empty squares the
    search's solve mode (straight to the end of the game after ``SOLVE_LEAD`` shallow iterations, the last
    ``ENDGAME_EMPTIES`` squares in ``_endgame`` or, on 8x8 with the native kernel, everything from
    ``EXACT_EMPTIES_NATIVE`` in the kernel), so the answer is proved exact whenever the solve fits the
    node budget. A caller's ``max_depth`` replaces this choice: plain iterative deepening to that depth."""
    from service.search import search

    if limits.max_depth is None:
        if position.empties() <= exact_empties(position):
            return search(position, limits, stop=stop, top_n=top_n, rng=rng, solve=True, solve_lead=SOLVE_LEAD)
        limits = Limits(max_time_ms=limits.max_time_ms, max_depth=MIDGAME_DEPTH, max_nodes=limits.max_nodes)
    return search(position, limits, stop=stop, top_n=top_n, rng=rng)


_STRATEGIES = {"beginner": _beginner, "corner_hunter": _corner_hunter, "expert": _expert}


# --------------------------------------------------------------------------------------------------
# The game.


class ReversiGame(PlaysLevels):
    """Reversi (Othello) on even boards 4..16, rules.md §4."""

    strategies = _STRATEGIES

    id: str = "reversi"
    title: str = "Reversi (Othello)"
    description: str = (
        "Place a disc to bracket opponent discs in a line and flip them; a seat with no placement passes. "
        "When neither seat can place, the most discs wins; equal discs is a draw."
    )
    seat_names: tuple[str, str] = ("Black", "White")
    options: tuple[OptionSpec, ...] = (
        OptionSpec("size", "int", DEFAULT_SIZE, "Board side: an even number of squares.", MIN_SIZE, MAX_SIZE),
        OptionSpec("black_seat", "int", 1, "The seat that plays Black and moves first.", 1, 2),
    )
    levels: tuple[Level, ...] = (
        Level(
            "beginner",
            "Plays the move that flips the most discs right now (random among equals), often handing corners away.",
        ),
        Level(
            "corner_hunter",
            "Grabs any corner at once and avoids X- and C-squares next to an empty corner; otherwise leaves the "
            "opponent the fewest replies and flips the most discs.",
        ),
        Level(
            "expert",
            f"Searches {MIDGAME_DEPTH} moves ahead weighing mobility, frontier, corners and the squares next to them, "
            f"and from {EXACT_EMPTIES_NATIVE} empty squares on (8x8 with its native endgame solver; otherwise from "
            f"{EXACT_EMPTIES}) computes the game to the end exactly whenever that fits its {EXPERT_NODES:,}-node "
            "budget.",
            Limits(max_time_ms=20_000, max_nodes=EXPERT_NODES),
        ),
    )
    default_level: str = "expert"
    position_notation_help: str = (
        "Three fields separated by single spaces: the board rows from the top (row 1) down, joined by '/', each "
        "row its squares from column a rightwards as B (Black), W (White) or . (empty); the seat to move (1 or "
        "2, - once the game is over); black=1 or black=2, the seat playing Black. The board is square, with an "
        "even side from 4 to 16. A position is accepted only if the four centre squares are occupied, every "
        "disc touches another (through the 8 neighbouring squares) so that all discs form one group, and the "
        "seat to move is - exactly when neither seat has a placement (a seat to move without one must pass). "
        "Start of the 8x8 game: ......../......../......../...WB.../...BW.../......../......../........ 1 "
        "black=1; after d3 c5: ......../......../...B..../...BB.../..WWW.../......../......../........ 1 black=1"
    )
    move_notation_help: str = (
        "A square as column letter and row number, columns a.. from the left and rows 1.. from the top (d3), "
        "in either case, or 'pass', legal only when the seat to move has no placement. A placement must be on "
        "an empty square and bracket at least one line of opponent discs."
    )

    def new_position(self, options: Mapping[str, Any], seed: str = "") -> ReversiPosition:
        """The start position; ``seed`` is unused (Reversi has no randomness)."""
        for name in options:
            if name not in ("size", "black_seat"):
                raise InvalidOption(f"Reversi has no option {name!r} (options: size, black_seat)", str(name))
        size = options.get("size", DEFAULT_SIZE)
        if isinstance(size, bool) or not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE or size % 2:
            raise InvalidOption(f"size is {size!r:.20}; expected an even number from 4 to 16", "size")
        black_seat = options.get("black_seat", 1)
        if isinstance(black_seat, bool) or not isinstance(black_seat, int) or black_seat not in (1, 2):
            raise InvalidOption(f"black_seat is {black_seat!r:.20}; expected 1 or 2", "black_seat")
        m = size // 2
        white = (1 << ((m - 1) * size + m - 1)) | (1 << (m * size + m))
        black = (1 << ((m - 1) * size + m)) | (1 << (m * size + m - 1))
        return _checked_position(size, black, white, black_seat, black_seat)

    def parse_position(self, text: str) -> ReversiPosition:
        return _parse_position(text)

    def position_from_fields(self, fields: Mapping[str, Any]) -> ReversiPosition:
        return _position_from_fields(fields)


GAME = ReversiGame()
