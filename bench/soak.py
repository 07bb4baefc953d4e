"""Serving under best-move load: memory over a long run, rules calls under a best-move flood, the best-move
queue, and byte-mutated requests (``python -m bench.soak``).

The servers run as in production (``python -m service.api.rpc.server`` with two workers, the gateway under
granian with two workers) on 127.0.0.1; the load comes from this process and from client processes.

- queue: 8 simultaneous 1 s BestMoves with 10 s deadlines, each on its own connection, over gRPC and over
  REST. Target: all answered.
- flood: LegalMoves p50/p99 over gRPC and over REST, idle, then while 64 REST clients call BestMove without
  pause, ignoring ``Retry-After`` (one client process of its own); ``--flood-rounds``
  rounds of both in turn, so that the load of a shared box falls on both phases alike. Once per search mode
  (``--modes``: the searches in niced search processes, the default, or in niced threads of the worker) and
  with the gateway's pacing of best moves on or off (``--gateway-pacing off,on``: off refuses at once, as
  before it; ``service/api/rest/gateway_pacing.py``). Target: p99 under the flood within 2x idle, both
  transports. Run only this part with ``python -m bench --only soak --part flood`` (about a minute per mode
  and pacing). The server splits the cores as it does by default (``service/api/cpus.py``: on this 2-core box,
  the searches on one core, the workers on the other) and the gateway runs on the workers' cores, as on a host
  it shares with the server; ``--search-cpus all`` runs the flood with every core shared instead (the split's
  before). The clients stand for callers on other machines, and in every run both keep to the cores ``auto``
  gives: the timed LegalMoves client to the rules cores (a client thread woken on a core that runs a search
  would add its own wait to what it measures), the flood's to the search cores (on the rules cores it would
  take their CPU from the calls being timed).
- mutation: valid requests of every RPC with random bytes flipped, inserted, cut; sent as raw bytes over
  gRPC. Target: no INTERNAL or UNKNOWN answer.
- soak: ``--best-moves`` BestMove calls (every game, ``maxTimeMs`` 5) and ``--rules-calls`` rules calls (every
  game: LegalMoves, ApplyMove, Score) at once over gRPC; each worker's RSS (with its search processes)
  sampled over the run, with its slope. Target: RSS at the end within 1.2x the RSS after the first tenth.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import http.client
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path

import grpc
from google.protobuf.message import Message

from bench.load import HOST, _free_port, _process, _wait_grpc, _wait_http, server_flags
from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.api import cpus
from service.games import GAMES

TARGET_FLOOD_RATIO = 2.0
TARGET_RSS_RATIO = 1.2


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


# --- the servers -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Servers:
    grpc: str
    rest: str
    server_pid: int


@contextlib.contextmanager
def servers(mode: str, logs: Path, pacing: bool = True, search_cpus: str = cpus.AUTO) -> Iterator[Servers]:
    """The servers, their searches in ``mode`` on ``search_cpus`` (the server's flag) and the gateway on the
    server's rules cores; the gateway paces best moves (``pacing``, its default: a 429 held a while) or answers
    every 429 at once (as before the pacing)."""
    port, http_port = _free_port(), _free_port()
    target = f"{HOST}:{port}"
    quiet = {"GAMERULES_LOG_LEVEL": "WARNING"}
    server = [
        sys.executable, "-m", "service.api.rpc.server", *server_flags(port), "--workers", "2", "--search-mode", mode,
        "--search-cpus", search_cpus,
    ]  # fmt: skip
    gateway = [
        sys.executable, "-m", "service.api.rest.gateway_server", "--bind", f"{HOST}:{http_port}",
        "--grpc-target", target, "--workers", "2",
    ]  # fmt: skip
    split = cpus.plan(search_cpus)  # the split the server makes of the same cores
    if split:
        gateway += ["--cpus", cpus.text(split.rules)]
    if not pacing:
        gateway += ["--waiting-best-moves", "0"]
    with (
        _process(server, logs / f"server-{mode}.log", quiet) as server_process,
        _process(gateway, logs / f"gateway-{mode}.log", quiet),
    ):
        _wait_grpc(target)
        _wait_http(f"http://{HOST}:{http_port}/readyz")
        yield Servers(target, f"http://{HOST}:{http_port}", server_process.pid)


def children(pid: int) -> list[int]:
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as file:
                found += [int(child) for child in file.read().split()]
    return found


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as file:
            for line in file:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def tree_rss_mb(pid: int) -> float:
    """A process's RSS with its descendants' (a worker and its search processes)."""
    return rss_mb(pid) + sum(tree_rss_mb(child) for child in children(pid))


# --- requests ----------------------------------------------------------------------------------------------


def positions(per_game: int = 6, seed: int = 3) -> dict[str, list[str]]:
    rng = random.Random(seed)
    found: dict[str, list[str]] = {}
    for game_id, game in GAMES.items():
        for _ in range(per_game):
            position = game.new_position(game.default_options(), str(rng.random()))
            for _ in range(rng.randrange(8)):
                legal = position.legal_moves_page(0, 40)
                if position.outcome() is not None or not legal:
                    break
                position = position.apply(rng.choice(legal))[0]
            if position.outcome() is None:
                found.setdefault(game_id, []).append(position.to_notation())
    return found


def rules_requests() -> list[tuple[str, Message]]:
    calls: list[tuple[str, Message]] = []
    for game_id, notations in positions().items():
        for notation in notations:
            position = GAMES[game_id].parse_position(notation)
            message = pb.Position(notation=notation)
            move = pb.Move(notation=position.move_notation(position.legal_moves_page(0, 1)[0]))
            calls += [
                ("LegalMoves", pb.LegalMovesRequest(game=game_id, position=message)),
                ("ApplyMove", pb.ApplyMoveRequest(game=game_id, position=message, move=move)),
                ("Score", pb.ScoreRequest(game=game_id, position=message)),
            ]
    return calls


def best_move_requests(max_time_ms: int = 5) -> list[tuple[str, Message]]:
    limits = pb.SearchLimits(max_time_ms=max_time_ms)
    return [
        ("BestMove", pb.BestMoveRequest(game=game_id, position=pb.Position(notation=notation), limits=limits))
        for game_id, notations in positions().items()
        for notation in notations
    ]


REVERSI_START = GAMES["reversi"].new_position(GAMES["reversi"].default_options(), "").to_notation()


def legal_moves_request() -> pb.LegalMovesRequest:
    return pb.LegalMovesRequest(game="reversi", position=pb.Position(notation=REVERSI_START))


# --- queue -------------------------------------------------------------------------------------------------


def run_queue(servers: Servers) -> bool:
    """8 simultaneous 1 s BestMoves with 10 s deadlines, each on its own connection: over gRPC, then over REST."""
    limits = pb.SearchLimits(max_time_ms=1000, max_depth=60, max_nodes=10**9)
    request = pb.BestMoveRequest(game="reversi", position=pb.Position(notation=REVERSI_START), limits=limits)
    rest_limits = {"maxTimeMs": limits.max_time_ms, "maxDepth": limits.max_depth, "maxNodes": limits.max_nodes}
    body = json.dumps({"position": {"notation": REVERSI_START}, "limits": rest_limits})
    host, port = servers.rest.removeprefix("http://").split(":")

    def over_grpc(_: int) -> str:
        with grpc.insecure_channel(servers.grpc, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            try:
                pb_grpc.GameRulesStub(channel).BestMove(request, timeout=10)
                return "OK"
            except grpc.RpcError as error:
                return error.code().name

    def over_rest(_: int) -> str:
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        headers = {"Content-Type": "application/json", "Grpc-Timeout": "10S"}
        connection.request("POST", "/v1/games/reversi:bestMove", body, headers)
        status = connection.getresponse().status
        connection.close()
        return {200: "OK", 429: "RESOURCE_EXHAUSTED"}.get(status, str(status))

    met = True
    for transport, call in (("gRPC", over_grpc), ("REST", over_rest)):
        began = time.perf_counter()
        with futures.ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(call, range(8)))
        answered = codes.count("OK")
        others = [code for code in codes if code not in ("OK", "RESOURCE_EXHAUSTED")]
        print(
            f"8 simultaneous 1 s BestMoves over {transport}, 10 s deadlines: {answered} of 8 answered, "
            f"{codes.count('RESOURCE_EXHAUSTED')} refused, others {others}"
            f", all done after {time.perf_counter() - began:.1f} s: {answered}/8 = {answered / 8:.2f} "
            f"(target 1.00) {verdict(answered == 8)}",
            flush=True,
        )
        met &= answered == 8
    return met


# --- flood -------------------------------------------------------------------------------------------------


def _percentiles(times: list[float]) -> tuple[float, float]:
    """p50 and p99 in ms."""
    ordered = sorted(times) or [float("nan")]
    return statistics.median(ordered) * 1000, ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000


@functools.cache
def auto_split() -> cpus.Split | None:
    """The split ``--search-cpus auto`` makes of this box's cores (read once per process): where the clients go."""
    return cpus.plan(cpus.AUTO)


def legal_moves_times(servers: Servers, transport: str, count: int, max_s: float = 30) -> list[float]:
    """LegalMoves round trips in seconds, ``count`` calls one after another (fewer if ``max_s`` runs out), made
    and timed by this thread on the cores ``auto`` gives the rules calls, whatever the server's split (see the
    module's flood), so that runs with and without it time the same client. Only this thread: pinning the
    client's helper threads too put them on the rules core with the workers, and the idle p99 itself then
    jumped to several milliseconds in some rounds."""
    split = auto_split()
    previous = cpus.usable()
    if split:
        cpus.pin_thread(split.rules)
    try:
        return _legal_moves_times(servers, transport, count, max_s)
    finally:
        if split:
            cpus.pin_thread(previous)


def _legal_moves_times(servers: Servers, transport: str, count: int, max_s: float) -> list[float]:
    times: list[float] = []
    give_up = time.monotonic() + max_s
    if transport == "grpc":
        with grpc.insecure_channel(servers.grpc, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            stub = pb_grpc.GameRulesStub(channel)
            request = legal_moves_request()
            for index in range(count + 20):
                began = time.perf_counter()
                stub.LegalMoves(request, timeout=30)
                if index >= 20:
                    times.append(time.perf_counter() - began)
                if time.monotonic() > give_up:
                    break
    else:
        host, port = servers.rest.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        body = json.dumps({"position": {"notation": REVERSI_START}})
        for index in range(count + 20):
            began = time.perf_counter()
            connection.request("POST", "/v1/games/reversi:legalMoves", body, {"Content-Type": "application/json"})
            answer = connection.getresponse()
            answer.read()
            assert answer.status == 200, answer.status
            if index >= 20:
                times.append(time.perf_counter() - began)
            if time.monotonic() > give_up:
                break
        connection.close()
    return times


def flood(base: str, clients: int, stop_file: str) -> dict[str, int]:
    """``clients`` keep-alive HTTP clients calling BestMove back to back, 429 or not, until ``stop_file``
    exists (in a client process of its own, on the cores ``auto`` gives the searches: it stands for callers on
    other machines, and on the rules cores it would take their CPU from the calls being timed)."""
    split = auto_split()
    if split:
        cpus.pin_process(split.search)
    body = json.dumps(
        {"position": {"notation": REVERSI_START}, "limits": {"maxTimeMs": 300, "maxDepth": 60, "maxNodes": 10**9}}
    ).encode()
    host, port = base.removeprefix("http://").split(":")
    head = (
        f"POST /v1/games/reversi:bestMove HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    counts: dict[str, int] = {}

    async def client() -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        while not os.path.exists(stop_file):
            writer.write(head + body)
            status = (await reader.readline()).split()[1].decode()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            await reader.readexactly(length)
            counts[status] = counts.get(status, 0) + 1
        writer.close()

    async def run() -> None:
        await asyncio.gather(*(client() for _ in range(clients)))

    asyncio.run(run())
    return counts


TRANSPORTS = ("grpc", "rest")


def run_flood(
    servers: Servers, label: str, clients: int, samples: int, rounds: int, pool: futures.Executor
) -> dict[str, float]:
    """LegalMoves latency idle and under the flood, in ``rounds`` that each time both: the box's other load
    (it is shared) then falls on the idle and the flooded samples alike. The p99 is over all rounds' samples;
    each round's is printed too."""
    idle: dict[str, list[float]] = {transport: [] for transport in TRANSPORTS}
    loaded: dict[str, list[float]] = {transport: [] for transport in TRANSPORTS}
    counts: dict[str, int] = {}
    for round_number in range(1, rounds + 1):
        idle_now = {transport: legal_moves_times(servers, transport, samples) for transport in TRANSPORTS}
        with tempfile.TemporaryDirectory() as tmp:
            stop_file = os.path.join(tmp, "stop")
            flooding = pool.submit(flood, servers.rest, clients, stop_file)
            time.sleep(2)  # the searches run and the queues are full
            try:
                loaded_now = {transport: legal_moves_times(servers, transport, samples) for transport in TRANSPORTS}
            finally:
                Path(stop_file).touch()
            for status, count in flooding.result().items():
                counts[status] = counts.get(status, 0) + count
        print(
            f"  {label} round {round_number}: p99 idle / flood, ms: "
            + ", ".join(
                f"{transport} {_percentiles(idle_now[transport])[1]:.2f} / {_percentiles(loaded_now[transport])[1]:.2f}"
                for transport in TRANSPORTS
            ),
            flush=True,
        )
        for transport in TRANSPORTS:
            idle[transport] += idle_now[transport]
            loaded[transport] += loaded_now[transport]
    ratios = {}
    for transport in TRANSPORTS:
        (idle_p50, idle_p99), (p50, p99) = _percentiles(idle[transport]), _percentiles(loaded[transport])
        ratios[transport] = p99 / idle_p99
        print(
            f"  {label} {transport:<4} LegalMoves idle p50 {idle_p50:6.2f} p99 {idle_p99:6.2f} ms; under the flood "
            f"p50 {p50:6.2f} p99 {p99:6.2f} ms: p99 ratio {p99 / idle_p99:5.2f} (target <= {TARGET_FLOOD_RATIO:g}) "
            f"{verdict(p99 / idle_p99 <= TARGET_FLOOD_RATIO)}",
            flush=True,
        )
    print(f"  {label} the flood's answers by HTTP status: {dict(sorted(counts.items()))}", flush=True)
    return ratios


# --- mutation ----------------------------------------------------------------------------------------------


def mutate(data: bytes, rng: random.Random) -> bytes:
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(4)
        where = rng.randrange(len(buffer) + 1)
        if kind == 0 and buffer:
            buffer[min(where, len(buffer) - 1)] = rng.randrange(256)
        elif kind == 1:
            buffer[where:where] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif kind == 2:
            del buffer[where : where + rng.randint(1, 8)]
        else:
            del buffer[where:]
    return bytes(buffer)


def run_mutation(target: str, count: int) -> bool:
    rng = random.Random(15)
    valid = [(method, request.SerializeToString()) for method, request in rules_requests()[:60]]
    valid += [(method, request.SerializeToString()) for method, request in best_move_requests(1)[:10]]
    valid += [("NewGame", pb.NewGameRequest(game=game, seed="x").SerializeToString()) for game in GAMES]
    codes: dict[str, int] = {}
    with grpc.insecure_channel(target) as channel:
        calls = {
            method: channel.unary_unary(f"/gamerules.v1.GameRules/{method}")
            for method in {method for method, _ in valid}
        }
        for _ in range(count):
            method, data = rng.choice(valid)
            try:
                calls[method](mutate(data, rng), timeout=30)
                codes["OK"] = codes.get("OK", 0) + 1
            except grpc.RpcError as error:
                codes[error.code().name] = codes.get(error.code().name, 0) + 1
    bad = codes.get("INTERNAL", 0) + codes.get("UNKNOWN", 0)
    print(
        f"{count} byte-mutated requests over gRPC: {dict(sorted(codes.items()))}; INTERNAL or UNKNOWN: {bad} "
        f"(target 0) {verdict(bad == 0)}",
        flush=True,
    )
    return bad == 0


# --- soak --------------------------------------------------------------------------------------------------


async def _calls(
    target: str, requests: list[tuple[str, object]], total: int, concurrency: int, done: list[int]
) -> None:
    channel = grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
    stub = pb_grpc.GameRulesStub(channel)
    next_index = [0]

    async def caller() -> None:
        while next_index[0] < total:
            method, request = requests[next_index[0] % len(requests)]
            next_index[0] += 1
            try:
                await getattr(stub, method)(request, timeout=60)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
            done[0] += 1

    await asyncio.gather(*(caller() for _ in range(concurrency)))
    await channel.close()


def slope(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of y over x."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0


def run_soak(servers: Servers, best_moves: int, rules_calls: int, interval_s: float) -> bool:
    workers = children(servers.server_pid)
    done_best, done_rules = [0], [0]
    samples: list[tuple[float, int, int, dict[int, float]]] = []
    finished = threading.Event()

    def sample() -> None:
        began = time.monotonic()
        while True:
            samples.append(
                (time.monotonic() - began, done_best[0], done_rules[0], {pid: tree_rss_mb(pid) for pid in workers})
            )
            if finished.wait(interval_s):
                samples.append(
                    (time.monotonic() - began, done_best[0], done_rules[0], {p: tree_rss_mb(p) for p in workers})
                )
                return

    async def load() -> None:
        # Several connections each, so SO_REUSEPORT spreads the calls over both workers.
        await asyncio.gather(
            *(_calls(servers.grpc, best_move_requests(), best_moves // 4, 2, done_best) for _ in range(4)),
            *(_calls(servers.grpc, rules_requests(), rules_calls // 4, 4, done_rules) for _ in range(4)),
        )

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        asyncio.run(load())
    finally:
        finished.set()
        sampler.join()
    print("RSS of each worker with its search processes, MB:")
    print(f"{'s':>6} {'BestMove':>9} {'rules':>8}  " + "  ".join(f"worker {pid} MB" for pid in workers))
    step = max(1, len(samples) // 20)
    for seconds, best, rules, rss in samples[::step] + ([samples[-1]] if (len(samples) - 1) % step else []):
        print(
            f"{seconds:6.1f} {best:9d} {rules:8d}  "
            + "  ".join(f"{rss[pid]:>{len(str(pid)) + 10}.1f}" for pid in workers)
        )
    met = True
    for pid in workers:
        points = [(best + rules, rss[pid]) for _, best, rules, rss in samples]
        # The target's terms: RSS after all the best moves against RSS after the first tenth of them. Each is
        # the peak over its tenth of the run: a single reading lands anywhere in the rise and fall of the
        # garbage between two collections, the peak does not.
        first = [rss[pid] for _, best, _, rss in samples if best <= best_moves / 10] or [points[0][1]]
        last = [rss[pid] for _, best, _, rss in samples if best >= best_moves * 9 / 10] or [points[-1][1]]
        early, late = max(first), max(last)
        ratio = late / early
        met &= ratio <= TARGET_RSS_RATIO
        print(
            f"worker {pid} with its search processes: {points[0][1]:.1f} MB at the start, peak {early:.1f} MB over "
            f"the first {best_moves // 10} BestMoves, peak {late:.1f} MB over the last {best_moves // 10}; "
            f"slope {slope(points) * 1000:+.3f} MB per 1000 calls; "
            f"last / first {ratio:.2f} (target <= {TARGET_RSS_RATIO:g}) {verdict(ratio <= TARGET_RSS_RATIO)}",
            flush=True,
        )
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--best-moves", type=int, default=10_000, help="BestMove calls of the soak")
    parser.add_argument("--rules-calls", type=int, default=100_000, help="rules calls of the soak")
    parser.add_argument("--sample-s", type=float, default=2.0, help="how often the soak reads each worker's RSS")
    parser.add_argument("--flood-clients", type=int, default=64)
    parser.add_argument(
        "--flood-samples", type=int, default=1000, help="LegalMoves timed per transport, phase and round"
    )
    parser.add_argument("--flood-rounds", type=int, default=3, help="idle and flooded phases, taken in turn")
    parser.add_argument(
        "--gateway-pacing",
        default="on",
        help="flood with the gateway's pacing of best moves on (its default), off (--waiting-best-moves 0: "
        "refusals at once, as before it) or both: off,on",
    )
    parser.add_argument("--mutations", type=int, default=2000)
    parser.add_argument("--modes", default="process,thread", help="search modes the flood runs under")
    parser.add_argument(
        "--search-cpus",
        nargs="+",
        default=[cpus.AUTO],
        help="the server's --search-cpus for the flood, one run each (e.g. all auto: before and after the split)",
    )
    parser.add_argument(
        "--part", "--only", dest="part", choices=("queue", "flood", "mutation", "soak"), help="run one part"
    )
    args = parser.parse_args(argv)
    split = auto_split()
    where = (
        f"the workers and the gateway on cores {cpus.text(split.rules)}, the searches on {cpus.text(split.search)}"
        if split
        else "every core shared"
    )
    print(
        f"{os.cpu_count()} cores for the servers (2 gRPC workers, 2 gateway workers) and the load; by default "
        f"{where}. "
        f"Load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}",
        flush=True,
    )
    parts = [args.part] if args.part else ["queue", "flood", "mutation", "soak"]
    import multiprocessing

    with (
        tempfile.TemporaryDirectory() as tmp,
        futures.ProcessPoolExecutor(1, multiprocessing.get_context("spawn")) as pool,
    ):
        logs = Path(tmp)
        modes = args.modes.split(",")
        if "flood" in parts:
            print(
                f"\n-- flood: {args.flood_clients} REST clients calling BestMove (300 ms searches) without pause, "
                f"{args.flood_rounds} rounds of {args.flood_samples} LegalMoves per transport idle and flooded"
            )
            for mode in modes:
                for pacing in args.gateway_pacing.split(","):
                    for setting in args.search_cpus:
                        label = f"{mode} pacing {pacing} search-cpus {setting}"
                        with servers(mode, logs, pacing != "off", setting) as running:
                            run_flood(running, label, args.flood_clients, args.flood_samples, args.flood_rounds, pool)
        with servers(modes[0], logs) as running:
            if "queue" in parts:
                print("\n-- queue")
                run_queue(running)
            if "mutation" in parts:
                print("\n-- mutation")
                run_mutation(running.grpc, args.mutations)
            if "soak" in parts:
                print(
                    f"\n-- soak: {args.best_moves} BestMove and {args.rules_calls} rules calls over gRPC ({modes[0]})"
                )
                run_soak(running, args.best_moves, args.rules_calls, args.sample_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
