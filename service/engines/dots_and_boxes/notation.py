"""Reading Dots and Boxes positions: the notation and the structured fields. Both readers end in ``_build``, which
checks everything that can be checked cheaply (``docs/games/dots-and-boxes.md``).

Position notation (one line, space-separated fields)::

    +.+.+/...../+.+.+/...../+.+.+ 1
    +-+.+/|B|../+-+.+/...../+.+.+ 1 pie=5 phase=setup colour=B seat1=-

- the board, top to bottom, ``/`` between rows: ``2 * rows + 1`` rows of ``2 * cols + 1`` characters. Even rows
  are dot rows: ``+`` for each dot, and between two dots ``-`` (line drawn) or ``.`` (not drawn). Odd rows are box
  rows: ``|`` or ``.`` for each vertical line, and between two of them the box: ``A`` or ``B`` (its owner) or ``.``
  (not yet complete);
- the seat to move ``1`` / ``2``, or ``-`` once the game is over;
- with the pie rule only, four more tokens in this order: ``pie=N`` (the setup's ``n``), ``phase=`` one of
  ``setup`` / ``choice`` / ``play``, ``colour=`` the colour to move (``A``/``B``; ``-`` once no line remains),
  ``seat1=`` the colour seat 1 holds (``A``/``B``; ``-`` before the choice). Without the pie rule, seat 1 is A and
  the colour to move is the seat's, so nothing more is written.

Move notation: a line by its two dots, ``a1-b1`` or ``a1-a2``, in either order; answered with the top/left dot
first. The pie-rule words ``stop``, ``keep``, ``swap``.

Positions are checked for what can be checked cheaply: every complete box has exactly one owner and no incomplete
box has one; the setup / choice counters fit ``n``; and the colour to move fits the counts whenever no line can
have completed two boxes at once (no two adjacent complete boxes share an owner): then the turn changed ``lines -
boxes`` times, so the colour to move is A exactly when that is even. Deeper reachability (e.g. which colour can own
the single box of a 1x1 board) is not checked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from service.core.bits import set_bits
from service.core.contract import is_int
from service.core.errors import InvalidMove, InvalidPosition, NotationError
from service.engines.dots_and_boxes.geometry import MAX_SIZE, MIN_SIZE, Geometry, geometry
from service.engines.dots_and_boxes.position import (
    CHOICE,
    COLOURS,
    PHASE_NAMES,
    PLAY,
    SETUP,
    DotsAndBoxesPosition,
    plural,
)

# The longest canonical notation: 25 rows of 25 characters with separators, the seat and the pie tokens.
_MAX_NOTATION = 25 * 26 + 2 + len(" pie=312 phase=choice colour=A seat1=A")


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
        both = geo.box_names[set_bits(a & b)[0]]
        raise InvalidPosition(f"box {both} is owned by both A and B", fields["boxes_b"])
    for owner, field in ((a, "boxes_a"), (b, "boxes_b")):
        if owner & ~complete:
            name = geo.box_names[set_bits(owner & ~complete)[0]]
            raise InvalidPosition(f"box {name} has an owner but not all four of its sides are drawn", fields[field])
    if complete & ~(a | b):
        name = geo.box_names[set_bits(complete & ~(a | b))[0]]
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
        raise InvalidPosition(f"the {PHASE_NAMES[phase]} phase exists only with the pie rule", fields["phase"])
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
                    f"{COLOURS[colour]} cannot be to move: after {plural(drawn, 'line')} of which "
                    f"{complete.bit_count()} completed a box each, {COLOURS[expected]} draws next",
                    fields["colour"],
                )
    return DotsAndBoxesPosition(geo, lines, a, b, colour, a_seat, phase, pie)


def parse_position(text: str) -> DotsAndBoxesPosition:
    """Read the position notation: NotationError if it does not parse, InvalidPosition if impossible."""
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
    geo, lines, a, b = _read_board(parts[0].split("/"))
    seat_text = parts[1]
    if seat_text not in ("1", "2", "-"):
        raise NotationError(f"the seat to move is 1, 2 or '-' (game over), not {seat_text[:20]!r}")
    seat = 0 if seat_text == "-" else int(seat_text)
    pie, phase, colour, a_seat = 0, PLAY, -1, 1
    if len(parts) == 6:
        pie, phase, colour, a_seat = _read_pie_tokens(parts[2:])
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


def _read_board(board: list[str]) -> tuple[Geometry, int, int, int]:
    """The board's geometry, drawn lines and the boxes of A and of B from the board's rows."""
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
    horizontal = (rows + 1) * cols
    lines = a = b = 0
    for i, row in enumerate(board):
        if len(row) != width:
            raise NotationError(f"board row {i + 1} has {len(row)} characters; the first has {width}")
        y = i // 2
        if i % 2 == 0:
            if row[0::2] != "+" * (cols + 1) or row[1::2].strip("-.") != "":
                raise NotationError(
                    f"board row {i + 1} is a dot row: '+' for each dot and '-' or '.' between them, not {row!r}"
                )
            for x in range(cols):
                if row[2 * x + 1] == "-":
                    lines |= 1 << (y * cols + x)
            continue
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
    return geometry(rows, cols), lines, a, b


def _read_pie_tokens(tokens: list[str]) -> tuple[int, int, int, int]:
    """The pie rule's four tokens: (n, phase, colour to move or -1, seat holding A or 0)."""
    match = re.fullmatch(r"pie=([1-9][0-9]{0,2})", tokens[0])
    if not match:
        raise NotationError(f"the third field is pie=N (the setup's line limit), not {tokens[0][:20]!r}")
    keys = ("phase", "colour", "seat1")
    values = []
    for key, token, allowed in zip(keys, tokens[1:], (PHASE_NAMES, ("A", "B", "-"), ("A", "B", "-")), strict=True):
        name, _, value = token.partition("=")
        if name != key or value not in allowed:
            raise NotationError(f"expected {key}={'|'.join(allowed)}, not {token[:24]!r}")
        values.append(value)
    phase = PHASE_NAMES.index(values[0])
    colour = -1 if values[1] == "-" else COLOURS.index(values[1])
    a_seat = 0 if values[2] == "-" else 1 if values[2] == "A" else 2
    return int(match[1]), phase, colour, a_seat


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


def _int_field(fields: Mapping[str, object], name: str) -> int:
    value = fields.get(name, 0)
    if not is_int(value):
        raise InvalidPosition(f"{name} must be an integer, not {type(value).__name__}", name)
    return value


def _str_field(fields: Mapping[str, object], name: str, allowed: Sequence[str]) -> str:
    value = fields.get(name, "")
    if not isinstance(value, str):
        raise InvalidPosition(f"{name} must be text, not {type(value).__name__}", name)
    if value not in allowed:
        shown = ", ".join(repr(v) for v in allowed)
        raise InvalidPosition(f"{name} must be one of {shown}, not {value[:20]!r}", name)
    return value


def _name_list(fields: Mapping[str, object], name: str, limit: int) -> list[str]:
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


def position_from_fields(fields: Mapping[str, object]) -> DotsAndBoxesPosition:
    """Read the structured form (the proto message's fields): InvalidPosition naming the field when impossible."""
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
    lines = _read_lines(fields, geo)
    a, b = _read_boxes(fields, "boxes_a", geo), _read_boxes(fields, "boxes_b", geo)
    phase_text = _str_field(fields, "phase", ("setup", "choice", "play", ""))
    if phase_text == "" and pie_rule:
        raise InvalidPosition("phase must be setup, choice or play with the pie rule", "phase")
    phase = PHASE_NAMES.index(phase_text or "play")
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


def _read_lines(fields: Mapping[str, object], geo: Geometry) -> int:
    """The ``lines`` field as a bitmask; InvalidPosition naming the entry that is wrong or repeated."""
    lines = 0
    for i, name in enumerate(_name_list(fields, "lines", geo.line_count)):
        try:
            line = geo.parse_line(name)
        except InvalidMove as error:
            raise InvalidPosition(error.message, f"lines[{i}]") from None
        if lines >> line & 1:
            raise InvalidPosition(f"the line {geo.line_names[line]} is listed twice", f"lines[{i}]")
        lines |= 1 << line
    return lines


def _read_boxes(fields: Mapping[str, object], name: str, geo: Geometry) -> int:
    """The box list ``name`` (``boxes_a`` or ``boxes_b``) as a bitmask."""
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
    return mask
