"""Reversi's training pipeline (``service/learn/reversi.py``): a tiny run reproduces its weights file bit for
bit, and its fit does what least squares should (an exactly representable target is recovered)."""

from __future__ import annotations

import array
import dataclasses
import os
import random
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from service.core.values import Limits
from service.engines.reversi import patterns
from service.learn import reversi as learn
from service.levels.reversi_learned import PatternEvaluation
from service.search import search


def test_a_tiny_training_run_is_reproducible_bit_for_bit(tmp_path: Path) -> None:
    """Twice the same file, whether one process labels the positions or two do."""
    config = learn.CONFIGS["tiny"]
    files = []
    for run, workers in enumerate((1, 2)):
        path = tmp_path / f"run{run}.bin.gz"
        patterns.dump_weights(path, learn.train(config, log=lambda _: None, workers=workers), config.record())
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


@pytest.mark.slow  # a training run of its own (the fast suite keeps the bit-for-bit one)
def test_the_second_pass_fits_each_stage_with_its_neighbours() -> None:
    """``smooth``: the same labels, a different fit; without it the table is the first pass's alone."""
    tiny = learn.CONFIGS["tiny"]
    assert tiny.smooth == 1
    alone = learn.train(dataclasses.replace(tiny, smooth=0), log=lambda _: None)
    smoothed = learn.train(tiny, log=lambda _: None)
    size = patterns.STAGE_SIZE
    stages = [slice(s * size, (s + 1) * size) for s in range(patterns.STAGES)]
    changed = [s for s, part in enumerate(stages) if alone[part] != smoothed[part]]
    assert len(changed) >= patterns.STAGES - 1, changed


def test_the_prior_keeps_a_neighbours_weight_where_the_positions_say_nothing() -> None:
    """With a prior the ridge pulls towards it: a configuration no position shows keeps the prior's weight
    (zero without one), and a shown one moves from it towards what the labels ask."""
    rng = random.Random(2)
    positions = learn.self_play(10, rng)
    canonical = learn.canonical_map()
    x = learn.features(positions, canonical)
    labelled = [learn.Labelled(x, np.full(len(positions), 3.0), np.zeros(len(positions)))]
    prior = np.full(patterns.STAGE_SIZE, 1.0)
    size = patterns.STAGE_SIZE
    fitted = {}
    for name, given in (("none", None), ("prior", prior)):
        table = array.array("h", bytes(2 * patterns.TABLE_SIZE))
        learn._fit_stage(table, 1, labelled, 8.0, canonical, given)
        fitted[name] = np.array(table[size : 2 * size])
    unseen = np.setdiff1d(np.unique(canonical), np.unique(x))
    assert np.all(fitted["none"][unseen] == 0)
    assert np.all(fitted["prior"][unseen] == patterns.SCALE)  # 1 disc, in 1/SCALE disc
    seen = np.unique(x)
    assert not np.array_equal(fitted["prior"][seen], np.full(len(seen), patterns.SCALE))
    # each position sums 47 weights of about 1 disc from the prior: the fit takes them down towards 3 in all
    estimate = fitted["prior"][x].sum(axis=1) / patterns.SCALE
    assert np.mean(np.abs(estimate - 3.0)) < 0.1 * np.mean(np.abs(prior[x].sum(axis=1) - 3.0))


@pytest.mark.slow  # a training run of its own (the fast suite keeps the bit-for-bit one)
def test_the_prior_changes_the_table() -> None:
    """``prior`` on (every configuration) or off: the same labels, a different fit."""
    tiny = learn.CONFIGS["tiny"]
    assert tiny.prior
    assert learn.train(tiny, log=lambda _: None) != learn.train(
        dataclasses.replace(tiny, prior=False), log=lambda _: None
    )


def test_a_paired_label_is_the_mean_of_two_depths() -> None:
    """The mean of the searches 3 and 2 plies deep, each the search's own value (Python search: the same as
    the native one, which the labels use when the table is handed to it)."""
    positions = [p for p in learn.self_play(3, random.Random(4)) if p.empties() == 45]
    position = positions[0]
    evaluate = PatternEvaluation(array.array("h", bytes(2 * patterns.TABLE_SIZE)))
    deep, shallow = (search(position, Limits(max_depth=d), evaluate=evaluate).value for d in (3, 2))
    assert learn.search_label(position, 3, evaluate, paired=False) == deep
    assert learn.search_label(position, 3, evaluate, paired=True) == (deep + shallow) / 2
    assert deep != shallow, "a position where the depths differ"


def test_paired_labels_are_the_same_from_two_workers() -> None:
    """Searched labels 3 plies deep, paired, from one process and from two: the same values."""
    positions = [p for p in learn.self_play(4, random.Random(5)) if 30 <= p.empties() <= 40]
    config = dataclasses.replace(learn.CONFIGS["tiny"], search_depths=(3,) * patterns.STAGES)
    evaluate = PatternEvaluation(array.array("h", bytes(2 * patterns.TABLE_SIZE)))
    alone = learn.labels(positions, config, 5, evaluate, workers=1)
    assert np.array_equal(alone, learn.labels(positions, config, 5, evaluate, workers=2))
    assert len(set(alone)) > 1


def test_a_worker_that_dies_ends_the_run_with_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a wait for ever: the pool reports the lost worker."""
    monkeypatch.setattr(learn, "_label_slice", lambda job, begin, end: os._exit(3))  # runs in the forked workers
    positions = learn.self_play(1, random.Random(6))[:8]
    evaluate = PatternEvaluation(array.array("h", bytes(2 * patterns.TABLE_SIZE)))
    with pytest.raises(BrokenProcessPool):
        learn.labels(positions, learn.CONFIGS["tiny"], 5, evaluate, workers=2)


@pytest.mark.slow  # a training run of its own (the fast suite keeps the bit-for-bit one)
def test_the_command_changes_the_configuration_and_records_it(tmp_path: Path) -> None:
    """``--no-paired --smooth 0 --no-prior`` and the sizes: the tiny run changed so, its header saying so, the
    table the train's."""
    out = tmp_path / "w.bin.gz"
    flags = ["--no-paired", "--smooth", "0", "--no-prior", "--games", "30", "--per-stage", "50", "--exact-empties", "7"]
    assert learn.main(["--config", "tiny", *flags, "--out", str(out)]) == 0
    weights = patterns.load_weights(out)
    changed = dataclasses.replace(
        learn.CONFIGS["tiny"], paired=False, smooth=0, prior=False, games=30, per_stage=50, exact_empties=7
    )
    assert weights.header["trained"] == changed.record()
    assert weights.table == learn.train(changed, log=lambda _: None)


class Stop(Exception):
    """A run stopped after a stage (as a stopped ``make train-reversi`` is)."""


@pytest.mark.slow  # a training run of its own (the fast suite keeps the bit-for-bit one)
def test_a_stopped_run_continues_from_its_labels_to_the_same_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped after stage 4, the run kept the labels of stages 0-4; run again with the file, it labels only
    stages 5-9 and ends with the table of a run that never stopped."""
    config = learn.CONFIGS["tiny"]
    kept = tmp_path / "labels.npz"

    def stop_after_4(stage: int, table: array.array[int]) -> None:
        if stage == 4:
            raise Stop

    with pytest.raises(Stop):
        learn.train(config, log=lambda _: None, on_stage=stop_after_4, kept=kept)
    assert len(learn.read_labels(kept, config)) == 5
    labelled: list[int] = []
    real = learn.labels

    def counted(group: list[Any], cfg: learn.Config, stage: int, *rest: Any) -> np.ndarray:
        labelled.append(stage)
        return real(group, cfg, stage, *rest)

    monkeypatch.setattr(learn, "labels", counted)
    continued = learn.train(config, log=lambda _: None, kept=kept)
    assert labelled == [5, 6, 7, 8, 9]
    monkeypatch.setattr(learn, "labels", real)
    assert continued == learn.train(config, log=lambda _: None)
    # the second pass takes the labels as they are: another reach uses the same file
    assert learn.read_labels(kept, dataclasses.replace(config, smooth=0))[9].labels.size > 0


@pytest.mark.slow  # a training run of its own (the fast suite keeps the bit-for-bit one)
def test_labels_of_another_configuration_or_other_positions_are_refused(tmp_path: Path) -> None:
    """A file of labels made with other labelling settings, or for other positions, is not taken in silence;
    the command deletes its file once the weights are written."""
    config = learn.CONFIGS["tiny"]
    kept = tmp_path / "labels.npz"
    out = tmp_path / "w.bin.gz"
    assert learn.main(["--config", "tiny", "--out", str(out), "--labels", str(kept)]) == 0
    assert out.exists() and not kept.exists()
    learn.keep_labels(kept, config, [learn.Kept("not these positions", np.array([1.0, 0.5]))])
    with pytest.raises(ValueError, match="another configuration"):
        learn.read_labels(kept, dataclasses.replace(config, exact_empties=7))
    assert [list(part.labels) for part in learn.read_labels(kept, config)] == [[1.0, 0.5]]
    with pytest.raises(ValueError, match="other positions"):
        learn.train(config, log=lambda _: None, kept=kept)
