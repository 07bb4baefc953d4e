"""Serving under load and faults, as an operator meets them: best moves queued rather than refused, REST
traffic over every worker, a killed worker, bad bytes and bad bodies, forged page tokens, per-worker process
metrics. Real ``python -m service.api.rpc.server`` processes and a real gateway, on loopback."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import http.client as http_client
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from gamerules.v1 import gamerules_pb2 as pb
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import ServiceConfig
from tests.api.conftest import free_port, gateway_command, http, running_gateway, wait_http
from tests.api.test_serving import START, ServerProcess, best_move_request, fresh_stub, server_process


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[ServerProcess, str]]:
    """Two gRPC workers behind one gateway worker with 16 connections, the waits at their defaults: a best move
    is sent on by the gateway and waits in the server's fair queue up to its deadline, at most 10 s."""
    with (
        server_process(workers=2) as running,
        running_gateway(running.address, env={"GAMERULES_GRPC_TARGET_CONNECTIONS": "16"}) as url,
    ):
        yield running, url


def legal_moves(url: str) -> tuple[int, dict, object]:
    return http(url, "/v1/games/reversi:legalMoves", {"position": {"notation": START}})


def long_search(ms: int) -> dict:
    return {"position": {"notation": START}, "limits": {"maxTimeMs": ms, "maxDepth": 60, "maxNodes": 10**9}}


# --- capacity ----------------------------------------------------------------------------------------------


def test_rest_calls_reach_every_worker_and_name_it(served):
    running, url = served
    workers = set()
    for _ in range(32):
        status, _, headers = legal_moves(url)
        assert status == 200
        host, _, pid = headers["Gamerules-Worker"].rpartition("/")
        assert host
        workers.add(int(pid))
    # 16 connections over 2 workers all on one of them: 1 in 2**15.
    assert workers == running.worker_pids()


def test_best_moves_wait_for_a_slot_instead_of_failing(served):
    """Eight simultaneous 0.6 s searches of one caller with 10 s deadlines on two workers, where the caller may
    hold one slot each: all answered."""
    running, url = served
    channels = [fresh_stub(running.address) for _ in range(8)]
    request = best_move_request(pb.SearchLimits(max_time_ms=600, max_depth=60, max_nodes=10**9))
    with futures.ThreadPoolExecutor(8) as pool:
        calls = [pool.submit(stub.BestMove, request, timeout=10) for _, stub in channels]
        answers = [call.result() for call in calls]
    assert all(answer.stop_reason == "time" for answer in answers), [answer.stop_reason for answer in answers]
    for channel, _ in channels:
        channel.close()
    # And over REST: two at once (the gateway once sent both to one worker, which refused one).
    with futures.ThreadPoolExecutor(2) as pool:
        statuses = list(pool.map(lambda _: http(url, "/v1/games/reversi:bestMove", long_search(400))[0], range(2)))
    assert statuses == [200, 200]


def test_one_clients_eight_simultaneous_best_moves_are_all_answered(served):
    """docs/operations.md: 8 simultaneous 1 s REST best moves of one client with 10 s deadlines are all answered.
    The client may hold one slot of each worker: they wait in the server's queue, in turn, within their deadline
    (the gateway used to refuse 2 to 4 of them)."""
    _, url = served
    headers = {"Grpc-Timeout": "10S"}
    with futures.ThreadPoolExecutor(8) as pool:
        calls = [
            pool.submit(http, url, "/v1/games/reversi:bestMove", long_search(1000), None, headers) for _ in range(8)
        ]
        answers = [call.result() for call in calls]
    assert [status for status, _, _ in answers] == [200] * 8, [body for _, body, _ in answers]
    assert all(body["stopReason"] == "time" for _, body, _ in answers)


def test_forty_at_once_are_answered_or_refused_with_retry_after_within_their_deadlines(served):
    """40 simultaneous REST best moves of one client with 3 s deadlines: each a 200 or a 429 with Retry-After,
    none a 504 (an answer after its deadline), and the rules calls still answered."""
    _, url = served
    headers = {"Grpc-Timeout": "3S"}
    with futures.ThreadPoolExecutor(40) as pool:
        calls = [
            pool.submit(http, url, "/v1/games/reversi:bestMove", long_search(1000), None, headers) for _ in range(40)
        ]
        assert legal_moves(url)[0] == 200
        answers = [call.result() for call in calls]
    statuses = [status for status, _, _ in answers]
    assert set(statuses) <= {200, 429} and 200 in statuses, statuses
    for status, body, answer_headers in answers:
        if status == 429:
            assert 1 <= int(answer_headers["Retry-After"]) <= 10, answer_headers  # type: ignore[index]
            assert body["details"][0]["reason"] == "OVERLOADED"


def best_move_from(url: str, source: str, ms: int, headers: dict[str, str] | None = None) -> int:
    """A REST BestMove from the client address ``source`` (any 127.x.y.z is this host): its HTTP status."""
    host, _, port = url.removeprefix("http://").partition(":")
    connection = http_client.HTTPConnection(host, int(port), timeout=60, source_address=(source, 0))
    try:
        body = json.dumps(long_search(ms))
        connection.request(
            "POST", "/v1/games/reversi:bestMove", body, {"Content-Type": "application/json", **(headers or {})}
        )
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


# Each way of telling callers apart is its own test of identify() (test_searches.py); end to end, make test runs
# the portal's players, pytest -m slow the other two.
@pytest.mark.parametrize(
    "told_apart_by",
    [pytest.param("address", marks=pytest.mark.slow), pytest.param("api-key", marks=pytest.mark.slow), "player"],
)
def test_a_greedy_rest_caller_cannot_keep_a_modest_one_out(told_apart_by: str, tmp_path):
    """docs/api.md, "When the service is busy": over REST, a greedy caller (6 concurrent 2 s searches, back to
    back) beside a modest one (one 100 ms search at a time), told apart by their addresses (the gateway names
    the HTTP client's), by their API keys, or by the players a trusted portal backend names from one address
    (``Gamerules-Caller``): every one of the modest caller's searches is answered."""
    env = {"GAMERULES_GRPC_TARGET_CONNECTIONS": "16"}
    greedy_headers: dict[str, str] = {}
    modest_headers: dict[str, str] = {}
    greedy_from, modest_from = "127.0.0.2", "127.0.0.3"
    if told_apart_by == "api-key":
        (tmp_path / "keys").write_text("greedy-key-0123456789\nmodest-key-0123456789\n")
        env["GAMERULES_API_KEYS_FILE"] = str(tmp_path / "keys")
        greedy_headers, modest_headers = {"X-Api-Key": "greedy-key-0123456789"}, {"X-Api-Key": "modest-key-0123456789"}
    elif told_apart_by == "player":
        env["GAMERULES_GATEWAY_TRUSTED_CLIENTS"] = "127.0.0.8/32"
        greedy_from = modest_from = "127.0.0.8"
        greedy_headers, modest_headers = {"Gamerules-Caller": "player-1"}, {"Gamerules-Caller": "player-2"}
    with (
        server_process(workers=2, env=env) as running,
        running_gateway(running.address, env=env) as url,
        futures.ThreadPoolExecutor(6) as pool,
    ):
        done = threading.Event()

        def greedy() -> list[int]:
            statuses = []
            while not done.is_set():
                statuses.append(best_move_from(url, greedy_from, 2000, greedy_headers))
            return statuses

        calls = [pool.submit(greedy) for _ in range(6)]
        time.sleep(0.5)  # the greedy caller's searches run and queue
        try:
            modest = [best_move_from(url, modest_from, 100, modest_headers) for _ in range(5)]
        finally:
            done.set()
        greedy_statuses = [status for call in calls for status in call.result()]
    assert modest == [200] * 5, modest
    assert 200 in greedy_statuses and set(greedy_statuses) <= {200, 429}, greedy_statuses


def test_best_moves_waiting_at_the_gateway_leave_room_for_the_rules_calls(served):
    """Ten best moves wait at once, sent on to the server's fair queue (``service/api/rest/gateway_pacing.py``),
    while a rules call is answered beside them in the same event loop; all are answered: the server's queue
    (two workers, one slot and 8 places each) has room for them all."""
    _, url = served
    with futures.ThreadPoolExecutor(10) as pool:
        calls = [pool.submit(http, url, "/v1/games/reversi:bestMove", long_search(600)) for _ in range(10)]
        time.sleep(0.5)
        assert legal_moves(url)[0] == 200
        assert not all(call.done() for call in calls), "the rules call was answered while the searches ran"
        answers = [call.result() for call in calls]
    statuses = sorted(status for status, _, _ in answers)
    assert statuses == [200] * 10, statuses


def test_a_call_that_cannot_get_a_slot_before_its_deadline_is_refused_with_retry_after():
    running = create_server(ServerConfig(service=ServiceConfig(search_slots=1, search_queue=4)), address="127.0.0.1:0")
    channel, stub = fresh_stub(f"127.0.0.1:{running.port}")
    try:
        holding = stub.BestMove.future(
            best_move_request(pb.SearchLimits(max_time_ms=3000, max_depth=60, max_nodes=10**9)), timeout=30
        )
        time.sleep(0.5)
        began = time.monotonic()
        with pytest.raises(grpc.RpcError) as refused:
            stub.BestMove(best_move_request(), timeout=1)
        waited = time.monotonic() - began
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        status = rpc_status.from_call(refused.value)
        info = error_details_pb2.ErrorInfo()
        status.details[0].Unpack(info)
        # Retry once the holding search's 3 s are up: 1 to 3 s from the refusal.
        assert info.reason == "OVERLOADED" and 1 <= int(info.metadata["retry_after_seconds"]) <= 3, info
        assert 0.5 < waited < 1.0, "it waited for a slot, and answered before its deadline"
        assert holding.result().stop_reason == "time"
    finally:
        channel.close()
        running.shutdown(1)


# --- bad input ---------------------------------------------------------------------------------------------


def test_undecodable_grpc_requests_are_invalid_argument_counted_and_logged_in_one_line(served):
    running, _ = served
    garbage = {
        "corrupt wire format": b"\x0a\xff\xff\xff\xff\x0f",
        "invalid UTF-8 in a string": pb.LegalMovesRequest(game="reversi")
        .SerializeToString()
        .replace(b"reversi", b"rev\xffrsi"),
        "a Struct nested 200 deep": _deep_struct(200),
    }
    with grpc.insecure_channel(running.address) as channel:
        for name, data in garbage.items():
            method = "NewGame" if "Struct" in name else "LegalMoves"
            raw = channel.unary_unary(f"/gamerules.v1.GameRules/{method}")
            with pytest.raises(grpc.RpcError) as refused:
                raw(data, timeout=10, metadata=[("x-request-id", f"bytes-{method}")])
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, name
            status = rpc_status.from_call(refused.value)
            assert status is not None and "not a valid message" in status.message, name
    running.wait_log(lambda lines: sum(line["msg"] == "undecodable request" for line in lines) >= 3, timeout_s=10)
    lines = [line for line in running.log() if line["msg"] == "undecodable request"]
    assert all("exc" not in line and len(json.dumps(line)) < 600 for line in lines)
    assert not any("deserializing" in line["msg"] for line in running.log())
    metrics = running.metrics()
    assert _count(metrics, "LegalMoves", "InvalidArgument") >= 2 and _count(metrics, "NewGame", "InvalidArgument") >= 1


def _deep_struct(depth: int) -> bytes:
    """NewGameRequest.options (field 2, a Struct) holding a Struct value nested ``depth`` deep."""
    inner = b""
    for _ in range(depth):
        value = b"\x2a" + _varint(len(inner)) + inner  # Value.struct_value = 5
        entry = b"\x0a\x01k" + b"\x12" + _varint(len(value)) + value  # FieldsEntry key=1, value=2
        inner = b"\x0a" + _varint(len(entry)) + entry  # Struct.fields = 1
    return b"\x0a\x07reversi" + b"\x12" + _varint(len(inner)) + inner


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        out.append((number & 0x7F) | (0x80 if number > 0x7F else 0))
        number >>= 7
        if not number:
            return bytes(out)


def _count(metrics: str, method: str, code: str) -> float:
    for line in metrics.splitlines():
        if (
            line.startswith("grpc_server_handled_total{")
            and f'grpc_method="{method}"' in line
            and f'grpc_code="{code}"' in line
        ):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_deeply_nested_json_is_invalid_json(gateway_url):
    body = b'{"position": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    status, answer, _ = http(gateway_url, "/v1/games/reversi:legalMoves", body)
    assert status == 400 and answer["details"][0]["reason"] == "INVALID_JSON"


def _chunked(url: str, path: str, body: bytes) -> tuple[int, dict]:
    host, port = url.removeprefix("http://").split(":")
    connection = http_client.HTTPConnection(host, int(port), timeout=30)
    chunks = (body[index : index + 65536] for index in range(0, len(body), 65536))
    connection.request("POST", path, chunks, {"Content-Type": "application/json"}, encode_chunked=True)
    answer = connection.getresponse()
    result = answer.status, json.loads(answer.read() or b"{}")
    connection.close()
    return result


def test_a_chunked_body_over_the_limit_is_refused_not_cut(gateway_url):
    small = json.dumps({"position": {"notation": START}}).encode()
    assert _chunked(gateway_url, "/v1/games/reversi:legalMoves", small)[0] == 200
    # Valid JSON up to the limit, then more: cut at 1 MiB it would still parse and answer 200.
    big = small[:-1] + b"," + b" " * (1 << 20) + b"}"
    status, answer = _chunked(gateway_url, "/v1/games/reversi:legalMoves", big)
    assert status == 400 and answer["details"][0]["reason"] == "REQUEST_TOO_LARGE"


def test_options_without_cors_is_405_with_the_true_allow(gateway_url):
    for path, allowed in (
        ("/v1/games/reversi:legalMoves", "POST"),
        ("/v1/games", "GET"),
        ("/v1/games/reversi", "GET"),
        ("/healthz", "GET"),
    ):
        status, _, headers = http(gateway_url, path, method="OPTIONS")
        assert (status, headers["Allow"]) == (405, allowed), path
    assert http(gateway_url, "/v1/nothing/here", method="OPTIONS")[0] == 404


def test_every_line_the_gateway_writes_is_json_grpc_core_included(tmp_path):
    """gRPC's C core writes its own lines to stderr (here: a PEM CA file whose certificate is garbage)."""
    bad_ca = tmp_path / "ca.pem"
    bad_ca.write_text("-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n")
    port = free_port()
    env = {**os.environ, "GAMERULES_GRPC_TARGET_CA": str(bad_ca)}
    process = subprocess.Popen(gateway_command(port, "127.0.0.1:1"), env=env, stderr=subprocess.PIPE)
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz")
        assert http(f"http://127.0.0.1:{port}", "/readyz")[0] == 503
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    lines = [json.loads(line) for line in err.decode().splitlines()]  # each one parses
    core = [line for line in lines if line["logger"] == "stderr"]
    assert any("certificate" in line["msg"] and line["level"] == "ERROR" and line["source"] for line in core), lines


# --- page tokens -------------------------------------------------------------------------------------------


def _token(key: bytes, offset: int, notation: str) -> str:
    mac = hmac.new(key, f"{offset}|{notation}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(offset.to_bytes(8, "big") + mac.digest()[:12]).decode().rstrip("=")


def test_page_tokens_are_signed_with_the_configured_secret():
    key = b"a secret the replicas share"
    servers = [
        create_server(ServerConfig(service=ServiceConfig(page_token_key=key)), address="127.0.0.1:0") for _ in range(2)
    ]
    try:
        stubs = [fresh_stub(f"127.0.0.1:{server.port}") for server in servers]
        request = pb.LegalMovesRequest(game="reversi", position=pb.Position(notation=START), page_size=1)
        token = stubs[0][1].LegalMoves(request, timeout=10).next_page_token
        assert token == _token(key, 1, START)
        request.page_token = token  # another replica with the same secret accepts it
        assert len(stubs[1][1].LegalMoves(request, timeout=10).moves) == 1
        # A token signed with the key the source once held (or any other) is refused.
        request.page_token = _token(b"gamerules page token v1", 3, START)
        with pytest.raises(grpc.RpcError) as refused:
            stubs[1][1].LegalMoves(request, timeout=10)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        for channel, _ in stubs:
            channel.close()
    finally:
        for server in servers:
            server.shutdown(0)


def test_the_page_token_secret_comes_from_the_environment_or_a_file(monkeypatch, tmp_path):
    from service.api.rpc.server import parse_args

    monkeypatch.setenv("GAMERULES_PAGE_TOKEN_KEY", "from the environment")
    assert parse_args([]).service.page_token_key == b"from the environment"
    secret = tmp_path / "key"
    secret.write_bytes(b"from a file\n")
    assert parse_args(["--page-token-key-file", str(secret)]).service.page_token_key == b"from a file"
    monkeypatch.delenv("GAMERULES_PAGE_TOKEN_KEY")
    first, second = parse_args([]).service.page_token_key, parse_args([]).service.page_token_key
    assert len(first) == 32 and first != second  # unset: random, never a constant


# --- metrics -----------------------------------------------------------------------------------------------


def test_each_worker_exports_its_process_metrics(served):
    running, _ = served
    text = running.metrics()
    for name in ("process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds"):
        pids = {int(line.split('pid="')[1].split('"')[0]) for line in text.splitlines() if line.startswith(name + "{")}
        assert running.worker_pids() <= pids, (name, pids)


# --- last: it kills a worker of the module's server ------------------------------------------------------


def test_a_killed_worker_fails_no_rest_call_and_leaves_no_search_process(served):
    running, url = served
    victim = min(running.worker_pids())
    searchers = _descendants(victim)
    assert searchers, "the worker's search processes run from its start"
    with futures.ThreadPoolExecutor(6) as pool:
        calls = [pool.submit(http, url, "/v1/games/reversi:bestMove", long_search(1000)) for _ in range(6)]
        time.sleep(0.5)  # searches run on both workers
        os.kill(victim, signal.SIGKILL)
        statuses = [call.result()[0] for call in calls]
    assert statuses == [200] * 6, statuses
    running.wait_log(lambda lines: len({x["pid"] for x in lines if x["msg"] == "worker serving"}) == 3)
    deadline = time.monotonic() + 30
    while any(os.path.exists(f"/proc/{pid}") and _state(pid) != "Z" for pid in searchers):
        assert time.monotonic() < deadline, f"search processes {searchers} outlived their worker"
        time.sleep(0.2)


def _descendants(pid: int) -> list[int]:
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as file:
                for child in map(int, file.read().split()):
                    found += [child, *_descendants(child)]
    return found


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
