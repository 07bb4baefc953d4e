"""The promises every engine makes, checked by random play (OpenSpiel's consistency test, ours).

``tests/games/test_contract.py`` runs this over the whole registry; an engine's own tests may call
``check_random_games`` with extra options while the engine is being written.
"""

from __future__ import annotations

import random
from typing import Any

from service.core import Game, GameOverError, Outcome

MAX_LISTED = 5000  # above this many moves, check paging on a sample instead of the whole list


def check_position(game: Game, position: Any) -> None:
    """Round trips and the consistency of one position."""
    text = position.to_notation()
    assert "\n" not in text
    again = game.parse_position(text)
    assert again == position and hash(again) == hash(position)
    assert again.to_notation() == text
    assert game.position_from_fields(position.to_fields()) == position
    scores = position.scores()
    assert len(scores) == 2 and all(isinstance(s, int) for s in scores)
    outcome = position.outcome()
    count = position.legal_move_count()
    if outcome is not None:
        assert isinstance(outcome, Outcome) and outcome.winner in (0, 1, 2) and outcome.reason
        assert position.to_move == 0 and count == 0
        assert position.legal_moves_page(0, 10) == []
        return
    assert position.to_move in (1, 2) and count > 0
    if count <= MAX_LISTED:
        moves = position.legal_moves()
        assert len(moves) == count == len(set(moves))
        paged = position.legal_moves_page(0, 7) + position.legal_moves_page(7, count)
        assert paged == moves
    else:
        moves = position.legal_moves_page(0, 50) + position.legal_moves_page(count - 50, 50)
    for move in moves[:200]:
        note = position.move_notation(move)
        assert position.parse_move(note) == move
        assert position.move_from_fields(position.move_to_fields(move)) == move


def check_random_games(game: Game, options: dict[str, Any], games: int, seed: int, max_plies: int = 10_000) -> None:
    """Play ``games`` random games; at every ply check ``check_position`` and that apply == play."""
    rng = random.Random(seed)
    for g in range(games):
        position = game.new_position(options, seed=f"contract-{seed}-{g}")
        for _ in range(max_plies):
            check_position(game, position)
            if position.outcome() is not None:
                try:
                    position.apply(position.legal_moves_page(0, 1)[0] if position.legal_move_count() else None)
                except GameOverError:
                    pass
                else:  # pragma: no cover - the assertion names the failure
                    raise AssertionError("a move after the end was accepted")
                break
            count = position.legal_move_count()
            move = position.legal_moves_page(rng.randrange(count), 1)[0]
            after, events = position.apply(move)
            assert after == position.play(move)
            assert all(e.type for e in events)
            position = after
        else:  # pragma: no cover
            raise AssertionError(f"{game.id}: game did not end within {max_plies} plies")
