"""Reversi: the green board, its grid and discs, the four star points of an 8x8 board, the legal squares as
dots, the last move's square outlined, arrows as numbered discs of the mover's colour."""

from __future__ import annotations

from service.render.grid import BUTTONS, CELL, FOOTER, coordinates, layout, legal_square, outline
from service.render.svg import Svg, numbered_mark, word_buttons
from service.render.view import View, cell_name, cells_of


def draw(view: View) -> str:
    # One function, top to bottom in the order the layers are painted (board, pieces, last move, legal
    # moves, arrows, caption): the layers share the board's geometry, and split apart they would pass it round.
    board: list[str] = list(view.fields["board"])
    n = len(board)
    black_seat = int(view.fields.get("black_seat") or 1)
    names = ("Black", "White") if black_seat == 1 else ("White", "Black")
    theme = view.theme
    grid, width = layout(n, n, view.options.coordinates, view.options.flip)
    edge = grid.top
    words = [move for move in view.legal if move == "pass"]
    height = 2 * edge + grid.height + FOOTER + (BUTTONS if words else 0)
    svg = Svg(width, height, view.options.size, f"Reversi {n}x{n}: {view.status(names)}", theme)

    svg.add(
        "rect",
        x=grid.left,
        y=grid.top,
        width=grid.width,
        height=grid.height,
        fill=theme.board,
        stroke=theme.grid,
        stroke_width=2.0,
    )
    for i in range(1, n):
        svg.add(
            "line",
            x1=grid.x(i),
            y1=grid.top,
            x2=grid.x(i),
            y2=grid.top + grid.height,
            stroke=theme.grid,
            stroke_width=1.2,
        )
        svg.add(
            "line",
            x1=grid.left,
            y1=grid.y(i),
            x2=grid.left + grid.width,
            y2=grid.y(i),
            stroke=theme.grid,
            stroke_width=1.2,
        )
    if n == 8:
        for col, row in ((2, 2), (6, 2), (2, 6), (6, 6)):
            svg.add("circle", cx=grid.x(col), cy=grid.y(row), r=3.0, fill=theme.grid)
    if view.options.coordinates:
        coordinates(svg, grid)

    last = view.options.last_move.strip().lower()
    if last and last != "pass":
        for col, row in cells_of(last, "last_move", lambda c, r: c < n and r < n):
            outline(svg, grid, col, row, 1.5, 3.0)

    for row, text in enumerate(board):
        for col, ch in enumerate(text):
            if ch not in "BW":
                continue
            x, y = grid.centre(col, row)
            disc = theme.black if ch == "B" else theme.white
            svg.add(
                "circle",
                cx=x,
                cy=y,
                r=CELL * 0.42,
                fill=disc,
                stroke=theme.stone_edge,
                stroke_width=1.2,
                class_="disc black" if ch == "B" else "disc white",
                data_cell=cell_name(col, row),
            )

    for move in view.legal:
        if move == "pass":
            continue
        col, row = cells_of(move, "move", lambda c, r: True)[0]
        legal_square(svg, grid, col, row, move, CELL * 0.13)

    for step in view.steps:
        if step.notation == "pass":
            continue
        col, row = cells_of(step.notation, "arrows", lambda c, r: True)[0]
        x, y = grid.centre(col, row)
        black = step.seat == black_seat
        numbered_mark(
            svg, x, y, CELL * 0.3, step.number, theme.black if black else theme.white, "#ffffff" if black else "#000000"
        )

    bottom = grid.top + grid.height + edge
    word_buttons(svg, words, bottom + BUTTONS / 2, BUTTONS * 0.75)
    svg.caption(height - FOOTER / 2, view.status(names), 14.0, class_="status")
    return svg.to_text()
