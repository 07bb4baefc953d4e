"""``bench/level_cost.py`` runs and prints a row per level of the game it measures, with the goal judged."""

from __future__ import annotations

from bench import level_cost
from service.games import GAMES, LEVELS


def test_the_level_cost_benchmark_runs(capsys) -> None:
    assert level_cost.main(["--positions", "2", "--games", "kalah"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("kalah ")]
    assert [row.split()[1] for row in rows] == [level.name for level in LEVELS["kalah"].levels]
    assert all(row.endswith("cap)") and (" met " in row or " missed " in row) for row in rows)


def test_sample_positions_are_spread_over_one_game() -> None:
    positions = level_cost.sample_positions("reversi", 4, seed=3)
    assert len(positions) == 4 and all(position.to_move for position in positions)
    assert positions[0].to_notation() == GAMES["reversi"].new_position({}, "").to_notation()
    assert len({position.to_notation() for position in positions}) == 4
