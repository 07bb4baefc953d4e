"""How to draw a position: the RenderPosition request's options (``service/render/__init__.py`` checks them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.render.svg import DEFAULT_THEME

DEFAULT_SIZE = 480


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """How to draw a position (the RenderPosition request's options)."""

    size: int = DEFAULT_SIZE  # the image's width in pixels
    last_move: str = ""  # the move that led here, highlighted
    show_legal_moves: bool = False
    arrows: tuple[str, ...] = field(default_factory=tuple)  # a move or a line, played in turn from here
    coordinates: bool = True
    flip: bool = False  # as seat 2 sees the board across the table
    theme: str = DEFAULT_THEME
