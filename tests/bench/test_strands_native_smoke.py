"""Smoke test of ``bench/strands_native.py``: the iterations probe and one pair of short games (colours swapped),
so the benchmark's plumbing (switching the native engine on and off move by move, seeded openings) is checked
by ``make test`` in a few seconds."""

from __future__ import annotations

import pytest

from bench import strands_native
from service.native import mcts
from tests.native.twins import needs

pytestmark = needs("strands")


def test_a_game_swaps_colours_and_switches_the_engine_back(capsys: pytest.CaptureFixture[str]) -> None:
    assert strands_native.main(["--games", "2", "--move-ms", "20", "--positions", "1", "--probe-ms", "50"]) == 0
    out = capsys.readouterr().out
    assert "native as Black" in out and "native as White" in out and "target:" in out
    assert mcts.available("strands")  # use_native was put back after every move
