"""``bench/native_levels.py`` runs its three parts and prints each against its target, and its control."""

from __future__ import annotations

from bench import native_levels
from service.native import engine


def test_the_native_levels_benchmark_runs(capsys) -> None:
    argv = [
        "--games",
        "2",
        "--positions",
        "1",
        "--move-ms",
        "10",
        "--own-nodes",
        "300",
        "--only",
        "kalah",
        "--control",
        "2",
    ]
    assert native_levels.main(argv) == 0
    out = capsys.readouterr().out
    # The bench turns the engine on for its native side whatever GAMERULES_NO_NATIVE says: it compares the
    # paths whenever the library is built.
    if not native_levels.on_path(True, engine.available):
        assert "not built" in out
    else:
        assert "best moves per CPU second (target >= 10x)" in out
        assert "(target: wins >= losses)" in out and "in 2 games" in out
        assert "10 ms a move each, native vs Python" in out and "(target >= 90%)" in out
        assert "control: native with 2x the time against native with 10 ms" in out
