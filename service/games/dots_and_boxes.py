"""Dots and Boxes: what the service serves of it (``registration.py`` says what each part is)."""

from __future__ import annotations

from service.engines.dots_and_boxes import GAME
from service.games.registration import Registration
from service.levels.dots_and_boxes import LEVELS
from service.render.dots_and_boxes import draw

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    example_options={"rows": 2, "cols": 2},
    answer_options=({}, {"rows": 2, "cols": 2}, {"rows": 3, "cols": 3, "pie_rule": True, "pie_lines": 2}),
)
