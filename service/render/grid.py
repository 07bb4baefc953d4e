"""Square grids (Reversi's board, Petak Sawah's fields, Dots and Boxes' dots): where a column and row land on
the page, turned round when the view is flipped, and the coordinates around them (``a``.. over the columns,
``1``.. beside the rows, as the games name squares)."""

from __future__ import annotations

from dataclasses import dataclass

from service.render.svg import Svg, legal_dot, numbered_mark
from service.render.view import LETTERS, View, cells_of

CELL = 40.0  # user units per square
FOOTER = 30.0  # the status line under the board
BUTTONS = 34.0  # a row of word buttons (pass, stop, keep, swap)


@dataclass(frozen=True, slots=True)
class Grid:
    """``cols`` x ``rows`` places of ``step`` units, starting at (``left``, ``top``)."""

    cols: int
    rows: int
    left: float
    top: float
    step: float
    flip: bool

    def x(self, col: float) -> float:
        """The page x of column ``col`` (a fraction is a point inside the column's span)."""
        return self.left + ((self.cols - col) if self.flip else col) * self.step

    def y(self, row: float) -> float:
        return self.top + ((self.rows - row) if self.flip else row) * self.step

    def centre(self, col: int, row: int) -> tuple[float, float]:
        return self.x(col + 0.5), self.y(row + 0.5)

    def corner(self, col: int, row: int) -> tuple[float, float]:
        """The top-left corner on the page of square (col, row), whichever way the board is turned."""
        return min(self.x(col), self.x(col + 1)), min(self.y(row), self.y(row + 1))

    @property
    def width(self) -> float:
        return self.cols * self.step

    @property
    def height(self) -> float:
        return self.rows * self.step


def coordinates(svg: Svg, grid: Grid, points: bool = False) -> None:
    """Column letters above and below, row numbers left and right. ``points``: the names belong to the grid's
    points (Dots and Boxes' dots), not to its squares."""
    size = grid.step * 0.36
    gap = grid.step * 0.42
    extra = 1 if points else 0
    for col in range(grid.cols + extra):
        x = grid.x(col) if points else grid.x(col + 0.5)
        for y in (grid.top - gap, grid.top + grid.height + gap):
            svg.text(x, y, LETTERS[col], size, svg.theme.muted, class_="coordinate")
    for row in range(grid.rows + extra):
        y = grid.y(row) if points else grid.y(row + 0.5)
        for x in (grid.left - gap, grid.left + grid.width + gap):
            svg.text(x, y, str(row + 1), size, svg.theme.muted, class_="coordinate")


def outline(svg: Svg, grid: Grid, col: int, row: int, inset: float, stroke_width: float) -> None:
    """The last move's square outlined in the highlight colour, ``inset`` units inside its edges."""
    x, y = grid.corner(col, row)
    svg.add(
        "rect",
        x=x + inset,
        y=y + inset,
        width=grid.step - 2 * inset,
        height=grid.step - 2 * inset,
        fill="none",
        stroke=svg.theme.highlight,
        stroke_width=stroke_width,
        class_="last-move",
    )


def legal_square(svg: Svg, grid: Grid, col: int, row: int, move: str, radius: float) -> None:
    """A legal move's square: a dot of ``radius`` at its centre, the whole square clickable (``data-move``)."""
    x, y = grid.corner(col, row)
    svg.open("g", class_="move legal", data_move=move)
    svg.add("rect", x=x, y=y, width=grid.step, height=grid.step, fill="#000000", fill_opacity="0")
    legal_dot(svg, x + grid.step / 2, y + grid.step / 2, radius)
    svg.close("g")


def square_marks(svg: Svg, grid: Grid, view: View, inset: float, stroke_width: float, dot: float) -> None:
    """The marks of a game whose moves are single squares: the last move outlined (``outline``), the legal
    moves dotted (``legal_square``, a dot of ``dot``) and the arrows' moves numbered in the colour of the seat
    that plays each."""
    last = view.options.last_move.strip().lower()
    if last:
        for col, row in cells_of(last, "last_move", lambda c, r: c < grid.cols and r < grid.rows):
            outline(svg, grid, col, row, inset, stroke_width)
    for move in view.legal:
        col, row = cells_of(move, "move", lambda c, r: True)[0]
        legal_square(svg, grid, col, row, move, dot)
    theme = svg.theme
    for step in view.steps:
        col, row = cells_of(step.notation, "arrows", lambda c, r: True)[0]
        x, y = grid.centre(col, row)
        numbered_mark(svg, x, y, CELL * 0.3, step.number, theme.seat[step.seat - 1], theme.seat_text[step.seat - 1])


def margin(coordinates_shown: bool) -> float:
    return CELL * 0.85 if coordinates_shown else CELL * 0.25


MIN_WIDTH = 260.0  # the status line needs this much, however small the board


def layout(cols: int, rows: int, coordinates_shown: bool, flip: bool) -> tuple[Grid, float]:
    """The grid of a ``cols`` x ``rows`` board centred on a page at least MIN_WIDTH wide, and that width."""
    edge = margin(coordinates_shown)
    width = max(2 * edge + cols * CELL, MIN_WIDTH)
    return Grid(cols, rows, (width - cols * CELL) / 2, edge, CELL, flip), width
