"""``bench/review.py`` reviews both levels' self-play games and prints the shares, the losses, the cost beside
separate BestMoves and the target, met or missed."""

from __future__ import annotations

from bench import review


def test_the_review_benchmark_runs(capsys) -> None:
    assert review.main(["--quick", "--only", "kalah"]) == 0
    out = capsys.readouterr().out
    assert "BEST/EXCELLENT of 12 moves" in out and "separate BestMoves" in out
    assert "target: strongest" in out and ("met" in out or "missed" in out)
