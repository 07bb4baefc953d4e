"""Strands' training (``service/learn/strands.py``): a tiny seeded run writes a file the loader reads, with the
record of how it was made, the same whatever the number of workers."""

from __future__ import annotations

import json
from pathlib import Path

from service.engines.strands.learned import SIZE, read_weights
from service.learn import strands as learn


def test_a_tiny_training_writes_weights_that_load(tmp_path: Path) -> None:
    out, labels = tmp_path / "w.json", tmp_path / "labels.json"
    args = ["--games", "8", "--iterations", "40", "--workers", "1", "--seed", "5", "--labels", str(labels)]
    assert learn.main([*args, "--out", str(out)]) == 0
    weights = read_weights(out.read_text())
    assert len(weights.values) == SIZE and any(weights.values)
    made = weights.made
    assert (made["command"], made["games"], made["iterations"], made["seed"]) == ("make train-strands", 8, 40, 5)
    assert made["train_positions"] + made["held_out_positions"] == sum(len(g) for g in json.loads(labels.read_text()))
    again = tmp_path / "again.json"
    assert learn.main(["--games", "8", "--iterations", "40", "--workers", "2", "--seed", "5", "--out", str(again)]) == 0
    assert read_weights(again.read_text()).values == weights.values  # the self-play repeats in two processes
