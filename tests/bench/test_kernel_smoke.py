"""``bench/kernel.py`` runs, and a native search of Kalah answers a stop with reason "cancelled"."""

from __future__ import annotations

from bench import kernel
from service.native import engine


def test_the_kernel_benchmark_runs(capsys) -> None:
    argv = ["--positions", "1", "--nodes", "2000", "--move-ms", "50", "--cancel-after", "0.2"]
    assert kernel.main(argv) == 0
    out = capsys.readouterr().out
    if not engine.available("kalah"):
        assert "not built" in out
    else:
        assert "per counted node" in out and "depth median" in out and "stop reason 'cancelled'" in out
