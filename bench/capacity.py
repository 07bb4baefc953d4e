"""The capacity plan's figures (``python -m bench.capacity``; ``docs/operations.md`` reads them): what a rules
call and a best move at each level cost in CPU, and what a portal's bot games need from them.

Rules calls: LegalMoves and ApplyMove sent by ``--clients`` callers through a production server of one worker
(gRPC) and through the gateway in front of it (REST), for ``--seconds`` each; the cost of a call is the CPU
time the server's and the gateway's process trees spent (read from ``/proc``, so the load generator's own CPU
is not counted) divided by the calls answered. Calls per core-second are its inverse.

Best moves: ``bench.level_cost``'s measurement (each level's own limits, CPU time of this process) on
``--positions`` positions per game, at every game's default and strongest level.

The plan, per game and level: a portal with N concurrent bot games, the bot moving once every
``--move-every`` seconds in each (the human's turn in between) and each of its moves coming with
``--rules-per-move`` rules calls (the legal moves, the moves applied, the score), needs
``N / move_every x (best move CPU + (rules calls + 1) x a gRPC rules call's CPU)`` server cores, as many
searches at once as ``N / move_every x best move wall time``, and ``N / move_every x (rules calls + 1) x (a
REST call's CPU - a gRPC call's)`` gateway cores. A server pod of the Kubernetes files (``deploy/kubernetes``)
has 2 cores and 2 search slots, a gateway pod 1 core; the HPAs keep them at 70 % CPU. Printed at N = 100,
1,000 and 10,000: the cores, the searches at once and the pods of each role (at least the HPAs' 2).

The baseline is the gRPC rules call (the ratio column: what the REST call and each best move cost in rules
calls). Goal: a rules call costs under 1 ms of CPU over gRPC; printed met or missed.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import tempfile
import time
from concurrent import futures
from pathlib import Path

from bench.level_cost import measure as best_move_cost
from bench.level_cost import sample_positions
from bench.load import HOST, _client, _free_port, _process, _wait_grpc, _wait_http, server_flags
from service.games import LEVELS

POD_CORES = 2  # deploy/kubernetes/server.yaml's CPU limit
POD_SLOTS = 2  # its workers (2) x GAMERULES_SEARCH_SLOTS (1)
GATEWAY_CORES = 1  # deploy/kubernetes/gateway.yaml's CPU limit
HPA_UTILISATION = 0.70  # deploy/kubernetes/hpa.yaml's target
GAMES_AT_ONCE = (100, 1_000, 10_000)
RULES_GOAL_MS = 1.0
_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_s(root: int) -> float:
    """The CPU seconds (user and system) of ``root`` and every process under it, alive now."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / _TICKS
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier.extend(children)
    return sum(times.get(pid, 0.0) for pid in tree)


def rules_cost_ms(
    pool: futures.Executor, transport: str, target: str, roots: list[int], clients: int, seconds: float
) -> dict[str, float]:
    """CPU milliseconds per answered LegalMoves and ApplyMove call, of the processes ``roots``."""
    out = {}
    for method in ("LegalMoves", "ApplyMove"):
        pool.submit(_client, transport, target, method, clients, 0.3, 1000).result()  # warm-up, not counted
        before = sum(tree_cpu_s(root) for root in roots)
        sample = pool.submit(_client, transport, target, method, clients, seconds, 10**6).result()
        spent = sum(tree_cpu_s(root) for root in roots) - before
        out[method] = 1000 * spent / max(1, len(sample.latencies))
    return out


def plan_rows(
    label: str, cpu_s: float, wall_s: float, grpc_s: float, rest_s: float, args: argparse.Namespace
) -> list[str]:
    """The plan's lines for ``label``: a best move's CPU and wall seconds, a rules call's CPU seconds over gRPC
    (the server's part) and over REST (the server's and the gateway's)."""
    calls = args.rules_per_move + 1  # the rules calls and the best move's own trip through the transport
    rows = []
    for games in GAMES_AT_ONCE:
        moves_per_s = games / args.move_every
        server_cores = moves_per_s * (cpu_s + calls * grpc_s)
        gateway_cores = moves_per_s * calls * max(0.0, rest_s - grpc_s)
        searching = moves_per_s * wall_s
        servers = max(math.ceil(server_cores / (POD_CORES * HPA_UTILISATION)), math.ceil(searching / POD_SLOTS), 2)
        gateways = max(math.ceil(gateway_cores / (GATEWAY_CORES * HPA_UTILISATION)), 2)
        rows.append(
            f"  {label:<24} {games:>7,} games: {server_cores:7.1f} server cores, {searching:6.1f} searches at once, "
            f"{servers:>4} server pods; {gateway_cores:5.1f} gateway cores, {gateways:>3} gateway pods"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=4, help="rules-call callers at once")
    parser.add_argument("--seconds", type=float, default=3.0, help="of each rules-call measurement")
    parser.add_argument("--positions", type=int, default=6, help="per game, for the best moves")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--move-every", type=float, default=10.0, help="seconds between a bot's moves in a game")
    parser.add_argument("--rules-per-move", type=int, default=3, help="rules calls that come with each bot move")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp, futures.ProcessPoolExecutor(1) as pool:
        port, http_port = _free_port(), _free_port()
        grpc_target, rest_target = f"{HOST}:{port}", f"http://{HOST}:{http_port}"
        server = [sys.executable, "-m", "service.api.rpc.server", *server_flags(port), "--workers", "1"]
        gateway = [
            sys.executable, "-m", "service.api.rest.gateway_server", "--bind", f"{HOST}:{http_port}",
            "--grpc-target", grpc_target, "--workers", "1",
        ]  # fmt: skip
        with contextlib.ExitStack() as stack:
            served = stack.enter_context(_process(server, Path(tmp) / "server.log"))
            fronted = stack.enter_context(_process(gateway, Path(tmp) / "gateway.log"))
            _wait_grpc(grpc_target)
            _wait_http(f"{rest_target}/healthz")
            time.sleep(0.5)  # the workers' start-up CPU settles before the first reading
            over_grpc = rules_cost_ms(pool, "grpc", grpc_target, [served.pid], args.clients, args.seconds)
            over_rest = rules_cost_ms(pool, "rest", rest_target, [served.pid, fronted.pid], args.clients, args.seconds)

    rules_ms = sum(over_grpc.values()) / len(over_grpc)
    rest_ms = sum(over_rest.values()) / len(over_rest)
    print(
        f"Rules calls: CPU per call of the server (gRPC) and of the server and gateway (REST), {args.clients} callers"
    )
    for method in over_grpc:
        print(f"  {method:<12} gRPC {over_grpc[method]:6.3f} ms   REST {over_rest[method]:6.3f} ms")
    print(
        f"  per core-second: {1000 / rules_ms:,.0f} over gRPC, {1000 / rest_ms:,.0f} over REST "
        f"(REST {rest_ms / rules_ms:.2f}x gRPC)"
    )
    met = rules_ms < RULES_GOAL_MS
    verdict = "met" if met else "MISSED"
    print(f"  goal: a gRPC rules call under {RULES_GOAL_MS:.0f} ms of CPU ({rules_ms:.3f} ms): {verdict}")

    print(
        f"\nBest moves (each level's own limits, {args.positions} positions a game) and the plan: one bot move "
        f"every {args.move_every:.0f} s a game, {args.rules_per_move} REST rules calls with each, "
        f"server pods of {POD_CORES} cores and {POD_SLOTS} search slots at {HPA_UTILISATION:.0%} CPU"
    )
    for game_id, levels in LEVELS.items():
        positions = sample_positions(game_id, args.positions, args.seed)
        for level in dict.fromkeys((levels.default, levels.strongest)):
            cost = best_move_cost(game_id, level, positions)
            print(
                f"{game_id} {level}: {cost['median_s'] * 1000:8.1f} ms CPU, {cost['wall_s'] * 1000:8.1f} ms wall "
                f"a move (median; {cost['median_s'] * 1000 / rules_ms:,.0f} rules calls), "
                f"{1 / max(cost['median_s'], 1e-6):,.1f} moves per core-second"
            )
            for line in plan_rows(
                f"{game_id} {level}", cost["median_s"], cost["wall_s"], rules_ms / 1000, rest_ms / 1000, args
            ):
                print(line)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
