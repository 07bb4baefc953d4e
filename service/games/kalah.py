"""Kalah: what the service serves of it (``registration.py`` says what each part is)."""

from __future__ import annotations

from service.engines.kalah import GAME
from service.games.checks import Checks, DocsImage, Finished, Handwritten, PastTheOpening, Playground
from service.games.registration import Registration
from service.levels.kalah import LEVELS, MARGIN
from service.render import RenderOptions
from service.render.kalah import draw

# What the generic tests ask of Kalah (``checks.py`` says which test reads each).
CHECKS = Checks(
    small_options={"pits_per_side": 4, "seeds_per_pit": 2},
    move_off_the_board="S9",
    docs_image=DocsImage(
        "1,6,2,0,1,7,3/6,1,1,9,7,0,4 2 seeds=4",
        RenderOptions(last_move="S4", show_legal_moves=True, arrows=("1",)),
    ),
    midgame_plies=(4, 20),
    pv_depth=6,
    native_pv_depth=9,
    lines_options=(
        {"pits_per_side": 3, "seeds_per_pit": 10},
        {"pits_per_side": 1, "seeds_per_pit": 2},
        {"pits_per_side": 4, "seeds_per_pit": 10},
        {"pits_per_side": 4, "seeds_per_pit": 5},
        {"pits_per_side": 10, "seeds_per_pit": 5, "first_seat": 2},
        {"pits_per_side": 10, "seeds_per_pit": 2, "first_seat": 2},
    ),
    lines_depth=7,
    review_tail=5,
    one_move_ahead_at_the_start=True,  # see tests/levels/test_budget_contract.py's own Kalah test
    past_the_opening=PastTheOpening("0,6,9,0,3,9,7/0,1,1,2,4,0,6 1 seeds=4", MARGIN),
    handwritten=Handwritten(
        position_rules=(
            "South's pits 1..N from South's left then South's store, '/', North's pits 1..N",
            "counts are whole numbers without leading zeros, and both sides have the same N, 1..12",
            # K = 3 seeds per pit and N = 4 pits: 24 seeds, as below (8 + 3 in the south, 12 + 1 in the north)
            "K (1..12) is the seeds per pit at the start; all pits and stores together must hold 2 x N x K",
            "one side empty while the other still holds seeds is not a position",  # both rows hold seeds
            "The seat to move is 1 (South), 2 (North) or '-' once the game is over",
        ),
        position=(
            "0,5,1,2,3"  # South's 4 pits from its own left, then its store
            "/4,0,6,2,1"  # North's 4 pits from North's own left, then its store
            " 2"  # pits hold seeds, so a seat is to move: North
            " seeds=3"
        ),
        move_rules=("The pit to sow from, 1..N, counted from the mover's own left", "the pit must hold seeds"),
        move="1",
    ),
    finished=(
        Finished("0,0,0,0,0,0,25/0,0,0,0,0,0,23 - seeds=4", 1, "seeds"),
        Finished("0,0,0,0,0,0,24/0,0,0,0,0,0,24 - seeds=4", 0, "draw"),
    ),
    playground=Playground({"pits_per_side": 3, "seeds_per_pit": 2}, "hard", think_ms=40, fast=True),
)

REGISTRATION = Registration(
    game=GAME,
    levels=LEVELS,
    draw=draw,
    checks=CHECKS,
    example_options={"seedsPerPit": 3},
    answer_options=({}, {"seeds_per_pit": 3}, {"pits_per_side": 4, "seeds_per_pit": 2, "first_seat": 2}),
)
