"""``python -m bench.ladder`` runs: the shipped ladder of a game, its costs and one reviewed game a rung."""

from __future__ import annotations

import pytest

from bench import ladder
from service.games import LEVELS


def test_the_ladder_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert ladder.main(["--games", "kalah", "--positions", "2", "--reviews", "0"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {name} " in out for name in LEVELS["kalah"].ladder)
    assert "ladder targets:" in out and "against greedy" in out


def test_review_games_pair_each_rung_with_its_neighbours() -> None:
    rungs = list(LEVELS["kalah"].ladder)
    tasks = ladder.review_tasks("kalah", 4)
    assert len(tasks) == 4 * len(rungs)
    for k, name in enumerate(rungs):
        mine = tasks[4 * k : 4 * k + 4]
        assert all(name in (task[1], task[2]) for task in mine)
        assert {task[1] for task in mine} - {name} and {task[2] for task in mine} - {name}  # both seats
        assert all(task[4] == ladder.REVIEW_SEED for task in mine)


@pytest.mark.slow  # every position of a game searched by the judge, one a rung
def test_a_reviewed_game_rates_its_seats(capsys: pytest.CaptureFixture[str]) -> None:
    assert ladder.main(["--games", "kalah", "--positions", "2", "--reviews", "1", "--workers", "1"]) == 0
    assert "median absolute error" in capsys.readouterr().out
