"""Petak Sawah: the grid of fields, rocks as grey stones, each seat's cells in its colour with its number,
the legal cells as dots, the last move outlined, arrows as numbered marks of the mover's colour."""

from __future__ import annotations

from service.render.grid import CELL, FOOTER, coordinates, layout, square_marks
from service.render.svg import Svg
from service.render.view import View, cell, cell_name

NAMES = ("Seat 1", "Seat 2")


def draw(view: View) -> str:
    rows, cols = int(view.fields["rows"]), int(view.fields["cols"])
    theme = view.theme
    grid, width = layout(cols, rows, view.options.coordinates, view.options.flip)
    edge = grid.top
    height = 2 * edge + grid.height + FOOTER
    svg = Svg(width, height, view.options.size, f"Petak Sawah {cols}x{rows}: {view.status(NAMES)}", theme)

    owner: dict[tuple[int, int], str] = {}
    for key, kind in (("rocks", "rock"), ("seat1_cells", "1"), ("seat2_cells", "2")):
        for name in view.fields.get(key) or ():
            place = cell(name)
            if place is not None:
                owner[place] = kind
    for row in range(rows):
        for col in range(cols):
            x, y = grid.corner(col, row)
            kind = owner.get((col, row), "")
            fill = theme.seat[int(kind) - 1] if kind in ("1", "2") else theme.labels[1]
            svg.add(
                "rect",
                x=x,
                y=y,
                width=CELL,
                height=CELL,
                fill=fill,
                stroke=theme.grid,
                stroke_width=1.2,
                class_=f"field {'seat' + kind if kind in ('1', '2') else kind or 'empty'}",
                data_cell=cell_name(col, row),
            )
            if kind == "rock":
                cx, cy = x + CELL / 2, y + CELL / 2
                points = " ".join(
                    f"{cx + dx * CELL:.1f},{cy + dy * CELL:.1f}"
                    for dx, dy in ((-0.3, 0.12), (-0.18, -0.24), (0.1, -0.3), (0.32, -0.05), (0.22, 0.26), (-0.12, 0.3))
                )
                svg.add("polygon", points=points, fill=theme.rock, stroke=theme.grid, stroke_width=1.0, class_="rock")
            elif kind:
                svg.text(x + CELL / 2, y + CELL / 2, kind, CELL * 0.45, theme.seat_text[int(kind) - 1])
    if view.options.coordinates:
        coordinates(svg, grid)

    square_marks(svg, grid, view, 2.0, 3.5, CELL * 0.12)

    svg.caption(height - FOOTER / 2, view.status(NAMES), 14.0, class_="status")
    return svg.to_text()
