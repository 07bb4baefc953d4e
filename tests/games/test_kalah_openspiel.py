"""Kalah against OpenSpiel's ``mancala`` (6 pits, 4 seeds, South first): a differential test over random games.

OpenSpiel's board is 14 holes, ``board[0]`` North's store, ``board[1..6]`` South's pits 1..6 (from South's
left), ``board[7]`` South's store, ``board[8..13]`` North's pits 1..6 (from North's left); player 0 is South
(seat 1). Its action is the hole index: South's pit ``p`` is action ``p``, North's pit ``p`` is ``7 + p``.
Its observation tensor is the 14 holes, then the player to move and the move number. At the end OpenSpiel
does not sweep the seeds left on the board; it scores each side's pits plus its store, which must equal our
stores after the sweep.
"""

from __future__ import annotations

import random
from typing import Any

import pyspiel

from service.engines.kalah import GAME, KalahPosition

GAMES = 600


def openspiel_board(state: pyspiel.State) -> list[int]:
    return [int(v) for v in state.observation_tensor(0)[:14]]


def our_board_in_openspiel_order(position: KalahPosition) -> list[int]:
    board = position.board  # South's pits, South's store, North's pits, North's store
    return [board[13], *board[:13]]


def to_action(position: KalahPosition, pit: Any) -> int:
    return pit if position.to_move == 1 else 7 + pit


def test_openspiel_action_numbering() -> None:
    """What the module docstring says about OpenSpiel's layout, read off its own state string."""
    state = pyspiel.load_game("mancala").new_initial_state()
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == ["1", "2", "3", "4", "5", "6"]
    state.apply_action(3)  # South's pit 3: four seeds reach the store, South moves again
    assert str(state).splitlines()[:3] == ["-4-4-4-4-4-4-", "0-----------1", "-4-4-0-5-5-5-"]
    assert state.current_player() == 0
    state.apply_action(1)  # South's pit 1 into pits 2..5; North to move
    assert state.current_player() == 1 and state.legal_actions() == [8, 9, 10, 11, 12, 13]
    state.apply_action(13)  # North's pit 6 (next to North's store, shown on the left of the top row)
    assert str(state).splitlines()[:2] == ["-0-4-4-4-4-4-", "1-----------1"]
    ours = GAME.new_position({}, "")
    for pit in (3, 1, 6):
        ours = ours.play(pit)
    assert our_board_in_openspiel_order(ours) == openspiel_board(state)


def test_random_games_agree_with_openspiel() -> None:
    game = pyspiel.load_game("mancala")
    rng = random.Random(20240611)
    finished = plies = captures_seen = 0
    for _ in range(GAMES):
        ours = GAME.new_position({}, "")
        theirs = game.new_initial_state()
        while True:
            assert theirs.is_terminal() == (ours.to_move == 0)
            if ours.to_move == 0:
                break
            assert theirs.current_player() == ours.to_move - 1
            moves = ours.legal_moves()
            assert [to_action(ours, pit) for pit in moves] == theirs.legal_actions()
            assert our_board_in_openspiel_order(ours) == openspiel_board(theirs)
            pit = rng.choice(moves)
            theirs.apply_action(to_action(ours, pit))
            ours, events = ours.apply(pit)
            captures_seen += any(e.type == "capture" for e in events)
            plies += 1
        board = openspiel_board(theirs)
        south_total, north_total = sum(board[1:8]), sum(board[8:14]) + board[0]
        assert ours.scores() == (south_total, north_total)
        returns = theirs.returns()
        winner = ours.outcome().winner  # type: ignore[union-attr]
        assert returns[0] == {1: 1.0, 2: -1.0, 0: 0.0}[winner]
        finished += 1
    assert finished == GAMES and plies > 20 * GAMES and captures_seen > GAMES
