"""ReviewGame over gRPC, as newline-delimited JSON and as Server-Sent Events, and from the Python client and the
CLI: one message per ply in order, then the summary; the moves are checked before any search; a deadline that
cannot cover every ply leaves the rest unreviewed, counted, and the stream still ends with its summary."""

from __future__ import annotations

import asyncio
import io
import json

import grpc
import pytest
from google.protobuf import struct_pb2

from gamerules.v1 import gamerules_pb2 as pb
from gamerules_client import AsyncGameRulesClient, GameRulesClient
from gamerules_client.cli import main as cli
from service.levels.review import JUDGEMENTS
from tests.api.test_analyze import post_stream
from tests.api.test_grpc import fails

OPENING = ["f5", "d6", "c3", "d3", "c4", "f4"]
JUDGED = set(JUDGEMENTS)


def request(moves: list[str], **fields: object) -> pb.ReviewGameRequest:
    return pb.ReviewGameRequest(game="reversi", moves=[pb.Move(notation=move) for move in moves], **fields)


def planned(
    stub, message: pb.ReviewGameRequest, timeout: float = 60
) -> tuple[pb.ReviewPlan, list[pb.PlyReview], pb.ReviewSummary]:
    """The stream's plan (first), plies (in between) and summary (last)."""
    answers = list(stub.ReviewGame(message, timeout=timeout))
    assert answers[0].HasField("plan") and answers[-1].HasField("summary")
    assert all(answer.HasField("ply") for answer in answers[1:-1])
    return answers[0].plan, [answer.ply for answer in answers[1:-1]], answers[-1].summary


def reviewed(stub, message: pb.ReviewGameRequest, timeout: float = 60) -> tuple[list[pb.PlyReview], pb.ReviewSummary]:
    _, plies, summary = planned(stub, message, timeout)
    return plies, summary


def streamed(stub):  # type: ignore[no-untyped-def]
    """ReviewGame as a call the error helpers can make: the stream read to its end."""
    return lambda message, timeout: list(stub.ReviewGame(message, timeout=timeout))


def test_every_ply_in_order_then_the_summary(stub):
    plies, summary = reviewed(stub, request(OPENING))
    assert [ply.ply for ply in plies] == list(range(len(OPENING)))
    assert [ply.seat for ply in plies] == [1, 2] * 3 and [ply.move.notation for ply in plies] == OPENING
    for ply in plies:
        assert ply.reviewed and ply.judgement in JUDGED and ply.loss >= 0 and ply.best_move.notation
        assert ply.HasField("best_value") and ply.HasField("played_value")
        assert ply.loss == max(ply.best_value - ply.played_value, 0) or ply.judgement == "BEST"
        assert bool(ply.pv) == (ply.loss > 0)
    assert summary.level == "expert" and (summary.reviewed_plies, summary.unreviewed_plies) == (6, 0)
    assert [seat.seat for seat in summary.seats] == [1, 2] and all(seat.moves == 3 for seat in summary.seats)
    assert all(seat.HasField("accuracy") and 0 <= seat.accuracy <= 100 for seat in summary.seats)
    assert all(0 <= seat.mean_win_chance_loss <= 1 for seat in summary.seats)
    for ply in plies:
        assert 0 <= ply.win_chance_after <= 1 and 0 <= ply.win_chance_before <= 1
        assert ply.win_chance_loss == pytest.approx(max(ply.win_chance_before - ply.win_chance_after, 0), abs=2e-4)
    for seat in summary.seats:
        counts = seat.counts
        total = counts.best + counts.excellent + counts.good + counts.inaccuracy + counts.mistake + counts.blunder
        assert total == 3


def test_a_game_from_options_and_seed_starts_where_new_game_would(stub):
    options = struct_pb2.Struct()
    options.update({"rows": 6, "cols": 6, "rocks": 4})
    start = stub.NewGame(pb.NewGameRequest(game="petak-sawah", options=options, seed="rocks"), timeout=10)
    moves = stub.LegalMoves(pb.LegalMovesRequest(game="petak-sawah", position=start.position), timeout=10).moves[:1]
    message = pb.ReviewGameRequest(game="petak-sawah", options=options, seed="rocks", moves=moves, level="medium")
    plies, summary = reviewed(stub, message)
    assert plies[0].move.notation == moves[0].notation and summary.level == "medium"


def test_the_moves_are_checked_before_any_search(stub):
    call = streamed(stub)
    fails(call, request(["f5", "f5"]), grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_MOVE", "moves[1]")
    fails(call, request(["f5", "zz"]), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_MOVE", "moves[1].notation")
    fails(call, request([]), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_MOVE", "moves")
    fails(call, request(["f5"], level="grandmaster"), grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_LEVEL", "level")
    fails(call, request(["f5"], limits=pb.SearchLimits(max_time_ms=-1)), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_ARGUMENT", "limits.max_time_ms")  # fmt: skip
    fails(call, pb.ReviewGameRequest(game="chess", moves=[pb.Move(notation="e4")]), grpc.StatusCode.NOT_FOUND,
          "UNKNOWN_GAME")  # fmt: skip


def test_plies_the_deadline_leaves_no_time_for_are_unreviewed_and_the_summary_still_comes(stub):
    """Each ply may search 400 ms; 2 s cannot cover 40 plies, whatever the box's load (more load, more left)."""
    game = stub.NewGame(pb.NewGameRequest(game="reversi"), timeout=10).position
    moves = []
    for _ in range(40):
        move = stub.LegalMoves(pb.LegalMovesRequest(game="reversi", position=game), timeout=10).moves[0]
        game = stub.ApplyMove(pb.ApplyMoveRequest(game="reversi", position=game, move=move), timeout=10).position
        moves.append(move.notation)
    plies, summary = reviewed(stub, request(moves, limits=pb.SearchLimits(max_time_ms=400)), timeout=2)
    done = [ply for ply in plies if ply.reviewed]
    assert len(plies) == 40 and 0 < summary.unreviewed_plies == 40 - len(done)
    assert all(not ply.reviewed and not ply.judgement for ply in plies[len(done) :])


@pytest.mark.parametrize("accept", ["", "text/event-stream"])
def test_over_http_as_a_stream(gateway_url, accept):
    body = {"moves": [{"notation": move} for move in OPENING[:4]]}
    status, content_type, text = post_stream(gateway_url, "/v1/games/reversi:review", body, accept)
    assert status == 200
    if accept:
        assert content_type.startswith("text/event-stream")
        lines = [json.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")]
    else:
        assert content_type == "application/x-ndjson"
        lines = [json.loads(line) for line in text.splitlines()]
    results = [line["result"] for line in lines]
    assert results[0]["plan"]["level"] == "expert" and results[0]["plan"]["enoughTime"] is True
    assert [result["ply"]["move"]["notation"] for result in results[1:-1]] == OPENING[:4]
    assert all(0 <= result["ply"]["winChanceBefore"] <= 1 for result in results[1:-1])
    assert results[-1]["summary"]["reviewedPlies"] == 4 and results[-1]["summary"]["level"] == "expert"


def test_an_illegal_move_over_http_is_a_400_naming_it(gateway_url):
    status, _, text = post_stream(gateway_url, "/v1/games/reversi:review", {"moves": [{"notation": "a1"}]})
    assert status == 400 and "moves[0]" in text


def test_the_python_client_and_the_cli(grpc_address):
    with GameRulesClient(grpc_address) as client:
        answers = list(client.review_game("reversi", OPENING[:2]))
    assert answers[0].HasField("plan") and [answer.ply.move.notation for answer in answers[1:-1]] == OPENING[:2]
    assert answers[-1].summary.reviewed_plies == 2
    out = io.StringIO()
    assert cli(["--target", grpc_address, "review", "reversi", "start", *OPENING[:2]], stdout=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].split()[:4] == ["1.", "seat", "1", "f5"] and lines[2].startswith("seat 1: accuracy")


def test_the_asyncio_client(grpc_address):
    async def review() -> list[pb.ReviewGameResponse]:
        async with AsyncGameRulesClient(grpc_address) as client:
            return [answer async for answer in client.review_game("reversi", OPENING[:3], level="beginner")]

    answers = asyncio.run(review())
    assert [answer.ply.ply for answer in answers[1:-1]] == [0, 1, 2] and answers[-1].summary.level == "beginner"


def test_the_plan_comes_first_and_says_when_the_deadline_is_too_short(stub):
    """The judge by default: the strongest level, a node budget above its own and a share of the call's time; a
    deadline too short for the searches says so before any ply, and the plies it misses stay unreviewed."""
    plan, plies, summary = planned(stub, request(OPENING))
    assert plan.level == "expert" and plan.enough_time and plan.searches == len(OPENING) + 1
    assert plan.limits.max_nodes > 30_000 and 0 < plan.limits.max_time_ms <= 2_000
    assert summary.unreviewed_plies == 0
    moves = long_game(stub, 60)  # 61 searches in 1.5 s less the answer's margin: under 25 ms each
    plan, plies, summary = planned(stub, request(moves), timeout=1.5)
    # (How many plies the short deadline misses depends on the box; that they stay marked is tested above.)
    assert not plan.enough_time and "too little" in plan.detail and len(plies) == len(moves)
    assert summary.unreviewed_plies == sum(not ply.reviewed for ply in plies)


def test_a_level_named_searches_with_its_own_limits(stub):
    plan, _, summary = planned(stub, request(OPENING[:2], level="corner_hunter"))
    assert plan.level == summary.level == "corner_hunter" and not plan.HasField("limits")
    plan, _, _ = planned(stub, request(OPENING[:2], limits=pb.SearchLimits(max_depth=3)))
    assert plan.level == "expert" and plan.limits.max_depth == 3 and plan.limits.max_nodes == 0


def test_a_whole_reversi_game_is_reviewed_within_the_default_rest_deadline(gateway_url, stub):
    """No deadline header: the gateway's 30 s, which the plan shares out; every ply reviewed."""
    moves = long_game(stub, 60)
    status, _, text = post_stream(gateway_url, "/v1/games/reversi:review", {"moves": [{"notation": m} for m in moves]})
    results = [json.loads(line)["result"] for line in text.splitlines()]
    assert status == 200 and results[0]["plan"]["enoughTime"] is True
    summary = results[-1]["summary"]
    assert summary["reviewedPlies"] == len(moves) and summary.get("unreviewedPlies", 0) == 0


def long_game(stub, plies: int) -> list[str]:
    """The first legal move at every ply, ``plies`` of them or to the end (Reversi)."""
    game = stub.NewGame(pb.NewGameRequest(game="reversi"), timeout=10).position
    moves: list[str] = []
    while len(moves) < plies:
        legal = stub.LegalMoves(pb.LegalMovesRequest(game="reversi", position=game), timeout=10)
        if legal.game_over:
            break
        game = stub.ApplyMove(pb.ApplyMoveRequest(game="reversi", position=game, move=legal.moves[0]), timeout=10)
        game = game.position
        moves.append(legal.moves[0].notation)
    return moves
