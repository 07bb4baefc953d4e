"""The gRPC API against a real server on a loopback port: every RPC, and every class of error."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import struct_pb2
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import kalah_pb2, reversi_pb2
from service.games import GAMES

START = GAMES["reversi"].new_position().to_notation()


def details(error: grpc.RpcError) -> tuple[str, list[str]]:
    """(ErrorInfo reason, BadRequest / PreconditionFailure fields) of a failed call."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, "every error carries a google.rpc.Status"
    reason, fields = "", []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            assert info.domain == "gamerules.v1"
            reason = info.reason
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields += [v.field for v in bad.field_violations]
        elif detail.Is(error_details_pb2.PreconditionFailure.DESCRIPTOR):
            failure = error_details_pb2.PreconditionFailure()
            detail.Unpack(failure)
            fields += [v.subject for v in failure.violations]
    return reason, fields


def fails(call, request, code: grpc.StatusCode, reason: str, field: str | None = None) -> str:
    with pytest.raises(grpc.RpcError) as raised:
        call(request, timeout=10)
    error = raised.value
    assert error.code() == code, error.details()
    got_reason, fields = details(error)
    assert got_reason == reason, error.details()
    if field is not None:
        assert field in fields, (fields, error.details())
    return error.details()


def test_list_and_get_games(stub):
    games = stub.ListGames(pb.ListGamesRequest(), timeout=10).games
    assert "reversi" in [g.id for g in games]
    reversi = stub.GetGame(pb.GetGameRequest(name="games/reversi"), timeout=10)
    assert reversi.name == "games/reversi"
    # The named levels, beside the rungs of the rated ladder (tests/api/test_ladder.py).
    assert {"beginner", "corner_hunter", "expert"} <= {level.name for level in reversi.levels}
    size = next(option for option in reversi.options if option.name == "size")
    assert (size.minimum, size.maximum, size.default_value.number_value) == (4, 16, 8)


def test_start_position_moves_and_apply(stub):
    new = stub.NewGame(pb.NewGameRequest(game="games/reversi"), timeout=10)
    assert new.position.notation == START and new.to_move == 1
    assert new.position.WhichOneof("game") == "reversi"
    legal = stub.LegalMoves(pb.LegalMovesRequest(game="reversi", position=new.position), timeout=10)
    assert sorted(m.notation for m in legal.moves) == ["c4", "d3", "e6", "f5"]
    assert (legal.to_move, legal.game_over, legal.total_size, legal.next_page_token) == (1, False, 4, "")
    applied = stub.ApplyMove(
        pb.ApplyMoveRequest(game="reversi", position=pb.Position(notation=START), move=pb.Move(notation="d3")),
        timeout=10,
    )
    assert applied.to_move == 2 and not applied.game_over and applied.move.notation == "d3"
    assert [e.type for e in applied.events][:2] == ["place", "flip"]
    score = stub.Score(pb.ScoreRequest(game="reversi", position=applied.position), timeout=10)
    assert list(score.scores) == [4, 1] and not score.game_over and not score.HasField("winner")


def test_structured_position_is_accepted_and_must_agree(stub):
    new = stub.NewGame(pb.NewGameRequest(game="reversi"), timeout=10)
    structured = pb.Position(reversi=new.position.reversi)
    legal = stub.LegalMoves(pb.LegalMovesRequest(game="reversi", position=structured), timeout=10)
    assert legal.total_size == 4
    after = stub.ApplyMove(
        pb.ApplyMoveRequest(game="reversi", position=new.position, move=pb.Move(notation="d3")), timeout=10
    ).position
    mixed = pb.Position(notation=START, reversi=after.reversi)
    fails(stub.Score, pb.ScoreRequest(game="reversi", position=mixed), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_POSITION", "position")  # fmt: skip


def test_paging_through_moves(stub):
    request = pb.LegalMovesRequest(game="reversi", position=pb.Position(notation=START), page_size=3)
    first = stub.LegalMoves(request, timeout=10)
    assert len(first.moves) == 3 and first.total_size == 4 and first.next_page_token
    request.page_token = first.next_page_token
    second = stub.LegalMoves(request, timeout=10)
    assert len(second.moves) == 1 and not second.next_page_token
    assert len({m.notation for m in [*first.moves, *second.moves]}) == 4
    # The token belongs to that position: with another position it is refused, and forging fails.
    other = stub.ApplyMove(
        pb.ApplyMoveRequest(game="reversi", position=pb.Position(notation=START), move=pb.Move(notation="d3")),
        timeout=10,
    ).position
    moved = pb.LegalMovesRequest(game="reversi", position=other, page_token=first.next_page_token)
    fails(stub.LegalMoves, moved, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN", "page_token")
    request.page_token = first.next_page_token[:-2] + ("AA" if first.next_page_token[-2:] != "AA" else "BB")
    fails(stub.LegalMoves, request, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN", "page_token")
    request.page_token = "not a token!"
    fails(stub.LegalMoves, request, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN", "page_token")
    request.page_token, request.page_size = "", -1
    fails(stub.LegalMoves, request, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", "page_size")


def test_apply_moves_replays_a_sequence(stub):
    moves = [pb.Move(notation=n) for n in ("d3", "c5", "e6")]
    replay = stub.ApplyMoves(
        pb.ApplyMovesRequest(game="reversi", position=pb.Position(notation=START), moves=moves), timeout=10
    )
    assert len(replay.steps) == 3 and replay.position == replay.steps[-1].position and replay.to_move == 2
    moves.append(pb.Move(notation="a1"))
    fails(stub.ApplyMoves, pb.ApplyMovesRequest(game="reversi", position=pb.Position(notation=START), moves=moves),
          grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_MOVE", "moves[3]")  # fmt: skip


def test_batch_score(stub):
    positions = [pb.Position(notation=START)] * 3
    answer = stub.BatchScore(pb.BatchScoreRequest(game="reversi", positions=positions), timeout=10)
    assert [list(s.scores) for s in answer.scores] == [[2, 2]] * 3
    bad = [pb.Position(notation=START), pb.Position(notation="nonsense")]
    fails(stub.BatchScore, pb.BatchScoreRequest(game="reversi", positions=bad), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_NOTATION", "positions[1].notation")  # fmt: skip


@pytest.mark.parametrize("level", ["beginner", "corner_hunter", "expert"])
def test_best_move_levels(stub, level):
    request = pb.BestMoveRequest(game="reversi", position=pb.Position(notation=START), level=level, seed="s", top_n=2)
    answer = stub.BestMove(request, timeout=30)
    assert answer.move.notation in {"c4", "d3", "e6", "f5"} and answer.level == level
    assert len(answer.alternatives) == 2 and answer.alternatives[0].move.notation == answer.move.notation
    assert answer.alternatives[0].value >= answer.alternatives[1].value


def test_best_move_with_limits_is_deterministic(stub):
    request = pb.BestMoveRequest(
        game="reversi", position=pb.Position(notation=START), limits=pb.SearchLimits(max_depth=3), seed="x"
    )
    first, second = stub.BestMove(request, timeout=30), stub.BestMove(request, timeout=30)
    assert first.move == second.move and first.value == second.value and first.nodes == second.nodes
    assert first.depth == 3 and first.pv[0] == first.move


def test_best_move_answers_before_a_short_deadline(stub):
    # An unlimited search would take far longer than the deadline: the server answers in time anyway. (No
    # node budget of the level's either: the native search gets through expert's in well under the second.)
    # 3 s: the answer margin (a tenth of the time, at most a quarter second, and twice the scheduling lag) then
    # holds with ten CPU burners on two cores, where a 1 s deadline's now and then did not.
    request = pb.BestMoveRequest(
        game="reversi", position=pb.Position(notation=START), limits=pb.SearchLimits(max_depth=60, max_nodes=10**9)
    )
    answer = stub.BestMove(request, timeout=3.0)
    assert answer.move.notation in {"c4", "d3", "e6", "f5"}
    assert answer.stop_reason == "deadline" and answer.depth >= 1


def test_errors(stub):
    position = pb.Position(notation=START)
    fails(stub.GetGame, pb.GetGameRequest(name="games/chess"), grpc.StatusCode.NOT_FOUND, "UNKNOWN_GAME")
    fails(stub.LegalMoves, pb.LegalMovesRequest(game="chess", position=position), grpc.StatusCode.NOT_FOUND,
          "UNKNOWN_GAME")  # fmt: skip
    fails(stub.LegalMoves, pb.LegalMovesRequest(position=position), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_ARGUMENT", "game")  # fmt: skip
    fails(stub.LegalMoves, pb.LegalMovesRequest(game="reversi"), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_POSITION", "position")  # fmt: skip
    fails(stub.Score, pb.ScoreRequest(game="reversi", position=pb.Position(notation="x y z")),
          grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NOTATION", "position.notation")  # fmt: skip
    bad_board = pb.Position(reversi=reversi_pb2.ReversiPosition(board=["...."] * 3, to_move=1, black_seat=1))
    fails(stub.Score, pb.ScoreRequest(game="reversi", position=bad_board), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_POSITION")  # fmt: skip
    fails(stub.ApplyMove, pb.ApplyMoveRequest(game="reversi", position=position, move=pb.Move(notation="a1")),
          grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_MOVE", "move")  # fmt: skip
    fails(stub.ApplyMove, pb.ApplyMoveRequest(game="reversi", position=position, move=pb.Move(notation="z99")),
          grpc.StatusCode.INVALID_ARGUMENT, "INVALID_MOVE", "move.notation")  # fmt: skip
    fails(stub.ApplyMove, pb.ApplyMoveRequest(game="reversi", position=position), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_MOVE", "move")  # fmt: skip
    fails(stub.BestMove, pb.BestMoveRequest(game="reversi", position=position, level="grandmaster"),
          grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_LEVEL", "level")  # fmt: skip
    fails(stub.BestMove, pb.BestMoveRequest(game="reversi", position=position, limits=pb.SearchLimits(max_depth=-1)),
          grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", "limits.max_depth")  # fmt: skip
    options = struct_pb2.Struct()
    options.update({"size": 7})
    fails(stub.NewGame, pb.NewGameRequest(game="reversi", options=options), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_OPTION", "options.size")  # fmt: skip
    options = struct_pb2.Struct()
    options.update({"colour": "blue"})
    fails(stub.NewGame, pb.NewGameRequest(game="reversi", options=options), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_OPTION", "options.colour")  # fmt: skip
    huge = pb.Position(notation="." * 100_000)
    fails(stub.Score, pb.ScoreRequest(game="reversi", position=huge), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_NOTATION", "position.notation")  # fmt: skip
    kalah_position = pb.Position(kalah=kalah_pb2.KalahPosition())
    fails(stub.Score, pb.ScoreRequest(game="reversi", position=kalah_position), grpc.StatusCode.INVALID_ARGUMENT,
          "INVALID_POSITION", "position.kalah")  # fmt: skip


def test_game_over_errors(stub):
    # A full board: the game is over, so no move may follow and there is no best move.
    rows = ["BBBBBBBB"] * 4 + ["WWWWWWWW"] * 4
    over = stub.Score(pb.ScoreRequest(game="reversi", position=pb.Position(reversi=reversi_pb2.ReversiPosition(
        board=rows, to_move=0, black_seat=1))), timeout=10)  # fmt: skip
    assert over.game_over and not over.HasField("winner") and over.reason == "draw" and not over.HasField("to_move")
    fails(stub.ApplyMove, pb.ApplyMoveRequest(game="reversi", position=over.position, move=pb.Move(notation="a1")),
          grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")  # fmt: skip
    fails(stub.BestMove, pb.BestMoveRequest(game="reversi", position=over.position),
          grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")  # fmt: skip


def test_oversized_request_is_refused_and_server_keeps_serving(stub):
    with pytest.raises(grpc.RpcError) as raised:
        stub.Score(pb.ScoreRequest(game="reversi", position=pb.Position(notation="x" * (2 << 20))), timeout=10)
    assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert stub.ListGames(pb.ListGamesRequest(), timeout=10).games


def test_health_and_reflection(channel):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "gamerules.v1.GameRules"):
        answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    replies = reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    names = {s.name for reply in replies for s in reply.list_services_response.service}
    assert "gamerules.v1.GameRules" in names and "grpc.health.v1.Health" in names
