"""``bench/learned_eval.py`` runs its three parts and prints each against its target."""

from __future__ import annotations

from bench import learned_eval
from service.native import engine


def test_the_learned_evaluation_benchmark_runs(capsys) -> None:
    assert learned_eval.main(["--quick"]) == 0
    out = capsys.readouterr().out
    if not engine.available("reversi"):
        assert "accuracy: skipped" in out
    else:
        assert "mean absolute error learned" in out and "(target <= 0.5 on at least 2000 positions)" in out
        assert "search labels, 2 plies" in out and "paired with 1 plies" in out
    assert "learned vs hand-written evaluation" in out and "(target >= 85%)" in out
    assert "nodes/CPU s" in out and "(target >= 0.6)" in out
