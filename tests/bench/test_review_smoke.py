"""``bench/review.py`` reviews the strongest level's self-play by the judge and a whole game within the deadline,
and prints each target, met or missed."""

from __future__ import annotations

from bench import review


def test_the_review_benchmark_runs(capsys) -> None:
    assert review.main(["--quick", "--only", "reversi"]) == 0
    out = capsys.readouterr().out
    assert "expert against itself" in out and "accuracy: winners" in out
    assert "target: the loser below the winner" in out and "target: reviewed whole within 2 s" in out
    assert out.count(" met") + out.count(" missed") == 2
