"""The win-chance models (``service/levels/winchance.py``) and their fitter (``service/learn/winchance.py``):
every game ships a model that reads as a chance, and a tiny fit writes a file the loader reads."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from service.games import BUILT_IN, GAMES, LEVELS
from service.learn import winchance as learn
from service.levels import winchance

STAGES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
VALUES = (-40.0, -10.0, -3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 10.0, 40.0)


def test_the_fitter_knows_every_registered_game() -> None:
    assert learn.GAMES == GAMES and learn.LEVELS == LEVELS


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_game_ships_a_model_that_loads(game_id: str) -> None:
    model = winchance.model(game_id)
    assert model.game_id == game_id
    record = json.loads(winchance.path_of(game_id).read_text())
    # The service's own games by a command of the project (``learn.COMMAND``, or a game's own fitter beside it
    # where self-play leaves nothing to fit); a game from outside the tree names its own command.
    own = game_id in {registration.id for registration in BUILT_IN}
    assert record["command"].startswith("python -m service.learn." if own else "python -m ")
    assert record["sample"]["held_out_positions"] > 0
    assert "/" not in record["command"].replace("python -m service.learn.winchance", "")


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_chance_rises_with_the_value_at_every_stage(game_id: str) -> None:
    model = winchance.model(game_id)
    for stage in STAGES:
        chances = [model.chance(value, stage) for value in VALUES]
        inner = chances[2:-2]  # a lead of 10 points at the end may round to 0 or 1 in doubles
        assert all(0.0 < c < 1.0 for c in inner), (stage, chances)
        assert all(a < b for a, b in itertools.pairwise(inner)), (stage, chances)
        assert all(a <= b for a, b in itertools.pairwise(chances)), (stage, chances)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_proved_value_is_the_result(game_id: str) -> None:
    model = winchance.model(game_id)
    for stage in STAGES:
        assert model.chance(3.0, stage, exact=True) == 1.0
        assert model.chance(0.0, stage, exact=True) == 0.5
        assert model.chance(-0.5, stage, exact=True) == 0.0


def test_the_loader_refuses_a_malformed_file_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(winchance, "DATA", tmp_path)
    load = winchance.model.__wrapped__  # the uncached loader: the shipped models stay cached as they are
    cases = {
        "missing": None,
        "not-json": "{",
        "no-model": json.dumps({"command": "x"}),
        "short": json.dumps({"model": {"offset": [0.1], "slope": [1, 2, 3]}}),
        "not-finite": json.dumps({"model": {"offset": [0, 0], "slope": [1, "nan", 3]}}),
        "not-numbers": json.dumps({"model": {"offset": [0, 0], "slope": [1, "two", 3]}}),
    }
    for name, text in cases.items():
        if text is not None:
            (tmp_path / f"{name}.json").write_text(text)
        with pytest.raises(ValueError, match=f"{name}.json"):
            load(name)


def test_the_fit_recovers_a_known_curve() -> None:
    """Targets drawn from a known model are fitted back close to it, and the stage-less fit does worse."""
    rng = np.random.default_rng(1)
    n = 40_000
    stages = rng.random(n)
    values = rng.normal(0, 8, n)
    truth = np.array([0.1, -0.2, 0.6, -0.5, 0.05])
    chance = learn.sigmoid(learn.features(stages, values) @ truth)
    scores = (rng.random(n) < chance).astype(float)
    fitted = learn.fit_logistic(learn.features(stages, values), scores)
    assert np.allclose(fitted, truth, atol=0.08), fitted
    flat = learn.fit_logistic(learn.features(stages, values, staged=False), scores)
    staged_loss = learn.log_loss(learn.sigmoid(learn.features(stages, values) @ fitted), scores)
    flat_loss = learn.log_loss(learn.sigmoid(learn.features(stages, values, staged=False) @ flat), scores)
    assert staged_loss < flat_loss


def test_a_tiny_fit_writes_a_file_the_loader_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four games between Reversi's two cheapest levels (one held out): a file with its command, its sample
    and its fit, which the service's loader reads."""
    argv = ["--games", "reversi", "--rounds", "1", "--levels", "beginner", "corner_hunter", "--out-dir", str(tmp_path)]
    assert learn.main(argv) == 0
    record = json.loads((tmp_path / "reversi.json").read_text())
    assert (
        record["command"]
        == "python -m service.learn.winchance --games reversi --rounds 1 --levels beginner corner_hunter"
    )
    sample = record["sample"]
    assert sample["games"] == 4 and sample["held_out_games"] == 1
    assert sample["pairings"] == {
        f"{a}-{b}": 1 for a in ("beginner", "corner_hunter") for b in ("beginner", "corner_hunter")
    }
    assert sample["positions"] > 0 and sample["proved_skipped"] > 0
    assert {"train", "held_out", "stageless_held_out"} <= set(record["fit"]["log_loss"])
    assert len(record["fit"]["calibration"]) == learn.BINS
    monkeypatch.setattr(winchance, "DATA", tmp_path)
    model = winchance.model.__wrapped__("reversi")
    assert model.to_json() == record["model"]
    assert 0.0 < model.chance(2.0, 0.5) < 1.0
