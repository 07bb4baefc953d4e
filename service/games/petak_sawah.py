"""Petak Sawah: what the service serves of it (``registration.py`` says what each part is)."""

from __future__ import annotations

from service.engines.petak_sawah import GAME
from service.games.registration import Registration
from service.levels.petak_sawah import LEVELS
from service.render.petak_sawah import draw

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    example_options={"rows": 4, "cols": 4, "rocks": 2},
    answer_options=({}, {"rows": 4, "cols": 4, "rocks": 2, "opener": 2}),
)
