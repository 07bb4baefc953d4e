"""Board images: every game drawn as its players know it, as a self-contained SVG.

This package sits above the engines and below the transport: it reads a position only through the public
Position API of the engine contract (``to_fields``, ``to_notation``, ``legal_moves``, ``move_notation``,
``apply``, ``scores``, ``outcome``, ``move_space``), and knows nothing of protobuf. One module per game draws
the board (its ``draw``, named by the game's registration in ``service/games``); ``svg`` holds the element
builder, the themes and the marks they share.

``render(draw, position, options)`` answers the SVG text: the same bytes for the same arguments. Moves that
can be played are drawn inside ``<g class="move legal" data-move="...">`` when ``show_legal_moves`` is on
(Strands, whose moves are sets of cells, marks its playable cells ``data-cell`` / ``data-label`` instead), so
a page that inlines the image can make them clickable. Bad options raise the engines' ``RulesError`` kinds
naming the option (``size``, ``theme``, ``last_move``, ``arrows[2]``).
"""

from __future__ import annotations

from collections.abc import Callable

from service import core
from service.core.contract import MoveT, Position
from service.render.options import DEFAULT_SIZE, RenderOptions
from service.render.svg import DEFAULT_THEME, THEMES, Theme
from service.render.view import Step, View

# The API states the same bounds (service/api/limits.py; a test holds them equal).
MIN_SIZE = 64
MAX_SIZE = 2048
MAX_ARROWS = 32
MAX_MOVE_CHARS = 64  # an arrow's move: longer than any move of any board
MAX_LAST_MOVE_CHARS = 256

__all__ = ["DEFAULT_SIZE", "MAX_ARROWS", "MAX_SIZE", "MIN_SIZE", "THEMES", "Draw", "RenderOptions", "render"]

Draw = Callable[[View], str]  # a game's board drawing: the View in, the SVG text out


def _theme(name: str) -> Theme:
    theme = THEMES.get(name or DEFAULT_THEME)
    if theme is None:
        raise core.RulesError(f"unknown theme {name[:40]!r}; themes are: {', '.join(THEMES)}", "theme")
    return theme


def _steps(position: Position[MoveT], arrows: tuple[str, ...]) -> list[Step]:
    """The arrows' moves played in turn from ``position``: each must be legal where it is played."""
    if len(arrows) > MAX_ARROWS:
        raise core.RulesError(f"{len(arrows)} moves; at most {MAX_ARROWS}", "arrows")
    steps = []
    for index, text in enumerate(arrows):
        where = f"arrows[{index}]"
        if len(text) > MAX_MOVE_CHARS:
            raise core.InvalidMove(f"is {len(text)} characters long; at most {MAX_MOVE_CHARS}", where)
        try:
            move = position.parse_move(text)
            after, events = position.apply(move)
        except core.RulesError as error:
            raise type(error)(error.message, where) from None
        steps.append(Step(index + 1, position.move_notation(move), position.to_move, events))
        position = after
    return steps


def _legal(position: Position[MoveT], wanted: bool) -> list[str]:
    if not wanted or position.outcome() is not None or position.move_space() is not None:
        return []  # a game with a compact move space (Strands) marks cells, not whole moves
    return [position.move_notation(move) for move in position.legal_moves()]


def render(draw: Draw, position: Position[MoveT], options: RenderOptions | None = None) -> str:
    """The SVG image of ``position``, drawn by its game's ``draw`` (see the module docstring)."""
    options = options or RenderOptions()
    if not MIN_SIZE <= options.size <= MAX_SIZE:
        raise core.RulesError(f"must be {MIN_SIZE} to {MAX_SIZE} pixels, got {options.size}", "size")
    if len(options.last_move) > MAX_LAST_MOVE_CHARS:
        raise core.InvalidMove(f"is longer than any move (at most {MAX_LAST_MOVE_CHARS} characters)", "last_move")
    view = View(
        position=position,
        fields=position.to_fields(),
        options=options,
        theme=_theme(options.theme),
        legal=_legal(position, options.show_legal_moves),
        steps=_steps(position, tuple(options.arrows)),
    )
    return draw(view)
