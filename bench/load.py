"""Load benchmark: throughput and p50/p99 latency of LegalMoves, ApplyMove and BestMove over gRPC and REST at
concurrency 1, 8, 32 and 128, next to an empty-handler baseline measured in the same run.

The baseline is the same gRPC server with the same settings (workers, threads, interceptors, metrics, call
logs) whose LegalMoves does nothing: the same request is decoded and an empty response returned. Our
LegalMoves throughput is printed as a ratio of it, and the gateway's cost as REST p50 minus gRPC p50.

The HTTP floor (``http-floor``) is granian with the same workers answering every request with the gateway's
own LegalMoves answer, read once at start, and no work: the cost of an HTTP hop with this client and server.
A compiled transcoding proxy (Envoy's grpc_json_transcoder, grpc-gateway) adds its hop and its transcoding
to direct gRPC; REST p50 minus the floor's minus gRPC's is what the gateway's own Python work costs on top of
that hop (``docs/development.md``, "The gateway's cost").

Everything runs on 127.0.0.1: the servers as in production (``python -m service.api.rpc.server`` with one worker
per core, the gateway under granian), the load from separate client processes (asyncio: grpc.aio, and a
minimal keep-alive HTTP/1.1 client). Each cell runs for a fixed time and a bounded number of calls.
``python -m bench.load [--seconds 3] [--concurrency 1,8,32,128]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc

HOST = "127.0.0.1"
METHODS = ("LegalMoves", "ApplyMove", "BestMove")
MAX_CALLS_PER_CELL = 200_000
# A Reversi middle game (12 plies in): a realistic, mid-sized request.
POSITION = "......../......../..WBB.../..WWWB../..WBBW../...BWB../......../........ 1 black=1"
_LEGAL_MOVES_TARGETS = ("baseline", "grpc", "rest", "http-floor")
_ROUTES = {"LegalMoves": "legalMoves", "ApplyMove": "applyMove", "BestMove": "bestMove"}


def requests() -> dict[str, tuple[pb.LegalMovesRequest | pb.ApplyMoveRequest | pb.BestMoveRequest, dict]]:
    """Each method's request, as protobuf (gRPC) and as JSON (REST)."""
    position = {"notation": POSITION}
    legal = pb.LegalMovesRequest(game="reversi", position=pb.Position(notation=POSITION))
    apply = pb.ApplyMoveRequest(game="reversi", position=pb.Position(notation=POSITION), move=pb.Move(notation="f3"))
    best = pb.BestMoveRequest(
        game="reversi", position=pb.Position(notation=POSITION), limits=pb.SearchLimits(max_depth=3)
    )
    return {
        "LegalMoves": (legal, {"position": position}),
        "ApplyMove": (apply, {"position": position, "move": {"notation": "f3"}}),
        "BestMove": (best, {"position": position, "limits": {"maxDepth": 3}}),
    }


# --- the load generator (runs in client processes) ---------------------------------------------------------


@dataclass
class Sample:
    latencies: list[float] = field(default_factory=list)  # of successful calls, seconds
    refused: int = 0  # RESOURCE_EXHAUSTED / 429: the intended answer to overload
    errors: dict[str, int] = field(default_factory=dict)

    def add(self, other: Sample) -> None:
        self.latencies += other.latencies
        self.refused += other.refused
        for key, count in other.errors.items():
            self.errors[key] = self.errors.get(key, 0) + count


async def _grpc_load(address: str, method: str, concurrency: int, seconds: float, max_calls: int) -> Sample:
    request = requests()[method][0]
    sample = Sample()
    # Several connections, so SO_REUSEPORT spreads them over the workers (a channel is one connection).
    channels = [
        grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(min(concurrency, 4))
    ]
    stubs = [pb_grpc.GameRulesStub(channel) for channel in channels]
    for stub in stubs:
        await stub.ListGames(pb.ListGamesRequest(), timeout=10)
    end = time.perf_counter() + seconds

    async def worker(stub: pb_grpc.GameRulesStub) -> None:
        call = getattr(stub, method)
        while time.perf_counter() < end and len(sample.latencies) + sample.refused < max_calls:
            began = time.perf_counter()
            try:
                await call(request, timeout=30)
                sample.latencies.append(time.perf_counter() - began)
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    sample.refused += 1
                else:
                    sample.errors[error.code().name] = sample.errors.get(error.code().name, 0) + 1

    await asyncio.gather(*(worker(stubs[index % len(stubs)]) for index in range(concurrency)))
    for channel in channels:
        await channel.close()
    return sample


async def _rest_load(base: str, method: str, concurrency: int, seconds: float, max_calls: int) -> Sample:
    body = json.dumps(requests()[method][1]).encode()
    host, port = base.removeprefix("http://").split(":")
    head = (
        f"POST /v1/games/reversi:{_ROUTES[method]} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    sample = Sample()
    end = time.perf_counter() + seconds

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            while time.perf_counter() < end and len(sample.latencies) + sample.refused < max_calls:
                began = time.perf_counter()
                writer.write(head + body)
                status_line = await reader.readline()
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                await reader.readexactly(length)
                status = int(status_line.split()[1])
                if status == 200:
                    sample.latencies.append(time.perf_counter() - began)
                elif status == 429:
                    sample.refused += 1
                else:
                    sample.errors[str(status)] = sample.errors.get(str(status), 0) + 1
        finally:
            writer.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return sample


def _client(transport: str, target: str, method: str, concurrency: int, seconds: float, max_calls: int) -> Sample:
    load = _grpc_load if transport == "grpc" else _rest_load
    return asyncio.run(load(target, method, concurrency, seconds, max_calls))


def measure(
    pool: futures.Executor, processes: int, transport: str, target: str, method: str, concurrency: int, seconds: float
) -> tuple[Sample, float]:
    """Run ``concurrency`` callers split over client processes; the merged sample and the wall time."""
    shares = [concurrency // processes + (index < concurrency % processes) for index in range(processes)]
    shares = [share for share in shares if share]
    # A short warm-up first (connections, caches), not counted.
    list(pool.map(_client, *zip(*[(transport, target, method, share, 0.3, 1000) for share in shares], strict=True)))
    began = time.perf_counter()
    jobs = [(transport, target, method, share, seconds, MAX_CALLS_PER_CELL // len(shares)) for share in shares]
    merged = Sample()
    for sample in pool.map(_client, *zip(*jobs, strict=True)):
        merged.add(sample)
    return merged, time.perf_counter() - began


# --- the servers -------------------------------------------------------------------------------------------


def _serve_baseline(argv: list[str]) -> int:
    """The empty-handler baseline: the real server's ``serve`` and settings, LegalMoves doing nothing."""
    from service.api import logs
    from service.api.rpc.server import parse_args, serve
    from service.api.rpc.servicer import GameRulesServicer

    class EmptyHandler(GameRulesServicer):
        def LegalMoves(self, request: pb.LegalMovesRequest, context: grpc.ServicerContext) -> pb.LegalMovesResponse:
            return pb.LegalMovesResponse()

    config = parse_args(argv)
    logs.configure(config.log_level, config.log_format)
    return serve(config, servicer_factory=EmptyHandler)


_FLOOR_ANSWER = os.environ.get("GAMERULES_BENCH_FLOOR_ANSWER", "{}").encode()


async def floor_app(scope: dict, receive: Any, send: Any) -> None:
    """The HTTP floor's ASGI app (granian: ``bench.load:floor_app``): the body read, a fixed answer sent."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(_FLOOR_ANSWER)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": _FLOOR_ANSWER})


def _legal_moves_answer(base: str) -> str:
    """The gateway's LegalMoves answer (the floor sends the same bytes)."""
    body = json.dumps(requests()["LegalMoves"][1]).encode()
    ask = urllib.request.Request(
        base + "/v1/games/reversi:legalMoves", body, {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(ask, timeout=30) as answer:
        return str(answer.read().decode())


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _wait_grpc(address: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                return
            except grpc.RpcError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)


def _wait_http(url: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@contextlib.contextmanager
def _process(command: list[str], log: Path, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    with open(log, "ab") as output:
        process = subprocess.Popen(command, stdout=output, stderr=output, env={**os.environ, **(env or {})})
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def server_flags(port: int) -> list[str]:
    """The server settings both servers share: the production defaults, on loopback, no metrics port."""
    return ["--host", HOST, "--port", str(port), "--metrics-port", "0"]


# --- the report --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    target: str
    method: str
    concurrency: int
    throughput: float  # successful calls per second
    p50_ms: float
    p99_ms: float
    refused: int
    errors: dict[str, int]


def row(target: str, method: str, concurrency: int, sample: Sample, wall_s: float) -> Row:
    latencies = sorted(sample.latencies)

    def percentile(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")

    return Row(
        target,
        method,
        concurrency,
        len(latencies) / wall_s,
        statistics.median(latencies) * 1000 if latencies else float("nan"),
        percentile(0.99),
        sample.refused,
        sample.errors,
    )


def print_header() -> None:
    print(f"{'target':<9} {'method':<11} {'conc':>4} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'429s':>6}  errors")


def print_row(r: Row) -> None:
    errors = ",".join(f"{k}:{v}" for k, v in sorted(r.errors.items())) or "0"
    print(
        f"{r.target:<9} {r.method:<11} {r.concurrency:>4} {r.throughput:>9.0f} {r.p50_ms:>8.2f} {r.p99_ms:>8.2f}"
        f" {r.refused:>6}  {errors}",
        flush=True,
    )


# The gateway's targets (issue 43), at p50 for LegalMoves: its own work at one client, and all it adds at eight.
OWN_WORK_MS = 0.15
ADDED_AT_EIGHT_MS = 1.0


def _verdict(met: bool) -> str:
    return "met" if met else "missed"


def print_summary(rows: list[Row], levels: list[int]) -> None:
    find = {(r.target, r.method, r.concurrency): r for r in rows}
    print("\nLegalMoves over gRPC against the empty-handler baseline (target: >= 0.90 at 1 and 8 clients):")
    for level in levels:
        ours, base = find[("grpc", "LegalMoves", level)], find[("baseline", "LegalMoves", level)]
        ratio = ours.throughput / base.throughput
        verdict = f"  {_verdict(ratio >= 0.9)}" if level in (1, 8) else ""
        print(
            f"  concurrency {level:>3}: {ours.throughput:>7.0f} / {base.throughput:>7.0f} calls/s = "
            f"{ratio:.2f}{verdict}"
        )
    print("\nWhat the gateway adds at p50, REST minus gRPC:")
    for method in METHODS:
        added = [find[("rest", method, level)].p50_ms - find[("grpc", method, level)].p50_ms for level in levels]
        print(
            f"  {method:<11} " + "  ".join(f"c={level}: {ms:+.2f} ms" for level, ms in zip(levels, added, strict=True))
        )
    if 1 in levels:
        rest, grpc_, floor = (find[(target, "LegalMoves", 1)] for target in ("rest", "grpc", "http-floor"))
        own = rest.p50_ms - floor.p50_ms - grpc_.p50_ms
        print(
            f"  LegalMoves at one client: the HTTP hop itself (the floor, no work behind it) {floor.p50_ms:.2f} ms; "
            f"the gateway's own work beyond a hop and a gRPC call {own:+.2f} ms (target <= +{OWN_WORK_MS} ms): "
            f"{_verdict(own <= OWN_WORK_MS)}"
        )
    if 8 in levels:
        at_eight = find[("rest", "LegalMoves", 8)].p50_ms - find[("grpc", "LegalMoves", 8)].p50_ms
        print(
            f"  LegalMoves at eight clients: REST minus gRPC {at_eight:+.2f} ms (target <= +{ADDED_AT_EIGHT_MS} ms): "
            f"{_verdict(at_eight <= ADDED_AT_EIGHT_MS)}"
        )
    errors = {r.target + " " + r.method + f" c={r.concurrency}": r.errors for r in rows if r.errors}
    refused = sum(r.refused for r in rows if r.method != "BestMove")
    print(f"\nErrors other than the intended 429s: {errors or 'none'}; 429s outside BestMove: {refused}")


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["--serve-baseline"]:
        return _serve_baseline(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measured time per cell")
    parser.add_argument("--concurrency", default="1,8,32,128")
    parser.add_argument("--client-processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=2, help="rounds over all cells; each cell keeps its best")
    args = parser.parse_args(argv)
    levels = [int(level) for level in args.concurrency.split(",")]
    cores = os.cpu_count() or 1
    print(
        f"{cores} cores. Server: {cores} worker processes (one per core), the defaults otherwise; gateway: granian, "
        f"{cores} workers, each serving every request in its event loop;\n"
        f"load: {args.client_processes} client processes. All of them share the "
        f"same {cores} cores, so absolute numbers are far below a real deployment's (where the load comes from "
        "elsewhere);\ncompare the ratios. Each cell: "
        f"{args.seconds:g} s (at most {MAX_CALLS_PER_CELL} calls) after a warm-up, best of {args.repeats} rounds.\n"
        f"Load average before the run (other work on the machine skews everything): {_load()}\n",
        flush=True,
    )
    print_header()
    context = multiprocessing.get_context("spawn")  # clients make their own gRPC runtime
    with tempfile.TemporaryDirectory() as tmp, futures.ProcessPoolExecutor(args.client_processes, context) as pool:
        logs = Path(tmp)
        baseline_port, port, http_port, floor_port = _free_port(), _free_port(), _free_port(), _free_port()
        targets = {
            "baseline": f"{HOST}:{baseline_port}",
            "grpc": f"{HOST}:{port}",
            "rest": f"http://{HOST}:{http_port}",
            "http-floor": f"http://{HOST}:{floor_port}",
        }
        baseline = [sys.executable, "-m", "bench.load", "--serve-baseline", *server_flags(baseline_port)]
        server = [sys.executable, "-m", "service.api.rpc.server", *server_flags(port)]
        gateway = [
            sys.executable, "-m", "service.api.rest.gateway_server", "--bind", f"{HOST}:{http_port}",
            "--grpc-target", targets["grpc"], "--workers", str(cores),
        ]  # fmt: skip
        # All three run at once (idle ones cost nothing), so that each baseline cell is measured right next to
        # the cells it is compared with, under the same conditions.
        with (
            contextlib.ExitStack() as stack,
            _process(baseline, logs / "baseline.log"),
            _process(server, logs / "server.log"),
            _process(gateway, logs / "gateway.log", {"GAMERULES_GRPC_TARGET": targets["grpc"]}),
        ):
            _wait_grpc(targets["baseline"])
            _wait_grpc(targets["grpc"])
            _wait_http(targets["rest"] + "/readyz")
            floor = [
                sys.executable, "-m", "granian", "--interface", "asgi", "--host", HOST, "--port", str(floor_port),
                "--workers", str(cores), "--no-ws", "--log-level", "warning", "bench.load:floor_app",
            ]  # fmt: skip
            answer = {"GAMERULES_BENCH_FLOOR_ANSWER": _legal_moves_answer(targets["rest"])}
            stack.enter_context(_process(floor, logs / "floor.log", answer))
            _wait_http(targets["http-floor"] + "/")
            plan = [
                (target, method, level)
                for method in METHODS
                for level in levels
                for target in (_LEGAL_MOVES_TARGETS if method == "LegalMoves" else ("grpc", "rest"))
            ]
            best: dict[tuple[str, str, int], Row] = {}
            for repeat in range(args.repeats):
                print(f"-- round {repeat + 1} of {args.repeats}", flush=True)
                for target, method, level in plan:
                    transport = "rest" if target in ("rest", "http-floor") else "grpc"
                    sample, wall = measure(
                        pool, args.client_processes, transport, targets[target], method, level, args.seconds
                    )
                    measured = row(target, method, level, sample, wall)
                    print_row(measured)
                    key = (target, method, level)
                    if key not in best or measured.throughput > best[key].throughput:
                        best[key] = measured
            rows = list(best.values())
    print(f"\nThe best of {args.repeats} rounds per cell (the one with the highest throughput):")
    print_header()
    for r in rows:
        print_row(r)
    print_summary(rows, levels)
    print(f"Load average after the run: {_load()}")
    return 0


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
