"""Serving against abusive and greedy clients (``python -m bench.serving``; ``--parts`` to choose).

The servers run as in production (``python -m service.api.rpc.server`` with two workers, the gateway under granian
with two workers, ``bench.soak.servers``) on 127.0.0.1; the load comes from client processes of this bench.

- stalled: 200 connections send their headers and one byte of a 100-byte body, then nothing. Targets: 3 of 3
  LegalMoves answered within 5 s meanwhile; every stalled connection closed by the gateway within 60 s.
- door: 4,500 connections from one address (127.0.0.2) that send nothing, then 10 LegalMoves, each on a new
  connection from another address; then 1,100 bodies from one address (127.0.0.4) that stall after a byte, and 40
  LegalMoves from another. Targets: the 10 answered within 1 s each; at least 95 % of the 40 answered.
- fair: a greedy caller (20 concurrent 10 s BestMoves, back to back) and a modest one (one 100 ms BestMove at a
  time), told apart by the ``gamerules-caller`` metadata a trusted backend sets (``service/api/callers.py``),
  over gRPC for ``--fair-s``. Target: the modest caller answered >= 90 % of its calls.
- saturation: 32 REST clients calling 300 ms BestMoves back to back (each honouring nothing) for
  ``--saturation-s``. Targets: every answer 200 or 429 with Retry-After; the slowest within 3 s.
- isolation: LegalMoves p99 over gRPC idle, then under a 64-client gRPC BestMove flood without backoff, the
  soak's 64-client REST flood and 16 AnalyzePosition streams, in turn. Target: each p99 within 2x idle.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import multiprocessing
import os
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent import futures
from pathlib import Path

import grpc

from bench.soak import REVERSI_START, Servers, _percentiles, auto_split, flood, legal_moves_times, servers, verdict
from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.api import cpus

PARTS = ("stalled", "door", "fair", "saturation", "isolation")
SILENT, SILENT_TARGET_S = 4500, 1.0
STALLED_FROM_ONE, OTHERS_TARGET = 1100, 0.95
STALLED = 200
TARGET_ANSWERED_S = 5.0
TARGET_CLOSED_S = 60.0
TARGET_MODEST = 0.9
TARGET_SLOWEST_S = 3.0
TARGET_RATIO = 2.0


def best_move(time_ms: int) -> pb.BestMoveRequest:
    limits = pb.SearchLimits(max_time_ms=time_ms, max_depth=60, max_nodes=10**9)
    return pb.BestMoveRequest(game="reversi", position=pb.Position(notation=REVERSI_START), limits=limits)


# --- stalled bodies ------------------------------------------------------------------------------------------


def run_stalled(servers: Servers) -> bool:
    host, port = servers.rest.removeprefix("http://").split(":")
    stalled = []
    for _ in range(STALLED):
        sock = socket.create_connection((host, int(port)), timeout=120)
        sock.sendall(
            f"POST /v1/games/reversi:legalMoves HTTP/1.1\r\nHost: {host}\r\nContent-Length: 100\r\n\r\n{{".encode()
        )
        stalled.append(sock)
    opened = time.monotonic()
    times = legal_moves_times(servers, "rest", 3)
    answered = len(times) == 3 and max(times) <= TARGET_ANSWERED_S
    closed_at: list[float] = []

    def wait_closed(sock: socket.socket) -> None:
        try:
            while sock.recv(65536):
                pass
        except OSError:
            pass
        closed_at.append(time.monotonic() - opened)
        sock.close()

    watchers = [threading.Thread(target=wait_closed, args=(sock,)) for sock in stalled]
    for watcher in watchers:
        watcher.start()
    for watcher in watchers:
        watcher.join(TARGET_CLOSED_S * 2)
    closed = len(closed_at) == STALLED and max(closed_at) <= TARGET_CLOSED_S
    print(
        f"  stalled: {STALLED} stalled bodies; LegalMoves answered {len(times)}/3, slowest "
        f"{max(times, default=float('nan')):.3f} s (target 3/3 <= {TARGET_ANSWERED_S:g} s) {verdict(answered)}; "
        f"closed by the gateway {len(closed_at)}/{STALLED}, "
        f"the last after {max(closed_at, default=float('nan')):.1f} s "
        f"(target all <= {TARGET_CLOSED_S:g} s) {verdict(closed)}",
        flush=True,
    )
    return answered and closed


# --- one address's flood at the door ----------------------------------------------------------------------


def fresh_legal_moves(servers: Servers, count: int, source: str) -> list[float | None]:
    """``count`` LegalMoves, each on a new connection from ``source``: seconds to the answer, None when it
    failed (refused, reset, timed out)."""
    host, port = servers.rest.removeprefix("http://").split(":")
    body = json.dumps({"position": {"notation": REVERSI_START}})
    times: list[float | None] = []
    for _ in range(count):
        began = time.perf_counter()
        connection = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
        try:
            connection.request("POST", "/v1/games/reversi:legalMoves", body, {"Content-Type": "application/json"})
            answer = connection.getresponse()
            answer.read()
            times.append(time.perf_counter() - began if answer.status == 200 else None)
        except OSError:
            times.append(None)
        finally:
            connection.close()
    return times


def open_from(servers: Servers, count: int, source: str, first: bytes = b"") -> list[socket.socket]:
    host, port = servers.rest.removeprefix("http://").split(":")
    socks = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        sock.bind((source, 0))
        sock.connect_ex((host, int(port)))
        socks.append(sock)
    if first:
        for sock in socks:
            sock.setblocking(True)
            sock.settimeout(5)
            with contextlib.suppress(OSError):  # refused or closed already: the gateway's business
                sock.sendall(first)
    return socks


def run_door(servers: Servers) -> bool:
    host = servers.rest.removeprefix("http://").split(":")[0]
    silent = open_from(servers, SILENT, "127.0.0.2")
    try:
        times = fresh_legal_moves(servers, 10, "127.0.0.3")
    finally:
        for sock in silent:
            sock.close()
    answered = [t for t in times if t is not None]
    quick = len(answered) == 10 and max(answered) <= SILENT_TARGET_S
    head = f"POST /v1/games/reversi:legalMoves HTTP/1.1\r\nHost: {host}\r\nContent-Length: 100\r\n\r\n{{"
    stalled = open_from(servers, STALLED_FROM_ONE, "127.0.0.4", head.encode())
    try:
        others = fresh_legal_moves(servers, 40, "127.0.0.5")
    finally:
        for sock in stalled:
            sock.close()
    share = sum(t is not None for t in others) / len(others)
    print(
        f"  door: {SILENT} silent connections from one address; another's LegalMoves answered {len(answered)}/10, "
        f"slowest {max(answered, default=float('nan')):.3f} s "
        f"(target 10/10 <= {SILENT_TARGET_S:g} s) {verdict(quick)}; "
        f"{STALLED_FROM_ONE} stalled bodies from one address; another's answered {share:.0%} "
        f"(target >= {OTHERS_TARGET:.0%}) {verdict(share >= OTHERS_TARGET)}",
        flush=True,
    )
    return quick and share >= OTHERS_TARGET


# --- two callers -------------------------------------------------------------------------------------------


def in_threads(loop: Callable[[], None], count: int) -> None:
    """Run ``loop`` on ``count`` threads at once, until every one has returned."""
    workers = [threading.Thread(target=loop) for _ in range(count)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def caller_loop(target: str, caller: str, time_ms: int, threads: int, seconds: float) -> dict[str, int]:
    """``threads`` callers named ``caller`` calling BestMove back to back for ``seconds`` (a client process)."""
    counts: dict[str, int] = {}
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def loop() -> None:
        with grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            stub = pb_grpc.GameRulesStub(channel)
            while time.monotonic() < end:
                try:
                    stub.BestMove(best_move(time_ms), timeout=30, metadata=[("gamerules-caller", caller)])
                    outcome = "answered"
                except grpc.RpcError as error:
                    outcome = error.code().name  # type: ignore[attr-defined]
                    if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:  # type: ignore[attr-defined]
                        time.sleep(0.1)  # a modest backoff, not the Retry-After: the greedy keeps pressing
                with lock:
                    counts[outcome] = counts.get(outcome, 0) + 1

    in_threads(loop, threads)
    return counts


def run_fair(servers: Servers, pool: futures.Executor, seconds: float) -> bool:
    greedy = pool.submit(caller_loop, servers.grpc, "greedy", 10_000, 20, seconds)
    time.sleep(1)  # the greedy caller holds its slots and its places in the queue
    modest = caller_loop(servers.grpc, "modest", 100, 1, seconds - 1)
    greedy_counts = greedy.result()
    share = modest.get("answered", 0) / max(sum(modest.values()), 1)
    print(
        f"  fair: greedy (20 x 10 s) {dict(sorted(greedy_counts.items()))}; modest (1 x 100 ms) "
        f"{dict(sorted(modest.items()))}: answered {share:.0%} (target >= {TARGET_MODEST:.0%}) "
        f"{verdict(share >= TARGET_MODEST)}",
        flush=True,
    )
    return share >= TARGET_MODEST


# --- saturation --------------------------------------------------------------------------------------------


def rest_flood_timed(base: str, clients: int, seconds: float) -> list[tuple[int, bool, float]]:
    """``clients`` keep-alive clients calling a 300 ms BestMove back to back: (status, Retry-After given,
    seconds) per answer (a client process)."""
    host, port = base.removeprefix("http://").split(":")
    limits = {"maxTimeMs": 300, "maxDepth": 60, "maxNodes": 10**9}
    body = json.dumps({"position": {"notation": REVERSI_START}, "limits": limits}).encode()
    head = (
        f"POST /v1/games/reversi:bestMove HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    answers: list[tuple[int, bool, float]] = []

    async def client(end: float) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        while time.monotonic() < end:
            began = time.monotonic()
            writer.write(head + body)
            status = int((await reader.readline()).split()[1])
            length, retry = 0, False
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                retry = retry or name.lower() == "retry-after"
            await reader.readexactly(length)
            answers.append((status, retry, time.monotonic() - began))
        writer.close()

    async def run() -> None:
        end = time.monotonic() + seconds
        await asyncio.gather(*(client(end) for _ in range(clients)))

    asyncio.run(run())
    return answers


def run_saturation(servers: Servers, pool: futures.Executor, seconds: float) -> bool:
    answers = pool.submit(rest_flood_timed, servers.rest, 32, seconds).result()
    statuses: dict[int, int] = {}
    for status, _, _ in answers:
        statuses[status] = statuses.get(status, 0) + 1
    proper = all(status == 200 or (status == 429 and retry) for status, retry, _ in answers)
    slowest = max((took for _, _, took in answers), default=float("nan"))
    met = proper and slowest <= TARGET_SLOWEST_S
    print(
        f"  saturation: 32 REST clients x 300 ms BestMoves for {seconds:g} s: {dict(sorted(statuses.items()))}, "
        f"every one 200 or 429 with Retry-After: {proper}; slowest {slowest:.2f} s (target <= "
        f"{TARGET_SLOWEST_S:g} s) {verdict(met)}",
        flush=True,
    )
    return met


# --- isolation ---------------------------------------------------------------------------------------------


def away_from_the_rules_cores() -> None:
    split = auto_split()
    if split:
        cpus.pin_process(split.search)


def grpc_flood(target: str, clients: int, stop_file: str) -> dict[str, int]:
    """``clients`` threads calling a 300 ms BestMove back to back without backoff until ``stop_file`` exists
    (on the search cores, as the soak's flood: it stands for callers on other machines)."""
    away_from_the_rules_cores()
    counts: dict[str, int] = {}
    lock = threading.Lock()

    def loop() -> None:
        with grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            stub = pb_grpc.GameRulesStub(channel)
            while not os.path.exists(stop_file):
                try:
                    stub.BestMove(best_move(300), timeout=30)
                    outcome = "OK"
                except grpc.RpcError as error:
                    outcome = error.code().name  # type: ignore[attr-defined]
                with lock:
                    counts[outcome] = counts.get(outcome, 0) + 1

    in_threads(loop, clients)
    return counts


def analyze_streams(target: str, streams: int, stop_file: str) -> dict[str, int]:
    """``streams`` AnalyzePosition streams of 5 s, one after another on each thread, until ``stop_file``."""
    away_from_the_rules_cores()
    counts: dict[str, int] = {}
    lock = threading.Lock()

    def loop() -> None:
        with grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            stub = pb_grpc.GameRulesStub(channel)
            request = pb.AnalyzePositionRequest(
                game="reversi", position=pb.Position(notation=REVERSI_START), limits=best_move(5000).limits
            )
            while not os.path.exists(stop_file):
                outcome = "messages"
                try:
                    for _ in stub.AnalyzePosition(request, timeout=30):
                        if os.path.exists(stop_file):
                            break
                        with lock:
                            counts[outcome] = counts.get(outcome, 0) + 1
                except grpc.RpcError as error:
                    with lock:
                        name = error.code().name  # type: ignore[attr-defined]
                        counts[name] = counts.get(name, 0) + 1
                    time.sleep(0.1)

    in_threads(loop, streams)
    return counts


def run_isolation(servers: Servers, pool: futures.Executor, samples: int, rounds: int) -> bool:
    """Each load in ``rounds`` rounds of idle then loaded samples (the box's other load then falls on both
    alike), p99 over all rounds' samples; a first idle run warms the servers up and is not counted."""
    loads: list[tuple[str, Callable[[str], futures.Future[dict[str, int]]]]] = [
        ("64-client gRPC BestMove flood", lambda stop: pool.submit(grpc_flood, servers.grpc, 64, stop)),
        ("64-client REST BestMove flood", lambda stop: pool.submit(flood, servers.rest, 64, stop)),
        ("16 AnalyzePosition streams", lambda stop: pool.submit(analyze_streams, servers.grpc, 16, stop)),
    ]
    legal_moves_times(servers, "grpc", samples)
    met = True
    for label, start in loads:
        idle: list[float] = []
        loaded: list[float] = []
        counts: dict[str, int] = {}
        for _ in range(rounds):
            idle += legal_moves_times(servers, "grpc", samples)
            with tempfile.TemporaryDirectory() as tmp:
                stop_file = os.path.join(tmp, "stop")
                load = start(stop_file)
                time.sleep(3)  # the searches run, the queues are full, the first refusals' holds are over
                try:
                    loaded += legal_moves_times(servers, "grpc", samples)
                finally:
                    Path(stop_file).touch()
                for outcome, count in load.result().items():
                    counts[outcome] = counts.get(outcome, 0) + count
        (idle_p50, idle_p99), (p50, p99) = _percentiles(idle), _percentiles(loaded)
        ratio = p99 / idle_p99
        met = met and ratio <= TARGET_RATIO
        print(
            f"  isolation: under a {label}: gRPC LegalMoves p50 {idle_p50:.2f} -> {p50:.2f} ms, p99 {idle_p99:.2f} -> "
            f"{p99:.2f} ms ({rounds} rounds of {samples}): {ratio:.2f}x idle (target <= {TARGET_RATIO:g}x) "
            f"{verdict(ratio <= TARGET_RATIO)}; the load's answers {dict(sorted(counts.items()))}",
            flush=True,
        )
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS), help=f"a comma-separated choice of {', '.join(PARTS)}")
    parser.add_argument("--fair-s", type=float, default=30.0)
    parser.add_argument("--saturation-s", type=float, default=10.0)
    parser.add_argument("--samples", type=int, default=1000, help="timed LegalMoves per phase of the isolation")
    parser.add_argument("--rounds", type=int, default=3, help="idle and loaded phases of each isolation load")
    args = parser.parse_args(argv)
    parts = [part for part in args.parts.split(",") if part]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)}")
    results = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        servers("process", Path(tmp)) as running,
        futures.ProcessPoolExecutor(1, multiprocessing.get_context("spawn")) as pool,
    ):
        for part in parts:
            if part == "stalled":
                results[part] = run_stalled(running)
            elif part == "door":
                results[part] = run_door(running)
            elif part == "fair":
                results[part] = run_fair(running, pool, args.fair_s)
            elif part == "saturation":
                results[part] = run_saturation(running, pool, args.saturation_s)
            else:
                results[part] = run_isolation(running, pool, args.samples, args.rounds)
    print(f"serving: {sum(results.values())}/{len(results)} parts met", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
