"""Boards in the terminal, one drawing per game, from a position's structured fields.

Each drawer reads only the fields it needs from the dict of the game's position message (proto field
names, ``notations.fields``), with ``.get`` and defaults, so fields added to a message later change nothing
here; where the structured form is missing it reads the same facts from the notation. A game the client does
not know is printed as its notation and fields.

- Reversi and Petak Sawah: a grid with column letters and row numbers (squares ``d3``, cells ``c2``).
- Kalah: North's row on top (its pit 1 on the right, as North sees it), South's below, the stores at the
  ends: North's on the west (left), South's on the east (right).
- Dots and Boxes: dots ``+`` named like squares, drawn lines ``---`` and ``|``, boxes by owner colour.
- Strands: the hexagonal rows offset by half a cell; an empty cell shows its label, a covered one its stone.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

LETTERS = string.ascii_lowercase


@dataclass(frozen=True)
class Style:
    """The characters a drawing uses: Unicode discs by default, plain ASCII on request."""

    black: str = "●"
    white: str = "○"
    empty: str = "·"
    mark: str = "*"

    @classmethod
    def ascii(cls) -> Style:
        return cls(black="B", white="W", empty=".", mark="*")


UNICODE = Style()
ASCII = Style.ascii()

Drawer = Callable[[Mapping[str, Any], str, Style, frozenset[str]], list[str]]


def _cell(name: str) -> tuple[int, int] | None:
    """``c2`` -> (column 2, row 1), zero-based; None for anything else."""
    if len(name) < 2 or name[0] not in LETTERS or not name[1:].isdigit():
        return None
    return LETTERS.index(name[0]), int(name[1:]) - 1


def _notation_rows(notation: str) -> list[str]:
    return notation.split(" ", 1)[0].split("/") if notation else []


def _grid(cells: list[list[str]], marks: Iterable[tuple[int, int]] = (), mark: str = "*") -> list[str]:
    """A grid with column letters above and below and row numbers on both sides."""
    rows = len(cells)
    cols = max((len(row) for row in cells), default=0)
    width = len(str(rows))
    marked = set(marks)
    header = " " * (width + 2) + " ".join(LETTERS[c] for c in range(cols))
    lines = [header]
    for r, row in enumerate(cells):
        shown = [mark if (c, r) in marked else ch for c, ch in enumerate(row)]
        lines.append(f"{r + 1:>{width}}  " + " ".join(shown) + f"  {r + 1}")
    lines.append(header)
    return lines


# --- Reversi ---------------------------------------------------------------------------------------


def draw_reversi(fields: Mapping[str, Any], notation: str, style: Style, marks: frozenset[str]) -> list[str]:
    board = list(fields.get("board") or _notation_rows(notation))
    symbols = {"B": style.black, "W": style.white}
    cells = [[symbols.get(ch, style.empty) for ch in row] for row in board]
    marked = [cell for name in marks if (cell := _cell(name)) is not None]
    black_seat = int(fields.get("black_seat") or 1)
    legend = f"{style.black} Black (seat {black_seat})   {style.white} White (seat {3 - black_seat})"
    return [*_grid(cells, marked, style.mark), legend]


# --- Petak Sawah -----------------------------------------------------------------------------------


def draw_petak_sawah(fields: Mapping[str, Any], notation: str, style: Style, marks: frozenset[str]) -> list[str]:
    rows, cols = int(fields.get("rows") or 0), int(fields.get("cols") or 0)
    if rows and cols:
        cells = [[style.empty] * cols for _ in range(rows)]
        for key, symbol in (("rocks", "#"), ("seat1_cells", "1"), ("seat2_cells", "2")):
            for name in fields.get(key) or ():
                cell = _cell(name)
                if cell is not None and cell[1] < rows and cell[0] < cols:
                    cells[cell[1]][cell[0]] = symbol
    else:
        symbols = {".": style.empty, "#": "#", "1": "1", "2": "2"}
        cells = [[symbols.get(ch, ch) for ch in row] for row in _notation_rows(notation)]
    marked = [cell for name in marks if (cell := _cell(name)) is not None]
    return [*_grid(cells, marked, style.mark), "1 seat 1   2 seat 2   # rock (never taken)"]


# --- Kalah -----------------------------------------------------------------------------------------


def draw_kalah(fields: Mapping[str, Any], notation: str, style: Style, marks: frozenset[str]) -> list[str]:
    pits = [int(p) for p in fields.get("pits") or ()]
    stores = [int(s) for s in fields.get("stores") or ()]
    if not pits and notation:  # "4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4": each side's pits then its store
        south, north = (list(map(int, side.split(","))) for side in _notation_rows(notation))
        pits, stores = south[:-1] + north[:-1], [south[-1], north[-1]]
    n = int(fields.get("pits_per_side") or len(pits) // 2)
    south, north = pits[:n], pits[n : 2 * n]
    stores = [*stores, 0, 0][:2]
    width = max(2, *(len(str(v)) for v in [*pits, *stores]))

    def row(values: Iterable[Any]) -> str:
        return " ".join(f"{v:>{width}}" for v in values)

    pad = " " * (width + 4)
    north_numbers = row(range(n, 0, -1))
    south_numbers = row(range(1, n + 1))
    return [
        f"{pad}North (seat 2): pits {n}..1, sown right to left",
        f"{pad}{north_numbers}",
        f"{pad}{row(reversed(north))}",
        f"[{stores[1]:>{width}}]{' ' * 2}{' ' * len(north_numbers)}  [{stores[0]:>{width}}]",
        f"{pad}{row(south)}",
        f"{pad}{south_numbers}",
        f"{pad}South (seat 1): pits 1..{n}, sown left to right",
        f"North's store [{stores[1]}] on the left, South's store [{stores[0]}] on the right",
    ]


# --- Dots and Boxes --------------------------------------------------------------------------------


def _dots_from_notation(notation: str) -> tuple[int, int, set[str], dict[str, str]]:
    """(rows, cols, line names, box owners) from the notation's picture (``+-+.+/|A|../+.+.+``)."""
    picture = _notation_rows(notation)
    rows, cols = (len(picture) - 1) // 2, (len(picture[0]) - 1) // 2 if picture else 0
    lines: set[str] = set()
    owners: dict[str, str] = {}
    for y, text in enumerate(picture):
        for x, ch in enumerate(text):
            if y % 2 == 0 and x % 2 == 1 and ch == "-":
                lines.add(f"{LETTERS[x // 2]}{y // 2 + 1}-{LETTERS[x // 2 + 1]}{y // 2 + 1}")
            elif y % 2 == 1 and x % 2 == 0 and ch == "|":
                lines.add(f"{LETTERS[x // 2]}{y // 2 + 1}-{LETTERS[x // 2]}{y // 2 + 2}")
            elif y % 2 == 1 and x % 2 == 1 and ch in "AB":
                owners[f"{LETTERS[x // 2]}{y // 2 + 1}"] = ch
    return rows, cols, lines, owners


def _line(name: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
    ends = name.split("-")
    if len(ends) != 2:
        return None
    first, second = _cell(ends[0].strip()), _cell(ends[1].strip())
    if first is None or second is None:
        return None
    return (min(first, second), max(first, second))


def draw_dots_and_boxes(fields: Mapping[str, Any], notation: str, style: Style, marks: frozenset[str]) -> list[str]:
    rows, cols = int(fields.get("rows") or 0), int(fields.get("cols") or 0)
    if rows and cols:
        lines = set(fields.get("lines") or ())
        owners = {name: "A" for name in fields.get("boxes_a") or ()}
        owners |= {name: "B" for name in fields.get("boxes_b") or ()}
    else:
        rows, cols, lines, owners = _dots_from_notation(notation)
    drawn = {ends for name in lines if (ends := _line(name)) is not None}
    wanted = {ends for name in marks if (ends := _line(name)) is not None}
    width = len(str(rows + 1))
    out = [" " * (width + 2) + "   ".join(LETTERS[x] for x in range(cols + 1))]
    for y in range(rows + 1):
        text = f"{y + 1:>{width}}  +"
        for x in range(cols):
            ends = ((x, y), (x + 1, y))
            text += ("---" if ends in drawn else " * " if ends in wanted else "   ") + "+"
        out.append(text)
        if y == rows:
            break
        text = " " * (width + 2)
        for x in range(cols + 1):
            ends = ((x, y), (x, y + 1))
            text += "|" if ends in drawn else "*" if ends in wanted else " "
            if x < cols:
                text += f" {owners.get(f'{LETTERS[x]}{y + 1}', ' ')} "
        out.append(text.rstrip())
    seat1 = fields.get("seat1_colour") or ("" if fields.get("pie_rule") else "A")
    if seat1 in ("A", "B"):
        other = "B" if seat1 == "A" else "A"
        out.append(f"boxes: {seat1} seat 1   {other} seat 2   (dots a1.. from the top left; a line is a1-b1)")
    else:
        out.append("boxes: A moves first, B second; seat 2 has not chosen a colour yet (pie rule)")
    return out


# --- Strands ---------------------------------------------------------------------------------------


def draw_strands(fields: Mapping[str, Any], notation: str, style: Style, marks: frozenset[str]) -> list[str]:
    labels = str(fields.get("labels") or notation.split(" ", 1)[0]).split("/")
    stones: dict[str, str] = {}
    if fields.get("labels"):
        stones |= {name: style.black for name in fields.get("black") or ()}
        stones |= {name: style.white for name in fields.get("white") or ()}
    elif notation.count(" ") >= 1:
        for r, text in enumerate(notation.split(" ")[1].split("/")):
            for c, ch in enumerate(text):
                if ch in "BW":
                    stones[f"{LETTERS[r]}{c + 1}"] = style.black if ch == "B" else style.white
    longest = max((len(row) for row in labels), default=0)
    out = []
    for r, row in enumerate(labels):
        cells = []
        for c, label in enumerate(row):
            name = f"{LETTERS[r]}{c + 1}"
            cells.append(style.mark if name in marks else stones.get(name, label))
        out.append(f"{LETTERS[r]}  " + " " * (longest - len(row)) + " ".join(cells) + f"  {LETTERS[r]}{len(row)}")
    out.append(
        f"{style.black} Black (seat 1)   {style.white} White (seat 2)   digits: an empty cell's label; "
        "cells are row letter + place in the row (a1 is the top row's first)"
    )
    return out


# --- any other game ----------------------------------------------------------------------------------


def draw_fields(fields: Mapping[str, Any], notation: str, style: Style, marks: frozenset[str]) -> list[str]:
    return [notation, *(f"  {key}: {value}" for key, value in fields.items())]


DRAWERS: dict[str, Drawer] = {
    "reversi": draw_reversi,
    "petak-sawah": draw_petak_sawah,
    "kalah": draw_kalah,
    "dots-and-boxes": draw_dots_and_boxes,
    "strands": draw_strands,
}


def draw(
    game: str, fields: Mapping[str, Any], notation: str = "", *, style: Style = UNICODE, marks: Iterable[str] = ()
) -> str:
    """The board of a position of ``game`` (an id) as text lines; ``marks`` are squares, cells or lines to
    highlight (e.g. the legal moves)."""
    drawer = DRAWERS.get(game.removeprefix("games/"), draw_fields)
    try:
        lines = drawer(fields, notation, style, frozenset(marks))
    except (ValueError, IndexError, TypeError):  # a message this client does not understand: say it plainly
        lines = draw_fields(fields, notation, style, frozenset())
    return "\n".join(lines)
