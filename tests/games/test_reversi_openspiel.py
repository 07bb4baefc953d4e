"""Differential test of the Reversi engine against OpenSpiel's ``othello`` (docs/games/reversi.md, 8×8).

OpenSpiel numbers squares ``row * 8 + col`` with a1 = 0 (rows from the top), like the engine, and action 64
is its pass. Player 0 is Black. OpenSpiel makes a seat with no placement play the pass action itself; the
engine plays such forced passes inside ``apply`` and reports them, so at a pass the engine must already have
said so with a ``pass`` event for that seat.
"""

from __future__ import annotations

import random

import pytest

from service.engines.reversi import GAME, PASS

pyspiel = pytest.importorskip("pyspiel")

OPENSPIEL_PASS = 64
GAMES = 200


def openspiel_discs(state: object) -> tuple[int, int]:
    """(Black, White) discs from OpenSpiel's board drawing: rows start with their number, x Black, o White."""
    rows = [line for line in str(state).splitlines() if line[:1].isdigit()]
    assert len(rows) == 8
    board = "".join(line.split(" ", 1)[1].rsplit(" ", 1)[0] for line in rows)
    return board.count("x"), board.count("o")


def test_openspiel_names_squares_like_the_engine() -> None:
    game = pyspiel.load_game("othello")
    state = game.new_initial_state()
    start = GAME.new_position({}, "")
    assert sorted(state.legal_actions()) == start.legal_moves()
    assert [state.action_to_string(a) for a in sorted(state.legal_actions())] == [
        start.move_notation(m) for m in start.legal_moves()
    ]


def test_random_games_agree_with_openspiel() -> None:
    game = pyspiel.load_game("othello")
    rng = random.Random(2024)
    passes = 0
    for g in range(GAMES):
        black_seat = 1 + g % 2
        seat_of_player = {0: black_seat, 1: 3 - black_seat}
        state = game.new_initial_state()
        position = GAME.new_position({"black_seat": black_seat}, "")
        events: list = []
        while not state.is_terminal():
            actions = sorted(state.legal_actions())
            seat = seat_of_player[state.current_player()]
            if actions == [OPENSPIEL_PASS]:
                # The engine has already played this pass and said so.
                assert ("pass", seat) in [(e.type, e.seat) for e in events], (g, position.to_notation())
                passes += 1
                state.apply_action(OPENSPIEL_PASS)
                continue
            assert position.to_move == seat, (g, position.to_notation())
            assert position.legal_moves() == actions, (g, position.to_notation())
            move = rng.choice(actions)
            assert state.action_to_string(move) == position.move_notation(move)
            state.apply_action(move)
            position, events = position.apply(move)
        assert position.to_move == 0 and position.outcome() is not None, (g, position.to_notation())
        black, white = openspiel_discs(state)
        scores = position.scores()
        assert (scores[black_seat - 1], scores[2 - black_seat]) == (black, white)
        outcome = position.outcome()
        assert outcome is not None
        returns = state.returns()  # player 0 (Black) first
        expected_winner = 0 if returns[0] == 0 else seat_of_player[0 if returns[0] > 0 else 1]
        assert outcome.winner == expected_winner
    assert passes > 0  # the games did exercise forced passes
    assert PASS not in GAME.new_position({}, "").legal_moves()
