"""Strands: the hexagonal board of pointy-top cells in rows offset by half a cell, each empty cell tinted and
numbered by its label, stones black and white, row names beside the rows (a cell is its row letter and its
place in the row). With ``show_legal_moves`` the cells a move may cover are ringed and carry ``data-cell``,
``data-label`` and ``data-max``, how many of them one move may cover (a move is a set of cells of one label:
a page selects them, then plays them); the last move's cells are outlined; arrow moves are numbered marks on
every cell they cover."""

from __future__ import annotations

import math

from service.render.grid import FOOTER, MIN_WIDTH
from service.render.svg import Svg, numbered_mark
from service.render.view import LETTERS, View, cells_of

RADIUS = 20.0  # centre to corner
WIDE = math.sqrt(3) * RADIUS  # a cell's width, flat side to flat side
NAMES = ("Black", "White")


def _hexagon(x: float, y: float, radius: float) -> str:
    corners = [
        (x + radius * math.cos(math.radians(a)), y + radius * math.sin(math.radians(a))) for a in range(-90, 270, 60)
    ]
    return " ".join(f"{cx:.2f},{cy:.2f}" for cx, cy in corners)


def draw(view: View) -> str:
    # One function, top to bottom in the order the layers are painted (board, pieces, last move, legal
    # moves, arrows, caption): the layers share the board's geometry, and split apart they would pass it round.
    fields = view.fields
    rows = str(fields["labels"]).split("/")
    longest = max(len(row) for row in rows)
    theme = view.theme
    side = WIDE if view.options.coordinates else WIDE * 0.3
    board_width = longest * WIDE + 2 * side
    width = max(board_width, MIN_WIDTH)
    top = RADIUS * 0.6
    board_height = (len(rows) - 1) * 1.5 * RADIUS + 2 * RADIUS
    height = top * 2 + board_height + FOOTER
    svg = Svg(width, height, view.options.size, f"Strands: {view.status(NAMES)}", theme)
    left = (width - longest * WIDE) / 2

    def centre(row: int, col: int) -> tuple[float, float]:
        x = left + (longest - len(rows[row])) * WIDE / 2 + col * WIDE + WIDE / 2
        y = top + RADIUS + row * 1.5 * RADIUS
        if view.options.flip:  # turned round the board's centre
            x, y = 2 * left + longest * WIDE - x, 2 * top + board_height - y
        return x, y

    def inside(row: int, col: int) -> bool:  # a cell's letter is its row, its number its place in the row
        return row < len(rows) and col < len(rows[row])

    stones = {name: "B" for name in fields.get("black") or ()} | {name: "W" for name in fields.get("white") or ()}
    playable: dict[str, int] = {}  # a playable cell -> how many cells of its label one move may cover
    if view.options.show_legal_moves and view.position.outcome() is None:
        for group in view.position.move_space() or ():
            for name in group.cells:
                playable[name] = group.max_count

    for r, text in enumerate(rows):
        for c, label in enumerate(text):
            name = f"{LETTERS[r]}{c + 1}"
            x, y = centre(r, c)
            tint = theme.labels[(int(label) - 1) % len(theme.labels)] if label.isdigit() else theme.labels[0]
            legal = name in playable
            svg.open(
                "g",
                class_="cell legal" if legal else "cell",
                data_cell=name,
                data_label=label,
                data_max=str(playable[name]) if legal else None,
            )
            svg.add("polygon", points=_hexagon(x, y, RADIUS - 0.6), fill=tint, stroke=theme.grid, stroke_width=1.0)
            stone = stones.get(name)
            if stone:
                svg.add(
                    "circle",
                    cx=x,
                    cy=y,
                    r=RADIUS * 0.68,
                    fill=theme.black if stone == "B" else theme.white,
                    stroke=theme.stone_edge,
                    stroke_width=1.0,
                    class_="stone black" if stone == "B" else "stone white",
                )
            else:
                svg.text(x, y, label, RADIUS * 0.8, theme.text, class_="label")
            if legal:
                svg.add(
                    "circle",
                    cx=x,
                    cy=y,
                    r=RADIUS * 0.72,
                    fill="none",
                    stroke=theme.legal,
                    stroke_width=2.5,
                    class_="ring",
                )
            svg.close("g")
        if view.options.coordinates:
            (x0, y0), (x1, y1) = centre(r, 0), centre(r, len(text) - 1)
            nudge = WIDE * 0.85 if x0 < x1 else -WIDE * 0.85
            svg.text(x0 - nudge, y0, LETTERS[r], 12.0, theme.muted, class_="coordinate")
            svg.text(x1 + nudge, y1, f"{LETTERS[r]}{len(text)}", 10.0, theme.muted, class_="coordinate")

    last = view.options.last_move.strip().lower()
    if last:
        for row, col in cells_of(last, "last_move", inside):
            x, y = centre(row, col)
            svg.add(
                "polygon",
                points=_hexagon(x, y, RADIUS - 2.5),
                fill="none",
                stroke=theme.highlight,
                stroke_width=3.0,
                class_="last-move",
            )

    for step in view.steps:
        for row, col in cells_of(step.notation, "arrows", inside):
            x, y = centre(row, col)
            black = step.seat == 1
            numbered_mark(
                svg,
                x,
                y,
                RADIUS * 0.5,
                step.number,
                theme.black if black else theme.white,
                "#ffffff" if black else "#000000",
            )

    svg.caption(height - FOOTER / 2, view.status(NAMES), 14.0, class_="status")
    return svg.to_text()
