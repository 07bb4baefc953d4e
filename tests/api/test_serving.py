"""Serving for real: several worker processes on one port, SIGTERM with calls in flight, a worker that dies,
best-move floods against cheap calls, overload answers, cancellation, and the configuration.

The multi-process servers here are real ``python -m service.api.rpc.server`` processes on loopback ports; their
JSON log lines (one per call, with the worker's pid) tell which process answered.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.api.rest.gateway_local import local_client
from service.api.rpc import server as server_module
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import ServiceConfig
from service.games import GAMES
from tests.api.conftest import free_port

START = GAMES["reversi"].new_position().to_notation()
# A search that runs until its time limit (a depth limit it cannot reach in time overrides the level's).
# Searches that last their time: the level's node budget (expert's) could end them first on a fast host.
LONG_SEARCH = pb.SearchLimits(max_time_ms=1500, max_depth=60, max_nodes=10**9)


# --- a real multi-process server ---------------------------------------------------------------------------


@dataclass
class ServerProcess:
    process: subprocess.Popen[bytes]
    address: str
    metrics_url: str
    log_path: Path

    def log(self) -> list[dict]:
        lines = []
        for line in self.log_path.read_text().splitlines():
            with contextlib.suppress(ValueError):
                lines.append(json.loads(line))
        return lines

    def worker_pids(self) -> set[int]:
        return {line["pid"] for line in self.log() if line["msg"] == "worker serving"}

    def wait_log(self, predicate, timeout_s: float = 30) -> None:
        deadline = time.monotonic() + timeout_s
        while not predicate(self.log()):
            assert self.process.poll() is None, self.log_path.read_text()[-2000:]
            assert time.monotonic() < deadline, self.log_path.read_text()[-2000:]
            time.sleep(0.05)

    def metrics(self) -> str:
        with urllib.request.urlopen(self.metrics_url, timeout=10) as answer:
            return answer.read().decode()


@contextlib.contextmanager
def server_process(*flags: str, workers: int = 2, env: dict[str, str] | None = None) -> Iterator[ServerProcess]:
    """``python -m service.api.rpc.server`` on free loopback ports, up once every worker logged that it serves."""
    port, metrics_port = free_port(), free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log_path = Path(tmp) / "server.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [
                    sys.executable, "-m", "service.api.rpc.server", "--host", "127.0.0.1", "--port", str(port),
                    "--workers", str(workers), "--metrics-port", str(metrics_port), "--grace-s", "10", *flags,
                ],
                stdout=subprocess.DEVNULL,
                stderr=log,
                env={**os.environ, **(env or {})},
            )  # fmt: skip
        running = ServerProcess(process, f"127.0.0.1:{port}", f"http://127.0.0.1:{metrics_port}/metrics", log_path)
        try:
            running.wait_log(lambda lines: sum(line["msg"] == "worker serving" for line in lines) >= workers)
            yield running
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def fresh_stub(address: str) -> tuple[grpc.Channel, pb_grpc.GameRulesStub]:
    """A stub on its own connection (channels otherwise share one per target), so SO_REUSEPORT can hand it
    to any worker."""
    channel = grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
    return channel, pb_grpc.GameRulesStub(channel)


def legal_moves_request() -> pb.LegalMovesRequest:
    return pb.LegalMovesRequest(game="reversi", position=pb.Position(notation=START))


def best_move_request(limits: pb.SearchLimits = LONG_SEARCH) -> pb.BestMoveRequest:
    return pb.BestMoveRequest(game="reversi", position=pb.Position(notation=START), limits=limits)


def error_reason(error: grpc.RpcError) -> tuple[str, dict[str, str]]:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, "every error carries a google.rpc.Status"
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.reason, dict(info.metadata)
    raise AssertionError(f"no ErrorInfo in {status}")


def retry_delay_s(error: grpc.RpcError) -> int:
    """The seconds of the error's ``google.rpc.RetryInfo``."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return info.retry_delay.seconds
    raise AssertionError(f"no RetryInfo in {status}")


# --- tests -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_workers() -> Iterator[ServerProcess]:
    with server_process(workers=2) as running:
        yield running


def test_several_worker_processes_answer_on_one_port(two_workers):
    assert len(two_workers.worker_pids()) == 2
    for index in range(16):
        channel, stub = fresh_stub(two_workers.address)
        with channel:
            assert stub.LegalMoves(legal_moves_request(), timeout=10, metadata=[("x-request-id", f"r{index}")]).moves

    def ours(lines: list[dict]) -> list[dict]:
        return [line for line in lines if line["msg"] == "call" and line.get("request_id", "").startswith("r")]

    # A call's line is written once its answer has been sent, and forwarded by the parent: it may follow it.
    two_workers.wait_log(lambda lines: len(ours(lines)) >= 16, timeout_s=10)
    calls = ours(two_workers.log())
    assert len(calls) == 16
    # Each connection goes to one worker; 16 of them all landing on one of two workers would be a 1 in 2**15.
    assert {line["pid"] for line in calls} == two_workers.worker_pids()


def test_each_call_is_one_json_log_line(two_workers):
    channel, stub = fresh_stub(two_workers.address)
    with channel, pytest.raises(grpc.RpcError):
        stub.GetGame(pb.GetGameRequest(name="games/chess"), timeout=10, metadata=[("x-request-id", "log-1")])
    two_workers.wait_log(lambda lines: any(line.get("request_id") == "log-1" for line in lines), timeout_s=10)
    (line,) = [line for line in two_workers.log() if line.get("request_id") == "log-1"]
    assert line["logger"] == "gamerules.access" and line["level"] == "INFO"
    assert (line["method"], line["game"], line["code"]) == ("GetGame", "chess", "NOT_FOUND")
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["pid"] in two_workers.worker_pids() and line["ts"].endswith("Z")


def test_best_move_flood_does_not_hold_up_cheap_calls(two_workers):
    """A flood of best-move calls at once: cheap calls keep flowing, within a bound set by the idle case."""
    channel, stub = fresh_stub(two_workers.address)

    def legal_moves_p50(count: int) -> float:
        times = []
        for _ in range(count):
            began = time.perf_counter()
            stub.LegalMoves(legal_moves_request(), timeout=10)
            times.append(time.perf_counter() - began)
        return statistics.median(times)

    with channel:
        legal_moves_p50(20)  # warm up the connection
        idle = legal_moves_p50(60)
        stop = threading.Event()
        codes: list[grpc.StatusCode] = []

        def flood() -> None:
            flood_channel, flood_stub = fresh_stub(two_workers.address)
            with flood_channel:
                while not stop.is_set():
                    try:
                        flood_stub.BestMove(
                            best_move_request(pb.SearchLimits(max_time_ms=300, max_depth=60)), timeout=10
                        )
                        codes.append(grpc.StatusCode.OK)
                    except grpc.RpcError as error:
                        codes.append(error.code())

        threads = [threading.Thread(target=flood) for _ in range(24)]
        for thread in threads:
            thread.start()
        try:
            time.sleep(0.5)  # the searches are running and the queue is full
            loaded = legal_moves_p50(60)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=30)
    assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED}, set(codes)
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes, "24 callers against 2 x (1 slot + 8 waiting) must overflow"
    assert grpc.StatusCode.OK in codes
    assert loaded <= 10 * idle + 0.050, (
        f"LegalMoves p50 {loaded * 1000:.1f} ms under the flood, idle {idle * 1000:.1f} ms"
    )


def test_sigterm_lets_calls_in_flight_finish_and_exits_cleanly():
    with server_process("--search-slots", "4", workers=2) as running:
        # A worker that dies is replaced; the server keeps serving on the port.
        victim = min(running.worker_pids())
        os.kill(victim, signal.SIGKILL)
        running.wait_log(lambda lines: len({x["pid"] for x in lines if x["msg"] == "worker serving"}) == 3)
        assert any(line["msg"].startswith("worker died") for line in running.log())

        channels = [fresh_stub(running.address) for _ in range(4)]
        pool = futures.ThreadPoolExecutor(len(channels))
        in_flight = [pool.submit(stub.BestMove, best_move_request(), timeout=20) for _, stub in channels]
        time.sleep(0.4)  # the searches have started (each runs 1.5 s)
        running.process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        channel, stub = fresh_stub(running.address)
        with channel, pytest.raises(grpc.RpcError) as draining:  # a new call is refused at once while it drains
            stub.LegalMoves(legal_moves_request(), timeout=5)
        assert draining.value.code() == grpc.StatusCode.UNAVAILABLE  # a code clients retry
        assert not any(call.done() for call in in_flight), "the drain ended before the searches"
        answers = [call.result(timeout=30) for call in in_flight]
        assert all(answer.move.notation in {"c4", "d3", "e6", "f5"} for answer in answers)
        assert all(answer.stop_reason == "time" for answer in answers), [a.stop_reason for a in answers]
        assert running.process.wait(timeout=20) == 0
        assert sum(line["msg"] == "worker stopped" for line in running.log()) == 2
        # Once stopped, nothing listens: a new call cannot connect.
        channel, stub = fresh_stub(running.address)
        with channel, pytest.raises(grpc.RpcError) as refused:
            stub.LegalMoves(legal_moves_request(), timeout=2)
        assert refused.value.code() in {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
        for channel, _ in channels:
            channel.close()
        pool.shutdown()


@pytest.fixture(scope="module")
def one_slot() -> Iterator[str]:
    """An in-process server with one search slot and no queue: easy to saturate."""
    config = ServerConfig(service=ServiceConfig(search_slots=1, search_queue=0))
    running = create_server(config, address="127.0.0.1:0")
    yield f"127.0.0.1:{running.port}"
    running.shutdown(1)


def test_overload_is_resource_exhausted_and_429_while_cheap_calls_flow(one_slot):
    channel, stub = fresh_stub(one_slot)
    with channel:
        # A search that holds the only slot until it is cancelled below, however slow the host.
        searching = stub.BestMove.future(
            best_move_request(pb.SearchLimits(max_time_ms=10_000, max_depth=60, max_nodes=10**9)), timeout=30
        )
        time.sleep(0.3)
        with pytest.raises(grpc.RpcError) as refused:
            stub.BestMove(best_move_request(), timeout=10)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        # Retry when the running search must end: within its 10 s, the most the hint says.
        reason, metadata = error_reason(refused.value)
        assert reason == "OVERLOADED" and 1 <= int(metadata["retry_after_seconds"]) <= 10, metadata
        assert retry_delay_s(refused.value) == int(metadata["retry_after_seconds"])  # google.rpc.RetryInfo
        assert stub.LegalMoves(legal_moves_request(), timeout=10).total_size == 4

        client = local_client(one_slot)
        answer = client.post("/v1/games/reversi:bestMove", json={"position": {"notation": START}})
        assert answer.status_code == 429 and 1 <= int(answer.headers["Retry-After"]) <= 10
        assert answer.json["code"] == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        assert searching.running()  # all of the above happened while the slot was taken
        searching.cancel()


def test_a_cancelled_call_stops_its_search_at_once(one_slot):
    channel, stub = fresh_stub(one_slot)
    with channel:
        # Without cancellation this search would hold the only slot for 10 s (the server's cap).
        limits = pb.SearchLimits(max_time_ms=60_000, max_depth=60, max_nodes=10**9)
        call = stub.BestMove.future(best_move_request(limits), timeout=30)
        time.sleep(0.3)
        call.cancel()
        began = time.monotonic()
        while True:  # the slot frees as soon as the search notices; the wait is 50 ms per try
            try:
                answer = stub.BestMove(best_move_request(pb.SearchLimits(max_depth=1)), timeout=10)
                break
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                # Uncancelled, the search would hold the slot for the server's 10 s cap.
                assert time.monotonic() - began < 5, "the cancelled search still holds the slot"
        assert answer.depth == 1


def test_configuration_from_flags_and_environment(monkeypatch):
    monkeypatch.setenv("GAMERULES_WORKERS", "3")
    monkeypatch.setenv("GAMERULES_SEARCH_SLOTS", "4")
    monkeypatch.setenv("GAMERULES_API_KEYS", "k1, k2")
    config = server_module.parse_args(["--threads", "16", "--max-think-ms", "2000", "--log-format", "text"])
    assert (config.workers, config.threads, config.service.search_slots) == (3, 16, 4)
    assert (config.service.search_queue, config.service.search_mode) == (8, "process")
    assert config.service.max_think_ms == 2000 and config.metrics_port == 9464 and config.tls is None
    assert len(config.api_keys) == 2
    assert server_module.parse_args(["--workers", "1"]).workers == 1
    with pytest.raises(SystemExit):  # no thread would be left for the cheap calls
        server_module.parse_args(["--threads", "6", "--search-slots", "4", "--search-queue", "2"])
    with pytest.raises(SystemExit):
        server_module.parse_args(["--tls-cert", "cert.pem"])
