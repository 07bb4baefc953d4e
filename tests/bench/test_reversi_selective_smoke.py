"""``bench/reversi_selective.py`` runs its parts and prints each against its target (tiny: its figures are the
bench's, not the test's)."""

from __future__ import annotations

from bench import reversi_selective
from service.native import engine


def test_the_selective_search_benchmark_runs(capsys) -> None:
    argv = ["--positions", "1", "--depth-ms", "30", "--short-games", "2", "--short-ms", "5", "--long-games", "0"]
    assert reversi_selective.main(argv) == 0
    out = capsys.readouterr().out
    if not engine.available("reversi"):
        assert "not built" in out
        return
    assert "median depth: selective" in out and "nodes per CPU second" in out
    assert "5 ms a move, 2 games" in out
    assert out.count("met") + out.count("MISSED") >= 3
