"""The gRPC server: GameRules, health, reflection, limits and graceful shutdown.

``create_server`` builds a server on an address and returns it with its port (tests bind port 0 and run it
in process); ``serve`` is the command line: ``python -m service.api.server --port 50051 --workers 2``.

Python runs one thread of CPU work at a time, so the server runs several worker processes on one port
(``SO_REUSEPORT``), forked before any gRPC object exists, as in gRPC's own multiprocessing example.
On SIGTERM each worker marks itself NOT_SERVING, stops taking calls, lets in-flight calls finish within
the grace period and exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.api.servicer import GameRulesServicer, ServiceConfig

_log = logging.getLogger(__name__)

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["GameRules"].full_name


@dataclass(frozen=True)
class ServerConfig:
    """How one server process serves (flags and environment variables in ``parse_args``)."""

    host: str = "localhost"
    port: int = 50051
    workers: int = 1  # processes on the port
    threads: int = 16  # request threads per process
    max_request_bytes: int = 1 << 20
    grace_s: float = 15.0  # how long in-flight calls may run on after SIGTERM
    service: ServiceConfig = ServiceConfig()


@dataclass
class Running:
    """A started server and what shuts it down cleanly."""

    server: grpc.Server
    port: int
    health: health.HealthServicer

    def shutdown(self, grace_s: float) -> None:
        """NOT_SERVING first (load balancers stop sending), then stop and let in-flight calls finish."""
        self.health.enter_graceful_shutdown()
        self.server.stop(grace_s).wait()


def create_server(config: ServerConfig, address: str | None = None, reuse_port: bool = False) -> Running:
    """A started server on ``address`` (default ``host:port`` of the config; port 0 picks a free one)."""
    options = [
        ("grpc.max_receive_message_length", config.max_request_bytes),
        ("grpc.so_reuseport", 1 if reuse_port else 0),
    ]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=config.threads), options=options)
    pb_grpc.add_GameRulesServicer_to_server(GameRulesServicer(config=config.service), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    port = server.add_insecure_port(address or f"{config.host}:{config.port}")
    if port == 0:
        raise OSError(f"could not listen on {address or f'{config.host}:{config.port}'}")
    server.start()
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return Running(server, port, health_servicer)


def _run_worker(config: ServerConfig, reuse_port: bool) -> None:
    running = create_server(config, reuse_port=reuse_port)
    done = threading.Event()

    def on_term(signum: int, frame: object) -> None:
        _log.info("signal %d: draining (grace %.0fs)", signum, config.grace_s)
        threading.Thread(target=lambda: (running.shutdown(config.grace_s), done.set()), daemon=True).start()

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    _log.info("worker %d serving %s on %s:%d", os.getpid(), SERVICE_NAME, config.host, running.port)
    done.wait()
    running.server.wait_for_termination()


@contextlib.contextmanager
def _reserve_port(host: str, port: int) -> Iterator[int]:
    """Hold the port with SO_REUSEPORT so the workers can all bind it (and port 0 resolves once)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
        yield sock.getsockname()[1]
    finally:
        sock.close()


def serve(config: ServerConfig) -> int:
    """Run ``config.workers`` processes on one port until SIGTERM; the exit code."""
    if config.workers <= 1:
        _run_worker(config, reuse_port=False)
        return 0
    with _reserve_port(config.host, config.port) as port:
        worker_config = ServerConfig(**{**config.__dict__, "port": port})
        children = []
        for _ in range(config.workers):
            pid = os.fork()
            if pid == 0:  # the child: its own gRPC runtime, created after the fork
                code = 0
                try:
                    _run_worker(worker_config, reuse_port=True)
                except BaseException:
                    _log.exception("worker failed")
                    code = 1
                os._exit(code)
            children.append(pid)

        def forward(signum: int, frame: object) -> None:
            for child in children:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGTERM)

        signal.signal(signal.SIGTERM, forward)
        signal.signal(signal.SIGINT, forward)
        _log.info("serving on %s:%d with %d worker processes", config.host, port, config.workers)
        status = 0
        for child in children:
            _, code = os.waitpid(child, 0)
            status = status or os.waitstatus_to_exitcode(code)
        return status


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def parse_args(argv: Sequence[str] | None = None) -> ServerConfig:
    parser = argparse.ArgumentParser(description="The gamerules gRPC server.")
    parser.add_argument("--host", default=os.environ.get("GAMERULES_HOST", "localhost"), help="address to listen on")
    parser.add_argument("--port", type=int, default=_env_int("GAMERULES_GRPC_PORT", 50051))
    parser.add_argument(
        "--workers",
        type=int,
        default=_env_int("GAMERULES_WORKERS", os.cpu_count() or 1),
        help="worker processes on the port (default: one per core)",
    )
    parser.add_argument("--threads", type=int, default=_env_int("GAMERULES_THREADS", 16), help="threads per worker")
    parser.add_argument("--max-request-bytes", type=int, default=_env_int("GAMERULES_MAX_REQUEST_BYTES", 1 << 20))
    parser.add_argument("--max-think-ms", type=int, default=_env_int("GAMERULES_MAX_THINK_MS", 10_000))
    parser.add_argument("--search-slots", type=int, default=_env_int("GAMERULES_SEARCH_SLOTS", 2))
    parser.add_argument("--search-wait-ms", type=int, default=_env_int("GAMERULES_SEARCH_WAIT_MS", 200))
    parser.add_argument("--grace-s", type=float, default=float(os.environ.get("GAMERULES_GRACE_S", "15")))
    args = parser.parse_args(argv)
    return ServerConfig(
        host=args.host,
        port=args.port,
        workers=max(1, args.workers),
        threads=max(1, args.threads),
        max_request_bytes=args.max_request_bytes,
        grace_s=args.grace_s,
        service=ServiceConfig(
            max_think_ms=args.max_think_ms, search_slots=max(1, args.search_slots), search_wait_ms=args.search_wait_ms
        ),
    )


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=os.environ.get("GAMERULES_LOG_LEVEL", "INFO"), format="%(message)s")
    return serve(parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
