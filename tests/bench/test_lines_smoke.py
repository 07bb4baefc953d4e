"""``bench/lines.py`` runs its parts and prints each against its target (tiny: its figures are the bench's, not the
test's)."""

from __future__ import annotations

from bench import lines


def test_the_lines_benchmark_runs(capsys) -> None:
    assert lines.main(["--positions", "1", "--time-ms", "30"]) == 0
    out = capsys.readouterr().out
    assert "Reversi expert, 30 ms an answer on 1 self-play midgame positions" in out
    assert out.count("pv >= 4 moves whenever depth >= 6") == 4
    assert out.count("every alternative's line >= 2 moves whenever depth >= 4") == 2
    assert out.count("met") + out.count("MISSED") >= 6
