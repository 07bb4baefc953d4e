"""Kalah: what the service serves of it (``registration.py`` says what each part is)."""

from __future__ import annotations

from service.engines.kalah import GAME
from service.games.registration import Registration
from service.levels.kalah import LEVELS
from service.render.kalah import draw

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    example_options={"seedsPerPit": 3},
    answer_options=({}, {"seeds_per_pit": 3}, {"pits_per_side": 4, "seeds_per_pit": 2, "first_seat": 2}),
)
