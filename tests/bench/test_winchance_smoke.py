"""``bench/winchance.py`` measures a shipped model on fresh games and prints each target (tiny: its figures are
the bench's, not the test's)."""

from __future__ import annotations

from bench import winchance


def test_the_win_chance_benchmark_runs(capsys) -> None:
    argv = ["--games", "reversi", "--rounds", "1", "--levels", "beginner", "corner_hunter"]
    assert winchance.main(argv) == 0
    out = capsys.readouterr().out
    assert "reversi: 4 games (1 of each pairing of levels, seed 1001)" in out
    assert "largest gap" in out and "(target <= 0.05)" in out and "mean gap over the positions" in out
    assert "tenths beyond both 0.05 and twice their standard error" in out
    assert "against the stage-less fit's" in out and "(target: lower)" in out
    assert out.count("met") + out.count("MISSED") >= 4
