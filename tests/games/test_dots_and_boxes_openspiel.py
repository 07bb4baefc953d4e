"""Dots and Boxes against OpenSpiel's ``dots_and_boxes``: a differential test over random games.

OpenSpiel's ``num_rows`` / ``num_cols`` count boxes, like our ``rows`` / ``cols``. Its actions are read off
``action_to_string`` (``P1(h,row,col)`` / ``P1(v,row,col)``): horizontal lines row by row of dots, then
vertical lines, the numbering our engine uses too (checked below rather than assumed). Player 0 is seat 1.
With ``utility_margin`` its returns are the box margin; its state string shows each box's owner as ``1`` or
``2`` once the box is complete.
"""

from __future__ import annotations

import random
import re

import pyspiel

from service.engines.dots_and_boxes import GAME, DotsAndBoxesPosition

SIZES = ((2, 2, 250), (3, 3, 200), (5, 5, 60), (2, 4, 20))  # rows, cols, games: 530 in all
_ACTION = re.compile(r"P[12]\(([hv]),(\d+),(\d+)\)")


def load(rows: int, cols: int) -> pyspiel.Game:
    return pyspiel.load_game("dots_and_boxes", {"num_rows": rows, "num_cols": cols, "utility_margin": True})


def our_line(rows: int, cols: int, text: str) -> int:
    """Our line number for an OpenSpiel action string, from its orientation, dot row and dot column."""
    match = _ACTION.fullmatch(text)
    assert match, text
    kind, row, col = match[1], int(match[2]), int(match[3])
    if kind == "h":
        return row * cols + col
    return (rows + 1) * cols + row * (cols + 1) + col


def openspiel_owners(state: pyspiel.State) -> list[int]:
    """The owner (1 or 2) of every box of a finished game, row by row, from the state string."""
    rows = str(state).splitlines()[1::2]
    return [int(d) for row in rows for d in re.findall(r"[12]", row)]


def test_action_numbering_matches_ours() -> None:
    for rows, cols, _ in SIZES:
        game = load(rows, cols)
        state = game.new_initial_state()
        ours = GAME.new_position({"rows": rows, "cols": cols}, "")
        names = [state.action_to_string(0, a) for a in state.legal_actions()]
        assert [our_line(rows, cols, n) for n in names] == list(range(len(names))) == ours.legal_moves()
    # Spot check the geometry both ways: OpenSpiel's (h,0,1) is the top line of box b1, (v,1,0) the left of a2.
    assert GAME.new_position({"rows": 2, "cols": 3}, "").move_notation(our_line(2, 3, "P1(h,0,1)")) == "b1-c1"
    assert GAME.new_position({"rows": 2, "cols": 3}, "").move_notation(our_line(2, 3, "P1(v,1,0)")) == "a2-a3"


def test_random_games_agree_with_openspiel() -> None:
    rng = random.Random(20240611)
    games = plies = kept_turns = 0
    for rows, cols, count in SIZES:
        game = load(rows, cols)
        for _ in range(count):
            ours: DotsAndBoxesPosition = GAME.new_position({"rows": rows, "cols": cols}, "")
            theirs = game.new_initial_state()
            while not theirs.is_terminal():
                seat = ours.to_move
                assert seat == theirs.current_player() + 1
                actions = theirs.legal_actions()
                assert ours.legal_moves() == [our_line(rows, cols, theirs.action_to_string(0, a)) for a in actions]
                action = rng.choice(actions)
                theirs.apply_action(action)
                ours = ours.play(action)
                kept_turns += ours.to_move == seat
                plies += 1
            assert ours.to_move == 0 and ours.outcome() is not None
            owners = openspiel_owners(theirs)
            assert len(owners) == rows * cols
            assert ours.scores() == (owners.count(1), owners.count(2))
            for box, owner in enumerate(owners):
                assert ours.to_fields()["boxes_a" if owner == 1 else "boxes_b"].count(ours.geometry.box_names[box]) == 1
            margin = ours.scores()[0] - ours.scores()[1]
            assert theirs.returns() == [margin, -margin]
            games += 1
    assert games >= 500 and kept_turns > 1000 and plies > 10_000
