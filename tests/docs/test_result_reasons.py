"""One result vocabulary everywhere: for finished games of every kind (each win reason and every draw), the
engine's Outcome and the service's Score answer the same ``reason``, the game's page names it, and docs/api.md
defines it (a game kept outside the tree: its own page)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamerules.v1 import gamerules_pb2 as pb
from service.games import BY_ID, GAMES, REGISTRATIONS

API_GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api.md"

# (game, a finished position, its winner (0: a draw), the reason): each game's registration declares its own
# (``checks.finished``: one of every way it ends); a game that declares none skips, saying so.
FINISHED = [
    pytest.param(game.id, done.position, done.winner, done.reason, id=f"{game.id}-{done.reason}")
    for game in REGISTRATIONS
    for done in game.checks.finished
] + [
    pytest.param(
        game.id,
        "",
        0,
        "",
        id=game.id,
        marks=pytest.mark.skip(reason=f"{game.id} declares no finished positions (its checks.finished)"),
    )
    for game in REGISTRATIONS
    if not game.checks.finished
]


def documented(reason: str) -> bool:
    """Whether the API guide's result table has a row for ``reason``."""
    return any(line.startswith(f"| `{reason}` |") for line in API_GUIDE.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize(("game", "notation", "winner", "reason"), FINISHED)
def test_engine_service_and_docs_say_the_same_reason(stub, game, notation, winner, reason) -> None:
    outcome = GAMES[game].parse_position(notation).outcome()
    assert outcome is not None and (outcome.winner, outcome.reason) == (winner, reason)
    score = stub.Score(pb.ScoreRequest(game=game, position=pb.Position(notation=notation)), timeout=10)
    assert score.game_over and score.reason == reason and score.detail == outcome.detail
    assert score.winner == winner if winner else not score.HasField("winner")
    # The game's page names the reasons its games end with; the API guide defines every word of the shared
    # vocabulary, and a game kept outside the tree defines its own words on its page.
    page = BY_ID[game].page
    assert f"`{reason}`" in page.read_text(encoding="utf-8"), f"{page.name} does not name the reason {reason!r}"
    if page.is_relative_to(API_GUIDE.parent):
        assert documented(reason), f"docs/api.md has no row for the result reason {reason!r}"
