"""The ladder's measurement (``service/learn/ladder.py``) with known numbers: the Bradley–Terry fit on the Elo
scale, the Wilson interval, the performance calibration, the anchors, a tiny run end to end and the pages it
writes."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from service.games import BY_ID, GAMES, LEVELS
from service.learn import ladder as fit_ladder
from service.learn.ladder import Result, anchor_move, calibrate, fit, page_section, wilson
from service.levels import ladder, performance


def _games(a: str, b: str, wins: float, count: int) -> list[Result]:
    """``count`` games of ``a`` against ``b``, ``a`` scoring ``wins`` (halves are draws)."""
    out = []
    whole, half = int(wins), wins - int(wins)
    for k in range(count):
        score = 1.0 if k < whole else 0.5 if (k == whole and half) else 0.0
        out.append(Result(a, b, score, "", (), (0.0, 0.0), (0, 0)))
    return out


def test_three_to_one_is_191_points() -> None:
    # 74.5 of 99 and the virtual draw: 75 of 100, odds 3:1, so 400·log10(3) = 190.85 points; the standard error is
    # that of a share 0.75 over 100 games on the logit, 1/sqrt(100·0.75·0.25), in Elo points.
    fitted = fit(_games("strong", "random", 74.5, 99))
    rating, error = fitted["strong"]
    assert rating == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert error == pytest.approx(fit_ladder.ELO / math.sqrt(100 * 0.75 * 0.25), rel=1e-6)
    assert fitted["random"] == (0.0, 0.0)


def test_a_chain_of_even_steps_adds_up() -> None:
    results = _games("a", "random", 74.5, 99) + _games("b", "a", 74.5, 99)
    fitted = fit(results)
    assert fitted["b"][0] == pytest.approx(2 * 400 * math.log10(3), abs=1e-6)
    assert fitted["b"][1] > fitted["a"][1]  # further from the anchor, less certain


def test_a_pair_that_never_lost_stays_finite() -> None:
    assert math.isfinite(fit(_games("perfect", "random", 50, 50))["perfect"][0])


def test_wilson_interval() -> None:
    assert wilson(0.5, 100) == (0.4038, 0.5962)
    assert wilson(1.0, 20) == (0.8389, 1.0)


def test_calibration_counts_each_rungs_moves_by_band() -> None:
    rows = [("r1", [0.0, 0.3, 0.01]), ("r1", [0.5]), ("r2", [0.0, 0.0]), ("greedy", [0.9])]
    found = calibrate(rows, ["r1", "r2"])
    assert found["bands"] == list(performance.LOSS_BANDS)
    assert found["counts"] == {"r1": [1, 0, 1, 0, 0, 0, 2], "r2": [2, 0, 0, 0, 0, 0, 0]}
    assert found["seats"] == {"r1": 2, "r2": 1}


def test_the_band_model_fits_each_rungs_counts() -> None:
    # Two rungs: a model linear in the rating has as many coefficients as the two rungs' frequencies, so it gives
    # each rung its own frequencies back (after the prior of half a count a band; the ridge moves them by < 0.001).
    careful, careless = [70, 5, 5, 5, 5, 5, 5], [35, 5, 5, 5, 5, 5, 40]
    model = performance.Performance.fit((1000.0, 0.0), (careful, careless))
    for rating, counts in ((1000.0, careful), (0.0, careless)):
        prior = [c + performance.BAND_PRIOR for c in counts]
        assert model.chances(rating) == pytest.approx([c / sum(prior) for c in prior], abs=1e-3)
    assert sum(model.chances(500.0)) == pytest.approx(1.0)
    for ratings, counts in (((1000.0,), (careful,)), ((1000.0, 1000.0), (careful, careless)), ((0.0, 1.0), (careful,))):
        with pytest.raises(ValueError, match="band model"):
            performance.Performance.fit(ratings, counts)


def test_a_performance_rating_reads_the_moves() -> None:
    model = performance.Performance.fit((1000.0, 0.0), ([70, 5, 5, 5, 5, 5, 5], [35, 5, 5, 5, 5, 5, 40]))
    assert (model.low, model.high) == (-performance.MARGIN, 1000.0 + performance.MARGIN)
    one = model.rating([0.0])
    assert one.low < one.value < one.high  # one move says little
    # 2,000 moves in the bands as the model's chances at 1000: that rating, with a narrow interval.
    in_band = (0.0, 0.003, 0.01, 0.03, 0.07, 0.15, 0.5)  # one loss in each band
    mix = [
        loss for loss, chance in zip(in_band, model.chances(1000.0), strict=True) for _ in range(round(2000 * chance))
    ]
    seen = model.rating(mix)
    assert seen.value == pytest.approx(1000.0, abs=2 * performance.STEP)
    assert seen.high - seen.low < one.high - one.low
    # Never a blunder, many moves: past the careful rung, within the margin (a posterior over the rungs alone
    # stops at 1000); blunders only: past the careless one.
    assert 1000.0 < model.rating([0.0] * 200).value <= 1000.0 + performance.MARGIN
    assert -performance.MARGIN <= model.rating([0.5] * 50).value < 0.0
    assert performance.band(0.0) == 0 and performance.band(0.005) == 1 and performance.band(0.0051) == 2
    assert performance.band(0.9) == 6


def test_the_models_own_seats_lose_in_its_bands_and_read_back_their_rating() -> None:
    model = performance.Performance.fit((1000.0, 0.0), ([70, 5, 5, 5, 5, 5, 5], [35, 5, 5, 5, 5, 5, 40]))
    drawn = model.draw(1000.0, 4000, random.Random(1))
    shares = [sum(performance.band(loss) == k for loss in drawn) / len(drawn) for k in range(performance.BANDS)]
    assert shares == pytest.approx(model.chances(1000.0), abs=0.02)  # about 4 standard errors of the largest
    assert model.draw(1000.0, 50, random.Random(2)) == model.draw(1000.0, 50, random.Random(2))  # seeded
    assert model.rating(model.draw(0.0, 2000, random.Random(3))).value == pytest.approx(0.0, abs=50.0)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_greedy_leaves_the_best_score_margin(game_id: str) -> None:
    position = GAMES[game_id].new_position({}, "greedy")
    seat = position.to_move

    def margin(move: object) -> int:
        scores = position.play(move).scores()
        return scores[seat - 1] - scores[2 - seat]

    best = max(margin(move) for move in position.search_moves())
    for seed in range(4):
        assert margin(anchor_move("greedy", position, random.Random(seed))) == best
        assert anchor_move("random", position, random.Random(seed)) is not None


def _tiny_run(out: Path, reviewed: int) -> dict:
    args = ["--games", "kalah", "--pairs", "1", "--reviewed", str(reviewed), "--workers", "1", "--out-dir", str(out)]
    assert fit_ladder.main(args) == 0
    return json.loads((out / "kalah.json").read_text())


def test_a_tiny_run_writes_every_rung_and_its_page(tmp_path: Path) -> None:
    record = _tiny_run(tmp_path, 0)
    levels = LEVELS["kalah"]
    assert set(levels.ladder) | {"random", "greedy"} <= set(record["ratings"])
    assert record["ratings"]["random"]["rating"] == 0.0
    steps = len(levels.ladder) - 1
    assert [row["high"] for row in record["pairs"][4 : 4 + steps]] == list(levels.ladder[1:])
    assert all(row["games"] == 2 for row in record["pairs"][: 4 + steps])
    assert record["performance"] is None  # nothing reviewed
    section = page_section(record)
    assert all(f"| `{name}` |" in section for name in levels.ladder)


@pytest.mark.slow  # the judge searches every position of 7 games: minutes on a busy box
def test_a_tiny_run_calibrates_the_performance_rating(tmp_path: Path) -> None:
    performance = _tiny_run(tmp_path, 1)["performance"]
    assert sum(performance["seats"].values()) > 2 and performance["reviewed_games"] == len(LEVELS["kalah"].ladder) - 1


@pytest.mark.parametrize("game_id", sorted(game_id for game_id in LEVELS if LEVELS[game_id].ladder))
def test_each_games_page_shows_its_shipped_ladder(game_id: str) -> None:
    record = json.loads(ladder.path_of(game_id).read_text())
    page = BY_ID[game_id].page.read_text()
    assert page_section(record) in page, f"run python -m service.learn.ladder --pages --games {game_id}"


def test_a_calibration_file_is_read_or_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ladder, "DATA", tmp_path)
    ratings = {"a": {"rating": 0.0, "low": -50.0, "high": 50.0}, "b": {"rating": 400.0, "low": 350.0, "high": 450.0}}
    good = {"bands": list(performance.LOSS_BANDS), "counts": {"a": [5, 1, 1, 1, 1, 1, 5], "b": [9, 1, 1, 1, 1, 1, 1]}}
    cases = [
        (None, None),  # no file: no calibration
        ({"ratings": ratings}, None),  # measured, never calibrated
        ({"ratings": ratings, "performance": good}, "model"),
        ({"ratings": ratings, "performance": {**good, "bands": [0.1]}}, "bands"),
        ({"ratings": ratings, "performance": {**good, "counts": {"a": [1, 2], "b": [1, 2]}}}, "7 counts"),
        ({"ratings": ratings, "performance": {**good, "counts": {"a": [-1, 1, 1, 1, 1, 1, 1], "b": [1] * 7}}}, "0 or"),
        ({"ratings": ratings, "performance": {**good, "counts": {"a": [1] * 7}}}, "two rungs"),
    ]
    for k, (content, expected) in enumerate(cases):
        game_id = f"made-up-{k}"
        if content is not None:
            (tmp_path / f"{game_id}.json").write_text(json.dumps(content))
        if expected in (None, "model"):
            found = performance.performance(game_id)
            assert (found is None) == (expected is None)
        else:
            with pytest.raises(ValueError, match=f"{game_id}.json.*{expected}|{expected}.*make fit-ladder"):
                performance.performance(game_id)
