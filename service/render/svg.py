"""The SVG drawing kit every board shares: a small element builder, the themes, and marks (legal-move dots,
numbered arrows, word buttons) drawn the same way in every game.

Output is deterministic text: attributes in the order given, numbers rounded to two decimals, no random ids,
no scripts, no external references (an image must embed anywhere, ``<img src>`` included).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

SVG_NS = "http://www.w3.org/2000/svg"


def num(value: float) -> str:
    """A coordinate as short, stable text: two decimals at most, no trailing zeros, no ``-0``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@dataclass(frozen=True, slots=True)
class Theme:
    """The colours of a drawing. ``seat`` colours mark each seat's cells, pits and boxes; ``labels`` tint
    Strands' cells by label (1 to 6)."""

    name: str
    background: str
    text: str
    muted: str
    board: str  # Reversi's felt, Kalah's wood, the paper under the other boards
    grid: str
    seat: tuple[str, str]
    seat_text: tuple[str, str]  # text drawn on a seat's colour
    black: str
    white: str
    stone_edge: str
    highlight: str  # the last move
    legal: str
    arrow: str
    rock: str
    wood: str  # Kalah's board
    hole: str  # Kalah's pits and stores
    hole_text: str
    labels: tuple[str, ...]


THEMES: dict[str, Theme] = {
    theme.name: theme
    for theme in (
        Theme(
            name="classic",
            background="#f6f1e3",
            text="#2b2b2b",
            muted="#7a7466",
            board="#2f7d3b",
            grid="#1d4f25",
            seat=("#c0392b", "#2471a3"),
            seat_text=("#ffffff", "#ffffff"),
            black="#151515",
            white="#f4f4f2",
            stone_edge="#101010",
            highlight="#f39c12",
            legal="#f1c40f",
            arrow="#8e44ad",
            rock="#6d6a63",
            wood="#c9a46a",
            hole="#a47a45",
            hole_text="#ffffff",
            labels=("#fdf2d0", "#f9e0b8", "#e9d3ef", "#d4e8f5", "#d6efd8", "#f6d5d5"),
        ),
        Theme(
            name="dark",
            background="#1d1f21",
            text="#e6e6e6",
            muted="#9a9a9a",
            board="#245c2e",
            grid="#0f2e15",
            seat=("#e74c3c", "#3498db"),
            seat_text=("#ffffff", "#ffffff"),
            black="#0b0b0b",
            white="#ececec",
            stone_edge="#000000",
            highlight="#f5b041",
            legal="#f7dc6f",
            arrow="#bb8fce",
            rock="#8a8a8a",
            wood="#5a4327",
            hole="#6e5230",
            hole_text="#ffffff",
            labels=("#4a4535", "#4d3f2c", "#45384d", "#2f4352", "#2f4a35", "#523434"),
        ),
        Theme(
            name="print",
            background="#ffffff",
            text="#000000",
            muted="#555555",
            board="#ffffff",
            grid="#000000",
            seat=("#303030", "#c8c8c8"),
            seat_text=("#ffffff", "#000000"),
            black="#000000",
            white="#ffffff",
            stone_edge="#000000",
            highlight="#000000",
            legal="#000000",
            arrow="#000000",
            rock="#808080",
            wood="#ffffff",
            hole="#ffffff",
            hole_text="#000000",
            labels=("#ffffff", "#f2f2f2", "#e4e4e4", "#d6d6d6", "#c8c8c8", "#bababa"),
        ),
    )
}
DEFAULT_THEME = "classic"


class Svg:
    """An SVG document being drawn in user units (``width`` x ``height``), shown ``pixels`` wide."""

    def __init__(self, width: float, height: float, pixels: int, title: str, theme: Theme) -> None:
        self.width = width
        self.height = height
        self.pixels = pixels
        self.theme = theme
        self.title = title
        self._parts: list[str] = []

    @staticmethod
    def _attributes(attrs: dict[str, object]) -> str:
        out = []
        for key, value in attrs.items():
            if value is None:
                continue
            name = key.rstrip("_").replace("_", "-")
            text = num(value) if isinstance(value, float) else str(value)
            out.append(f" {name}={quoteattr(text)}")
        return "".join(out)

    def add(self, tag: str, text: str | None = None, **attrs: object) -> None:
        """One element; ``class_`` is written ``class``, ``data_move`` ``data-move``."""
        opened = f"<{tag}{self._attributes(attrs)}"
        self._parts.append(f"{opened}/>" if text is None else f"{opened}>{escape(text)}</{tag}>")

    def open(self, tag: str, **attrs: object) -> None:
        self._parts.append(f"<{tag}{self._attributes(attrs)}>")

    def close(self, tag: str) -> None:
        self._parts.append(f"</{tag}>")

    def text(self, x: float, y: float, text: str, size: float, fill: str | None = None, **attrs: object) -> None:
        """Centred text (horizontally and vertically) at (x, y)."""
        self.add(
            "text",
            text,
            x=float(x),
            y=float(y),
            font_size=float(size),
            fill=fill or self.theme.text,
            text_anchor="middle",
            dominant_baseline="central",
            **attrs,
        )

    def caption(self, y: float, text: str, size: float, fill: str | None = None, **attrs: object) -> None:
        """A line of text centred across the whole drawing, made smaller where it would not fit (a glyph is
        taken as 0.6 of the font size wide: DejaVu Sans' average)."""
        size = min(size, 0.94 * self.width / (0.6 * max(len(text), 1)))
        self.text(self.width / 2, y, text, size, fill, **attrs)

    def to_text(self) -> str:
        height_px = max(1, round(self.pixels * self.height / self.width))
        head = (
            f'<svg xmlns="{SVG_NS}" width="{self.pixels}" height="{height_px}" '
            f'viewBox="0 0 {num(self.width)} {num(self.height)}" role="img" '
            f'font-family="DejaVu Sans, Verdana, Arial, sans-serif">'
        )
        background = (
            f'<rect x="0" y="0" width="{num(self.width)}" height="{num(self.height)}" '
            f"fill={quoteattr(self.theme.background)}/>"
        )
        return "".join([head, f"<title>{escape(self.title)}</title>", background, *self._parts, "</svg>\n"])


# --- marks shared by the games ---------------------------------------------------------------------------


def legal_dot(svg: Svg, x: float, y: float, radius: float) -> None:
    svg.add(
        "circle",
        cx=float(x),
        cy=float(y),
        r=float(radius),
        fill=svg.theme.legal,
        fill_opacity="0.85",
        stroke=svg.theme.grid,
        stroke_width=float(radius / 4),
    )


def numbered_mark(svg: Svg, x: float, y: float, radius: float, number: int, fill: str, ink: str) -> None:
    """Step ``number`` of an arrow line on a placement game: a numbered disc."""
    svg.open("g", class_="arrow", data_step=str(number))
    svg.add(
        "circle",
        cx=float(x),
        cy=float(y),
        r=float(radius),
        fill=fill,
        fill_opacity="0.8",
        stroke=svg.theme.arrow,
        stroke_width=float(radius / 5),
    )
    svg.text(x, y, str(number), radius * 1.2, ink, font_weight="bold")
    svg.close("g")


def arrow(svg: Svg, x1: float, y1: float, x2: float, y2: float, width: float, number: int, bend: float = 0.0) -> None:
    """An arrow from (x1, y1) to (x2, y2) with its step number at the tail; ``bend`` curves it sideways by
    that fraction of its length. The head is a polygon, not a marker, so no id is needed."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    head = width * 3.2
    mx, my = (x1 + x2) / 2 - uy * bend * length, (y1 + y2) / 2 + ux * bend * length
    # The head points along the curve's tangent at its end.
    tx, ty = x2 - mx, y2 - my
    tl = math.hypot(tx, ty) or 1.0
    tx, ty = tx / tl, ty / tl
    bx, by = x2 - tx * head, y2 - ty * head
    svg.open("g", class_="arrow", data_step=str(number), fill=svg.theme.arrow, stroke=svg.theme.arrow)
    svg.add(
        "path",
        d=f"M{num(x1)} {num(y1)} Q{num(mx)} {num(my)} {num(bx)} {num(by)}",
        fill="none",
        stroke_width=float(width),
        stroke_linecap="round",
        stroke_opacity="0.85",
    )
    px, py = -ty * head * 0.6, tx * head * 0.6
    points = f"{num(x2)},{num(y2)} {num(bx + px)},{num(by + py)} {num(bx - px)},{num(by - py)}"
    svg.add("polygon", points=points, stroke="none", fill_opacity="0.85")
    svg.add("circle", cx=float(x1), cy=float(y1), r=float(width * 2.2), stroke="none")
    svg.text(x1, y1, str(number), width * 2.8, "#ffffff", stroke="none", font_weight="bold")
    svg.close("g")


def word_buttons(svg: Svg, words: list[str], y: float, height: float) -> None:
    """Legal moves that are words, not places (``pass``, the pie rule's ``stop``/``keep``/``swap``): a row of
    labelled buttons centred at ``y``, each carrying its move."""
    if not words:
        return
    width = height * 2.6
    gap = height * 0.4
    left = (svg.width - len(words) * width - (len(words) - 1) * gap) / 2
    for i, word in enumerate(words):
        x = left + i * (width + gap)
        svg.open("g", class_="move legal word", data_move=word)
        svg.add(
            "rect",
            x=float(x),
            y=float(y - height / 2),
            width=float(width),
            height=float(height),
            rx=float(height / 4),
            fill=svg.theme.legal,
            stroke=svg.theme.grid,
            stroke_width=float(height / 20),
        )
        svg.text(x + width / 2, y, word, height * 0.55, "#000000")
        svg.close("g")
