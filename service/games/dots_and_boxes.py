"""Dots and Boxes: what the service serves of it (``registration.py`` says what each part is)."""

from __future__ import annotations

from service.engines.dots_and_boxes import GAME
from service.games.checks import Checks, DocsImage, Finished, Handwritten, PastTheOpening, Playground
from service.games.registration import Registration
from service.levels.dots_and_boxes import LEVELS, VARIETY_MARGIN
from service.render import RenderOptions
from service.render.dots_and_boxes import draw

# What the generic tests ask of Dots and Boxes (``checks.py`` says which test reads each).
CHECKS = Checks(
    small_options={"rows": 2, "cols": 3},
    move_off_the_board="a1-c1",
    docs_image=DocsImage(
        "+.+-+-+/..|...|/+-+.+.+/|...|.|/+.+-+.+/|.|...|/+.+.+-+ 2",
        RenderOptions(last_move="d1-d2", show_legal_moves=True, arrows=("a1-b1",)),
    ),
    midgame_plies=(4, 30),
    pv_depth=3,
    native_pv_depth=5,
    lines_options=(
        {"rows": 2, "cols": 5},
        {"rows": 1, "cols": 1, "pie_rule": True, "pie_lines": 2},
        {"rows": 2, "cols": 5},
        {"rows": 2, "cols": 3, "pie_rule": True, "pie_lines": 7},
        {"rows": 5, "cols": 3},
        {"rows": 5, "cols": 1},
    ),
    lines_depth=4,
    review_tail=8,
    past_the_opening=PastTheOpening(
        "+.+-+-+.+.+/..........|/+.+-+.+-+.+/|.........|/+.+-+.+-+-+/|.|...|..../+.+.+.+.+-+/|...|....../"
        "+.+-+.+.+-+/|........../+.+-+.+.+.+ 1",
        VARIETY_MARGIN,
    ),
    handwritten=Handwritten(
        position_rules=(
            "The board of R x C boxes (1..12 each) is 2R+1 rows of 2C+1 characters",  # 2 x 3 boxes: 5 x 7
            "dot rows ('+' per dot, '-' or '.' for each horizontal line between dots)",
            "box rows ('|' or '.' for each vertical line, and between them each box's owner A or B, or '.')",
            "A box has an owner exactly when its four sides are drawn",
            # The seat to move is not free: 9 lines drawn, 2 boxes owned, 7 odd: B to move, seat 2
            "with D lines drawn and K boxes owned, A is to move when D - K is even and B when it is odd",
            "Without the pie rule seat 1 holds A",
        ),
        position="/".join(
            (
                "+-+-+-+",  # dots a1..d1, all three lines between them drawn
                "|A|B|..",  # a1-a2, b1-b2, c1-c2 drawn; box a1 (4 sides) is A's, b1 (4 sides) B's; c1 open
                "+-+-+.+",  # a2-b2 and b2-c2 drawn (the bottoms of a1 and b1); c2-d2 not
                "|......",  # a2-a3 drawn; boxes a2, b2, c2 open
                "+.+.+.+",  # no line on the bottom row of dots
            )
        )
        + " 2",
        move_rules=("A line by its two neighbouring dots", "The line must not be drawn yet"),
        move="d2-c2",
    ),
    finished=(
        Finished("+-+-+/|A|A|/+-+-+ -", 1, "boxes"),
        Finished("+-+-+/|A|B|/+-+-+ -", 0, "draw"),
    ),
    playground=Playground({"rows": 1, "cols": 2}, "hard", think_ms=40),
)

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    checks=CHECKS,
    example_options={"rows": 2, "cols": 2},
    answer_options=({}, {"rows": 2, "cols": 2}, {"rows": 3, "cols": 3, "pie_rule": True, "pie_lines": 2}),
)
