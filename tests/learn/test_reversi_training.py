"""Reversi's training pipeline (``service/learn/reversi.py``): a tiny run reproduces its weights file bit for
bit, and its fit does what least squares should (an exactly representable target is recovered)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from service.engines.reversi import patterns
from service.learn import reversi as learn


def test_a_tiny_training_run_is_reproducible_bit_for_bit(tmp_path: Path) -> None:
    config = learn.CONFIGS["tiny"]
    files = []
    for run in range(2):
        path = tmp_path / f"run{run}.bin.gz"
        patterns.dump_weights(path, learn.train(config, log=lambda _: None), config.record())
        files.append(path.read_bytes())
    assert files[0] == files[1]
    weights = patterns.load_weights(tmp_path / "run0.bin.gz")
    assert weights.header["trained"] == config.record()
    assert any(weights.table)


def test_the_fit_recovers_a_representable_target() -> None:
    """Labels made by a known sparse weight vector are fitted back to them (a tiny ridge barely shrinks)."""
    rng = random.Random(1)
    positions = learn.self_play(30, rng)
    canonical = learn.canonical_map()
    x = learn.features(positions, canonical)
    truth = np.zeros(patterns.STAGE_SIZE)
    used = np.unique(x)
    truth[used] = np.array([rng.uniform(-2, 2) for _ in used])
    y = truth[x].sum(axis=1)
    w = learn.ridge_fit(x, y, 1e-6)
    assert np.mean(np.abs(w[x].sum(axis=1) - y)) < 0.01 * np.mean(np.abs(y))
    assert np.all(w[np.setdiff1d(np.arange(patterns.STAGE_SIZE), used)] == 0)
