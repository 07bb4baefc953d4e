"""Reversi (Othello): what the service serves of it (``registration.py`` says what each part is)."""

from __future__ import annotations

from service.engines.reversi import GAME
from service.games.checks import Checks, DocsImage, Finished, Handwritten, PastTheOpening, Playground
from service.games.registration import Registration
from service.levels.reversi import EXPERT_MARGIN, LEVELS
from service.render import RenderOptions
from service.render.reversi import draw

# What the generic tests ask of Reversi (``checks.py`` says which test reads each).
CHECKS = Checks(
    small_options={"size": 6},
    move_off_the_board="g1",
    docs_image=DocsImage(
        "......../...BB.../..B.B.../BBBWB.../..WWW.../...WBW../.....BW./.......W 1 black=1",
        RenderOptions(last_move="h8", show_legal_moves=True, arrows=("f5", "a3")),
    ),
    midgame_plies=(14, 40),
    pv_depth=4,
    native_pv_depth=7,
    lines_options=(
        {"size": 6},
        {"size": 8},
        {"size": 4},
        {"size": 6},
        {"size": 8, "black_seat": 2},
        {"size": 4},
    ),
    lines_depth=5,
    review_tail=8,
    past_the_opening=PastTheOpening(
        "......../.B....B./.B.B.B../.BWWWWW./WBWBBW../.BWB..W./.B.B..../B..BBB.. 2 black=1", EXPERT_MARGIN
    ),
    handwritten=Handwritten(
        position_rules=(
            "the board rows from the top (row 1) down, joined by '/'",
            "its squares from column a rightwards as B (Black), W (White) or . (empty)",
            "The board is square, with an even side from 4 to 16",  # 6 rows of 6 squares
            "the four centre squares are occupied",  # c3, d3, c4, d4
            "all discs form one group",  # every disc touches another
            "the seat to move (1 or 2, - once the game is over)",
            "is - exactly when neither seat has a placement",  # Black can play next to White: not over
            "black=1 or black=2, the seat playing Black",
        ),
        position="/".join(
            (
                "......",  # row 1: six empty squares
                "..B...",  # row 2: a Black disc on c2, touching the centre below it
                "..BB..",  # row 3: c3 and d3, two of the four centre squares
                ".WWW..",  # row 4: c4 and d4 complete the centre; b4 touches c4 and c3
                "......",
                "......",
            )
        )
        + " 1 black=1",  # Black (seat 1) to move
        move_rules=("A square as column letter and row number", "bracket at least one line of opponent discs"),
        move="a5",
    ),
    finished=(
        Finished("BBBB/BBBB/BBBB/BBBW - black=1", 1, "discs"),
        Finished("BBBB/BBBB/WWWW/WWWW - black=1", 0, "draw"),
    ),
    playground=Playground({"size": 4}, "expert", think_ms=40, fast=True),
)

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    checks=CHECKS,
    example_options={"size": 6},
    answer_options=({}, {"size": 6}),
)
