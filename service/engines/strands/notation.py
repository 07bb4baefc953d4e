"""Reading Strands positions from the notation and from the structured fields, and checking they could arise
(``docs/games/strands.md``).

Notation: ``<label rows> <stone rows> <to move> exact=<0|1>``; rows top to bottom joined by ``/``, labels as
digits, stones as ``.`` (empty), ``B``, ``W``; to move ``1``/``2`` or ``-`` when the board is full.

Position checks (where the rules are silent): Black's opening stone lies on a 2; the seat to move must be
reachable from the stone counts (under ``exact_count`` the number of turns each seat made follows from the counts
per label; under "up to" it lies in a range, and the seat to move must fit it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.core.errors import InvalidPosition, NotationError
from service.engines.strands.layouts import MAX_LABELS_TEXT, Layout, cell_bit, parse_rows
from service.engines.strands.position import SEAT_NAMES, StrandsPosition

STONE_CHARS = ".BW"
MAX_NOTATION = 2 * MAX_LABELS_TEXT + 16
POSITION_FIELDS = ("labels", "black", "white", "to_move", "exact_count")
_NOTATION_FIELDS = dict.fromkeys(POSITION_FIELDS, "")
_STRUCT_FIELDS = {name: name for name in POSITION_FIELDS}


def _turn_range(layout: Layout, stones: int, opener: bool) -> tuple[int, int, int]:
    """Turns a seat's stones took: (fewest under "up to", most under "up to", the exact_count number).

    The exact_count number is -1 when the stones cannot be split that way. ``opener``: the seat is Black,
    whose first stone on a 2 was the one-stone opening.
    """
    low = high = exact = 1 if opener else 0
    for label in range(1, 7):
        count = (stones & layout.label_masks[label]).bit_count()
        if opener and label == 2:
            count -= 1
        low += -(-count // label)
        high += count
        exact += -(-count // label)
    return low, high, exact


def _check_exact_counts(layout: Layout, black: int, white: int) -> str:
    """Why the stones cannot arise under exact_count, or "" when they can."""
    empty = layout.board & ~(black | white)
    for label in range(1, 7):
        mask = layout.label_masks[label]
        if not mask:
            continue
        opening = 1 if label == 2 and black else 0
        b = (black & mask).bit_count() - opening
        w = (white & mask).bit_count()
        pool = mask.bit_count() - opening
        # Every turn covers `label` cells except the one that empties the label, which covers the rest.
        short = pool % label if not empty & mask else 0
        remainders = sorted((b % label, w % label))
        if remainders != [0, short]:
            return (
                f"under exact_count each seat covers cells labelled {label} in turns of {label} "
                f"(the last turn there takes the rest), which {b + opening} Black and {w} White stones do not fit"
            )
    return ""


def checked_position(
    layout: Layout, black: int, white: int, to_move: int, exact_count: bool, fields: Mapping[str, str]
) -> StrandsPosition:
    """A position after checking it could arise; InvalidPosition naming ``fields[...]`` otherwise."""
    board = layout.board
    full = (black | white) == board
    if full and to_move:
        raise InvalidPosition("the board is full, so the game is over: no seat is to move", fields["to_move"])
    if not full and to_move not in (1, 2):
        raise InvalidPosition("the board is not full: the seat to move must be 1 or 2", fields["to_move"])
    if not black and not white:
        if to_move != 1:
            raise InvalidPosition("on the empty board Black (seat 1) is to move", fields["to_move"])
        return StrandsPosition(layout, 0, 0, to_move, exact_count)
    if not black & layout.label_masks[2]:
        raise InvalidPosition(
            "Black has no stone on a 2, but Black's first turn covers one cell labelled 2, so every position "
            "with stones on the board has a Black stone on a 2",
            fields["black"],
        )
    b_low, b_high, b_exact = _turn_range(layout, black, opener=True)
    w_low, w_high, w_exact = _turn_range(layout, white, opener=False)
    if exact_count:
        why = _check_exact_counts(layout, black, white)
        if why:
            raise InvalidPosition(why, fields["black"])
        b_low = b_high = b_exact
        w_low = w_high = w_exact
    # Black has made one turn more than White when White is to move, as many when Black is to move.
    seats = [seat for seat, ahead in ((2, 1), (1, 0)) if max(w_low, b_low - ahead) <= min(w_high, b_high - ahead)]
    if not seats:
        raise InvalidPosition(
            f"Black's {black.bit_count()} and White's {white.bit_count()} stones cannot come from alternating turns",
            fields["white"],
        )
    if to_move and to_move not in seats:
        raise InvalidPosition(
            f"with these stones {SEAT_NAMES[seats[0] - 1]} (seat {seats[0]}) is to move, not seat {to_move}",
            fields["to_move"],
        )
    return StrandsPosition(layout, black, white, to_move, exact_count)


def parse_position(text: str) -> StrandsPosition:
    """Read the position notation: NotationError if it does not parse, InvalidPosition if impossible."""
    if not isinstance(text, str):
        raise NotationError(f"a position must be a string, got {type(text).__name__}", "")
    if len(text) > MAX_NOTATION:
        raise NotationError(f"position notation is {len(text)} characters, more than any board needs", "")
    parts = text.split(" ")
    if len(parts) != 4 or not all(parts):
        raise NotationError(
            "position notation is four fields separated by single spaces: labels, stones, seat to move, "
            f"exact=0|1; got {len(text.split())}",
            "",
        )
    labels, stones, seat, exact = parts
    layout = parse_rows(labels, "", InvalidPosition, NotationError)
    rows = stones.split("/")
    label_rows = layout.rows.split("/")
    if [len(r) for r in rows] != [len(r) for r in label_rows]:
        raise NotationError("the stone rows must have the same shape as the label rows", "")
    text_stones = "".join(rows)
    if text_stones.strip(STONE_CHARS):
        raise NotationError("stones are '.' (empty), 'B' (Black) or 'W' (White)", "")
    black = white = 0
    for bit, ch in zip(layout.cells, text_stones, strict=True):
        if ch == "B":
            black |= 1 << bit
        elif ch == "W":
            white |= 1 << bit
    if seat not in ("1", "2", "-"):
        raise NotationError(f"the seat to move is 1, 2 or '-', got {seat[:8]!r}", "")
    if exact not in ("exact=0", "exact=1"):
        raise NotationError(f"the last field is exact=0 or exact=1, got {exact[:16]!r}", "")
    to_move = 0 if seat == "-" else int(seat)
    return checked_position(layout, black, white, to_move, exact == "exact=1", _NOTATION_FIELDS)


def position_from_fields(fields: Mapping[str, object]) -> StrandsPosition:
    """Read the structured form: InvalidPosition naming the field when impossible."""
    if not isinstance(fields, Mapping):
        raise InvalidPosition("a Strands position must be a message", "")
    unknown = sorted(str(k) for k in fields if k not in POSITION_FIELDS)
    if unknown:
        raise InvalidPosition(f"unknown field {unknown[0][:32]!r}", unknown[0][:32])
    layout = parse_rows(fields.get("labels", ""), "labels", InvalidPosition, InvalidPosition)
    masks = []
    for key in ("black", "white"):
        cells = fields.get(key, [])
        if isinstance(cells, str) or not isinstance(cells, Sequence):
            raise InvalidPosition(f"{key} must be a list of cell names", key)
        if len(cells) > layout.size:
            raise InvalidPosition(f"{key} lists {len(cells)} cells; the board has {layout.size}", key)
        mask = 0
        for i, name in enumerate(cells):
            bit = cell_bit(layout, name, InvalidPosition, f"{key}[{i}]")
            if mask >> bit & 1:
                raise InvalidPosition(f"{key} names {layout.names[bit]} twice", f"{key}[{i}]")
            mask |= 1 << bit
        masks.append(mask)
    black, white = masks
    both = black & white
    if both:
        raise InvalidPosition(f"{layout.cell_names(both)[0]} is both Black and White", "white")
    to_move = fields.get("to_move", 0)
    if type(to_move) is not int:
        raise InvalidPosition("to_move must be an integer seat (1, 2; 0 when the game is over)", "to_move")
    exact_count = fields.get("exact_count", False)
    if not isinstance(exact_count, bool):
        raise InvalidPosition("exact_count must be true or false", "exact_count")
    return checked_position(layout, black, white, to_move, exact_count, _STRUCT_FIELDS)
