"""Dots and Boxes: the dots, the drawn lines, each completed box in its owner's colour with its letter, the
undrawn legal lines dashed (each a clickable ``data-move``), the pie rule's words as buttons and its phase
spelled out under the board, the last line in the highlight colour, arrows as numbered marks on their
lines."""

from __future__ import annotations

from service import core
from service.render.grid import BUTTONS, CELL, FOOTER, coordinates, layout
from service.render.svg import Svg, numbered_mark, word_buttons
from service.render.view import View, cell

_WORDS = ("stop", "keep", "swap")


def _ends(name: str, cols: int, rows: int, field: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """A line's two dots, top/left first; InvalidMove naming ``field`` unless they are neighbours."""
    parts = name.split("-")
    ends = [cell(part) for part in parts] if len(parts) == 2 else []
    if len(ends) == 2 and ends[0] is not None and ends[1] is not None:
        a, b = sorted((ends[0], ends[1]))
        inside = all(0 <= c <= cols and 0 <= r <= rows for c, r in (a, b))
        if inside and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1:
            return a, b
    raise core.InvalidMove(f"{name[:40]!r} is not a line between two neighbouring dots of this board", field)


def _status_names(fields: dict[str, object]) -> tuple[str, str]:
    return ("B", "A") if fields.get("seat1_colour") == "B" else ("A", "B")


def _pie_line(fields: dict[str, object]) -> str:
    phase = fields.get("phase")
    if phase == "setup":
        return f"Pie rule: setup, {fields.get('setup_lines', 0)} of up to {fields.get('pie_lines')} lines drawn"
    if phase == "choice":
        return "Pie rule: seat 2 chooses a colour (keep: B, swap: A)"
    holder = fields.get("seat1_colour") or "A"
    return f"Pie rule: seat 1 plays {holder}"


def draw(view: View) -> str:
    # One function, top to bottom in the order the layers are painted (board, pieces, last move, legal
    # moves, arrows, caption): the layers share the board's geometry, and split apart they would pass it round.
    fields = view.fields
    rows, cols = int(fields["rows"]), int(fields["cols"])
    theme = view.theme
    grid, width = layout(cols, rows, view.options.coordinates, view.options.flip)
    edge = grid.top
    words = [move for move in view.legal if move in _WORDS]
    pie = bool(fields.get("pie_rule"))
    footer = FOOTER * (2 if pie else 1)
    height = 2 * edge + grid.height + footer + (BUTTONS if words else 0)
    names = _status_names(fields)
    svg = Svg(width, height, view.options.size, f"Dots and Boxes {cols}x{rows}: {view.status(names)}", theme)
    svg.add("rect", x=grid.left, y=grid.top, width=grid.width, height=grid.height, fill=theme.labels[0])

    owners = {name: "A" for name in fields.get("boxes_a") or ()} | {name: "B" for name in fields.get("boxes_b") or ()}
    for name, owner in sorted(owners.items()):
        place = cell(name)
        if place is None:
            continue
        x, y = grid.corner(*place)
        seat = 0 if owner == "A" else 1
        svg.add(
            "rect",
            x=x + 2.5,
            y=y + 2.5,
            width=CELL - 5,
            height=CELL - 5,
            fill=theme.seat[seat],
            fill_opacity="0.85",
            class_=f"box {owner}",
            data_cell=name,
        )
        svg.text(x + CELL / 2, y + CELL / 2, owner, CELL * 0.45, theme.seat_text[seat])

    def segment(name: str, field: str) -> tuple[float, float, float, float]:
        a, b = _ends(name, cols, rows, field)
        return grid.x(a[0]), grid.y(a[1]), grid.x(b[0]), grid.y(b[1])

    for move in view.legal:
        if move in _WORDS:
            continue
        x1, y1, x2, y2 = segment(move, "move")
        svg.open("g", class_="move legal", data_move=move)
        reach = CELL * 0.2  # the area around the line that takes a click
        svg.add(
            "rect",
            x=min(x1, x2) - reach,
            y=min(y1, y2) - reach,
            width=abs(x2 - x1) + 2 * reach,
            height=abs(y2 - y1) + 2 * reach,
            fill="#000000",
            fill_opacity="0",
        )
        svg.add("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=theme.legal, stroke_width=3.0, stroke_dasharray="4 4")
        svg.close("g")

    def drawn(name: str, field: str, colour: str, width: float, **attrs: str) -> None:
        """A drawn line (the position's, or the last move's over it): solid, round-ended."""
        x1, y1, x2, y2 = segment(name, field)
        svg.add("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=colour, stroke_width=width, stroke_linecap="round", **attrs)

    for name in sorted(fields.get("lines") or ()):
        drawn(name, "position", theme.text, 4.0, class_="line", data_line=name)
    last = view.options.last_move.strip().lower()
    if last and last not in _WORDS:
        drawn(last, "last_move", theme.highlight, 5.0, class_="last-move")
    for col in range(cols + 1):
        for row in range(rows + 1):
            svg.add("circle", cx=grid.x(col), cy=grid.y(row), r=4.5, fill=theme.text, class_="dot")
    if view.options.coordinates:
        coordinates(svg, grid, points=True)

    for step in view.steps:
        if step.notation in _WORDS:
            continue
        x1, y1, x2, y2 = segment(step.notation, "arrows")
        svg.add("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=theme.arrow, stroke_width=3.0, stroke_dasharray="6 3")
        numbered_mark(svg, (x1 + x2) / 2, (y1 + y2) / 2, CELL * 0.22, step.number, theme.arrow, "#ffffff")

    bottom = grid.top + grid.height + edge
    word_buttons(svg, words, bottom + BUTTONS / 2, BUTTONS * 0.75)
    status_y = height - footer + FOOTER / 2
    svg.caption(status_y, view.status(names), 14.0, class_="status")
    if pie:
        svg.caption(status_y + FOOTER * 0.8, _pie_line(fields), 12.0, theme.muted, class_="pie")
    return svg.to_text()
