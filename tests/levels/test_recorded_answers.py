"""The service gives exactly the recorded BestMove answers (``tests/levels/answers.py`` says how they were
made): 500 answers over every level of every game, with the native kernels and without."""

from __future__ import annotations

import json

import pytest

from service import native
from service.native import engine
from tests.levels import answers


# The native path's 500 answers take seconds, so they run in ``make test`` (kept out, the recording broke
# unseen when the servicer began to read the call's metadata). The Python path's take twenty seconds and
# more: ``pytest -m slow``. Without the native engine there are no native answers to give: that case skips.
@pytest.mark.parametrize("kernels", [True, pytest.param(False, marks=pytest.mark.slow)], ids=["native", "python"])
def test_the_recorded_answers_are_given_again(kernels: bool) -> None:
    if kernels and not engine.available():
        pytest.skip("the native search engine is not built or GAMERULES_NO_NATIVE is set: no native answers")
    expected = json.loads(answers.path(kernels).read_text())
    previous = native.use_native(kernels)
    try:
        got = answers.record()
    finally:
        native.use_native(previous)
    assert len(got) == len(expected) == 5 * answers.PER_GAME
    differ = [
        (i, want["request"], want["answer"], row["answer"])
        for i, (want, row) in enumerate(zip(expected, got, strict=True))
        if want != row
    ]
    assert differ == [], f"{len(differ)} answers differ; the first: {differ[0]}"
