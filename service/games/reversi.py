"""Reversi (Othello): what the service serves of it (``registration.py`` says what each part is)."""

from __future__ import annotations

from service.engines.reversi import GAME
from service.games.registration import Registration
from service.levels.reversi import LEVELS
from service.render.reversi import draw

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    example_options={"size": 6},
    answer_options=({}, {"size": 6}),
)
