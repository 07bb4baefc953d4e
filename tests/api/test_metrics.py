"""Metrics: names and labels as dashboards expect them, every GameRules method's series there before its first
call, the workers' values summed on the server's metrics port, the gateway's HTTP metrics (from several
gateway workers) on its ``/metrics``, and what best-move searches did per game and level."""

from __future__ import annotations

import os
import subprocess
import tempfile
import urllib.request
from collections.abc import Iterator

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from gamerules.v1 import gamerules_pb2 as pb
from service.api.metrics import GRPC_CODE_NAMES
from service.api.rpc.server import SERVICE
from service.api.version import VERSION
from service.games import LEVELS
from tests.api.conftest import free_port, gateway_command, http, wait_http
from tests.api.test_serving import ServerProcess, best_move_request, fresh_stub, legal_moves_request, server_process

GRPC_LABELS = {"grpc_type": "unary", "grpc_service": "gamerules.v1.GameRules"}
STREAM_TYPE = "server_stream"  # AnalyzePosition


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    """(sample name, labels) -> value, from the text exposition format."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(all_samples: dict, name: str, **labels: str) -> float | None:
    return all_samples.get((name, frozenset(labels.items())))


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with server_process(workers=2) as running:
        yield running


def test_every_method_has_its_series_before_any_call(server):
    exposed = samples(server.metrics())
    for method in SERVICE.methods:
        labels = {**GRPC_LABELS, "grpc_method": method.name}
        if method.server_streaming:
            labels["grpc_type"] = STREAM_TYPE
        assert value(exposed, "grpc_server_started_total", **labels) == 0
        for code in GRPC_CODE_NAMES.values():
            assert value(exposed, "grpc_server_handled_total", **labels, grpc_code=code) == 0
        assert value(exposed, "grpc_server_handling_seconds_count", **labels) == 0
        assert value(exposed, "grpc_server_handling_seconds_bucket", **labels, le="+Inf") == 0
    for game_id, levels in LEVELS.items():
        for level in levels.levels:
            for exact in ("true", "false"):
                assert value(exposed, "gamerules_best_move_total", game=game_id, level=level.name, exact=exact) == 0
            for name in ("depth", "nodes", "seconds"):
                assert value(exposed, f"gamerules_best_move_{name}_count", game=game_id, level=level.name) == 0
    assert set(GRPC_CODE_NAMES.values()) >= {"OK", "InvalidArgument", "NotFound", "ResourceExhausted", "Canceled"}


def test_calls_from_every_worker_are_counted_by_code(server):
    for _ in range(12):  # fresh connections: both workers answer some
        channel, stub = fresh_stub(server.address)
        with channel:
            stub.LegalMoves(legal_moves_request(), timeout=10)
            with pytest.raises(grpc.RpcError):
                stub.GetGame(pb.GetGameRequest(name="games/chess"), timeout=10)
    channel, stub = fresh_stub(server.address)
    with channel:
        answer = stub.BestMove(best_move_request(pb.SearchLimits(max_depth=2)), timeout=10)
    exposed = samples(server.metrics())
    legal = {**GRPC_LABELS, "grpc_method": "LegalMoves"}
    assert value(exposed, "grpc_server_started_total", **legal) == 12
    assert value(exposed, "grpc_server_handled_total", **legal, grpc_code="OK") == 12
    assert value(exposed, "grpc_server_handling_seconds_count", **legal) == 12
    assert value(exposed, "grpc_server_handling_seconds_sum", **legal) > 0
    get = {**GRPC_LABELS, "grpc_method": "GetGame"}
    assert value(exposed, "grpc_server_handled_total", **get, grpc_code="NotFound") == 12
    assert value(exposed, "grpc_server_handled_total", **get, grpc_code="OK") == 0
    # BestMove without a level is searched at the game's default level, and labelled so.
    level = LEVELS["reversi"].default
    assert value(exposed, "gamerules_best_move_total", game="reversi", level=level, exact="false") == 1
    assert value(exposed, "gamerules_best_move_depth_count", game="reversi", level=level) == 1
    assert value(exposed, "gamerules_best_move_depth_sum", game="reversi", level=level) == answer.depth == 2
    assert value(exposed, "gamerules_best_move_nodes_sum", game="reversi", level=level) == answer.nodes
    assert value(exposed, "gamerules_best_move_seconds_count", game="reversi", level=level) == 1
    # Both workers wrote their share (a counter file per process); the port summed them.
    assert len(server.worker_pids()) == 2


def test_unknown_methods_add_no_series(server):
    channel, _ = fresh_stub(server.address)
    with channel:
        call = channel.unary_unary("/gamerules.v1.GameRules/NoSuchMethod")
        with pytest.raises(grpc.RpcError) as raised:
            call(b"", timeout=10)
        assert raised.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "NoSuchMethod" not in server.metrics()


def test_the_release_once_though_several_workers_serve(server):
    builds = {labels: value for (name, labels), value in samples(server.metrics()).items() if "build_info" in name}
    assert builds == {frozenset({("version", VERSION)}): 1.0}


def test_gateway_http_metrics_from_several_workers(server):
    port = free_port()
    with tempfile.TemporaryDirectory() as metrics_dir:
        process = subprocess.Popen(
            gateway_command(port, server.address, workers=2),
            env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": metrics_dir},
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_http(url + "/healthz")
            start = {"position": {"notation": legal_moves_request().position.notation}}
            for _ in range(10):
                assert http(url, "/v1/games/reversi:legalMoves", start)[0] == 200
                assert http(url, "/v1/games/chess:legalMoves", start)[0] == 404
                assert http(url, "/v1/no/such/thing")[0] == 404
                assert http(url, "/v1/games/reversi")[0] == 200
            with urllib.request.urlopen(url + "/metrics", timeout=10) as answer:
                assert answer.headers["Content-Type"].startswith("text/plain")
                exposed = samples(answer.read().decode())
            files = os.listdir(metrics_dir)
        finally:
            process.terminate()
            process.wait(timeout=20)
    legal = "/v1/{game=games/*}:legalMoves"
    assert value(exposed, "http_requests_total", method="POST", route=legal, code="200") == 10
    assert value(exposed, "http_requests_total", method="POST", route=legal, code="404") == 10
    assert value(exposed, "http_requests_total", method="GET", route="/v1/{name=games/*}", code="200") == 10
    assert value(exposed, "http_requests_total", method="GET", route="other", code="404") == 10
    assert value(exposed, "http_request_duration_seconds_count", method="POST", route=legal) == 20
    # Routes are templates, never raw paths: no label carries a game id or a made-up path.
    routes = {dict(labels).get("route") for (name, labels) in exposed if name == "http_requests_total"}
    assert not any("reversi" in route or "chess" in route or "no/such" in route for route in routes), routes
    assert any(name.startswith("counter_") for name in files), "the gateway wrote multi-process metric files"
