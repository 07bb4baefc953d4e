"""Real servers for the transport tests: an in-process gRPC server on a free loopback port, and a real
gateway process (``service.api.rest.gateway_server``: granian) in front of it."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from email.message import Message

import grpc
import pytest

from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import ServiceConfig

# How many times the fuzz tests' examples to run (``GAMERULES_FUZZ_SCALE=27 pytest tests/api/test_fuzz_*.py``:
# about twenty thousand a transport, ``docs/development.md``); 1 in ``make test``.
FUZZ_SCALE = max(1, int(os.environ.get("GAMERULES_FUZZ_SCALE") or 1))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def grpc_address() -> Iterator[str]:
    config = ServerConfig(service=ServiceConfig(max_think_ms=5000, search_slots=2))
    running = create_server(config, address="127.0.0.1:0")
    running.servicer.start_searches()  # as a server's worker does: no test's deadline pays for a process start
    yield f"127.0.0.1:{running.port}"
    running.shutdown(1)


@pytest.fixture(scope="session")
def channel(grpc_address: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(grpc_address) as channel:
        yield channel


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> pb_grpc.GameRulesStub:
    return pb_grpc.GameRulesStub(channel)


def wait_http(url: str, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (urllib.error.URLError, ConnectionError, OSError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def gateway_command(port: int, backend: str, workers: int = 1) -> list[str]:
    """The gateway as production runs it, on ``127.0.0.1:port`` in front of the gRPC server at ``backend``."""
    return [
        sys.executable, "-m", "service.api.rest.gateway_server", "--bind", f"127.0.0.1:{port}",
        "--grpc-target", backend, "--workers", str(workers),
    ]  # fmt: skip


# The gateway's per-request log lines would fill the test output.
QUIET = {"GAMERULES_LOG_LEVEL": "WARNING"}


@contextlib.contextmanager
def running_gateway(
    backend: str, workers: int = 1, extra: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> Iterator[str]:
    """A gateway process (``gateway_command`` and ``extra`` arguments, which win) on a free port in front of
    ``backend``, quiet, with ``env`` added to the environment: its URL once it answers, terminated after."""
    port = free_port()
    command = [*gateway_command(port, backend, workers), *extra]
    process = subprocess.Popen(command, env={**os.environ, **QUIET, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/healthz")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


@pytest.fixture(scope="session")
def gateway_url(grpc_address: str) -> Iterator[str]:
    """A real gateway process, forwarding to the in-process gRPC server."""
    with running_gateway(grpc_address) as url:
        yield url


def http(
    base_url: str, path: str, body: object = None, method: str | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict, Message]:
    """One HTTP call: (status, JSON body, headers; their names in any case, as HTTP has them). ``body`` may be
    bytes to send as is."""
    import json

    data = body if isinstance(body, bytes) else None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base_url + path, data=data, method=method or ("POST" if data is not None else "GET"))
    req.add_header("Content-Type", "application/json")
    for key, value in (headers or {}).items():
        req.add_header(key, value)
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"{}"), answer.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}"), error.headers
