"""The rated ladder from the Python clients and the ``gamerules`` command (docs/api.md: Rated ladder): a bot asked
by ``rating`` (sync, asyncio, BestMove and AnalyzePosition; ``--rating`` on ``best`` and ``play``) answers the rung
the server chose, the games' listing shows each level's rating, and a review prints each seat's performance
rating. Generic over the registry; the numbers come from the shipped ratings."""

from __future__ import annotations

import asyncio
import io
import re

import pytest

import gamerules_client as gc
from gamerules_client import cli
from service.games import GAMES, LEVELS
from service.levels import performance

RATED = sorted(game_id for game_id, levels in LEVELS.items() if any(levels.rating(name) for name in levels.ladder))
UNRATED = sorted(set(LEVELS) - set(RATED))


def run(grpc_address: str, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(["--target", grpc_address, *argv], stdin=io.StringIO(), stdout=out)
    return code, out.getvalue()


def weakest(game_id: str) -> tuple[int, str]:
    """A whole rating the weakest measured rung is nearest to, and that rung."""
    levels = LEVELS[game_id]
    value = min(found.value for name in levels.ladder if (found := levels.rating(name)) is not None)
    return round(value), levels.rated(round(value))


def start(game_id: str) -> str:
    return GAMES[game_id].new_position().to_notation()


@pytest.mark.parametrize("game_id", RATED or [pytest.param("none", marks=pytest.mark.skip("no ladder is measured"))])
def test_the_clients_ask_by_rating(grpc_address, game_id):
    rating, rung = weakest(game_id)
    with gc.GameRulesClient(grpc_address) as client:
        answer = client.best_move(game_id, start(game_id), rating=rating, max_nodes=300, seed="1")
        assert answer.level == rung
        updates = list(client.analyze_position(game_id, start(game_id), rating=rating, max_nodes=300, purpose="play"))
        assert updates[-1].final and updates[-1].analysis.level == rung
        with pytest.raises(gc.InvalidArgumentError) as refused:
            client.best_move(game_id, start(game_id), "hard", rating=rating)
        assert refused.value.fields == ["rating"]

    async def asynchronously() -> str:
        async with gc.AsyncGameRulesClient(grpc_address) as client:
            found = await client.best_move(game_id, start(game_id), rating=rating, max_nodes=300, seed="1")
            return found.level

    assert asyncio.run(asynchronously()) == rung


def test_rating_zero_is_sent_and_none_is_not(grpc_address):
    """0 is a rating (the random mover's); None leaves the choice to the level (the default)."""
    from gamerules_client import _requests as rq
    from gamerules_client._stubs import pb

    asked = rq.search(pb.BestMoveRequest, "kalah", "x", "", max_time_ms=0, max_depth=0, max_nodes=0, seed="", top_n=0)
    assert not asked.HasField("rating")
    zero = rq.search(
        pb.BestMoveRequest, "kalah", "x", "", max_time_ms=0, max_depth=0, max_nodes=0, seed="", top_n=0, rating=0
    )
    assert zero.HasField("rating") and zero.rating == 0


@pytest.mark.parametrize(
    "game_id", UNRATED or [pytest.param("none", marks=pytest.mark.skip("every ladder is measured"))]
)
def test_a_game_without_a_measured_ladder_refuses_a_rating(grpc_address, game_id):
    with gc.GameRulesClient(grpc_address) as client, pytest.raises(gc.InvalidArgumentError) as refused:
        client.best_move(game_id, start(game_id), rating=1000)
    assert refused.value.reason == "UNKNOWN_LEVEL" and refused.value.fields == ["rating"]


def test_the_cli_lists_each_levels_rating(grpc_address):
    code, out = run(grpc_address, "games")
    lines = out.splitlines()
    assert code == 0
    for game_id, levels in LEVELS.items():
        heading = next(i for i, line in enumerate(lines) if line.startswith(f"{game_id}: "))
        listed = next(line for line in lines[heading:] if line.startswith("  levels: "))
        for level in levels.levels:
            rating = levels.rating(level.name)
            assert (f"{level.name} ({rating.value:.0f}" if rating is not None else level.name) in listed
    game_id = next(iter(LEVELS))
    levels = LEVELS[game_id]
    code, out = run(grpc_address, "games", game_id)
    assert code == 0
    for place, name in enumerate(levels.ladder, start=1):
        row = next(row for row in out.splitlines() if row.startswith(f"  level {name}"))
        assert f"rung {place}" in row
        rating = levels.rating(name)
        if rating is not None:
            assert f"rating {rating.value:.0f} ({rating.low:.0f} to {rating.high:.0f})" in row


@pytest.mark.parametrize("game_id", RATED or [pytest.param("none", marks=pytest.mark.skip("no ladder is measured"))])
def test_the_cli_best_and_play_by_rating(grpc_address, game_id):
    rating, rung = weakest(game_id)
    code, out = run(grpc_address, "best", game_id, "start", "--rating", str(rating), "--max-nodes", "300")
    assert code == 0 and f"level {rung} " in out
    code, out = run(grpc_address, "best", game_id, "start", "--rating", str(rating), "--level", "hard")
    assert code == 1
    code, out = run(grpc_address, "play", game_id, "--auto", "--rating", str(rating), "--seed", "1")
    plays = [line for line in out.splitlines() if re.search(r"seat \d\)? plays ", line)]
    assert code == 0 and plays and all(line.endswith(f"({rung})") for line in plays)


def test_the_cli_review_prints_each_seats_performance_rating(grpc_address):
    game_id = sorted(LEVELS)[0]
    position, moves = GAMES[game_id].new_position(), []
    for _ in range(4):
        move = position.legal_moves()[0]
        moves.append(position.move_notation(move))
        position = position.play(move)
    code, out = run(grpc_address, "review", game_id, "start", *moves, "--max-depth", "2")
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("seat ")]
    assert len(rows) == 2
    if performance.performance(game_id) is None:
        assert all("performance rating" not in row for row in rows)
    else:
        rated = [re.search(r"performance rating (-?\d+) \((-?\d+) to (-?\d+)\)", row) for row in rows]
        for found in filter(None, rated):
            low, value, high = int(found[2]), int(found[1]), int(found[3])
            assert low <= value <= high
        assert any(rated)
