"""The service gives exactly the recorded BestMove answers (``tests/levels/answers.py`` says how they were
made): 500 answers over every level of every game, with the native kernels and without."""

from __future__ import annotations

import json

import pytest

from service import native
from tests.levels import answers


@pytest.mark.slow
@pytest.mark.parametrize("kernels", [True, False], ids=["native", "python"])
def test_the_recorded_answers_are_given_again(kernels: bool) -> None:
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
