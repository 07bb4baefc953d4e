"""Tic-tac-toe: what the service serves of it (``service/games/registration.py`` says what each part is). Its
page is this package's ``page.md``: the game lives outside the service's tree, docs included."""

from __future__ import annotations

from pathlib import Path

from service.games.checks import Checks, Finished, Handwritten, PastTheOpening, Playground
from service.games.registration import Registration
from tests.tictactoe.game import TicTacToeGame
from tests.tictactoe.levels import HARD_MARGIN, LEVELS
from tests.tictactoe.render import draw

GAME = TicTacToeGame()

# What the generic tests ask of the game (``service/games/checks.py`` says which test reads each). The defaults
# suit it (a small, quick game whose midgames of 2 to 4 random plies never end), but for these:
CHECKS = Checks(
    move_off_the_board="d1",  # a fourth column of the 3x3 board
    # Hard proves every 3x3 position, so the position just past the opening is on 5x5, four in a row: 8 of the
    # 25 cells marked, 17 empty (hard proves from 12), and its top four moves within its margin of each other.
    past_the_opening=PastTheOpening("o..../...oo/..x../..xxx/...o. 1 k=4", HARD_MARGIN),
    # Its BestMove answers are not recorded in tests/levels/data/: the game keeps everything in this package.
    recorded_answers=False,
    handwritten=Handwritten(
        position_rules=(
            "the board rows from the top (row 1) down, joined by '/'",  # x.o is row 1: a1 x, c1 o
            "each row its cells from column a rightwards as x, o or . (empty), in lower case",
            "Seat 1 plays x and moves first, so x has as many cells as o or one more",  # two each
            "otherwise 1 when x and o have as many cells",  # nobody has a line, cells are left: seat 1
            "left out when it is 3",  # three in a row, so no third field
        ),
        position="x.o/.x./o.. 1",
        move_rules=("A cell as column letter and row number", "The cell must be empty"),
        move="b1",
    ),
    finished=(
        Finished("xo./xo./x.. -", 1, "line"),  # X down column a
        Finished("x.o/xo./o.x -", 2, "line"),  # O along the diagonal c1-a3
        Finished("xox/xoo/oxx -", 0, "draw"),  # a full board, no line
    ),
    # A whole 3x3 game in the browser is nine moves at most, each proved in milliseconds.
    playground=Playground(options={}, level="hard", fast=True),
)

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    example_options={"rows": 3, "cols": 3},
    # The 3x3 game (proved by hard from its start), a board hard searches before it proves (4x4, four in a row)
    # and a board that is not square (3 rows of 5, three in a row).
    answer_options=({}, {"rows": 4, "cols": 4, "k": 4}, {"rows": 3, "cols": 5}),
    checks=CHECKS,
    own_page=Path(__file__).resolve().parent / "page.md",
)
