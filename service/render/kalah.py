"""Kalah: the board of two rows of pits with their seed counts and the two stores at the ends, as the seats see
it across the table: South (seat 1) below with its pits 1..N left to right and its store on the right, North
(seat 2) above with its pit 1 on the right and its store on the left; turned round (``flip``), North sits
below. Legal pits are ringed and carry their move; the last move's pit is outlined; an arrow runs from each
arrow move's pit to the hole its last seed reaches (the move's ``sow`` event)."""

from __future__ import annotations

from service import core
from service.render.grid import FOOTER, MIN_WIDTH
from service.render.svg import Svg, arrow
from service.render.view import View

PITCH = 50.0  # from one pit's centre to the next
RADIUS = 20.0
STORE = 44.0  # a store's width
PAD = 8.0
NAMES = ("South", "North")
_SIDE = {"S": 1, "N": 2}


def draw(view: View) -> str:
    # One function, top to bottom in the order the layers are painted (board, pieces, last move, legal
    # moves, arrows, caption): the layers share the board's geometry, and split apart they would pass it round.
    fields = view.fields
    n = int(fields["pits_per_side"])
    pits = [int(p) for p in fields["pits"]]
    stores = [int(s) for s in fields["stores"]]
    theme = view.theme
    flip = view.options.flip
    label = 22.0 if view.options.coordinates else 6.0
    inner = 2 * STORE + n * PITCH + 4 * PAD
    width = max(inner + 2 * PAD, MIN_WIDTH)
    board_left = (width - inner) / 2
    board_top = PAD + label
    board_height = 2 * PITCH + 3 * PAD
    height = board_top + board_height + label + FOOTER
    bottom_seat = 2 if flip else 1
    svg = Svg(width, height, view.options.size, f"Kalah, {n} pits a side: {view.status(NAMES)}", theme)

    first_pit = board_left + STORE + 2 * PAD
    rows_y = {3 - bottom_seat: board_top + PAD + PITCH / 2, bottom_seat: board_top + 2 * PAD + PITCH * 1.5}

    def pit_centre(seat: int, number: int) -> tuple[float, float]:
        slot = number - 1 if seat == bottom_seat else n - number
        return first_pit + slot * PITCH + PITCH / 2, rows_y[seat]

    def store_box(seat: int) -> tuple[float, float]:
        """The store's left x and its centre y: the bottom seat's on the right."""
        x = board_left + inner - PAD - STORE if seat == bottom_seat else board_left + PAD
        return x, board_top + board_height / 2

    def place(name: str, field: str) -> tuple[float, float]:
        """``S3``, ``N-store`` (as events name them) -> the centre of that hole."""
        side, number = _SIDE.get(name[:1].upper()), name[1:]
        if side is not None and number.lower() == "-store":
            x, y = store_box(side)
            return x + STORE / 2, y
        if side is not None and number.isascii() and number.isdigit() and 1 <= int(number) <= n:
            return pit_centre(side, int(number))
        raise core.InvalidMove(f"{name[:40]!r} names no pit of this board (S1..S{n}, N1..N{n})", field)

    svg.add(
        "rect",
        x=board_left,
        y=board_top,
        width=inner,
        height=board_height,
        rx=22.0,
        fill=theme.wood,
        stroke=theme.grid,
        stroke_width=1.5,
    )
    for seat in (1, 2):
        x, y = store_box(seat)
        svg.add(
            "rect",
            x=x,
            y=y - board_height / 2 + PAD,
            width=STORE,
            height=board_height - 2 * PAD,
            rx=STORE / 2,
            fill=theme.hole,
            stroke=theme.seat[seat - 1],
            stroke_width=2.5,
            class_="store",
            data_cell=f"{'SN'[seat - 1]}-store",
        )
        svg.text(x + STORE / 2, y, str(stores[seat - 1]), 20.0, theme.hole_text, font_weight="bold", class_="count")
        svg.text(x + STORE / 2, y + board_height / 2 - PAD - 12, NAMES[seat - 1][0], 11.0, theme.hole_text)
        for number in range(1, n + 1):
            seeds = pits[(seat - 1) * n + number - 1]
            cx, cy = pit_centre(seat, number)
            name = f"{'SN'[seat - 1]}{number}"
            svg.add(
                "circle",
                cx=cx,
                cy=cy,
                r=RADIUS,
                fill=theme.hole,
                stroke=theme.seat[seat - 1],
                stroke_width=1.5,
                class_="pit",
                data_cell=name,
            )
            svg.text(cx, cy, str(seeds), 17.0, theme.hole_text, class_="count")
            if view.options.coordinates:
                ny = cy + (PITCH / 2 + PAD + 6) * (1 if seat == bottom_seat else -1)
                svg.text(cx, ny, str(number), 11.0, theme.muted, class_="coordinate")

    last = view.options.last_move.strip()
    if last:
        x, y = place(_sown_pit(last, pits, n), "last_move")
        svg.add(
            "circle",
            cx=x,
            cy=y,
            r=RADIUS + 3,
            fill="none",
            stroke=theme.highlight,
            stroke_width=3.5,
            class_="last-move",
        )

    mover = view.position.to_move
    for move in view.legal:
        cx, cy = pit_centre(mover, int(move))
        svg.open("g", class_="move legal", data_move=move)
        svg.add(
            "circle", cx=cx, cy=cy, r=RADIUS + 1, fill="#000000", fill_opacity="0", stroke=theme.legal, stroke_width=3.0
        )
        svg.close("g")

    for step in view.steps:
        sow = next((event for event in step.events if event.type == "sow" and len(event.cells) == 2), None)
        if sow is None:
            continue
        (x1, y1), (x2, y2) = place(sow.cells[0], "arrows"), place(sow.cells[1], "arrows")
        if (x1, y1) == (x2, y2):
            x2 += 1.0  # sown all the way round back home: a short hook
        arrow(svg, x1, y1, x2, y2, 3.0, step.number, bend=0.25)

    svg.caption(height - FOOTER / 2, view.status(NAMES), 14.0, class_="status")
    return svg.to_text()


def _sown_pit(last: str, pits: list[int], n: int) -> str:
    """The pit ``last`` names, with its side: ``S3`` as the sow event names it, or the game's move notation, a
    bare pit number. A move's notation does not say whose it was (after an extra turn the seat that moved is
    to move again), but a sown pit is empty after the move (fewer seeds than a lap): the number names the one
    seat whose pit of that number is empty. Where both are, or neither, the side must be said."""
    if not (last.isascii() and last.isdigit()) or not 1 <= int(last) <= n:
        return last  # a side-named pit, or no pit at all: ``place`` reads it or says what it names
    number = int(last)
    empty = [side for seat, side in ((1, "S"), (2, "N")) if pits[(seat - 1) * n + number - 1] == 0]
    if len(empty) == 1:
        return f"{empty[0]}{number}"
    raise core.InvalidMove(
        f"{last!r} could be either seat's pit {number} here: name it with its side, S{number} or N{number}",
        "last_move",
    )
