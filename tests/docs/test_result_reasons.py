"""One result vocabulary everywhere: for finished games of every kind (each win reason and every draw), the
engine's Outcome and the service's Score answer the same ``reason``, and docs/api.md lists it for that game."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamerules.v1 import gamerules_pb2 as pb
from service.games import GAMES

API_GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api.md"

# (game, a finished position, its winner (0: a draw), the reason)
FINISHED = [
    ("reversi", "BBBB/BBBB/BBBB/BBBW - black=1", 1, "discs"),
    ("reversi", "BBBB/BBBB/WWWW/WWWW - black=1", 0, "draw"),
    ("kalah", "0,0,0,0,0,0,25/0,0,0,0,0,0,23 - seeds=4", 1, "seeds"),
    ("kalah", "0,0,0,0,0,0,24/0,0,0,0,0,0,24 - seeds=4", 0, "draw"),
    ("dots-and-boxes", "+-+-+/|A|A|/+-+-+ -", 1, "boxes"),
    ("dots-and-boxes", "+-+-+/|A|B|/+-+-+ -", 0, "draw"),
    ("petak-sawah", "112/212 - opener=1", 1, "points"),
    ("petak-sawah", "1221/2112/1212 - opener=1", 1, "largest_group"),
    ("petak-sawah", "111/222 - opener=1", 2, "non_opener"),
    ("strands", "22/232/22 BB/BBW/WW - exact=0", 1, "group_sizes"),
]


def documented_games(reason: str) -> str:
    """The games column of the reason's row in the API guide's result table."""
    for line in API_GUIDE.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"| `{reason}` |"):
            return line.split("|")[2]
    raise AssertionError(f"docs/api.md has no row for the result reason {reason!r}")


@pytest.mark.parametrize(("game", "notation", "winner", "reason"), FINISHED)
def test_engine_service_and_docs_say_the_same_reason(stub, game, notation, winner, reason) -> None:
    outcome = GAMES[game].parse_position(notation).outcome()
    assert outcome is not None and (outcome.winner, outcome.reason) == (winner, reason)
    score = stub.Score(pb.ScoreRequest(game=game, position=pb.Position(notation=notation)), timeout=10)
    assert score.game_over and score.reason == reason and score.detail == outcome.detail
    assert score.winner == winner if winner else not score.HasField("winner")
    assert GAMES[game].title.split(" (")[0] in documented_games(reason)
