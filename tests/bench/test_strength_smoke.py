"""Smoke test of ``bench/strength.py``: one short level game and one short game against OpenSpiel's MCTS bot,
with fast levels and a handful of simulations, so the benchmark's plumbing (seeded openings, colour swaps, the
lock-step with OpenSpiel and its move mapping, forced passes) is checked by ``make test`` in a few seconds."""

from __future__ import annotations

import pytest

from bench.strength import OUTSIDE, Outside, Setup, play_levels, play_outside

pytest.importorskip("pyspiel")


def test_level_game_is_seeded_and_swaps_colours() -> None:
    setup = Setup("kalah", "kalah", opening_plies=2)
    first = play_levels((setup, "medium", "easy", 0, 1, 7, 0))  # medium is depth-limited: no clock involved
    again = play_levels((setup, "medium", "easy", 0, 1, 7, 0))
    swapped = play_levels((setup, "medium", "easy", 0, 2, 7, 0))
    assert (first.score, first.margin, first.plies) == (again.score, again.margin, again.plies)  # same seed
    assert first.score in (-1, 0, 1) and first.plies > 10 and first.moves_side > 0 and first.moves_other > 0
    assert swapped.plies > 10 and not swapped.error


@pytest.mark.parametrize("outside", OUTSIDE, ids=lambda o: o.spiel_name)
def test_game_against_mcts_stays_in_lock_step(outside: Outside) -> None:
    if outside.game_id == "dots-and-boxes":  # 2×2 keeps it short; the mapping is the same
        small = {"num_rows": 2, "num_cols": 2}
        outside = Outside(outside.game_id, {"rows": 2, "cols": 2}, outside.spiel_name, small, 2)
    level = {"reversi": "beginner", "kalah": "medium", "dots-and-boxes": "easy"}[outside.game_id]
    for our_seat in (1, 2):
        result = play_outside((outside, level, 0, our_seat, 7, 0, 5, 0.0))
        assert not result.error, result.error
        assert result.score in (-1, 0, 1) and result.moves_side > 0 and result.moves_other > 0
