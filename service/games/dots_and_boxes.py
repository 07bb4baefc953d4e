"""Dots and Boxes, with the optional pie rule: the rules engine. Rules: ``shared/spec/rules.md`` §5.

Geometry. A board of ``rows`` x ``cols`` boxes has ``(rows + 1) x (cols + 1)`` dots, named like squares
(columns ``a``.. left to right, rows ``1``.. top to bottom). Boxes are named by their top-left dot, so box
``a1`` is the top-left box and its corners are the dots ``a1``, ``b1``, ``a2``, ``b2``. Lines are numbered
the way OpenSpiel numbers them (which keeps the differential test plain): first the horizontal lines row by
row (dot row ``y``, the line from column ``x`` to ``x + 1`` is ``y * cols + x``), then the vertical lines
(from dot row ``y`` to ``y + 1`` at column ``x`` is ``(rows + 1) * cols + y * (cols + 1) + x``). A move is
that int; the pie-rule words are the negative ints ``STOP``, ``KEEP``, ``SWAP``.

Internal state: the drawn lines as one bitmask int, the boxes of each colour as two bitmask ints, the colour
to move, the seat holding colour A (0 before the pie choice), the phase and the pie rule's ``n`` (0 without
the pie rule). Boxes belong to the **colours** A (moves first) and B; without the pie rule seat 1 is A.

Position notation (one line, space-separated fields)::

    +.+.+/...../+.+.+/...../+.+.+ 1
    +-+.+/|B|../+-+.+/...../+.+.+ 1 pie=5 phase=setup colour=B seat1=-

- the board, top to bottom, ``/`` between rows: ``2 * rows + 1`` rows of ``2 * cols + 1`` characters.
  Even rows are dot rows: ``+`` for each dot, and between two dots ``-`` (line drawn) or ``.`` (not drawn).
  Odd rows are box rows: ``|`` or ``.`` for each vertical line, and between two of them the box: ``A`` or
  ``B`` (its owner) or ``.`` (not yet complete);
- the seat to move ``1`` / ``2``, or ``-`` once the game is over;
- with the pie rule only, four more tokens in this order: ``pie=N`` (the setup's ``n``), ``phase=`` one of
  ``setup`` / ``choice`` / ``play``, ``colour=`` the colour to move (``A``/``B``; ``-`` once no line remains),
  ``seat1=`` the colour seat 1 holds (``A``/``B``; ``-`` before the choice). Without the pie rule, seat 1 is A
  and the colour to move is the seat's, so nothing more is written.

Move notation: a line by its two dots, ``a1-b1`` or ``a1-a2``, in either order; answered with the top/left
dot first. The pie-rule words ``stop``, ``keep``, ``swap``.

Choices where rules.md is silent (documented here and in the report):
- The setup phase starts from the empty board, so the number of setup lines drawn is the number of lines on
  the board; the ``setup_lines`` field must agree with it (and is 0 in regular play).
- When the setup draws the last line of the board (``pie_lines`` = every line), seat 2 still chooses: the
  choice then decides the game, which ends at once after ``keep`` or ``swap``.
- Before the choice no seat holds a colour: ``scores`` reads as if seat 2 kept (seat 1 = A's boxes), and
  ``box`` events of the setup name the colour with seat 0.
- ``pie_lines`` must not exceed the number of lines of the board (a 1x1 board has 4), checked only when
  ``pie_rule`` is on.
- Positions are checked for what can be checked cheaply: every complete box has exactly one owner and no
  incomplete box has one; the setup / choice counters fit ``n``; and the colour to move fits the counts
  whenever no line can have completed two boxes at once (no two adjacent complete boxes share an owner):
  then the turn changed ``lines - boxes`` times, so the colour to move is A exactly when that is even.
  Deeper reachability (e.g. which colour can own the single box of a 1x1 board) is not checked.

Search hooks. ``search_moves`` applies the usual sound reductions in regular play: a box that can be taken
without opening anything is taken at once; in an opened chain the only choices are "take the next box" or
(with exactly two left) the double-dealing line; an opened loop leaves four; among isolated chains and
loops (both ends on the border) only one opening per kind and length is tried, at the end of a long chain and
in the middle of a 2-chain (the hard-hearted handout). ``evaluate`` counts the boxes owned plus an estimate
of the rest: safe lines are played out in a fixed order to learn who must open the first chain, then the
chains and loops are valued exactly as a simple loony endgame (the long-chain rule with its double-dealing
sacrifices), which is exact once every open box has two sides; while safe lines remain that guess is
weighed down (to nothing at six). Both depend on the lines only and are memoised per board.

Exact solver (``ExactSolver``). The value of the rest of the game (the margin on the boxes not yet complete,
for the side to move) depends on the drawn lines only, and not on their orientation: the solver is alpha-beta
(MTD(f) at the root) over the same reductions, with a table keyed by the least image of the line set under
the board's symmetries (``canonical_lines``: 8 on a square board, 4 on a rectangle), forced captures followed
without a table entry and simple loony endgames valued by ``loony_value``. It solves 3x3 from the empty board
(-3 for the first player, 3 boxes to 6) in about 280 000 solver nodes; see ``_solve`` for how ``hard`` uses it.

Levels (all on ``service.search``): ``easy`` is one-ply greedy; ``medium`` alpha-beta to six plies within
4000 nodes, counting boxes only (seeded tie-breaks); ``hard`` proves the value with the exact solver when the
solve is affordable (at most 18 undrawn lines, or more with a larger node budget: ``_exact_affordable``),
answering ``exact`` with the margin including the boxes already held, else alpha-beta on the reductions and
the chain evaluation. In the pie setup every level uses one rule (``_setup_move``): stop, or draw a safe line,
whichever leaves the position that looks most balanced, since seat 2 will take the better colour; the
keep / swap choice is searched (``easy``: the static estimate).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from typing import Any

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
    RulesError,
    SearchResult,
    StopSignal,
)

MIN_SIZE, MAX_SIZE = 1, 12
MAX_LINES = 2 * MAX_SIZE * (MAX_SIZE + 1)  # 312 on 12x12
DEFAULT_SIZE = 5
DEFAULT_PIE_LINES = 5

STOP, KEEP, SWAP = -1, -2, -3
_WORDS = {STOP: "stop", KEEP: "keep", SWAP: "swap"}
_WORD_MOVES = {word: move for move, word in _WORDS.items()}

SETUP, CHOICE, PLAY = 0, 1, 2
_PHASE_NAMES = ("setup", "choice", "play")
COLOURS = ("A", "B")

# The longest canonical notation: 25 rows of 25 characters with separators, the seat and the pie tokens.
_MAX_NOTATION = 25 * 26 + 2 + len(" pie=312 phase=choice colour=A seat1=A")
_LINE_TEXT = re.compile(r"([a-z])([1-9][0-9]?)-([a-z])([1-9][0-9]?)")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# The set bits of every byte, already offset by the byte's position (40 bytes cover the 312 lines of 12x12).
_BYTE_BITS = tuple(tuple(tuple(8 * k + i for i in range(8) if byte >> i & 1) for byte in range(256)) for k in range(40))


def _bits(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, lowest first (a byte at a time: this is a hot path)."""
    out: list[int] = []
    k = 0
    while mask:
        byte = mask & 255
        if byte:
            out += _BYTE_BITS[k][byte]
        mask >>= 8
        k += 1
    return out


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}es" if word == "box" else f"{count} {word}s"


# --------------------------------------------------------------------------------------------------
# Geometry: everything that depends only on the board size, computed once per size.


class Geometry:
    """The lines and boxes of one board size, and the names of each."""

    __slots__ = (
        "box_count",
        "box_edges",
        "box_index",
        "box_lines",
        "box_names",
        "box_sides",
        "cols",
        "full",
        "line_boxes",
        "line_count",
        "line_names",
        "line_pairs",
        "rows",
        "shared_lines",
    )

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        horizontal = (rows + 1) * cols
        self.line_count = horizontal + rows * (cols + 1)
        self.box_count = rows * cols
        self.full = (1 << self.line_count) - 1

        def h(y: int, x: int) -> int:
            return y * cols + x

        def v(y: int, x: int) -> int:
            return horizontal + y * (cols + 1) + x

        names = [""] * self.line_count
        for y in range(rows + 1):
            for x in range(cols):
                names[h(y, x)] = f"{chr(97 + x)}{y + 1}-{chr(98 + x)}{y + 1}"
        for y in range(rows):
            for x in range(cols + 1):
                names[v(y, x)] = f"{chr(97 + x)}{y + 1}-{chr(97 + x)}{y + 2}"
        self.line_names = tuple(names)
        sides = []
        touching: list[list[int]] = [[] for _ in range(self.line_count)]
        for r in range(rows):
            for c in range(cols):
                box = r * cols + c
                four = (h(r, c), h(r + 1, c), v(r, c), v(r, c + 1))  # top, bottom, left, right
                sides.append(four)
                for line in four:
                    touching[line].append(box)
        self.box_sides: tuple[tuple[int, int, int, int], ...] = tuple(sides)
        self.box_lines = tuple((1 << a) | (1 << b) | (1 << c) | (1 << d) for a, b, c, d in sides)
        self.line_boxes: tuple[tuple[int, ...], ...] = tuple(tuple(t) for t in touching)
        self.shared_lines = tuple(line for line in range(self.line_count) if len(touching[line]) == 2)
        # The two boxes of each line, the one box twice at the border: a cheap "is this line safe" test.
        self.line_pairs = tuple((t[0], t[-1]) for t in touching)
        # For walking along chains: each box's four (line, box across it or -1 at the border).
        self.box_edges = tuple(
            tuple((line, next((o for o in touching[line] if o != box), -1)) for line in four)
            for box, four in enumerate(sides)
        )
        self.box_names = tuple(f"{chr(97 + c)}{r + 1}" for r in range(rows) for c in range(cols))
        self.box_index = {name: i for i, name in enumerate(self.box_names)}

    def across(self, line: int, box: int) -> int:
        """The box on the other side of ``line`` from ``box``, or -1 at the border."""
        two = self.line_boxes[line]
        if len(two) == 1:
            return -1
        return two[1] if two[0] == box else two[0]

    def parse_line(self, text: str) -> int:
        """A line from its two dots in either order; InvalidMove naming what is wrong."""
        match = _LINE_TEXT.fullmatch(text)
        if not match:
            shown = text if len(text) <= 20 else text[:20] + "..."
            raise InvalidMove(
                f"{shown!r} is not a line: a line is written by its two dots, like 'a1-b1' or 'a1-a2' "
                "(or one of the words stop, keep, swap)"
            )
        x1, y1, x2, y2 = ord(match[1]) - 97, int(match[2]) - 1, ord(match[3]) - 97, int(match[4]) - 1
        last = f"{chr(97 + self.cols)}{self.rows + 1}"
        for x, y, dot in ((x1, y1, match[1] + match[2]), (x2, y2, match[3] + match[4])):
            if x > self.cols or y > self.rows:
                raise InvalidMove(f"dot {dot} is off the grid: the dots of this board run from a1 to {last}")
        if (x1, y1) > (x2, y2):
            x1, y1, x2, y2 = x2, y2, x1, y1
        if y1 == y2 and x2 == x1 + 1:
            return y1 * self.cols + x1
        if x1 == x2 and y2 == y1 + 1:
            return (self.rows + 1) * self.cols + y1 * (self.cols + 1) + x1
        if x1 == x2 and y1 == y2:
            raise InvalidMove(f"{text!r} is not a line: it joins a dot to itself")
        if x1 != x2 and y1 != y2:
            raise InvalidMove(f"{text!r} is not a line: lines are horizontal or vertical, never diagonal")
        raise InvalidMove(f"{text!r} is not a line: a line joins two neighbouring dots")


@cache
def geometry(rows: int, cols: int) -> Geometry:
    """The shared geometry of a board of ``rows`` x ``cols`` boxes."""
    return Geometry(rows, cols)


# --------------------------------------------------------------------------------------------------
# Chain analysis: the structure of the open boxes, for ``search_moves`` and ``evaluate``.


def _sides(geo: Geometry, lines: int) -> list[int]:
    return [(lines & mask).bit_count() for mask in geo.box_lines]


def _exit(geo: Geometry, lines: int, box: int, entry: int) -> tuple[int, int]:
    """The open side of ``box`` other than ``entry`` (a box with two open sides; ``entry`` -1 for any):
    the line and the box across it (-1 at the border)."""
    for line, nxt in geo.box_edges[box]:
        if line != entry and not lines >> line & 1:
            return line, nxt
    raise AssertionError("a box with no open side was walked into")  # pragma: no cover - a bug, not input


def _follow(geo: Geometry, lines: int, sides: Sequence[int], box: int) -> tuple[list[int], list[int], bool]:
    """From a takeable box (three sides), the boxes the taker can take in a row and the line that takes each
    (``path[i]`` leaves ``chain[i]``). The flag is True when the chain ends in another takeable box (an
    opened loop, or a chain opened at both ends); then ``path`` has one line fewer than ``chain``."""
    chain = [box]
    line, nxt = _exit(geo, lines, box, -1)
    path = [line]
    while True:
        if nxt < 0:
            return chain, path, False
        count = sides[nxt]
        if count == 3:
            chain.append(nxt)
            return chain, path, True
        if count != 2:
            return chain, path, False
        chain.append(nxt)
        line, nxt = _exit(geo, lines, nxt, line)
        path.append(line)


def _capture_moves(geo: Geometry, lines: int, sides: Sequence[int], takeable: list[int]) -> list[int] | None:
    """The sound reduction while boxes can be taken, or None when every line must be tried."""
    long_take = -1
    options: list[int] = []
    for box in takeable:
        chain, path, two_ended = _follow(geo, lines, sides, box)
        k = len(chain)
        if k == 1 or (two_ended and k == 2):
            # Taking opens nothing (the next box has at most one side) or takes two at once: take it now.
            return [path[0]]
        if (not two_ended and k >= 3) or (two_ended and k >= 5):
            long_take = path[0]
        elif not two_ended or k == 4:
            # Two left: take, or the double-dealing line at the far end. An opened loop of four: take, or
            # the middle line (two dominoes for the opponent).
            options += path[:2]
        else:  # three in a row takeable at both ends: rare enough to try everything
            return None
    if long_take >= 0:
        return [long_take]
    return list(dict.fromkeys(options))


class _Component:
    """A maximal run of open boxes with exactly two sides: a chain (ends at the border, at a box with fewer
    sides, or at a takeable box) or a loop."""

    __slots__ = ("boxes", "isolated", "lines", "loop")

    def __init__(self, boxes: list[int], lines: list[int], loop: bool, isolated: bool) -> None:
        self.boxes = boxes
        self.lines = lines  # the open lines of the run, in order along it (for a chain: both end lines too)
        self.loop = loop
        self.isolated = isolated  # nothing else touches it: a loop, or a chain with both ends on the border

    def opening(self) -> int:
        """The one opening worth trying in an isolated component: the end of a long chain, the middle
        line of a 2-chain (the hard-hearted handout), any line of a 1-chain or a loop."""
        if self.loop or len(self.boxes) != 2:
            return self.lines[0]
        return self.lines[1]


def _components(geo: Geometry, lines: int, sides: Sequence[int]) -> list[_Component]:
    seen = bytearray(geo.box_count)
    found = []
    edges = geo.box_edges
    for start in range(geo.box_count):
        if sides[start] != 2 or seen[start]:
            continue
        seen[start] = 1
        halves = []
        ends_on_border = 0
        loop = False
        for first, first_box in [edge for edge in edges[start] if not lines >> edge[0] & 1]:
            boxes: list[int] = []
            run = [first]
            line, nxt = first, first_box
            while True:
                if nxt < 0:
                    ends_on_border += 1
                    break
                if nxt == start:
                    loop = True
                    break
                if sides[nxt] != 2:
                    break
                seen[nxt] = 1
                boxes.append(nxt)
                for edge_line, edge_box in edges[nxt]:
                    if edge_line != line and not lines >> edge_line & 1:
                        line, nxt = edge_line, edge_box
                        break
                run.append(line)
            halves.append((boxes, run))
            if loop:
                break
        if loop:
            boxes, run = halves[0]
            found.append(_Component([start, *boxes], run, True, True))
        else:
            (left, left_run), (right, right_run) = halves
            chain = [*reversed(left), start, *right]
            run = [*reversed(left_run), *right_run]
            found.append(_Component(chain, run, False, ends_on_border == 2))
    return found


def _run_lengths(geo: Geometry, lines: int, sides: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The sorted lengths of the chains and of the loops of ``_components``, without building them.
    Clobbers ``sides`` (each counted box is marked done)."""
    chains: list[int] = []
    loops: list[int] = []
    edges = geo.box_edges
    for start, count in enumerate(sides):
        if count != 2:
            continue
        sides[start] = 5
        length = 1
        loop = False
        for first, nxt in edges[start]:
            if lines >> first & 1:
                continue
            line = first
            while nxt >= 0 and sides[nxt] == 2:
                sides[nxt] = 5
                length += 1
                for edge_line, edge_box in edges[nxt]:
                    if edge_line != line and not lines >> edge_line & 1:
                        line, nxt = edge_line, edge_box
                        break
            if nxt == start:
                loop = True
                break
        (loops if loop else chains).append(length)
    return tuple(sorted(chains)), tuple(sorted(loops))


@lru_cache(maxsize=65536)
def loony_value(chains: tuple[int, ...], loops: tuple[int, ...]) -> int:
    """The exact margin, over the boxes of these independent chains and loops, for the player who must open
    one of them (a simple loony endgame). Chains of one or two are opened so that they cannot be declined
    (a 2-chain by its middle line); the opponent of the opener of a longer chain either takes it all and
    opens the next one, or takes all but two and hands the opener those two with the duty to move again
    (all but four for a loop). ``chains`` and ``loops`` are sorted lengths."""
    if not chains and not loops:
        return 0
    best = -(1 << 30)
    for i, length in enumerate(chains):
        if i and chains[i - 1] == length:
            continue
        rest = loony_value((*chains[:i], *chains[i + 1 :]), loops)
        value = -length - rest
        if length >= 3:
            value = min(value, 4 - length + rest)
        best = max(best, value)
    for i, length in enumerate(loops):
        if i and loops[i - 1] == length:
            continue
        rest = loony_value(chains, (*loops[:i], *loops[i + 1 :]))
        best = max(best, min(-length - rest, 8 - length + rest))
    return best


_BLIND_SAFE_MOVES = 6


@lru_cache(maxsize=1 << 16)
def estimate_rest(geo: Geometry, lines: int) -> float:
    """An estimate of the margin the colour to move will make on the boxes not yet complete.

    Takeable boxes go to the mover (with the choice to decline the last two of a chain when that keeps
    control); then the safe lines (those that give no box away) are drawn in index order to learn who must
    open the first chain; then the chains and loops are valued as a simple loony endgame, that value weighed
    down the more safe lines remained. Boxes at junctions of several chains are left out (counted as shared).
    Exact when every open box has two sides.
    (Memoised: it depends on the lines only, and search meets the same lines with different owners.)"""
    sides = _sides(geo, lines)
    line_boxes = geo.line_boxes
    gained = 0
    decline = 0  # the cost of declining the last takeable run to keep control (0: no such choice)
    while True:
        takeable = [box for box, count in enumerate(sides) if count == 3]
        if not takeable:
            break
        chain, _path, two_ended = _follow(geo, lines, sides, takeable[0])
        k = len(chain)
        if not two_ended and k >= 2:
            decline = 4
        elif two_ended and k >= 4:
            decline = 8
        else:
            decline = 0
        for box in chain:
            for line in geo.box_sides[box]:
                if not lines >> line & 1:
                    lines |= 1 << line
                    for other in line_boxes[line]:
                        sides[other] += 1
        gained += k
    safe_moves = 0
    pairs = geo.line_pairs
    for line in _bits(lines ^ geo.full):
        first, second = pairs[line]
        if sides[first] <= 1 and sides[second] <= 1:
            lines |= 1 << line
            for box in line_boxes[line]:
                sides[box] += 1
            safe_moves += 1
    chains, loops = _run_lengths(geo, lines, sides)
    rest = loony_value(chains, loops)
    if safe_moves & 1:
        rest = -rest
    # The parity read off one fixed order of safe lines is a guess while many remain (both sides will fight
    # over it), and trusting it fully made the search sacrifice real boxes for imagined control: fade it out
    # linearly, to nothing at _BLIND_SAFE_MOVES safe lines.
    value = float(rest) * max(0.0, 1.0 - safe_moves / _BLIND_SAFE_MOVES)
    if gained:
        return gained + (max(value, -decline - value) if decline else value)
    return value


# --------------------------------------------------------------------------------------------------
# The position.


class DotsAndBoxesPosition:
    """A Dots and Boxes position: lines drawn, boxes of each colour, colour to move, seat of A, pie phase."""

    __slots__ = ("_a", "_a_seat", "_b", "_colour", "_geo", "_hash", "_lines", "_phase", "_pie", "_to_move")

    def __init__(
        self, geo: Geometry, lines: int, a: int, b: int, colour: int, a_seat: int, phase: int, pie: int
    ) -> None:
        # Unchecked: callers are the validating readers below, ``new_position`` and ``play``.
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

    @property
    def phase(self) -> str:
        """``setup`` or ``choice`` (pie rule only) or ``play``."""
        return _PHASE_NAMES[self._phase]

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

    def to_fields(self) -> dict[str, Any]:
        g = self._geo
        return {
            "rows": g.rows,
            "cols": g.cols,
            "lines": [g.line_names[line] for line in _bits(self._lines)],
            "boxes_a": [g.box_names[box] for box in _bits(self._a)],
            "boxes_b": [g.box_names[box] for box in _bits(self._b)],
            "to_move": self.to_move,
            "colour_to_move": self.colour_to_move,
            "seat1_colour": self.seat_colour(1) if self._a_seat else "",
            "pie_rule": bool(self._pie),
            "pie_lines": self._pie,
            "phase": self.phase,
            "setup_lines": self._lines.bit_count() if self._phase != PLAY else 0,
        }

    # --- moves --------------------------------------------------------------------------------------

    def legal_moves(self) -> list[int]:
        """Undrawn lines in line-number order; in the setup ``stop`` last (once a line is drawn); in the
        choice ``keep`` then ``swap``."""
        phase = self._phase
        if phase == CHOICE:
            return [KEEP, SWAP]
        if phase == PLAY and self._lines == self._geo.full:
            return []
        moves = _bits(self._lines ^ self._geo.full)
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

    def legal_moves_page(self, start: int, count: int) -> list[int]:
        start = max(start, 0)
        return self.legal_moves()[start : start + max(count, 0)]

    def parse_move(self, text: str) -> int:
        if not isinstance(text, str):
            raise InvalidMove(f"a move is text (a line like 'a1-b1', or stop, keep, swap), not {type(text).__name__}")
        if len(text) > 16:
            raise InvalidMove(f"{text[:16]!r}... is too long for a move: a line like 'a1-b1', or stop, keep, swap")
        word = _WORD_MOVES.get(text)
        if word is not None:
            return word
        return self._geo.parse_line(text)

    def move_from_fields(self, fields: Mapping[str, Any]) -> int:
        if not isinstance(fields, Mapping):
            raise InvalidMove("a move is a message with the fields 'line' and 'pie'")
        for key in fields:
            if key not in ("line", "pie"):
                raise InvalidMove(f"unknown move field {key!r}: a Dots and Boxes move has 'line' and 'pie'", str(key))
        line, pie = fields.get("line", ""), fields.get("pie", "")
        for name, value in (("line", line), ("pie", pie)):
            if not isinstance(value, str):
                raise InvalidMove(f"{name} must be text, not {type(value).__name__}", name)
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
            return self._geo.parse_line(line)
        except InvalidMove as error:
            raise InvalidMove(error.message, "line") from None

    def move_notation(self, move: Any) -> str:
        if move < 0:
            return _WORDS[move]
        return self._geo.line_names[move]

    def move_to_fields(self, move: Any) -> dict[str, Any]:
        if move < 0:
            return {"line": "", "pie": _WORDS[move]}
        return {"line": self._geo.line_names[move], "pie": ""}

    def _check_move(self, move: Any) -> int:
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

    def apply(self, move: Any) -> tuple[DotsAndBoxesPosition, list[Event]]:
        if self.to_move == 0:
            raise GameOverError("the game is over: every line is drawn")
        if not _is_int(move) or not -3 <= move < self._geo.line_count:
            raise InvalidMove(f"not a Dots and Boxes move: {move!r}")
        self._check_move(move)
        seat = self.to_move
        after = self.play(move)
        g = self._geo
        events: list[Event] = []
        if move == STOP:
            drawn = self._lines.bit_count()
            events.append(
                Event(
                    "phase",
                    2,
                    (),
                    drawn,
                    f"Seat 1 stops the setup after {_plural(drawn, 'line')}; seat 2 chooses to keep or swap.",
                )
            )
        elif move in (KEEP, SWAP):
            a_seat = after._a_seat
            verb = "keeps" if move == KEEP else "swaps"
            if after._lines == g.full:
                then = "no line remains."
            else:
                then = f"regular play begins with {after.colour_to_move} (seat {after.to_move}) to move."
            events.append(
                Event(
                    "phase",
                    2,
                    (),
                    0,
                    f"Seat 2 {verb} the colours: seat {a_seat} holds A, seat {3 - a_seat} holds B; {then}",
                )
            )
        else:
            colour = COLOURS[self._colour]
            name = g.line_names[move]
            who = (
                f"Seat 1 draws {name} for {colour}" if self._phase == SETUP else f"{colour} (seat {seat}) draws {name}"
            )
            events.append(Event("line", seat, (name,), 0, who + "."))
            gained = (after._a | after._b) & ~(self._a | self._b)
            if gained:
                boxes = tuple(g.box_names[box] for box in _bits(gained))
                count = len(boxes)
                owner = 0 if self._phase == SETUP else seat
                events.append(
                    Event(
                        "box",
                        owner,
                        boxes,
                        count,
                        f"{colour} completes {'box' if count == 1 else 'boxes'} {' and '.join(boxes)}.",
                    )
                )
                if after._lines != g.full:
                    events.append(Event("extra_turn", seat, (), 0, f"{colour} completed a box and draws again."))
            if self._phase == SETUP and after._phase == CHOICE:
                drawn = after._lines.bit_count()
                why = f"{_plural(drawn, 'line')} {'is' if drawn == 1 else 'are'} drawn"
                if after._lines == g.full:
                    why = "every line is drawn"
                events.append(
                    Event("phase", 2, (), drawn, f"The setup ends by itself: {why}; seat 2 chooses to keep or swap.")
                )
        outcome = after.outcome()
        if outcome is not None:
            events.append(Event("game_over", outcome.winner, (), 0, outcome.detail + "."))
        return after, events

    def outcome(self) -> Outcome | None:
        if self._phase != PLAY or self._lines != self._geo.full:
            return None
        one, two = self.scores()
        winner = 1 if one > two else 2 if two > one else 0
        c1, c2 = self.seat_colour(1), self.seat_colour(2)
        reason = "boxes" if winner else "draw"
        return Outcome(winner, reason, f"Seat 1 ({c1}) {_plural(one, 'box')}, seat 2 ({c2}) {two}")

    # --- search hooks -------------------------------------------------------------------------------

    def play(self, move: Any) -> DotsAndBoxesPosition:
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

    def search_moves(self) -> Sequence[int]:
        """Regular play: the sound reductions of the module docstring, the rest ordered safe lines first,
        then openings by the number of boxes they hand over. Setup and choice: the legal moves."""
        if self._phase != PLAY:
            return self.legal_moves()
        return _play_moves(self._geo, self._lines)

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


@lru_cache(maxsize=1 << 16)
def _play_moves(geo: Geometry, lines: int) -> tuple[int, ...]:
    """``search_moves`` in regular play (memoised: it depends on the lines only)."""
    if lines == geo.full:
        return ()
    sides = _sides(geo, lines)
    takeable = [box for box, count in enumerate(sides) if count == 3]
    if takeable:
        reduced = _capture_moves(geo, lines, sides, takeable)
        if reduced is not None:
            return tuple(reduced)
    return tuple(_ordered(geo, lines, sides))


def _ordered(geo: Geometry, lines: int, sides: Sequence[int]) -> list[int]:
    """Every undrawn line worth trying with no box to take: safe lines first, then one opening per kind of
    isolated chain or loop and every other line, cheapest sacrifice first."""
    safe = []
    unsafe: list[tuple[int, int]] = []
    free = lines ^ geo.full
    pairs = geo.line_pairs
    for line in _bits(free):
        first, second = pairs[line]
        if sides[first] <= 1 and sides[second] <= 1:
            safe.append(line)
    if len(safe) == free.bit_count():
        return safe
    in_isolated = 0
    openings: dict[tuple[bool, int], int] = {}
    cost = [0] * geo.line_count
    for component in _components(geo, lines, sides):
        size = len(component.boxes)
        if component.isolated:
            for line in component.lines:
                in_isolated |= 1 << line
            openings.setdefault((component.loop, size), component.opening())
        else:
            for line in component.lines:
                cost[line] += size
    for (_loop, size), line in openings.items():
        unsafe.append((size, line))
    safe_set = set(safe)
    for line in _bits(free & ~in_isolated):
        if line not in safe_set:
            unsafe.append((cost[line] or 1, line))
    unsafe.sort()
    return safe + [line for _size, line in unsafe]


# --------------------------------------------------------------------------------------------------
# The exact solver for small boards: what ``hard`` plays while few enough lines remain.


# The symmetry tables read the lines this many at a time: 12 (4096-entry tables, two reads on 3x3) up to 4x4,
# 8 on larger boards (where the solver only meets the last lines, and 12-line tables would cost megabytes).
def _chunk(geo: Geometry) -> int:
    return 12 if geo.line_count <= 40 else 8


class SolveAborted(Exception):
    """The exact solver ran out of nodes or was stopped; ``hard`` falls back on the search."""


@cache
def line_symmetries(geo: Geometry) -> tuple[tuple[int, ...], ...]:
    """The board's symmetries as permutations of the line numbers, identity first: the four of a rectangle
    (mirrors and the half turn), the eight of a square (with the quarter turns and the diagonal mirrors)."""
    rows, cols = geo.rows, geo.cols
    index: dict[frozenset[tuple[int, int]], int] = {}
    for line, name in enumerate(geo.line_names):
        ends = name.split("-")
        index[frozenset((ord(end[0]) - 97, int(end[1:]) - 1) for end in ends)] = line
    maps = [(1, 0, 0, 1), (-1, 0, 0, 1), (1, 0, 0, -1), (-1, 0, 0, -1)]  # (x, y) -> (ax + by, cx + dy), recentred
    if rows == cols:
        maps += [(0, 1, 1, 0), (0, -1, 1, 0), (0, 1, -1, 0), (0, -1, -1, 0)]
    perms = []
    for a, b, c, d in maps:

        def image(x: int, y: int, a: int = a, b: int = b, c: int = c, d: int = d) -> tuple[int, int]:
            # Doubled coordinates centred on the board keep the maps integral.
            u, v = 2 * x - cols, 2 * y - rows
            return (a * u + b * v + cols) // 2, (c * u + d * v + rows) // 2

        perm = [0] * geo.line_count
        for dots, line in index.items():
            perm[line] = index[frozenset(image(x, y) for x, y in dots)]
        perms.append(tuple(perm))
    return tuple(perms)


@cache
def _symmetry_tables(geo: Geometry) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each symmetry but the identity, one table per ``_chunk`` lines mapping those lines' bits to the
    bits of their images: a line set's image is the OR of one read per chunk."""
    tables = []
    size = _chunk(geo)
    chunks = (geo.line_count + size - 1) // size
    for perm in line_symmetries(geo)[1:]:
        per_chunk = []
        for k in range(chunks):
            table = [0]
            for i in range(size):
                line = size * k + i
                bit = 1 << perm[line] if line < geo.line_count else 0
                table += [image | bit for image in table]
            per_chunk.append(tuple(table))
        tables.append(tuple(per_chunk))
    return tuple(tables)


def canonical_lines(geo: Geometry, lines: int) -> int:
    """The least image of ``lines`` under the board's symmetries: one key for all equivalent line sets."""
    best = lines
    size = _chunk(geo)
    mask = (1 << size) - 1
    for tables in _symmetry_tables(geo):
        image, rest = 0, lines
        for table in tables:
            image |= table[rest & mask]
            rest >>= size
        if image < best:
            best = image
    return best


class ExactSolver:
    """The exact margin of the rest of a game: the boxes not yet complete, from the view of the side to move.

    That value depends on the drawn lines only (not on who owns the complete boxes, nor on which seat is to
    move), and is the same for line sets that differ by a symmetry of the board, so the transposition table
    is keyed by the canonical line set. Alpha-beta (negamax; a line that completes a box keeps the turn, so
    its value is added, not negated) over the sound reductions of ``search_moves``; simple loony endgames
    (every open box has two sides) are valued by ``loony_value`` at once. The table holds a lower and an
    upper bound per key. ``stop`` is polled every node with the node count (a ``Deadline`` fits);
    ``SolveAborted`` is raised once it fires.
    """

    __slots__ = ("_loony", "_stop", "geo", "nodes", "table")

    def __init__(self, geo: Geometry, stop: Any = None, *, loony: bool = True) -> None:
        self.geo = geo
        self.table: dict[int, tuple[int, int]] = {}
        self.nodes = 0
        self._stop = stop
        self._loony = loony

    def value(self, lines: int) -> int:
        """The exact margin of the boxes still open, for the side to move (0 once every line is drawn).

        MTD(f): a series of null-window searches closing in from ``estimate_rest``'s guess, each cheap and
        each leaving bounds in the table for the next (the margin has the parity of the open boxes)."""
        geo = self.geo
        if lines == geo.full:
            return 0
        left = sum((lines & mask).bit_count() < 4 for mask in geo.box_lines)
        low, high = -left, left
        guess = max(low, min(high, round(estimate_rest(geo, lines))))
        if (guess - left) & 1:
            guess += 1 if guess < high else -1
        while low < high:
            test = guess + 1 if guess == low else guess
            guess = self._search(lines, test - 1, test)
            if guess < test:
                high = guess
            else:
                low = guess
        return low

    def move_value(self, lines: int, line: int, alpha: int | None = None, beta: int | None = None) -> int:
        """The exact value for the mover of drawing ``line`` (boxes it completes plus the rest, negated when
        the turn passes), or within ``alpha``..``beta`` a fail-soft bound (a value at or beyond the window's
        edge only bounds the true one)."""
        geo = self.geo
        bound = geo.box_count + 1
        alpha = -bound if alpha is None else alpha
        beta = bound if beta is None else beta
        after = lines | 1 << line
        gained = 0
        for box in geo.line_boxes[line]:
            mask = geo.box_lines[box]
            if after & mask == mask:
                gained += 1
        if after == geo.full:
            return gained
        if gained:
            return gained + self._search(after, alpha - gained, beta - gained)
        return -self._search(after, -beta, -alpha)

    def _search(self, lines: int, alpha: int, beta: int) -> int:
        geo = self.geo
        full, line_boxes, box_lines = geo.full, geo.line_boxes, geo.box_lines
        # Forced captures (the reductions leave one line, and it completes a box) are followed here, neither
        # counted nor stored: most positions of a solve are in the middle of taking a chain.
        taken = 0
        while True:
            moves = _play_moves(geo, lines)
            if len(moves) != 1:
                break
            after = lines | 1 << moves[0]
            gained = 0
            for box in line_boxes[moves[0]]:
                mask = box_lines[box]
                if after & mask == mask:
                    gained += 1
            if not gained:
                break
            taken += gained
            lines = after
            if lines == full:
                return taken
        if taken:
            return taken + self._choose(lines, alpha - taken, beta - taken)
        return self._choose(lines, alpha, beta)

    def _choose(self, lines: int, alpha: int, beta: int) -> int:
        geo = self.geo
        lines = canonical_lines(geo, lines)
        entry = self.table.get(lines)
        if entry is None:
            sides = [(lines & mask).bit_count() for mask in geo.box_lines]
            if self._loony and 0 not in sides and 1 not in sides and 3 not in sides:
                chains, loops = _run_lengths(geo, lines, sides)
                exact = loony_value(chains, loops)
                self.table[lines] = (exact, exact)
                return exact
            left = len(sides) - sides.count(4)
            low, high = -left, left
        else:
            low, high = entry
        # The bounds known may already answer the window (even a fresh node's: at most every open box).
        if low >= beta:
            return low
        if high <= alpha or low == high:
            return high
        self.nodes += 1
        if self._stop is not None and self._stop.expired(self.nodes):
            raise SolveAborted
        floor, ceiling = max(alpha, low), min(beta, high)
        best = -(1 << 30)
        window = floor
        full, line_boxes, box_lines = geo.full, geo.line_boxes, geo.box_lines
        for line in _play_moves(geo, lines):
            after = lines | 1 << line
            gained = 0
            for box in line_boxes[line]:
                mask = box_lines[box]
                if after & mask == mask:
                    gained += 1
            if after == full:
                value = gained
            elif gained:
                value = gained + self._search(after, window - gained, ceiling - gained)
            else:
                value = -self._search(after, -ceiling, -window)
            if value > best:
                best = value
                if value > window:
                    window = value
                    if window >= ceiling:
                        break
        if best <= floor:
            high = min(high, best)
        elif best >= ceiling:
            low = max(low, best)
        else:
            low = high = best
        self.table[lines] = (low, high)
        return best


# --------------------------------------------------------------------------------------------------
# Reading positions: both readers end in ``_build``, which checks everything.


def _build(
    geo: Geometry,
    lines: int,
    a: int,
    b: int,
    colour: int,
    a_seat: int,
    phase: int,
    pie: int,
    fields: Mapping[str, str],
) -> DotsAndBoxesPosition:
    """The checked position. ``colour`` is -1 when none is given; ``fields`` names the field of each idea
    (``boxes_a``, ``boxes_b``, ``colour``, ``phase``, ``seat1``, ``pie``) for error messages."""
    complete = 0
    for box, mask in enumerate(geo.box_lines):
        if lines & mask == mask:
            complete |= 1 << box
    if a & b:
        both = geo.box_names[_bits(a & b)[0]]
        raise InvalidPosition(f"box {both} is owned by both A and B", fields["boxes_b"])
    for owner, field in ((a, "boxes_a"), (b, "boxes_b")):
        if owner & ~complete:
            name = geo.box_names[_bits(owner & ~complete)[0]]
            raise InvalidPosition(f"box {name} has an owner but not all four of its sides are drawn", fields[field])
    if complete & ~(a | b):
        name = geo.box_names[_bits(complete & ~(a | b))[0]]
        raise InvalidPosition(f"box {name} has all four sides drawn but no owner (A or B)", fields["boxes_a"])
    drawn = lines.bit_count()
    full = lines == geo.full
    if pie:
        if not 1 <= pie <= geo.line_count:
            raise InvalidPosition(
                f"pie_lines must be 1..{geo.line_count} (the lines of a {geo.rows}x{geo.cols} board), not {pie}",
                fields["pie"],
            )
    elif phase != PLAY:
        raise InvalidPosition(f"the {_PHASE_NAMES[phase]} phase exists only with the pie rule", fields["phase"])
    if phase == SETUP and (drawn >= pie or full):
        raise InvalidPosition(
            f"the setup ends by itself after {pie} lines (or when none remains), but {drawn} are drawn",
            fields["phase"],
        )
    if phase == CHOICE and not 1 <= drawn <= pie:
        raise InvalidPosition(f"the choice follows a setup of 1..{pie} lines, but {drawn} are drawn", fields["phase"])
    if phase == PLAY:
        if a_seat not in (1, 2):
            raise InvalidPosition("in regular play seat 1 holds A or B", fields["seat1"])
        if not pie and a_seat != 1:
            raise InvalidPosition("without the pie rule seat 1 holds A", fields["seat1"])
    elif a_seat:
        raise InvalidPosition("no seat holds a colour before seat 2's choice", fields["seat1"])
    if full:
        if colour != -1:
            raise InvalidPosition("every line is drawn: no colour is to move", fields["colour"])
        colour = 0
    else:
        if colour not in (0, 1):
            raise InvalidPosition("a line remains to be drawn, so A or B is to move", fields["colour"])
        # With no two adjacent complete boxes of one owner, no line completed two boxes: every complete box
        # took its own line, every other line passed the turn, and A drew the first line.
        same_owner_neighbours = any(
            (owner >> geo.line_boxes[line][0] & 1) and (owner >> geo.line_boxes[line][1] & 1)
            for line in geo.shared_lines
            for owner in (a, b)
        )
        if not same_owner_neighbours:
            expected = (drawn - complete.bit_count()) & 1
            if colour != expected:
                raise InvalidPosition(
                    f"{COLOURS[colour]} cannot be to move: after {_plural(drawn, 'line')} of which "
                    f"{complete.bit_count()} completed a box each, {COLOURS[expected]} draws next",
                    fields["colour"],
                )
    return DotsAndBoxesPosition(geo, lines, a, b, colour, a_seat, phase, pie)


def _parse_position(text: str) -> DotsAndBoxesPosition:
    if not isinstance(text, str):
        raise NotationError(f"a Dots and Boxes position is text, not {type(text).__name__}")
    if len(text) > _MAX_NOTATION:
        raise NotationError(f"a Dots and Boxes position is at most {_MAX_NOTATION} characters, not {len(text)}")
    parts = text.split(" ")
    if len(parts) not in (2, 6) or not all(parts):
        raise NotationError(
            "a Dots and Boxes position is the board and the seat to move separated by a single space, then "
            "with the pie rule: pie=N phase=P colour=C seat1=S; e.g. '+.+/.../+.+ 1'"
        )
    board = parts[0].split("/")
    if len(board) % 2 == 0 or not 3 <= len(board) <= 2 * MAX_SIZE + 1:
        raise NotationError(
            f"the board has 2 x rows + 1 parts separated by '/' (dot rows and box rows), rows 1..{MAX_SIZE}; "
            f"found {len(board)} parts"
        )
    rows = len(board) // 2
    width = len(board[0])
    if width % 2 == 0 or not 3 <= width <= 2 * MAX_SIZE + 1:
        raise NotationError(f"each board row has 2 x cols + 1 characters, cols 1..{MAX_SIZE}; found {width}")
    cols = width // 2
    geo = geometry(rows, cols)
    horizontal = (rows + 1) * cols
    lines = a = b = 0
    for i, row in enumerate(board):
        if len(row) != width:
            raise NotationError(f"board row {i + 1} has {len(row)} characters; the first has {width}")
        if i % 2 == 0:
            y = i // 2
            if row[0::2] != "+" * (cols + 1) or row[1::2].strip("-.") != "":
                raise NotationError(
                    f"board row {i + 1} is a dot row: '+' for each dot and '-' or '.' between them, not {row!r}"
                )
            for x in range(cols):
                if row[2 * x + 1] == "-":
                    lines |= 1 << (y * cols + x)
        else:
            y = i // 2
            if row[0::2].strip("|.") != "" or row[1::2].strip("AB.") != "":
                raise NotationError(
                    f"board row {i + 1} is a box row: '|' or '.' for each vertical line and 'A', 'B' or '.' "
                    f"for each box between them, not {row!r}"
                )
            for x in range(cols + 1):
                if row[2 * x] == "|":
                    lines |= 1 << (horizontal + y * (cols + 1) + x)
                if x < cols:
                    owner = row[2 * x + 1]
                    if owner == "A":
                        a |= 1 << (y * cols + x)
                    elif owner == "B":
                        b |= 1 << (y * cols + x)
    seat_text = parts[1]
    if seat_text not in ("1", "2", "-"):
        raise NotationError(f"the seat to move is 1, 2 or '-' (game over), not {seat_text[:20]!r}")
    seat = 0 if seat_text == "-" else int(seat_text)
    pie, phase, colour, a_seat = 0, PLAY, -1, 1
    if len(parts) == 6:
        match = re.fullmatch(r"pie=([1-9][0-9]{0,2})", parts[2])
        if not match:
            raise NotationError(f"the third field is pie=N (the setup's line limit), not {parts[2][:20]!r}")
        pie = int(match[1])
        keys = ("phase", "colour", "seat1")
        values = []
        for key, token, allowed in zip(keys, parts[3:], (_PHASE_NAMES, ("A", "B", "-"), ("A", "B", "-")), strict=True):
            name, _, value = token.partition("=")
            if name != key or value not in allowed:
                raise NotationError(f"expected {key}={'|'.join(allowed)}, not {token[:24]!r}")
            values.append(value)
        phase = _PHASE_NAMES.index(values[0])
        colour = -1 if values[1] == "-" else COLOURS.index(values[1])
        a_seat = 0 if values[2] == "-" else 1 if values[2] == "A" else 2
    elif seat:
        colour = seat - 1
    elif lines != geo.full:
        raise InvalidPosition("the seat to move is '-' only once every line is drawn")
    names = dict.fromkeys(("boxes_a", "boxes_b", "colour", "phase", "seat1", "pie"), "")
    try:
        position = _build(geo, lines, a, b, colour, a_seat, phase, pie, names)
    except InvalidPosition as error:
        # Notation errors name no field: the whole text is the thing being parsed.
        raise InvalidPosition(error.message) from None
    if position.to_move != seat:
        expected = position.to_move or "-"
        raise InvalidPosition(f"the seat to move must be {expected} in this position, not {seat_text}")
    return position


_POSITION_FIELDS = (
    "rows",
    "cols",
    "lines",
    "boxes_a",
    "boxes_b",
    "to_move",
    "colour_to_move",
    "seat1_colour",
    "pie_rule",
    "pie_lines",
    "phase",
    "setup_lines",
)


def _int_field(fields: Mapping[str, Any], name: str) -> int:
    value = fields.get(name, 0)
    if not _is_int(value):
        raise InvalidPosition(f"{name} must be an integer, not {type(value).__name__}", name)
    return value


def _str_field(fields: Mapping[str, Any], name: str, allowed: Sequence[str]) -> str:
    value = fields.get(name, "")
    if not isinstance(value, str):
        raise InvalidPosition(f"{name} must be text, not {type(value).__name__}", name)
    if value not in allowed:
        shown = ", ".join(repr(v) for v in allowed)
        raise InvalidPosition(f"{name} must be one of {shown}, not {value[:20]!r}", name)
    return value


def _name_list(fields: Mapping[str, Any], name: str, limit: int) -> list[str]:
    value = fields.get(name, [])
    if not isinstance(value, list | tuple):
        raise InvalidPosition(f"{name} must be a list of names, not {type(value).__name__}", name)
    if len(value) > limit:
        raise InvalidPosition(f"{name} lists {len(value)} entries; this board has only {limit}", name)
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise InvalidPosition(f"{name}[{i}] must be text, not {type(item).__name__}", f"{name}[{i}]")
        if len(item) > 16:
            raise InvalidPosition(f"{name}[{i}] is too long: {item[:16]!r}...", f"{name}[{i}]")
    return list(value)


def _position_from_fields(fields: Mapping[str, Any]) -> DotsAndBoxesPosition:
    if not isinstance(fields, Mapping):
        raise InvalidPosition("a Dots and Boxes position is a message with the fields " + ", ".join(_POSITION_FIELDS))
    for key in fields:
        if key not in _POSITION_FIELDS:
            raise InvalidPosition(f"unknown field {key!r} in a Dots and Boxes position", str(key))
    rows, cols = _int_field(fields, "rows"), _int_field(fields, "cols")
    for name, value in (("rows", rows), ("cols", cols)):
        if not MIN_SIZE <= value <= MAX_SIZE:
            raise InvalidPosition(f"{name} must be {MIN_SIZE}..{MAX_SIZE} (boxes), not {value}", name)
    geo = geometry(rows, cols)
    pie_rule = fields.get("pie_rule", False)
    if not isinstance(pie_rule, bool):
        raise InvalidPosition(f"pie_rule must be true or false, not {type(pie_rule).__name__}", "pie_rule")
    pie = _int_field(fields, "pie_lines")
    if pie_rule and not 1 <= pie <= geo.line_count:
        raise InvalidPosition(
            f"pie_lines must be 1..{geo.line_count} (the lines of a {rows}x{cols} board), not {pie}", "pie_lines"
        )
    if not pie_rule and pie:
        raise InvalidPosition("pie_lines is 0 without the pie rule", "pie_lines")
    lines = 0
    for i, name in enumerate(_name_list(fields, "lines", geo.line_count)):
        try:
            line = geo.parse_line(name)
        except InvalidMove as error:
            raise InvalidPosition(error.message, f"lines[{i}]") from None
        if lines >> line & 1:
            raise InvalidPosition(f"the line {geo.line_names[line]} is listed twice", f"lines[{i}]")
        lines |= 1 << line
    owners = []
    for name in ("boxes_a", "boxes_b"):
        mask = 0
        for i, box_name in enumerate(_name_list(fields, name, geo.box_count)):
            box = geo.box_index.get(box_name)
            if box is None:
                raise InvalidPosition(
                    f"{box_name!r} is not a box of this board: boxes are named by their top-left dot, "
                    f"a1..{geo.box_names[-1]}",
                    f"{name}[{i}]",
                )
            if mask >> box & 1:
                raise InvalidPosition(f"box {box_name} is listed twice", f"{name}[{i}]")
            mask |= 1 << box
        owners.append(mask)
    a, b = owners
    phase_text = _str_field(fields, "phase", ("setup", "choice", "play", ""))
    if phase_text == "" and pie_rule:
        raise InvalidPosition("phase must be setup, choice or play with the pie rule", "phase")
    phase = _PHASE_NAMES.index(phase_text or "play")
    colour_text = _str_field(fields, "colour_to_move", ("A", "B", ""))
    seat1_text = _str_field(fields, "seat1_colour", ("A", "B", ""))
    if seat1_text == "" and phase == PLAY and not pie_rule:
        seat1_text = "A"
    a_seat = 0 if seat1_text == "" else 1 if seat1_text == "A" else 2
    colour = -1 if colour_text == "" else COLOURS.index(colour_text)
    names = {
        "boxes_a": "boxes_a",
        "boxes_b": "boxes_b",
        "colour": "colour_to_move",
        "phase": "phase",
        "seat1": "seat1_colour",
        "pie": "pie_lines",
    }
    position = _build(geo, lines, a, b, colour, a_seat, phase, pie if pie_rule else 0, names)
    to_move = _int_field(fields, "to_move")
    if to_move != position.to_move:
        raise InvalidPosition(f"to_move must be {position.to_move} in this position, not {to_move}", "to_move")
    setup_lines = _int_field(fields, "setup_lines")
    expected = lines.bit_count() if phase != PLAY else 0
    if setup_lines != expected:
        raise InvalidPosition(
            f"setup_lines must be {expected} (the lines drawn in the setup, which starts from the empty board; "
            "0 in regular play)",
            "setup_lines",
        )
    return position


# --------------------------------------------------------------------------------------------------
# Levels.


def _setup_move(position: DotsAndBoxesPosition, rng: Any, top_n: int) -> SearchResult:
    """Seat 1's setup rule at every level: stop at the most balanced point it can see. Each candidate (stop,
    or a line that gives no box away) is scored by how little seat 2 could gain by choosing a colour after
    it (``-|estimated margin of A|``); ties go to stopping, then to a seeded random line."""
    from service.games.base import ScoredMove

    g = position.geometry
    sides = _sides(g, position.lines)
    candidates = [
        line for line in position.legal_moves() if line >= 0 and all(sides[box] <= 1 for box in g.line_boxes[line])
    ]
    if not candidates:
        candidates = [line for line in position.legal_moves() if line >= 0]
    rng.shuffle(candidates)
    if position.lines:
        candidates.insert(0, STOP)
    scored = [ScoredMove(move, -abs(position.play(move).colour_value())) for move in candidates]
    scored.sort(key=lambda s: -s.value)
    best = scored[0]
    return SearchResult(
        move=best.move,
        value=best.value,
        exact=False,
        depth=1,
        nodes=len(scored),
        stop_reason="rule",
        pv=[best.move],
        alternatives=scored[: max(top_n, 1)],
    )


def _easy_key(position: Any, move: Any) -> float:
    # A beginner takes a box when one is there, avoids handing one over, and otherwise draws anywhere;
    # at the pie choice it takes the colour the static estimate favours (seat 2 holds B after keep).
    if move < 0:
        value = position.colour_value()
        return value if move == SWAP else -value
    g, lines = position.geometry, position.lines
    after = lines | (1 << move)
    value = 0.0
    for box in g.line_boxes[move]:
        count = (after & g.box_lines[box]).bit_count()
        if count == 4:
            value += 2.0
        elif count == 3:
            value -= 1.0
    return value


def _easy(position: Any, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    from service.search import greedy

    if position.phase == "setup":
        return _setup_move(position, rng, top_n)
    return greedy(position, _easy_key, rng, top_n, moves=position.legal_moves())


def _medium(position: Any, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    from service.search import search

    if position.phase == "setup":
        return _setup_move(position, rng, top_n)
    salt = rng.getrandbits(32)

    def box_margin_with_ties_broken(pos: DotsAndBoxesPosition, seat: int) -> float:
        # Equal box counts are told apart by a seeded pseudo-random amount below half a box (seat 1's view,
        # so it stays zero-sum): the seed varies the play without ever preferring fewer boxes.
        jitter = ((hash(pos) ^ salt) & 1023) / 4096
        return pos.box_margin(seat) + (jitter if seat == 1 else -jitter)

    return search(position, limits, stop=stop, top_n=top_n, rng=rng, evaluate=box_margin_with_ties_broken)


# ``hard`` proves the value with ``ExactSolver`` when the solve looks affordable: at most _EXACT_LINES undrawn
# lines (a few thousand solver nodes on 3x3, well under a second), or more when the node budget covers the
# expected solve, which grows about 2.5-fold per further line (3x3: ~30k nodes at 20 lines, ~280k at 24).
# A solve that runs past the node budget (or the time limit) gives up, and the chain search answers as before.
_EXACT_LINES = 18
_EXACT_NODES_AT_LIMIT = 5_000
_EXACT_GROWTH = 2.5


def _exact_affordable(free: int, max_nodes: int | None) -> bool:
    if free <= _EXACT_LINES or max_nodes is None:
        return True
    return max_nodes >= _EXACT_NODES_AT_LIMIT * _EXACT_GROWTH ** (free - _EXACT_LINES)


def _solve(position: DotsAndBoxesPosition, limits: Limits, top_n: int, stop: StopSignal) -> SearchResult | None:
    """The proved best move and value with ``ExactSolver``, or None when its node budget or ``stop`` ran out.
    The move is the first of ``search_moves`` with the best value; with ``top_n`` > 1 every root move is
    valued exactly."""
    from service.games.base import ScoredMove
    from service.search import Deadline

    solver = ExactSolver(position.geometry, Deadline(Limits(max_nodes=limits.max_nodes), stop))
    lines = position.lines
    moves = list(position.search_moves())
    owned = position.box_margin(position.to_move)
    try:
        if top_n > 1:
            values = [solver.move_value(lines, move) for move in moves]
        else:
            # The value first, then the first move that reaches it (a null window each: cheap).
            rest = solver.value(lines)
            values = []
            for move in moves:
                values.append(solver.move_value(lines, move, rest - 1, rest))
                if values[-1] >= rest:
                    values[-1] = rest
                    break
            moves = moves[: len(values)]
    except SolveAborted:
        return None
    order = sorted(range(len(moves)), key=lambda i: -values[i])  # stable: the first best move leads
    if top_n == 1:
        order = order[:1]
    alternatives = [ScoredMove(moves[i], owned + values[i], True) for i in order[:top_n]]
    best_move = alternatives[0]
    return SearchResult(
        move=best_move.move,
        value=best_move.value,
        exact=True,
        depth=(lines ^ position.geometry.full).bit_count(),
        nodes=solver.nodes,
        stop_reason="solved",
        pv=[best_move.move],
        alternatives=alternatives,
    )


def _hard(position: Any, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    from service.search import search

    if position.phase == "setup":
        return _setup_move(position, rng, top_n)
    free = (position.lines ^ position.geometry.full).bit_count()
    if position.phase == "play" and _exact_affordable(free, limits.max_nodes):
        solved = _solve(position, limits, top_n, stop)
        if solved is not None:
            return solved
    return search(position, limits, stop=stop, top_n=top_n, rng=rng)


_STRATEGIES = {"easy": _easy, "medium": _medium, "hard": _hard}


# --------------------------------------------------------------------------------------------------
# The game.


class DotsAndBoxes(PlaysLevels):
    """The Dots and Boxes game: the factory of ``DotsAndBoxesPosition``s (rules.md §5)."""

    strategies = _STRATEGIES

    id = "dots-and-boxes"
    title = "Dots and Boxes"
    description = (
        "Dots and Boxes: draw lines between neighbouring dots; the fourth side of a box claims it and the same "
        "seat draws again; most boxes wins. Optional pie rule: seat 1 draws the opening for both colours, "
        "seat 2 then keeps or swaps the colours."
    )
    seat_names = ("A", "B")
    options = (
        OptionSpec("rows", "int", DEFAULT_SIZE, "Rows of boxes (the dots are one more).", MIN_SIZE, MAX_SIZE),
        OptionSpec("cols", "int", DEFAULT_SIZE, "Columns of boxes (the dots are one more).", MIN_SIZE, MAX_SIZE),
        OptionSpec(
            "pie_rule",
            "bool",
            False,
            "Play with the pie rule: seat 1 draws up to pie_lines lines for both colours, then seat 2 keeps "
            "or swaps the colours.",
        ),
        OptionSpec(
            "pie_lines",
            "int",
            DEFAULT_PIE_LINES,
            "With the pie rule: the most lines seat 1 draws in the setup (at most the board's line count).",
            1,
            MAX_LINES,
        ),
    )
    levels = (
        Level("easy", "Takes a box when it can and avoids handing one over; otherwise draws a random line."),
        Level(
            "medium",
            "Looks up to six lines ahead (a few thousand positions) counting only the boxes taken, so it guards "
            "and takes boxes but knows nothing of chains or control; the seed varies its choice among equals.",
            Limits(max_depth=6, max_nodes=4_000),
        ),
        Level(
            "hard",
            "Searches with chain reductions (takes free boxes at once, in an opened chain takes all or leaves "
            "the last two) and values chains and loops by the long-chain rule; once at most 18 lines remain (more "
            "with a larger node budget) it solves the rest of the game exactly and plays perfectly.",
            Limits(max_nodes=20_000),
        ),
    )
    default_level = "hard"
    position_notation_help = (
        "The board, the seat to move, and with the pie rule four tokens, separated by single spaces. The board "
        "of R x C boxes (1..12 each) is 2R+1 rows of 2C+1 characters, top to bottom, separated by '/': dot rows "
        "('+' per dot, '-' or '.' for each horizontal line between dots) alternate with box rows ('|' or '.' "
        "for each vertical line, and between them each box's owner A or B, or '.'). A box has an owner exactly "
        "when its four sides are drawn. The seat to move is not free: it is '-' exactly when every line is "
        "drawn, and otherwise follows from the board. Colour A draws the first line, a line that completes a "
        "box lets the same colour draw again, any other line passes the turn: with D lines drawn and K boxes "
        "owned, A is to move when D - K is even and B when it is odd (when a single line could have completed "
        "two boxes, i.e. two neighbouring boxes have the same owner, either colour is accepted). Without the "
        "pie rule seat 1 holds A. With the pie rule: pie=N (the setup's most lines, 1..the board's lines), "
        "phase=setup|choice|play, colour=A|B (the colour to move, by the same count; '-' when no line remains), "
        "seat1=A|B (the colour seat 1 holds; '-' in setup and choice, A or B in play). In setup seat 1 is to "
        "move and fewer than N lines are drawn (and not every line), in choice seat 2 is to move and 1..N "
        "lines are drawn, in play the seat holding the colour to move is to move. Start of 1x2 boxes: "
        "'+.+.+/...../+.+.+ 1'; 2x2 boxes after a1-b1, b1-c1, a1-a2, b1-b2, a2-b2 (A's box a1, A to move "
        "again): '+-+-+/|A|../+-+.+/...../+.+.+ 1'."
    )
    move_notation_help = (
        "A line by its two neighbouring dots (columns a.., rows 1.. from the top), e.g. 'a1-b1' (horizontal) or "
        "'a1-a2' (vertical), either dot first; answered top/left dot first. The line must not be drawn yet. "
        "Pie rule: 'stop' (seat 1 ends the setup, once at least one line is drawn), 'keep' or 'swap' (seat 2's "
        "choice after the setup)."
    )

    def new_position(self, options: Mapping[str, Any], seed: str = "") -> DotsAndBoxesPosition:
        values = {spec.name: spec.default for spec in self.options}
        for name, value in options.items():
            if name not in values:
                raise InvalidOption(f"unknown option {name!r} for Dots and Boxes", str(name))
            if name == "pie_rule":
                if not isinstance(value, bool):
                    raise InvalidOption(f"pie_rule must be true or false, not {type(value).__name__}", name)
            elif not _is_int(value):
                raise InvalidOption(f"{name} must be an integer, not {type(value).__name__}", name)
            values[name] = value
        for spec in self.options:
            if spec.minimum is not None and spec.maximum is not None:
                value = values[spec.name]
                if not spec.minimum <= value <= spec.maximum:
                    raise InvalidOption(f"{spec.name} must be {spec.minimum}..{spec.maximum}, not {value}", spec.name)
        geo = geometry(values["rows"], values["cols"])
        pie = 0
        if values["pie_rule"]:
            pie = values["pie_lines"]
            if pie > geo.line_count:
                raise InvalidOption(
                    f"pie_lines must be at most {geo.line_count}, the lines of a {geo.rows}x{geo.cols} board, "
                    f"not {pie}",
                    "pie_lines",
                )
        return DotsAndBoxesPosition(geo, 0, 0, 0, 0, 0 if pie else 1, SETUP if pie else PLAY, pie)

    def parse_position(self, text: str) -> DotsAndBoxesPosition:
        return _parse_position(text)

    def position_from_fields(self, fields: Mapping[str, Any]) -> DotsAndBoxesPosition:
        return _position_from_fields(fields)


GAME = DotsAndBoxes()

__all__ = ["GAME", "KEEP", "STOP", "SWAP", "DotsAndBoxes", "DotsAndBoxesPosition", "RulesError", "geometry"]
