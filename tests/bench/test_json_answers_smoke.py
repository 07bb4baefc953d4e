"""``bench/json_answers.py`` runs, and its two writers agree on every answer it times (it fails otherwise)."""

from __future__ import annotations

from bench import json_answers


def test_the_json_benchmark_runs_and_both_writers_agree(capsys) -> None:
    assert json_answers.main(["--number", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [row.split("  ")[0].strip() for row in rows] == [name for name, _ in json_answers.answers()]
