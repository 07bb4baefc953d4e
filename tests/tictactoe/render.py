"""Tic-tac-toe: the paper grid, X's crosses in the first seat's colour and O's rings in the second's, the
winning line struck through, the legal cells as dots, the last move's cell outlined, arrows as numbered marks
of the mover's colour. Like every drawing it reads the position only through the engine contract (its
structured fields and its outcome), so it knows nothing of the engine's bitboards."""

from __future__ import annotations

from service.render.grid import CELL, FOOTER, Grid, coordinates, layout, square_marks
from service.render.svg import Svg
from service.render.view import View

NAMES = ("X", "O")
_STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))  # across, down, and both diagonals


def winning_line(cells: str, rows: int, cols: int, k: int, mark: str) -> tuple[int, int, int, int] | None:
    """(column, row) of the first and last cell of the first ``k`` of ``mark`` in a row, or None."""
    for r in range(rows):
        for c in range(cols):
            for dr, dc in _STEPS:
                end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                if not (0 <= end_r < rows and 0 <= end_c < cols):
                    continue
                if all(cells[(r + dr * i) * cols + c + dc * i] == mark for i in range(k)):
                    return c, r, end_c, end_r
    return None


def _cross(svg: Svg, grid: Grid, col: int, row: int, colour: str, name: str) -> None:
    x, y = grid.centre(col, row)
    half = CELL * 0.3
    svg.open("g", class_="mark x", data_cell=name)
    for dx in (-half, half):
        svg.add(
            "line",
            x1=x - dx,
            y1=y - half,
            x2=x + dx,
            y2=y + half,
            stroke=colour,
            stroke_width=CELL * 0.1,
            stroke_linecap="round",
        )
    svg.close("g")


def _ring(svg: Svg, grid: Grid, col: int, row: int, colour: str, name: str) -> None:
    x, y = grid.centre(col, row)
    svg.add(
        "circle",
        cx=x,
        cy=y,
        r=CELL * 0.3,
        fill="none",
        stroke=colour,
        stroke_width=CELL * 0.1,
        class_="mark o",
        data_cell=name,
    )


def draw(view: View) -> str:
    # One function, top to bottom in the order the layers are painted (paper, grid, marks, winning line, last
    # move, legal moves, arrows, caption), as the other games' drawings: the layers share the grid.
    fields = view.fields
    rows, cols, k = int(fields["rows"]), int(fields["cols"]), int(fields["k"])
    cells: str = fields["cells"]
    theme = view.theme
    grid, width = layout(cols, rows, view.options.coordinates, view.options.flip)
    height = 2 * grid.top + grid.height + FOOTER
    title = f"Tic-tac-toe {rows}x{cols}, {k} in a row: {view.status(NAMES)}"
    svg = Svg(width, height, view.options.size, title, theme)

    svg.add("rect", x=grid.left, y=grid.top, width=grid.width, height=grid.height, fill=theme.background)
    for i in range(1, cols):
        svg.add("line", x1=grid.x(i), y1=grid.top, x2=grid.x(i), y2=grid.top + grid.height, stroke=theme.grid)
    for i in range(1, rows):
        svg.add("line", x1=grid.left, y1=grid.y(i), x2=grid.left + grid.width, y2=grid.y(i), stroke=theme.grid)
    if view.options.coordinates:
        coordinates(svg, grid)

    for index, mark in enumerate(cells):
        row, col = divmod(index, cols)
        name = f"{chr(ord('a') + col)}{row + 1}"
        if mark == "x":
            _cross(svg, grid, col, row, theme.seat[0], name)
        elif mark == "o":
            _ring(svg, grid, col, row, theme.seat[1], name)

    outcome = view.position.outcome()
    if outcome is not None and outcome.winner:
        line = winning_line(cells, rows, cols, k, "xo"[outcome.winner - 1])
        if line is not None:
            (x1, y1), (x2, y2) = grid.centre(line[0], line[1]), grid.centre(line[2], line[3])
            svg.add(
                "line",
                x1=x1,
                y1=y1,
                x2=x2,
                y2=y2,
                stroke=theme.highlight,
                stroke_width=CELL * 0.12,
                stroke_linecap="round",
                class_="winning-line",
            )

    square_marks(svg, grid, view, 1.5, 3.0, CELL * 0.1)

    svg.caption(height - FOOTER / 2, view.status(NAMES), 14.0, class_="status")
    return svg.to_text()
