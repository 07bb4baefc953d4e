"""``bench/learned_other_games.py`` fits its tables on exact values and plays its matches, or says why it cannot."""

from __future__ import annotations

import re

import pytest

from bench import learned_other_games
from service.native import engine


def errors(out: str, game: str) -> tuple[float, float]:
    """The hand-written and learned errors printed for ``game``."""
    block = out.split(f"{game}: ", 1)[1]
    hand = re.search(r"hand-written evaluation: mean absolute error ([\d.]+)", block)
    learned = re.search(r"learned tables \(\d+ weights\): ([\d.]+)", block)
    assert hand and learned, block
    return float(hand.group(1)), float(learned.group(1))


# A measurement of something not shipped (it fits and plays tables for Kalah and Dots and Boxes): 6 s of the fast
# suite for no behaviour of the service, so it runs with ``pytest -m slow``.
@pytest.mark.slow
def test_the_other_games_benchmark_runs(capsys) -> None:
    assert learned_other_games.main(["--quick"]) == 0
    out = capsys.readouterr().out
    for game in ("kalah", "dots-and-boxes"):
        if not engine.available(game):
            assert f"{game}: skipped (the native search engine is not built" in out
            continue
        hand, learned = errors(out, game)
        assert hand > 0 and learned > 0
        assert re.search(rf"{game}: .*\n.*\n.*\n  play, 2-ply searches from 2 starts .*: learned \d+ wins", out)
    if engine.available("kalah") and engine.available("dots-and-boxes"):
        # A table per pit learns what Kalah's hand-written estimate misses, even from 150 positions; near the end of
        # Dots and Boxes (the quick run's 12-14 lines left) the hand-written count of the chains is all but exact
        # and the tables only add noise: the two ways the bench can answer.
        kalah_hand, kalah_learned = errors(out, "kalah")
        dots_hand, dots_learned = errors(out, "dots-and-boxes")
        assert kalah_learned < kalah_hand and dots_learned > dots_hand
