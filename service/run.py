"""``make run``: the gRPC server and the REST gateway (under granian) on localhost, until Ctrl-C / SIGTERM.

Each runs as its own process tree, as in production; this only starts both, says where they listen with
one example call, and passes a stop signal on to both.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.api import environment
from service.games import GAMES


def _wait_serving(address: str, timeout_s: float, stopping: list[int]) -> bool:
    """Whether the server at ``address`` answers SERVING within ``timeout_s``; False at once on a stop."""
    deadline = time.monotonic() + timeout_s
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline and not stopping:
            try:
                answer = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return True
            except grpc.RpcError:
                time.sleep(0.2)
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description="Start the gamerules gRPC server and REST gateway.")
    env = environment.env
    parser.add_argument("--host", default=env("GAMERULES_HOST", environment.DEFAULT_HOST))
    parser.add_argument(
        "--grpc-port", type=int, default=int(env("GAMERULES_GRPC_PORT", str(environment.DEFAULT_GRPC_PORT)))
    )
    parser.add_argument(
        "--http-port", type=int, default=int(env("GAMERULES_HTTP_PORT", str(environment.DEFAULT_HTTP_PORT)))
    )
    parser.add_argument(
        "--metrics-port", type=int, default=int(env("GAMERULES_METRICS_PORT", "9464")), help="the server's; 0: none"
    )
    parser.add_argument("--gateway-workers", type=int, default=2)
    args = parser.parse_args()

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
        process = subprocess.Popen(command)
        started.append(process)
        if stopping:  # the stop came while it was being started: stop has not seen it
            process.send_signal(signal.SIGTERM)
        return None if stopping else process

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # The server reads the rest of its configuration (GAMERULES_*) from the environment: see the README.
    server = start(
        [
            sys.executable, "-m", "service.api.rpc.server",
            "--host", args.host, "--port", str(args.grpc_port), "--metrics-port", str(args.metrics_port),
        ]
    )  # fmt: skip
    if server is not None and not _wait_serving(grpc_address, 30, stopping) and not stopping:
        server.terminate()
        print(f"the gRPC server did not start on {grpc_address}", file=sys.stderr)
        server.wait()
        return 1
    gateway = None if stopping else start(
        [
            sys.executable, "-m", "service.api.rest.gateway_server", "--bind", f"{args.host}:{args.http_port}",
            "--grpc-target", grpc_address, "--workers", str(args.gateway_workers),
        ]
    )  # fmt: skip
    if gateway is not None:
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


def _reversi_start() -> str:
    return GAMES["reversi"].new_position().to_notation()


if __name__ == "__main__":
    sys.exit(main())
