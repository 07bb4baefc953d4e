"""The service gives exactly the recorded BestMove answers (``tests/levels/answers.py`` says how they were
made): 100 answers over every level of every game whose registration says they are recorded
(``checks.recorded_answers``), with the native kernels and without."""

from __future__ import annotations

import json

import pytest

from service import native
from service.games import BY_ID, REGISTRATIONS
from service.native import engine
from tests.levels import answers


# The native path's answers take seconds, so they run in ``make test`` (kept out, the recording broke
# unseen when the servicer began to read the call's metadata). The Python path's take twenty seconds and
# more: ``pytest -m slow``. Without the native engine there are no native answers to give: that case skips.
@pytest.mark.parametrize("kernels", [True, pytest.param(False, marks=pytest.mark.slow)], ids=["native", "python"])
def test_the_recorded_answers_are_given_again(kernels: bool) -> None:
    if kernels and not engine.available():
        pytest.skip("the native search engine is not built or GAMERULES_NO_NATIVE is set: no native answers")
    expected = json.loads(answers.path(kernels).read_text())
    games = answers.recorded_games()
    previous = native.use_native(kernels)
    try:
        got = answers.record(games)
    finally:
        native.use_native(previous)
    assert len(got) == len(expected) == len(games) * answers.PER_GAME
    differ = [
        (i, want["request"], want["answer"], row["answer"])
        for i, (want, row) in enumerate(zip(expected, got, strict=True))
        if want != row
    ]
    assert differ == [], f"{len(differ)} answers differ; the first: {differ[0]}"


@pytest.mark.parametrize("game_id", [game.id for game in REGISTRATIONS])
def test_every_game_s_answers_are_recorded(game_id: str) -> None:
    """A game whose registration says its answers are recorded has them on both paths, ``PER_GAME`` of them; a
    game that says not (one registered from outside the tree) is left out, said here."""
    if not BY_ID[game_id].checks.recorded_answers:
        pytest.skip(f"{game_id} has no recorded answers (its checks.recorded_answers)")
    for kernels in (True, False):
        rows = json.loads(answers.path(kernels).read_text())
        mine = [row for row in rows if row["request"]["game"] == game_id]
        assert len(mine) == answers.PER_GAME, f"record {game_id}'s answers: python -m tests.levels.answers"
