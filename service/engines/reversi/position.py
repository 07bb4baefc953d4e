"""The Reversi position: the state (bitboards, seat to move, Black's seat) and the rules
(``docs/games/reversi.md``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NewType, cast

from service.core.bits import set_bits
from service.core.contract import Position, is_int
from service.core.errors import GameOverError, IllegalMove, InvalidMove
from service.core.jsonvalue import JSONObject
from service.core.values import Event, Outcome
from service.engines.reversi.bitboards import (
    BLACK_CHAR,
    COLUMNS,
    EMPTY_CHAR,
    GEOMETRIES,
    WHITE_CHAR,
    Geometry,
    flip_mask,
    placement_mask,
)
from service.engines.reversi.evaluation import estimate

# A Reversi move: the index of the square placed on (``bitboards``' numbering), or ``PASS``.
ReversiMove = NewType("ReversiMove", int)

PASS = ReversiMove(-1)  # the move of a seat with no placement


def _colour_name(is_black: bool) -> str:
    return "Black" if is_black else "White"


class ReversiPosition(Position[ReversiMove]):
    """A Reversi position: board size, Black's and White's discs as bitboards, seat to move, Black's seat.

    Immutable and hashable; equal iff the notation is equal. Build one with ``GAME.new_position``,
    ``GAME.parse_position`` or ``GAME.position_from_fields``; the constructor does not validate.
    """

    __slots__ = ("_geo", "_hash", "_moves", "black", "black_seat", "size", "to_move", "white")
    to_move: int  # a slot: the search reads it at every node

    def __init__(
        self, size: int, black: int, white: int, to_move: int, black_seat: int, moves: int | None = None
    ) -> None:
        self.size = size  # board side, an even number 4..16
        self.black = black  # bitboard of Black's discs (bit row * size + col)
        self.white = white  # bitboard of White's discs
        self.to_move = to_move  # seat to move, 1 or 2; 0 once the game is over
        self.black_seat = black_seat  # the seat playing Black (1 or 2)
        self._geo = GEOMETRIES[size]
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

    def sides(self) -> tuple[int, int]:
        """(mover's discs, opponent's discs); Black first when the game is over."""
        if self.to_move == 0 or self.to_move == self.black_seat:
            return self.black, self.white
        return self.white, self.black

    def placements(self) -> int:
        """Bitboard of the seat to move's placements (computed once)."""
        moves = self._moves
        if moves is None:
            if self.to_move == 0:
                moves = 0
            else:
                me, opp = self.sides()
                moves = placement_mask(me, opp, self._geo)
            self._moves = moves
        return moves

    @property
    def geometry(self) -> Geometry:
        """The board's masks and square names."""
        return self._geo

    def _who(self, seat: int) -> str:
        return f"{_colour_name(seat == self.black_seat)} (seat {seat})"

    def empties(self) -> int:
        """How many squares are empty."""
        return self._geo.n - (self.black | self.white).bit_count()

    def stage(self) -> float:
        """The empty squares' share of those the start left empty (four discs stand at the start)."""
        return self.empties() / (self._geo.n - 4)

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

    def to_fields(self) -> JSONObject:
        return {"board": self.board_rows(), "to_move": self.to_move, "black_seat": self.black_seat}

    # --- moves ---

    def legal_moves(self) -> list[ReversiMove]:
        """Placements in board order; ``[PASS]`` when only the other seat can place; [] when over."""
        if self.to_move == 0:
            return []
        moves = self.placements()
        return cast("list[ReversiMove]", set_bits(moves)) if moves else [PASS]

    def legal_move_count(self) -> int:
        if self.to_move == 0:
            return 0
        return self.placements().bit_count() or 1

    def parse_move(self, text: str) -> ReversiMove:
        """``d3`` (column letter, row number; either case) or ``pass``."""
        if not isinstance(text, str):
            raise InvalidMove("a move must be a string such as 'd3' or 'pass'", "")
        if len(text) > 4:
            raise InvalidMove(f"{text[:12]!r}... is not a square such as 'd3' or 'pass'", "")
        word = text.lower()
        if word == "pass":
            return PASS
        return self._square(word, "")

    def _square(self, name: str, field: str) -> ReversiMove:
        size = self.size
        if len(name) < 2 or name[0] not in COLUMNS or not name[1:].isdigit() or not name[1:].isascii():
            raise InvalidMove(f"{name!r} is not a square such as 'd3' or the word 'pass'", field)
        col = COLUMNS.index(name[0])
        if name[1] == "0":
            raise InvalidMove(f"{name!r}: row numbers start at 1 and have no leading zero", field)
        row = int(name[1:]) - 1
        if col >= size or row >= size:
            last = f"{COLUMNS[size - 1]}{size}"
            raise InvalidMove(f"{name!r} is off the {size}x{size} board (a1 to {last})", field)
        return ReversiMove(row * size + col)

    def move_from_fields(self, fields: Mapping[str, object]) -> ReversiMove:
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

    def move_notation(self, move: ReversiMove) -> str:
        if move == PASS:
            return "pass"
        return self._geo.names[move]

    def move_to_fields(self, move: ReversiMove) -> JSONObject:
        if move == PASS:
            return {"square": "", "is_pass": True}
        return {"square": self._geo.names[move], "is_pass": False}

    # --- playing ---

    def _check_move(self, move: object) -> None:
        if self.to_move == 0:
            raise GameOverError("the game is over: neither seat has a placement", "")
        if not is_int(move) or not (move == PASS or 0 <= move < self._geo.n):
            raise InvalidMove(f"{move!r} is not a Reversi move (a square index or pass)", "")
        moves = self.placements()
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

    def play(self, move: ReversiMove) -> ReversiPosition:
        """The position after ``move`` (a legal one), forced passes played: the same as ``apply(move)[0]``."""
        geo = self._geo
        seat = self.to_move
        if move == PASS:
            # Only asked for when the other seat has a placement, so the game goes on with it.
            return ReversiPosition(self.size, self.black, self.white, 3 - seat, self.black_seat)
        me, opp = self.sides()
        bit = 1 << move
        flips = flip_mask(me, opp, bit, geo)
        me |= bit | flips
        opp ^= flips
        if seat == self.black_seat:
            black, white = me, opp
        else:
            black, white = opp, me
        replies = placement_mask(opp, me, geo)
        if replies:
            return ReversiPosition(self.size, black, white, 3 - seat, self.black_seat, replies)
        again = placement_mask(me, opp, geo)
        if again:  # the other seat has no placement: it passes and the mover goes on
            return ReversiPosition(self.size, black, white, seat, self.black_seat, again)
        return ReversiPosition(self.size, black, white, 0, self.black_seat, 0)

    def apply(self, move: ReversiMove) -> tuple[ReversiPosition, list[Event]]:
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
        me, opp = self.sides()
        name = geo.names[move]
        flipped = flip_mask(me, opp, 1 << move, geo)
        colour = _colour_name(seat == self.black_seat)
        events.append(Event("place", seat, (name,), 1, f"{self._who(seat)} places a disc on {name}."))
        cells = tuple(geo.names[i] for i in set_bits(flipped))
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

    def search_moves(self) -> Sequence[ReversiMove]:
        """Legal moves, corners first, then safe edges, the interior, C-squares, X-squares last."""
        if self.to_move == 0:
            return []
        moves = self.placements()
        if not moves:
            return [PASS]
        out: list[int] = []
        for mask in self._geo.order:
            out.extend(set_bits(moves & mask))
        return cast("list[ReversiMove]", out)

    def plies_left(self) -> int:
        """At most this many moves to the end of the game (the search's solve mode): one per empty square,
        plus a pass at the root (``play`` makes every later forced pass itself)."""
        return self.empties() + 1 if self.to_move else 0

    def evaluate(self, seat: int) -> float:
        """Estimated final disc margin for ``seat``: mobility, potential mobility (frontier), corners,
        X- and C-squares next to an empty corner, and the disc count weighted in only late in the game."""
        if self.to_move == 0:
            return self.final_value(seat)
        me, opp = self.sides()
        value = estimate(me, opp, self.placements(), self._geo)
        return value if seat == self.to_move else -value

    def flip_count(self, move: ReversiMove) -> int:
        """How many discs ``move`` (a legal move) flips now; 0 for a pass."""
        if move == PASS:
            return 0
        me, opp = self.sides()
        return flip_mask(me, opp, 1 << move, self._geo).bit_count()


# Perft.


def _perft(me: int, opp: int, depth: int, geo: Geometry) -> int:
    moves = placement_mask(me, opp, geo)
    if depth == 1:
        if moves:
            return moves.bit_count()
        return 1 if placement_mask(opp, me, geo) else 0
    if not moves:
        if placement_mask(opp, me, geo):
            return _perft(opp, me, depth - 1, geo)  # the forced pass is a ply
        return 0  # a finished game contributes nothing
    total = 0
    while moves:
        bit = moves & -moves
        moves ^= bit
        flips = flip_mask(me, opp, bit, geo)
        total += _perft(opp ^ flips, me | bit | flips, depth - 1, geo)
    return total


def perft(position: ReversiPosition, depth: int) -> int:
    """Leaf count of the game tree to ``depth`` plies (``docs/games/reversi.md``): a forced pass is a ply, and a
    game that ends before ``depth`` contributes 0. Works on bitboards directly, handling passes explicitly."""
    if depth <= 0:
        return 1
    if position.to_move == 0:
        return 0
    me, opp = position.sides()
    return _perft(me, opp, depth, position._geo)
