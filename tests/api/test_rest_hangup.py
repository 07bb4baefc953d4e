"""A REST client that hangs up stops its search: the gateway (``service/api/rest/gateway_asgi.py``'s front, which
hears the server's disconnect; ``gateway_backends.unless_gone``) cancels the gRPC call, and the
server stops the search, for a best move and for a streamed analysis, before its first message or in the
middle of the stream.

Measured without wall-clock bounds a loaded host could break: the search's own outcome (the server's observer:
``cancelled``, after a fraction of the 8 s it was given), the status the gateway counted (499), and the CPU
time of the search processes, which stops growing."""

from __future__ import annotations

import json
import os
import queue
import re
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import GameRulesServicer, ServiceConfig
from service.core import SearchResult
from service.games import GAMES
from tests.api.conftest import running_gateway

START = GAMES["reversi"].new_position().to_notation()
SEARCH_MS = 8000  # what each search is given: left alone, it would run this long
# A hang-up stops the search within a fraction of a second; asserted: well before its end, whatever the load.
STOPPED_WITHIN_MS = SEARCH_MS / 2
LONG = {"position": {"notation": START}, "level": "expert", "limits": {"maxTimeMs": SEARCH_MS}}
BEST_MOVE = "/v1/games/reversi:bestMove"
ANALYZE = "/v1/games/reversi:analyze"
BEST_MOVE_ROUTE = "/v1/{game=games/*}:bestMove"
ANALYZE_ROUTE = "/v1/{game=games/*}:analyze"


class Observed:
    """The gRPC server's searches as they end: (when, result)."""

    def __init__(self) -> None:
        self.results: queue.SimpleQueue[tuple[float, SearchResult]] = queue.SimpleQueue()

    def __call__(self, game: str, level: str, result: SearchResult) -> None:
        self.results.put((time.monotonic(), result))

    def next(self, timeout_s: float = 10) -> tuple[float, SearchResult]:
        return self.results.get(timeout=timeout_s)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, str, Observed, GameRulesServicer]]:
    """A gRPC server with one search slot (its searches observed, the cap well above SEARCH_MS) and a real
    gateway in front of it: (gRPC address, gateway URL, observed, the servicer)."""
    observed = Observed()
    config = ServiceConfig(max_think_ms=20_000, search_slots=1, search_queue=2)
    servicer = GameRulesServicer(config=config, observe_search=observed)
    running = create_server(ServerConfig(service=config), address="127.0.0.1:0", servicer=servicer)
    address = f"127.0.0.1:{running.port}"
    try:
        with grpc.insecure_channel(address) as channel:  # the search process started before any measure
            warm = pb.BestMoveRequest(
                game="reversi", position=pb.Position(notation=START), limits=pb.SearchLimits(max_depth=1)
            )
            pb_grpc.GameRulesStub(channel).BestMove(warm, timeout=60)
        observed.next()
        with running_gateway(address) as url:
            yield address, url, observed, servicer
    finally:
        running.shutdown(1)


def send(url: str, path: str, body: dict[str, Any], accept: str = "application/json") -> socket.socket:
    """A POST sent on a raw socket (the caller closes it), with a deadline far beyond the search's."""
    host, _, port = url.removeprefix("http://").partition(":")
    data = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\nAccept: {accept}\r\n"
        f"Grpc-Timeout: 20S\r\nContent-Length: {len(data)}\r\n\r\n"
    )
    sock = socket.create_connection((host, int(port)), timeout=10)
    sock.sendall(head.encode() + data)
    return sock


def hang_up(url: str, path: str, body: dict[str, Any]) -> float:
    """Send a POST, read nothing, hang up after half a second: when (``time.monotonic``)."""
    with send(url, path, body):
        time.sleep(0.5)
        return time.monotonic()


LONG_ITERATION_S = 0.3
# Analyses started until one is left in the middle of a long iteration and stops in it (each one that ran to
# its end instead is waited for, so that its search is not taken for the next one's).
MID_STREAM_TRIES = 3


def hang_up_mid_stream(url: str, accept: str) -> tuple[float, int] | None:
    """Start a long analysis and read its stream until an iteration took ``LONG_ITERATION_S`` or more (the
    next, deeper, takes longer still), then hang up at once: (when, the depth last received). None if the
    stream ended first: on a loaded box the search process (niced) may hand its iterations over in bursts,
    none seen to take that long, and then the client had no iteration to leave in."""
    with send(url, ANALYZE, LONG, accept) as sock:
        received, depth, reported = b"", 0, time.monotonic()
        while True:
            chunk = sock.recv(65536)
            assert chunk, received  # the stream goes on until its final message
            received += chunk
            if b'"final":true' in received:
                return None
            depths = [int(found) for found in re.findall(rb'"depth":(\d+)', received)]
            if depths and depths[-1] > depth:
                now = time.monotonic()
                if depth and now - reported >= LONG_ITERATION_S:
                    return now, depths[-1]  # closed on leaving the block
                depth, reported = depths[-1], now


def counted(url: str, route: str, code: str) -> float:
    """The gateway's ``http_requests_total`` for POST ``route`` answered ``code``."""
    with urllib.request.urlopen(url + "/metrics", timeout=10) as answer:
        text = answer.read().decode()
    labels = {"method": "POST", "route": route, "code": code}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "http_requests_total" and sample.labels == labels:
                return float(sample.value)
    return 0.0


def eventually(condition: Any, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def search_cpu_s() -> float:
    """CPU seconds of this process's search processes: multiprocessing's forkserver and its children."""
    stats = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                fields = file.read().rpartition(")")[2].split()
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                command = file.read()
        except OSError:
            continue
        stats[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), command)
    servers = {pid for pid, (parent, _, command) in stats.items() if parent == os.getpid() and b"forkserver" in command}
    return sum(cpu for pid, (parent, cpu, _) in stats.items() if pid in servers or parent in servers)


class CpuSampler:
    """``search_cpu_s()`` every 20 ms on a thread of its own while in the ``with`` block: (when, CPU seconds)."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.is_set():
            self.samples.append((time.monotonic(), search_cpu_s()))
            self._done.wait(0.02)

    def __enter__(self) -> CpuSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()

    def used(self, start: float, end: float) -> float:
        """CPU seconds the search processes used between the samples nearest ``start`` and ``end``."""
        inside = [cpu for when, cpu in self.samples if start <= when <= end]
        return inside[-1] - inside[0] if inside else 0.0

    def wait_idle(self, window_s: float = 0.3, timeout_s: float = 5.0) -> bool:
        """Wait until the processes used (next to) no CPU for ``window_s``; False if not within ``timeout_s``."""
        return eventually(
            lambda: bool(self.samples) and self.used(self.samples[-1][0] - window_s, time.monotonic()) < 0.03, timeout_s
        )

    def last_busy(self) -> float:
        """When the CPU time last grew between two samples."""
        pairs = zip(self.samples[1:], self.samples[:-1], strict=True)
        return max((when for (when, cpu), (_, before) in pairs if cpu > before), default=self.samples[0][0])


def test_a_best_move_whose_client_hangs_up_stops_its_search(served):
    _, url, observed, _ = served
    before = counted(url, BEST_MOVE_ROUTE, "499")
    with CpuSampler() as cpu:
        sent = time.monotonic()
        closed = hang_up(url, BEST_MOVE, LONG)
        ended, result = observed.next()
        assert result.stop_reason == "cancelled" and result.elapsed_ms < STOPPED_WITHIN_MS, result
        # The search process stopped using CPU, long before the search's time was up.
        assert cpu.wait_idle()
    idle = cpu.last_busy() - closed
    assert idle < STOPPED_WITHIN_MS / 1000, idle
    # The gateway answered 499 (CANCELLED: the caller went away), not 200 once the search was over.
    assert eventually(lambda: counted(url, BEST_MOVE_ROUTE, "499") == before + 1)
    print(
        f"best move: {cpu.used(sent, closed):.2f} CPU s before the hang-up; search ended {ended - closed:.3f} s"
        f" after it, its process's CPU time last grew {idle:.3f} s after it"
    )


@pytest.mark.parametrize("accept", ["application/x-ndjson", "text/event-stream"])
def test_an_analysis_whose_client_hangs_up_mid_stream_stops_its_search(served, accept):
    _, url, observed, _ = served
    left_in: list[tuple[int, int]] = []  # (the depth the client saw last, the depth the search completed)
    for _ in range(MID_STREAM_TRIES):
        left = hang_up_mid_stream(url, accept)
        ended, result = observed.next()
        if left is None:
            assert result.stop_reason != "cancelled", result  # it ran to its end: no client left it
            continue
        closed, depth = left
        # Timed from the hang-up: on a loaded box the client may only leave seconds into the search.
        assert result.stop_reason == "cancelled" and ended - closed < STOPPED_WITHIN_MS / 1000, (ended - closed, result)
        left_in.append((depth, result.depth))
        if result.depth == depth:
            break
    assert left_in, f"no analysis of {MID_STREAM_TRIES} showed an iteration to hang up in"
    # Stopped in the iteration the client left in: none completed after it (the stream used to notice only
    # when it sent the next one). The next iteration is usually the longer, but now and then the table makes
    # it short enough to end before the hang-up reaches the search: an analysis is started again then, and a
    # search that goes on to the next iteration every time fails.
    assert left_in[-1][0] == left_in[-1][1], left_in
    # A streamed analysis searches in the server's own process, on the call's "analysis" thread: it ended.
    assert eventually(lambda: not any(thread.name == "analysis" for thread in threading.enumerate()))
    print(f"analysis ({accept}): stopped {ended - closed:.3f} s after the hang-up at depth {depth}")


def test_an_analysis_whose_client_hangs_up_before_its_first_message_is_cancelled(served):
    """The slot taken, the analysis waits in the server's queue: no response has started when the client
    leaves, and the gateway cancels the call (499) all the same; the analysis never searches."""
    address, url, observed, servicer = served
    before = counted(url, ANALYZE_ROUTE, "499")
    with grpc.insecure_channel(address) as channel:
        blocking = pb.BestMoveRequest(
            game="reversi",
            position=pb.Position(notation=START),
            level="expert",
            limits=pb.SearchLimits(max_time_ms=SEARCH_MS),
        )
        idle = search_cpu_s()
        holder = pb_grpc.GameRulesStub(channel).BestMove.future(blocking, timeout=20)
        try:
            assert eventually(lambda: search_cpu_s() > idle + 0.02)  # the holder searches: the slot is its
            hang_up(url, ANALYZE, LONG)
            assert eventually(lambda: counted(url, ANALYZE_ROUTE, "499") == before + 1)
            # The gateway cancelled its call; the server hears it in its own time (a loaded box: later than the
            # holder's cancel below, and the slot would free first). Asserted: the analysis leaves the queue.
            assert eventually(lambda: servicer.searches_waiting == 0)
        finally:
            holder.cancel()
        held = observed.next()[1]
        assert held.stop_reason == "cancelled" and held.elapsed_ms < STOPPED_WITHIN_MS, held
        # The analysis left the queue when its caller did, without a search: the next search observed is the
        # next call's (it used to get the slot once it freed, and end "cancelled" at once).
        quick = pb.BestMoveRequest(
            game="reversi", position=pb.Position(notation=START), limits=pb.SearchLimits(max_depth=1)
        )
        pb_grpc.GameRulesStub(channel).BestMove(quick, timeout=20)
        following = observed.next()[1]
    assert following.depth == 1 and following.stop_reason != "cancelled", following


def test_a_client_that_keeps_another_connection_open_is_still_seen_to_leave(served):
    """The front hears the server's disconnect of the request's own connection: a client that holds another
    connection to the same worker open (a browser's, a proxy's pool) is seen to leave all the same. (The
    gateway used to look at its worker's sockets for the client's address, and saw such a client go only once
    every one of them had closed.)"""
    _, url, observed, _ = served
    host, _, port = url.removeprefix("http://").partition(":")
    before = counted(url, BEST_MOVE_ROUTE, "499")
    with socket.create_connection((host, int(port)), timeout=10) as pooled:
        pooled.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        assert pooled.recv(65536).startswith(b"HTTP/1.1 200")  # kept alive, idle, from the same address
        hang_up(url, BEST_MOVE, LONG)
        _, result = observed.next()
        assert result.stop_reason == "cancelled" and result.elapsed_ms < STOPPED_WITHIN_MS, result
        assert eventually(lambda: counted(url, BEST_MOVE_ROUTE, "499") == before + 1)
