"""Strands: what the service serves of it (``registration.py`` says what each part is)."""

from __future__ import annotations

from service.engines.strands import GAME
from service.games.registration import Registration
from service.levels.strands import LEVELS
from service.render.strands import draw

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    example_options={"layout": "side4"},
    answer_options=({}, {"layout": "random6"}, {"layout": "standard", "exact_count": True}),
    # medium: the strongest level searches for a time, which no depth bounds
    example_review={"level": "medium", "limits": {"maxDepth": 2}},
)
