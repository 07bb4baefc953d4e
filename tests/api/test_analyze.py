"""AnalyzePosition: BestMove's search streamed as it deepens, over gRPC, as newline-delimited JSON and as
Server-Sent Events. Updates come one per completed iteration and deepen; the last message is BestMove's own
answer; errors are the usual Status; a caller who cancels (gRPC) or disconnects (HTTP) stops the search at
once; the call is counted in the same metrics as BestMove (and as a server stream in the gRPC ones)."""

from __future__ import annotations

import http.client
import json
import os
import queue
import subprocess
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2
from prometheus_client import REGISTRY

from gamerules.v1 import gamerules_pb2 as pb
from service import core
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import GameRulesServicer, ServiceConfig
from tests.api.conftest import QUIET, free_port, gateway_command, wait_http

REVERSI = "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"
KALAH = "4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4"
# Deterministic (no time limit): the stream's answer must be BestMove's.
FIXED = pb.SearchLimits(max_depth=5)
# A search that would last 20 s unless something stops it.
ENDLESS = pb.SearchLimits(max_time_ms=20_000, max_depth=60, max_nodes=10**9)


def analyze(game: str, notation: str, limits: pb.SearchLimits, **fields: Any) -> pb.AnalyzePositionRequest:
    return pb.AnalyzePositionRequest(game=game, position=pb.Position(notation=notation), limits=limits, **fields)


def test_updates_deepen_and_the_last_message_is_best_moves_answer(stub):
    messages = list(stub.AnalyzePosition(analyze("reversi", REVERSI, FIXED, top_n=3), timeout=30))
    updates, final = messages[:-1], messages[-1]
    assert final.final and not any(m.final for m in updates)
    assert [m.analysis.depth for m in updates] == [1, 2, 3, 4, 5]  # one per completed iteration
    for update in updates:
        analysis = update.analysis
        assert analysis.stop_reason == "" and analysis.pv[0] == analysis.move
        assert len(analysis.alternatives) == 3 and analysis.alternatives[0].move == analysis.move
        assert analysis.move.notation in {"d3", "c4", "f5", "e6"} and analysis.nodes > 0
    assert [m.analysis.nodes for m in updates] == sorted(m.analysis.nodes for m in updates)
    best = stub.BestMove(pb.BestMoveRequest(game="reversi", position=pb.Position(notation=REVERSI), limits=FIXED,
                                            top_n=3, purpose="analysis"), timeout=30)  # fmt: skip
    final.analysis.elapsed_ms = best.elapsed_ms = 0
    assert final.analysis == best
    assert final.analysis.stop_reason == "depth" and final.analysis.depth == 5
    # The last completed iteration is the answer.
    assert updates[-1].analysis.move == final.analysis.move and updates[-1].analysis.value == final.analysis.value


def test_monte_carlo_levels_report_the_tree_as_it_grows(stub):
    options = struct_pb2.Struct()
    options.update({"layout": "side6-fours"})  # hard plays Monte Carlo here: 300 iterations in 0.7 s
    position = stub.NewGame(pb.NewGameRequest(game="strands", seed="1", options=options), timeout=10).position
    request = pb.AnalyzePositionRequest(
        # 300 iterations, with time to spare for them (the level's own time limit could end them first).
        game="strands",
        position=position,
        level="hard",
        limits=pb.SearchLimits(max_nodes=300, max_time_ms=5000),
    )
    messages = list(stub.AnalyzePosition(request, timeout=60))
    assert [m.analysis.nodes for m in messages[:-1]] == [64, 128, 256]  # iterations, reported as they double
    assert messages[-1].final and messages[-1].analysis.nodes == 300


def test_errors_are_the_usual_status(stub):
    cases = [
        (analyze("reversi", "nonsense", FIXED), grpc.StatusCode.INVALID_ARGUMENT, "position.notation"),
        (analyze("chess", REVERSI, FIXED), grpc.StatusCode.NOT_FOUND, ""),
        (analyze("reversi", REVERSI, FIXED, level="grandmaster"), grpc.StatusCode.INVALID_ARGUMENT, "level"),
        (analyze("reversi", REVERSI, pb.SearchLimits(max_depth=-1)), grpc.StatusCode.INVALID_ARGUMENT, ""),
    ]
    for request, code, text in cases:
        with pytest.raises(grpc.RpcError) as raised:
            list(stub.AnalyzePosition(request, timeout=10))
        assert raised.value.code() == code and text in raised.value.details()


# --- stopping: a server that tells what each search ended with --------------------------------------------


@pytest.fixture(scope="module")
def observed() -> Iterator[tuple[str, queue.SimpleQueue[core.SearchResult]]]:
    """An in-process server whose searches report how they ended."""
    results: queue.SimpleQueue[core.SearchResult] = queue.SimpleQueue()
    config = ServiceConfig(max_think_ms=30_000, search_slots=1, search_queue=1)
    servicer = GameRulesServicer(config=config, observe_search=lambda game, level, result: results.put(result))
    running = create_server(ServerConfig(service=config), address="127.0.0.1:0", servicer=servicer)
    yield f"127.0.0.1:{running.port}", results
    running.shutdown(1)


def test_a_cancelled_stream_stops_its_search_at_once(observed):
    address, results = observed
    with grpc.insecure_channel(address) as channel:
        call = channel.unary_stream(
            "/gamerules.v1.GameRules/AnalyzePosition",
            request_serializer=pb.AnalyzePositionRequest.SerializeToString,
            response_deserializer=pb.AnalyzePositionResponse.FromString,
        )(analyze("kalah", KALAH, ENDLESS), timeout=60)
        first = next(call)
        assert not first.final and first.analysis.depth == 1
        call.cancel()
        # Left alone it would search for 20 s and end with "time".
        result = results.get(timeout=15)
        assert result.stop_reason == "cancelled" and result.elapsed_ms < 15_000


@pytest.fixture(scope="module")
def observed_gateway(observed) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(gateway_command(port, observed[0]), env={**os.environ, **QUIET})
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz")
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_an_http_client_that_disconnects_stops_the_search(observed, observed_gateway):
    _, results = observed
    connection = http.client.HTTPConnection(observed_gateway, timeout=30)
    body = json.dumps({"position": {"notation": KALAH}, "limits": {"maxTimeMs": 20000, "maxDepth": 60}})
    connection.request("POST", "/v1/games/kalah:analyze", body, {"Content-Type": "application/json"})
    answer = connection.getresponse()
    assert answer.status == 200 and answer.headers["Content-Type"] == "application/x-ndjson"
    first = json.loads(answer.readline())
    assert first["result"]["analysis"]["depth"] == 1
    connection.sock.close()  # type: ignore[union-attr]  # the client goes away mid-stream
    connection.close()
    result = results.get(timeout=15)
    assert result.stop_reason == "cancelled" and result.elapsed_ms < 15_000


# --- over HTTP ----------------------------------------------------------------------------------------------


def post_stream(base_url: str, path: str, body: dict[str, Any], accept: str = "") -> tuple[int, str, str]:
    host = base_url.removeprefix("http://")
    connection = http.client.HTTPConnection(host, timeout=60)
    headers = {"Content-Type": "application/json", **({"Accept": accept} if accept else {})}
    connection.request("POST", path, json.dumps(body), headers)
    answer = connection.getresponse()
    text = answer.read().decode()
    connection.close()
    return answer.status, answer.headers["Content-Type"], text


BODY = {"position": {"notation": REVERSI}, "limits": {"maxDepth": 4}, "topN": 2}


def test_newline_delimited_json_in_grpc_gateway_framing(gateway_url):
    status, content_type, text = post_stream(gateway_url, "/v1/games/reversi:analyze", BODY)
    assert status == 200 and content_type == "application/x-ndjson"
    lines = [json.loads(line) for line in text.splitlines()]
    assert all(set(line) == {"result"} for line in lines)
    depths = [line["result"]["analysis"]["depth"] for line in lines]
    assert depths == [1, 2, 3, 4, 4]
    assert [line["result"].get("final", False) for line in lines] == [False] * 4 + [True]
    assert lines[-1]["result"]["analysis"]["stopReason"] == "depth"
    assert lines[-1]["result"]["analysis"]["level"] == "expert"


def test_server_sent_events_when_the_client_accepts_them(gateway_url):
    status, content_type, text = post_stream(gateway_url, "/v1/games/reversi:analyze", BODY, "text/event-stream")
    assert status == 200 and content_type.startswith("text/event-stream")
    events = [block.split("\n") for block in text.strip().split("\n\n")]
    assert all(lines[0] == "event: result" and lines[1].startswith("data: ") for lines in events)
    data = [json.loads(lines[1].removeprefix("data: ")) for lines in events]
    assert [d["result"]["analysis"]["depth"] for d in data] == [1, 2, 3, 4, 4]
    assert data[-1]["result"]["final"] is True


def test_errors_before_the_stream_are_http_errors(gateway_url):
    status, content_type, text = post_stream(
        gateway_url, "/v1/games/reversi:analyze", {"position": {"notation": "nonsense"}}
    )
    assert status == 400 and content_type == "application/json"
    answer = json.loads(text)
    assert answer["code"] == 3 and answer["message"].startswith("position.notation")
    status, _, text = post_stream(gateway_url, "/v1/games/chess:analyze", BODY)
    assert status == 404 and json.loads(text)["details"][0]["reason"] == "UNKNOWN_GAME"


def test_counted_like_best_move(stub):
    def sample(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    grpc_labels = {"grpc_type": "server_stream", "grpc_service": "gamerules.v1.GameRules"}
    handled = {**grpc_labels, "grpc_method": "AnalyzePosition", "grpc_code": "OK"}
    searches = {"game": "kalah", "level": "hard", "exact": "false"}
    before = sample("grpc_server_handled_total", **handled), sample("gamerules_best_move_total", **searches)
    list(stub.AnalyzePosition(analyze("kalah", KALAH, pb.SearchLimits(max_depth=3)), timeout=30))
    after = sample("grpc_server_handled_total", **handled), sample("gamerules_best_move_total", **searches)
    assert after == (before[0] + 1, before[1] + 1)
