"""BestMove's promises through the transport (``docs/api.md``, "The budget contract"): a caller's time is the
caller's at every value, the cap's included; an analysis answers the best move; the alternatives come best
first; ``purpose`` is checked like every other field."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from gamerules.v1 import gamerules_pb2 as pb
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import ServiceConfig
from service.native import engine
from tests.api.conftest import http, running_gateway

# FFO endgame test #1 (14 empties, Black to move): g8 wins by 18 (the French Othello Federation's suite).
FFO_1 = "..BBBBB./.WWWBB.W/.WWWBBWB/.WBWBWBB/WBBBWBBB/..BWBWBB/.BBBWWW./.WWWWW.. 1 black=1"
KALAH = "4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4"
REVERSI_MIDGAME = "......../.B....B./.B.B.B../.BWWWWW./WBWBBW../.BWB..W./.B.B..../B..BBB.. 2 black=1"


@pytest.fixture(scope="module")
def capped_gateway() -> Iterator[str]:
    """A server with the default cap on a search (10 s) and a gateway in front of it."""
    config = ServiceConfig(max_think_ms=10_000, search_slots=1)
    running = create_server(ServerConfig(service=config), address="127.0.0.1:0")
    try:
        with running_gateway(f"127.0.0.1:{running.port}") as url:
            yield url
    finally:
        running.shutdown(1)


def best_move(url: str, game: str, notation: str, **fields: object) -> tuple[int, dict]:
    status, body, _ = http(url, f"/v1/games/{game}:bestMove", {"position": {"notation": notation}, **fields})
    return status, body


@pytest.mark.skipif(not engine.available("reversi"), reason="the native search engine is not built or turned off")
@pytest.mark.parametrize("max_time_ms", [9_999, 10_000, 30_000])
def test_a_callers_time_at_or_above_the_cap_still_proves_ffo_1(capped_gateway: str, max_time_ms: int) -> None:
    """The servicer once capped the time first, and expert took a time equal to its own default for no time of
    the caller's: 10,000 and 30,000 answered after its 30,000 nodes, unproved. Every value is the caller's."""
    status, body = best_move(capped_gateway, "reversi", FFO_1, level="expert", limits={"maxTimeMs": max_time_ms})
    assert status == 200, body
    assert (body["move"]["notation"], body["value"], body["exact"], body["stopReason"]) == ("g8", 18, True, "solved")


def test_an_analysis_answers_its_best_move_whatever_the_seed(capped_gateway: str) -> None:
    """Kalah's start with three lines: played, hard varies in the opening; analysed, every seed gets the move
    valued best, first among the alternatives."""
    moves = set()
    for seed in "1234":
        status, body = best_move(capped_gateway, "kalah", KALAH, topN=3, seed=seed, purpose="analysis")
        assert status == 200, body
        values = [scored["value"] for scored in body["alternatives"]]
        assert body["alternatives"][0]["move"] == body["move"] and values == sorted(values, reverse=True)
        moves.add(body["move"]["notation"])
    assert len(moves) == 1


def test_alternatives_come_best_first(capped_gateway: str) -> None:
    for purpose in ("play", "analysis"):
        status, body = best_move(
            capped_gateway, "reversi", REVERSI_MIDGAME, level="expert", topN=4, purpose=purpose, seed="7"
        )
        assert status == 200, body
        values = [scored["value"] for scored in body["alternatives"]]
        assert len(values) == 4 and values == sorted(values, reverse=True)
        assert body["move"] in [scored["move"] for scored in body["alternatives"]]


def test_the_streamed_analysis_is_an_analysis_by_default(stub) -> None:
    request = pb.AnalyzePositionRequest(
        game="kalah", position=pb.Position(notation=KALAH), top_n=3, seed="2", limits=pb.SearchLimits(max_depth=8)
    )
    final = list(stub.AnalyzePosition(request, timeout=30))[-1].analysis
    analysed = stub.BestMove(
        pb.BestMoveRequest(game="kalah", position=pb.Position(notation=KALAH), top_n=3, seed="2",
                           limits=pb.SearchLimits(max_depth=8), purpose="analysis"),
        timeout=30,
    )  # fmt: skip
    final.elapsed_ms = analysed.elapsed_ms = 0
    assert final == analysed and final.alternatives[0].move == final.move


def test_a_purpose_that_is_not_one_is_invalid(stub, capped_gateway: str) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        stub.BestMove(
            pb.BestMoveRequest(game="kalah", position=pb.Position(notation=KALAH), purpose="study"), timeout=10
        )
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "purpose" in raised.value.details()
    assert "analysis" in raised.value.details()
    status, body = best_move(capped_gateway, "kalah", KALAH, purpose="Analysis")
    assert status == 400 and "purpose" in body["message"], body
