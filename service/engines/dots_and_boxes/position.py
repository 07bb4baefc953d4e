"""The Dots and Boxes position: the state and the rules (``docs/games/dots-and-boxes.md``), with the optional pie
rule.

Internal state: the drawn lines as one bitmask int, the boxes of each colour as two bitmask ints, the colour to
move, the seat holding colour A (0 before the pie choice), the phase and the pie rule's ``n`` (0 without the pie
rule). Boxes belong to the **colours** A (moves first) and B; without the pie rule seat 1 is A. A move is a line
number (``geometry.py``); the pie-rule words are the negative ints ``STOP``, ``KEEP``, ``SWAP``.

Choices where the rules are silent:
- The setup phase starts from the empty board, so the number of setup lines drawn is the number of lines on the
  board; the ``setup_lines`` field must agree with it (and is 0 in regular play).
- When the setup draws the last line of the board (``pie_lines`` = every line), seat 2 still chooses: the choice
  then decides the game, which ends at once after ``keep`` or ``swap``.
- Before the choice no seat holds a colour: ``scores`` reads as if seat 2 kept (seat 1 = A's boxes), and ``box``
  events of the setup name the colour with seat 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NewType, cast

from service.core.bits import set_bits
from service.core.contract import Position, is_int
from service.core.errors import GameOverError, IllegalMove, InvalidMove
from service.core.jsonvalue import JSONObject
from service.core.values import Event, Outcome
from service.engines.dots_and_boxes.chains import estimate_rest, play_moves
from service.engines.dots_and_boxes.geometry import Geometry

# A Dots and Boxes move: a line's number (``geometry``), or a pie-rule word ``STOP``, ``KEEP``, ``SWAP``.
DotsAndBoxesMove = NewType("DotsAndBoxesMove", int)

STOP, KEEP, SWAP = DotsAndBoxesMove(-1), DotsAndBoxesMove(-2), DotsAndBoxesMove(-3)
_WORDS = {STOP: "stop", KEEP: "keep", SWAP: "swap"}
_WORD_MOVES = {word: move for move, word in _WORDS.items()}

SETUP, CHOICE, PLAY = 0, 1, 2
PHASE_NAMES = ("setup", "choice", "play")
COLOURS = ("A", "B")


def _text_field(fields: Mapping[str, object], name: str) -> str:
    """A move's ``line`` or ``pie`` field ("" when absent), or InvalidMove when it is no text."""
    value = fields.get(name, "")
    if not isinstance(value, str):
        raise InvalidMove(f"{name} must be text, not {type(value).__name__}", name)
    return value


def plural(count: int, word: str) -> str:
    """``1 box``, ``2 boxes``, ``3 lines``: for event and error texts."""
    return f"{count} {word}" if count == 1 else f"{count} {word}es" if word == "box" else f"{count} {word}s"


class DotsAndBoxesPosition(Position[DotsAndBoxesMove]):
    """A Dots and Boxes position: lines drawn, boxes of each colour, colour to move, seat of A, pie phase."""

    __slots__ = ("_a", "_a_seat", "_b", "_colour", "_geo", "_hash", "_lines", "_phase", "_pie", "_to_move")

    def __init__(
        self, geo: Geometry, lines: int, a: int, b: int, colour: int, a_seat: int, phase: int, pie: int
    ) -> None:
        # Unchecked: callers are the validating readers of ``notation.py``, ``start_position`` and ``play``.
        self._geo = geo
        self._lines = lines
        self._a = a
        self._b = b
        self._colour = colour  # 0 = A, 1 = B; 0 once no line remains
        self._a_seat = a_seat  # seat holding A; 0 before the pie choice
        self._phase = phase
        self._pie = pie  # the pie rule's n; 0 without the pie rule
        self._hash = 0
        # Search asks for the seat to move at every node: work it out once.
        if phase == SETUP:
            self._to_move = 1
        elif phase == CHOICE:
            self._to_move = 2
        elif lines == geo.full:
            self._to_move = 0
        else:
            self._to_move = a_seat if colour == 0 else 3 - a_seat

    # --- identity -----------------------------------------------------------------------------------

    def _key(self) -> tuple[int, ...]:
        g = self._geo
        return (g.rows, g.cols, self._lines, self._a, self._b, self._colour, self._a_seat, self._phase, self._pie)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DotsAndBoxesPosition):
            return NotImplemented
        return (
            self._lines == other._lines
            and self._a == other._a
            and self._b == other._b
            and self._colour == other._colour
            and self._a_seat == other._a_seat
            and self._phase == other._phase
            and self._pie == other._pie
            and self._geo is other._geo
        )

    def __hash__(self) -> int:
        if not self._hash:
            self._hash = hash(self._key()) or 1
        return self._hash

    def __repr__(self) -> str:
        return f"GAME.parse_position({self.to_notation()!r})"

    # --- plain facts --------------------------------------------------------------------------------

    @property
    def geometry(self) -> Geometry:
        return self._geo

    @property
    def rows(self) -> int:
        return self._geo.rows

    @property
    def cols(self) -> int:
        return self._geo.cols

    @property
    def lines(self) -> int:
        """The drawn lines as a bitmask over the line numbers (see the module docstring)."""
        return self._lines

    def stage(self) -> float:
        """The undrawn lines' share of all the lines."""
        return 1.0 - self._lines.bit_count() / self._geo.line_count

    @property
    def phase(self) -> str:
        """``setup`` or ``choice`` (pie rule only) or ``play``."""
        return PHASE_NAMES[self._phase]

    @property
    def pie_lines(self) -> int:
        """The pie rule's n, 0 without the pie rule."""
        return self._pie

    @property
    def colour_to_move(self) -> str:
        """``A`` or ``B``: the colour whose line comes next (``""`` once no line remains)."""
        return "" if self._lines == self._geo.full else COLOURS[self._colour]

    @property
    def to_move(self) -> int:
        return self._to_move

    def seat_colour(self, seat: int) -> str:
        """The colour ``seat`` holds (before the choice: as if seat 2 kept)."""
        a_seat = self._a_seat or 1
        return "A" if seat == a_seat else "B"

    def boxes(self, colour: str) -> int:
        """How many boxes ``colour`` (``A`` or ``B``) holds."""
        return (self._a if colour == "A" else self._b).bit_count()

    def box_mask(self, colour: str) -> int:
        """The boxes ``colour`` (``A`` or ``B``) holds, as a bitmask over the box numbers (the native adapter's)."""
        return self._a if colour == "A" else self._b

    def scores(self) -> tuple[int, int]:
        """Each seat's boxes, through the seat's colour (before the choice: seat 1 = A)."""
        a, b = self._a.bit_count(), self._b.bit_count()
        return (a, b) if self._a_seat != 2 else (b, a)

    # --- notation -----------------------------------------------------------------------------------

    def to_notation(self) -> str:
        g, lines = self._geo, self._lines
        rows, cols = g.rows, g.cols
        horizontal = (rows + 1) * cols
        parts = []
        for y in range(rows + 1):
            row = ["+"]
            for x in range(cols):
                row.append("-" if lines >> (y * cols + x) & 1 else ".")
                row.append("+")
            parts.append("".join(row))
            if y == rows:
                break
            row = []
            for x in range(cols + 1):
                row.append("|" if lines >> (horizontal + y * (cols + 1) + x) & 1 else ".")
                if x < cols:
                    box = 1 << (y * cols + x)
                    row.append("A" if self._a & box else "B" if self._b & box else ".")
            parts.append("".join(row))
        seat = self.to_move
        text = "/".join(parts) + " " + (str(seat) if seat else "-")
        if self._pie:
            colour = self.colour_to_move or "-"
            seat1 = self.seat_colour(1) if self._a_seat else "-"
            text += f" pie={self._pie} phase={self.phase} colour={colour} seat1={seat1}"
        return text

    def to_fields(self) -> JSONObject:
        g = self._geo
        return {
            "rows": g.rows,
            "cols": g.cols,
            "lines": [g.line_names[line] for line in set_bits(self._lines)],
            "boxes_a": [g.box_names[box] for box in set_bits(self._a)],
            "boxes_b": [g.box_names[box] for box in set_bits(self._b)],
            "to_move": self.to_move,
            "colour_to_move": self.colour_to_move,
            "seat1_colour": self.seat_colour(1) if self._a_seat else "",
            "pie_rule": bool(self._pie),
            "pie_lines": self._pie,
            "phase": self.phase,
            "setup_lines": self._lines.bit_count() if self._phase != PLAY else 0,
        }

    # --- moves --------------------------------------------------------------------------------------

    def legal_moves(self) -> list[DotsAndBoxesMove]:
        """Undrawn lines in line-number order; in the setup ``stop`` last (once a line is drawn); in the
        choice ``keep`` then ``swap``."""
        phase = self._phase
        if phase == CHOICE:
            return [KEEP, SWAP]
        if phase == PLAY and self._lines == self._geo.full:
            return []
        moves = cast("list[DotsAndBoxesMove]", set_bits(self._lines ^ self._geo.full))
        if phase == SETUP and self._lines:
            moves.append(STOP)
        return moves

    def legal_move_count(self) -> int:
        phase = self._phase
        if phase == CHOICE:
            return 2
        count = self._geo.line_count - self._lines.bit_count()
        if phase == SETUP and self._lines:
            count += 1
        return count

    def parse_move(self, text: str) -> DotsAndBoxesMove:
        if not isinstance(text, str):
            raise InvalidMove(f"a move is text (a line like 'a1-b1', or stop, keep, swap), not {type(text).__name__}")
        if len(text) > 16:
            raise InvalidMove(f"{text[:16]!r}... is too long for a move: a line like 'a1-b1', or stop, keep, swap")
        word = _WORD_MOVES.get(text)
        if word is not None:
            return word
        return DotsAndBoxesMove(self._geo.parse_line(text))

    def move_from_fields(self, fields: Mapping[str, object]) -> DotsAndBoxesMove:
        if not isinstance(fields, Mapping):
            raise InvalidMove("a move is a message with the fields 'line' and 'pie'")
        for key in fields:
            if key not in ("line", "pie"):
                raise InvalidMove(f"unknown move field {key!r}: a Dots and Boxes move has 'line' and 'pie'", str(key))
        line, pie = _text_field(fields, "line"), _text_field(fields, "pie")
        if line and pie:
            raise InvalidMove("a move is a line or a pie-rule word, not both", "pie")
        if pie:
            move = _WORD_MOVES.get(pie)
            if move is None:
                raise InvalidMove(f"pie must be stop, keep or swap, not {pie[:16]!r}", "pie")
            return move
        if not line:
            raise InvalidMove("a move needs a line (like 'a1-b1') or a pie-rule word (stop, keep, swap)", "line")
        if len(line) > 16:
            raise InvalidMove(f"{line[:16]!r}... is too long for a line", "line")
        try:
            return DotsAndBoxesMove(self._geo.parse_line(line))
        except InvalidMove as error:
            raise InvalidMove(error.message, "line") from None

    def move_notation(self, move: DotsAndBoxesMove) -> str:
        if move < 0:
            return _WORDS[move]
        return self._geo.line_names[move]

    def move_to_fields(self, move: DotsAndBoxesMove) -> JSONObject:
        if move < 0:
            return {"line": "", "pie": _WORDS[move]}
        return {"line": self._geo.line_names[move], "pie": ""}

    def _check_move(self, move: DotsAndBoxesMove) -> DotsAndBoxesMove:
        """Legality of a move (already known to be an int of the right range)."""
        phase, g = self._phase, self._geo
        if move >= 0:
            if phase == CHOICE:
                raise IllegalMove("seat 2 must now keep or swap the colours; no line may be drawn", "line")
            if self._lines >> move & 1:
                raise IllegalMove(f"the line {g.line_names[move]} is already drawn", "line")
            return move
        word = _WORDS[move]
        if not self._pie:
            raise IllegalMove(f"{word} belongs to the pie rule, which this game does not use", "pie")
        if move == STOP:
            if phase != SETUP:
                raise IllegalMove("stop ends the setup phase, and the setup is over", "pie")
            if not self._lines:
                raise IllegalMove("the setup may stop only once at least one line is drawn", "pie")
            return move
        if phase != CHOICE:
            when = "during the setup" if phase == SETUP else "once regular play has begun"
            raise IllegalMove(f"{word} is seat 2's choice after the setup, not allowed {when}", "pie")
        return move

    def apply(self, move: DotsAndBoxesMove) -> tuple[DotsAndBoxesPosition, list[Event]]:
        if self.to_move == 0:
            raise GameOverError("the game is over: every line is drawn")
        if not is_int(move) or not -3 <= move < self._geo.line_count:
            raise InvalidMove(f"not a Dots and Boxes move: {move!r}")
        self._check_move(move)
        after = self.play(move)
        events = self._pie_events(move, after) if move < 0 else self._line_events(move, after)
        outcome = after.outcome()
        if outcome is not None:
            events.append(Event("game_over", outcome.winner, (), 0, outcome.detail + "."))
        return after, events

    def _pie_events(self, move: DotsAndBoxesMove, after: DotsAndBoxesPosition) -> list[Event]:
        """What ``stop``, ``keep`` or ``swap`` did."""
        if move == STOP:
            drawn = self._lines.bit_count()
            detail = f"Seat 1 stops the setup after {plural(drawn, 'line')}; seat 2 chooses to keep or swap."
            return [Event("phase", 2, (), drawn, detail)]
        a_seat = after._a_seat
        verb = "keeps" if move == KEEP else "swaps"
        if after._lines == self._geo.full:
            then = "no line remains."
        else:
            then = f"regular play begins with {after.colour_to_move} (seat {after.to_move}) to move."
        detail = f"Seat 2 {verb} the colours: seat {a_seat} holds A, seat {3 - a_seat} holds B; {then}"
        return [Event("phase", 2, (), 0, detail)]

    def _line_events(self, move: DotsAndBoxesMove, after: DotsAndBoxesPosition) -> list[Event]:
        """What drawing the line ``move`` did: the line, the boxes it completed, the extra turn, the setup's end."""
        g, seat = self._geo, self.to_move
        colour = COLOURS[self._colour]
        name = g.line_names[move]
        who = f"Seat 1 draws {name} for {colour}" if self._phase == SETUP else f"{colour} (seat {seat}) draws {name}"
        events = [Event("line", seat, (name,), 0, who + ".")]
        gained = (after._a | after._b) & ~(self._a | self._b)
        if gained:
            boxes = tuple(g.box_names[box] for box in set_bits(gained))
            count = len(boxes)
            owner = 0 if self._phase == SETUP else seat
            detail = f"{colour} completes {'box' if count == 1 else 'boxes'} {' and '.join(boxes)}."
            events.append(Event("box", owner, boxes, count, detail))
            if after._lines != g.full:
                events.append(Event("extra_turn", seat, (), 0, f"{colour} completed a box and draws again."))
        if self._phase == SETUP and after._phase == CHOICE:
            drawn = after._lines.bit_count()
            why = f"{plural(drawn, 'line')} {'is' if drawn == 1 else 'are'} drawn"
            if after._lines == g.full:
                why = "every line is drawn"
            detail = f"The setup ends by itself: {why}; seat 2 chooses to keep or swap."
            events.append(Event("phase", 2, (), drawn, detail))
        return events

    def outcome(self) -> Outcome | None:
        if self._phase != PLAY or self._lines != self._geo.full:
            return None
        one, two = self.scores()
        winner = 1 if one > two else 2 if two > one else 0
        c1, c2 = self.seat_colour(1), self.seat_colour(2)
        detail = f"Seat 1 ({c1}) {plural(one, 'box')}, seat 2 ({c2}) {two}"
        return Outcome(winner, "boxes" if winner else "draw", detail)

    # --- search hooks -------------------------------------------------------------------------------

    def play(self, move: DotsAndBoxesMove) -> DotsAndBoxesPosition:
        g = self._geo
        if move < 0:
            if move == STOP:
                phase, a_seat = CHOICE, 0
            else:
                phase, a_seat = PLAY, 1 if move == KEEP else 2
            return DotsAndBoxesPosition(g, self._lines, self._a, self._b, self._colour, a_seat, phase, self._pie)
        lines = self._lines | (1 << move)
        gained = 0
        for box in g.line_boxes[move]:
            mask = g.box_lines[box]
            if lines & mask == mask:
                gained |= 1 << box
        a, b, colour = self._a, self._b, self._colour
        if gained:
            if colour:
                b |= gained
            else:
                a |= gained
        else:
            colour ^= 1
        phase = self._phase
        if lines == g.full:
            colour = 0
            if phase == SETUP:
                phase = CHOICE
        elif phase == SETUP and lines.bit_count() >= self._pie:
            phase = CHOICE
        return DotsAndBoxesPosition(g, lines, a, b, colour, self._a_seat, phase, self._pie)

    def search_moves(self) -> Sequence[DotsAndBoxesMove]:
        """Regular play: the sound reductions of ``chains.play_moves``, the rest ordered safe lines first,
        then openings by the number of boxes they hand over. Setup and choice: the legal moves."""
        if self._phase != PLAY:
            return self.legal_moves()
        return cast("tuple[DotsAndBoxesMove, ...]", play_moves(self._geo, self._lines))

    def box_margin(self, seat: int) -> float:
        """The boxes of ``seat``'s colour minus the other colour's (the ``medium`` level's evaluation)."""
        diff = self._a.bit_count() - self._b.bit_count()
        return diff if self.seat_colour(seat) == "A" else -diff

    def colour_value(self) -> float:
        """The estimated final margin of colour A (boxes held plus ``estimate_rest``)."""
        g = self._geo
        value = float(self._a.bit_count() - self._b.bit_count())
        if self._lines != g.full:
            rest = estimate_rest(g, self._lines)
            value += rest if self._colour == 0 else -rest
        return value

    def evaluate(self, seat: int) -> float:
        """The estimated final margin for ``seat``. Before the choice, seat 2 will take the better colour,
        so seat 2 is credited with the absolute value and seat 1 with its opposite."""
        if self._phase != PLAY:
            value = abs(self.colour_value())
            return value if seat == 2 else -value
        if self._lines == self._geo.full:
            return self.final_value(seat)
        value = self.colour_value()
        return value if self.seat_colour(seat) == "A" else -value

    def final_value(self, seat: int) -> float:
        """The final box margin for ``seat``."""
        return self.box_margin(seat)
