"""The exact values ``bench/learned_eval.py`` takes from its file (``EXACT_FILE``) are those of the held-out
positions the issue asks for (2,000 with 20-24 empty squares, seed 1), are final disc margins, and are what the
native proof finds again; a file of exact values is read back as written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import learned_eval
from service.levels import reversi_learned
from service.native import engine
from service.native import reversi as adapter

RECORDED = learned_eval.read_values(learned_eval.EXACT_FILE)


def test_the_file_records_the_issues_held_out_positions() -> None:
    # As many as the target asks for, so the bench's default run measures it whole. The first 200 of the draw
    # (each position is a self-play game) are in it: a change to the self-play that draws them would leave the
    # file behind, and the bench would prove every position again.
    assert len(RECORDED) == learned_eval.MAE_POSITIONS
    positions = learned_eval.held_out(200, 20, 24, 1)
    assert all(learned_eval.key(p) in RECORDED for p in positions)
    assert {p.empties() for p in positions} == set(range(20, 25))
    assert all(value == int(value) and abs(value) <= 64 for value in RECORDED.values())


@pytest.fixture
def shipped() -> Iterator[None]:
    """The shipped table handed to the kernel (the proofs order with it), the previous one put back after."""
    previous = adapter.weights()
    assert reversi_learned.shipped().hand_to_native()
    yield
    adapter.set_weights(previous)


@pytest.mark.skipif(not engine.available("reversi"), reason="the native search engine proves the positions")
def test_recorded_values_are_proved_again(shipped: None) -> None:
    # The quickest kind, 20 empty squares (about a second each); the bench proves a sample of any kind each run.
    positions = [p for p in learned_eval.held_out(30, 20, 24, 1) if p.empties() == 20][:2]
    assert len(positions) == 2
    for position in positions:
        assert learned_eval.exact(position) == RECORDED[learned_eval.key(position)]


def test_a_file_of_exact_values_is_read_back_as_written(tmp_path: Path) -> None:
    path = tmp_path / "solved.json"
    values = {"1/2": 4.0, "8/16": -12.0}
    learned_eval.write_values(path, values)
    assert learned_eval.read_values(path) == values
    assert [f.name for f in tmp_path.iterdir()] == ["solved.json"]  # written whole, then put in place
    assert path.read_text().startswith('{\n"command": "python -m bench.learned_eval')
