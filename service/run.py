"""``make run``: the gRPC server and the REST gateway (under granian) on localhost, until Ctrl-C / SIGTERM.

Each runs as its own process tree, as in production; this only starts both, says where they listen with
one example call once both answer, and passes a stop signal on to both. A port in use fails at once, naming
the variable that moves it; the server's metrics port, unless it was asked for, moves to a free one.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.api import environment, listeners, settings
from service.api.rest import gateway_server
from service.api.rpc import server as server_module
from service.games import GAMES


def _wait_serving(address: str, timeout_s: float, stopping: list[int], server: subprocess.Popen[bytes]) -> bool:
    """Whether the server at ``address`` answers SERVING within ``timeout_s``; False at once on a stop or its
    exit."""
    deadline = time.monotonic() + timeout_s
    # gRPC's threads keep the stop signals blocked: they reach this thread, whose handler passes them on.
    with server_module.signals_to_this_thread():
        channel = grpc.insecure_channel(address)
    try:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline and not stopping and server.poll() is None:
            try:
                with server_module.signals_to_this_thread():
                    answer = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return True
            except grpc.RpcError:
                time.sleep(0.2)
    finally:
        channel.close()
    return False


def _wait_http(url: str, timeout_s: float, stopping: list[int], gateway: subprocess.Popen[bytes]) -> bool:
    """Whether the gateway answers ``url`` within ``timeout_s``; False at once on a stop or its exit."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and not stopping and gateway.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return True
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    return False


def _ports(args: argparse.Namespace) -> str | None:
    """Why the service cannot start on these ports (a message naming the variable to set), or None; a taken
    metrics port that nobody asked for is replaced by a free one, and said so."""
    for listener, port in ((listeners.GRPC, args.grpc_port), (listeners.HTTP, args.http_port)):
        if listeners.in_use(args.host, port):
            return listeners.taken(listener, args.host, port)
    if args.metrics_port is None:
        wanted = settings.value(listeners.METRICS.variable, settings.port(0), 0)
        args.metrics_port = wanted or environment.DEFAULT_METRICS_PORT
        if not wanted and listeners.in_use(args.host, args.metrics_port):
            free = listeners.free_port(args.host)
            print(
                f"the metrics port {args.metrics_port} is in use: the server's metrics are on {free} instead "
                f"(set {listeners.METRICS.variable} or make run {listeners.METRICS.make_variable}=... to choose)",
                file=sys.stderr,
            )
            args.metrics_port = free
    if args.metrics_port and listeners.in_use(args.host, args.metrics_port):
        return listeners.taken(listeners.METRICS, args.host, args.metrics_port)
    return None


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    """``make run``'s flags, each defaulting to its variable (checked here); then every setting of the server
    and the gateway checked as they will read them, so that a bad one stops everything before anything starts,
    with the one line that names it (exit 2)."""
    S = settings
    parser = S.Parser(prog="make run", description="Start the gamerules gRPC server and REST gateway.")
    add = parser.add_argument
    host = S.checked(parser, lambda: S.value("GAMERULES_HOST", S.host, environment.DEFAULT_HOST))
    add("--host", type=S.flag(S.host), default=host)
    for flag, listener, default in (
        ("--grpc-port", listeners.GRPC, environment.DEFAULT_GRPC_PORT),
        ("--http-port", listeners.HTTP, environment.DEFAULT_HTTP_PORT),
    ):
        port = S.checked(parser, lambda: S.value(listener.variable, S.port(1), default))  # noqa: B023
        add(flag, type=S.flag(S.port(1)), default=port)
    add(
        "--metrics-port",
        type=S.flag(S.port(0)),
        default=None,
        help="the server's (default: GAMERULES_METRICS_PORT, else 9464 or a free port); 0: none",
    )
    add("--gateway-workers", type=S.flag(gateway_server.WORKERS), default=2)
    args = parser.parse_args(argv)
    S.checked(parser, lambda: S.value(listeners.METRICS.variable, S.port(0), 0))
    server_module.parse_args(_server_flags(args, args.metrics_port or 0))
    gateway_server.check(_gateway_flags(args))
    return args


def _server_flags(args: argparse.Namespace, metrics_port: int) -> list[str]:
    return ["--host", args.host, "--port", str(args.grpc_port), "--metrics-port", str(metrics_port)]


def _gateway_flags(args: argparse.Namespace) -> list[str]:
    return [
        "--bind", f"{args.host}:{args.http_port}", "--grpc-target", f"{args.host}:{args.grpc_port}",
        "--workers", str(args.gateway_workers),
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    try:
        args = _arguments(argv)
    except SystemExit as exit:  # the one line is written
        return int(exit.code or 0)
    refused = _ports(args)
    if refused is not None:
        print(refused, file=sys.stderr)
        return 2

    grpc_address = f"{args.host}:{args.grpc_port}"
    # A stop may come at any time, also while the server starts (it can take seconds): from the start, it goes
    # on to every process started so far, and no other is started after it. (Before, the default action ended
    # this program then and left the server running without a parent.)
    started: list[subprocess.Popen[bytes]] = []
    stopping: list[int] = []

    def stop(signum: int, frame: object) -> None:
        stopping.append(signum)
        for process in started:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)

    def start(command: list[str]) -> subprocess.Popen[bytes] | None:
        # Its own process group: a terminal's Ctrl-C reaches this program alone, which passes a SIGTERM on to each
        # process it started, and each stops its own workers in order. Hit by the Ctrl-C at once, granian's
        # workers exited under their parent, which logged "Unexpected exit" as an ERROR and now and then never
        # stopped (one Ctrl-C in fifteen: pytest -m slow tests/api/test_run.py -k SIGINT, run in a loop).
        process = subprocess.Popen(command, process_group=0)
        started.append(process)
        if stopping:  # the stop came while it was being started: stop has not seen it
            process.send_signal(signal.SIGTERM)
        return None if stopping else process

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # The server reads the rest of its configuration (GAMERULES_*) from the environment: see the README.
    server = start([sys.executable, "-m", "service.api.rpc.server", *_server_flags(args, args.metrics_port)])
    if server is not None and not _wait_serving(grpc_address, 30, stopping, server) and not stopping:
        server.terminate()
        print(f"the gRPC server did not start on {grpc_address}", file=sys.stderr)
        return _failed(server.wait())
    gateway_command = [sys.executable, "-m", "service.api.rest.gateway_server", *_gateway_flags(args)]
    gateway = None if stopping else start(gateway_command)
    http_url = f"http://{args.host}:{args.http_port}"
    if gateway is not None and not _wait_http(f"{http_url}/healthz", 30, stopping, gateway) and not stopping:
        print(f"the REST gateway did not start on {args.host}:{args.http_port}", file=sys.stderr)
        for process in started:
            process.terminate()
        return _failed([process.wait() for process in started][-1])  # the gateway's
    if gateway is not None and not stopping:
        print(
            f"\ngamerules: gRPC on {grpc_address}, REST on http://{args.host}:{args.http_port}\n"
            f"  curl -s http://{args.host}:{args.http_port}/v1/games/reversi:legalMoves "
            '-d \'{"position": {"notation": "' + _reversi_start() + "\"}}'\n"
            f"  grpcurl -plaintext {grpc_address} list\n"
            + (
                f"  metrics: http://{args.host}:{args.metrics_port}/metrics (gRPC server), "
                if args.metrics_port
                else "  "
            )
            + f"http://{args.host}:{args.http_port}/metrics (gateway)\n",
            flush=True,
        )
    codes = [process.wait() for process in reversed(started)]
    return 0 if all(code in (0, -signal.SIGTERM) for code in codes) else 1


def _failed(code: int) -> int:
    """The exit code of a process that did not start: its own when it failed by itself (2: a port in use),
    else 1 (it was stopped here, or killed)."""
    return code if code > 0 else 1


def _reversi_start() -> str:
    return GAMES["reversi"].new_position().to_notation()


if __name__ == "__main__":
    sys.exit(main())
