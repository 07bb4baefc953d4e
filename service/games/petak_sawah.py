"""Petak Sawah: what the service serves of it (``registration.py`` says what each part is)."""

from __future__ import annotations

from service.engines.petak_sawah import GAME
from service.games.checks import Checks, DocsImage, Finished, Handwritten, PastTheOpening, Playground
from service.games.registration import Registration
from service.levels.petak_sawah import LEVELS, MARGIN
from service.render import RenderOptions
from service.render.petak_sawah import draw

# What the generic tests ask of Petak Sawah (``checks.py`` says which test reads each).
CHECKS = Checks(
    small_options={"rows": 4, "cols": 4, "rocks": 4},
    move_off_the_board="f1",
    docs_image=DocsImage(
        "..##./..22./1.22./11###/11... 2 opener=1",
        RenderOptions(last_move="a3", show_legal_moves=True, arrows=("b3", "b2")),
    ),
    midgame_plies=(2, 16),
    pv_depth=4,
    native_pv_depth=6,
    lines_options=(
        {"rows": 3, "cols": 12, "rock_cells": ["e3", "g3", "a3", "b2", "g1", "d2", "a1", "l3"]},
        {"rows": 8, "cols": 8, "rock_cells": ["f3", "h6", "d7", "c6", "g7", "d3", "a3", "g5", "f2", "a8", "c1", "f5"]},
        {"rows": 4, "cols": 10, "rock_cells": ["e4", "f4", "a4", "f3", "j1", "e2", "i4", "e3"]},
        {"rows": 3, "cols": 11, "rocks": 7},
        {"rows": 7, "cols": 2, "rock_cells": ["b7", "b2"]},
        {"rows": 8, "cols": 6, "rocks": 8},
    ),
    lines_depth=4,
    review_tail=6,
    past_the_opening=PastTheOpening(".1.../....#/#2.#./1#.2./.#..1 2 opener=1", MARGIN),
    handwritten=Handwritten(
        position_rules=(
            "one character per cell from column a: '.' empty, '#' rock, '1' or '2' taken by that seat",
            "The board has 2..12 rows of the same length, 2..12 cells",  # 4 x 4
            # 16 cells, 2 rocks: 14 cultivable
            "The cells that are not rocks (the cultivable cells) must number at least 2 and be even",
            "The opener holds as many cells as the other seat or one more",  # seat 2 holds 3 cells, seat 1 holds 2
            # the opener, seat 2, holds one more: seat 1 is to move
            "the seat to move is the opener when both hold the same number, the other seat when the opener",
        ),
        position="/".join(
            (
                "2.#.",  # a1 seat 2's, c1 a rock
                ".1.2",  # b2 seat 1's, d2 seat 2's
                "#.1.",  # a3 a rock, c3 seat 1's
                "2...",  # a4 seat 2's
            )
        )
        + " 1 opener=2",
        move_rules=("column letter and row number from the top", "It must be empty and not a rock"),
        move="b1",
    ),
    finished=(
        Finished("112/212 - opener=1", 1, "points"),
        Finished("1221/2112/1212 - opener=1", 1, "largest_group"),
        Finished("111/222 - opener=1", 2, "non_opener"),
    ),
    playground=Playground({"rows": 2, "cols": 3, "rocks": 0}, "medium", think_ms=40),
)

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    checks=CHECKS,
    example_options={"rows": 4, "cols": 4, "rocks": 2},
    answer_options=({}, {"rows": 4, "cols": 4, "rocks": 2, "opener": 2}),
)
