"""Strands: what the service serves of it (``registration.py`` says what each part is)."""

from __future__ import annotations

from service.core import Limits
from service.engines.strands import GAME
from service.games.checks import Checks, DocsImage, Finished, Handwritten, Playground
from service.games.registration import Registration
from service.levels.strands import LEVELS
from service.render import RenderOptions
from service.render.strands import draw

# What the generic tests ask of Strands (``checks.py`` says which test reads each).
CHECKS = Checks(
    small_options={"layout": "side4"},
    move_off_the_board="a9",
    docs_image=DocsImage(
        "64446/433334/4322234/43222234/632212236/43222234/4322234/433334/64446 "
        "WBWBW/BBBBWW/B.....W/B......W/WW.....WW/B.....WB/..B..WB/....W./W...W 1 exact=0",
        RenderOptions(last_move="e2,g6,h5", show_legal_moves=True, arrows=("c2,d2,h4",)),
    ),
    midgame_plies=(2, 10),
    pv_seeds=(0,),  # its positions take longest
    pv_depth=2,
    native_pv_depth=3,
    lines_from_the_end=(8, 10),  # its midgames take the Python search seconds at test_lines.py's depth
    lines_options=(
        {"layout": "custom", "labels": "32/666/53", "exact_count": True},
        {"layout": "standard"},
        {"layout": "custom", "labels": "462/1633/36652/3251/221", "exact_count": True},
    ),
    lines_depth=2,
    review_tail=3,
    play_limits=Limits(max_depth=2, max_nodes=100),  # its start has thousands of moves: seconds in Python
    picks_past_the_start=False,  # its midgames are not its opening: its levels do not vary there
    quick_levels=False,  # a timed level and tree searches: seconds a level on a midgame
    handwritten=Handwritten(
        position_rules=(
            "the label rows top to bottom joined by '/' (digits 1..6)",
            "A hexagonal board of side n (2..9) has 2n-1 rows of n, n+1, ..., 2n-1, ..., n+1, n cells",
            "and at least one cell labelled 2",
            "the stone rows in the same shape ('.' empty, 'B' Black, 'W' White)",
            "Black opens by covering exactly one 2",
            "each turn covering 1..X empty cells of one label X",
            "any stones on the board include a Black stone on a 2",  # b2
            "Black having made one turn more than White when White is to move",  # Black 2 turns, White 1
            "exact=0 or exact=1 (the exact_count rule)",
        ),
        position="/".join(
            (
                "333",  # side 3: 5 rows of 3, 4, 5, 4, 3 cells
                "3223",
                "32123",
                "3223",
                "333",
            )
        )
        + " "
        + "/".join(
            (
                "WWW",  # White's first turn: all three 3s of row a (X = 3, three cells)
                ".B..",  # Black's opening stone on b2, a 2
                ".B.B.",  # Black's second turn: c2 and c4, two 2s (X = 2)
                "....",
                "...",
            )
        )
        + " 2 exact=0",  # White (seat 2) to move
        move_rules=("The covered cells joined by commas", "of one label X, 1..X of them"),
        move="b4,b1",
    ),
    finished=(Finished("22/232/22 BB/BBW/WW - exact=0", 1, "group_sizes"),),
    playground=Playground({"layout": "side4"}, "easy"),
)

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    checks=CHECKS,
    example_options={"layout": "side4"},
    answer_options=({}, {"layout": "random6"}, {"layout": "standard", "exact_count": True}),
    # medium: the strongest level searches for a time, which no depth bounds
    example_review={"level": "medium", "limits": {"maxDepth": 2}},
)
