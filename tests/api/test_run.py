"""``make run``'s program (``python -m service.run``): the gRPC server and the gateway on ``localhost`` as the
README's first commands start them, answering the README's curl call, and both stopped by one SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from tests.api.conftest import QUIET, free_port, http, wait_http

START = "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"


def test_make_run_serves_both_transports_on_localhost_and_stops_on_sigterm():
    grpc_port, http_port = free_port(), free_port()
    process = subprocess.Popen(
        [
            sys.executable, "-m", "service.run", "--host", "localhost", "--grpc-port", str(grpc_port),
            "--http-port", str(http_port), "--metrics-port", "0",
        ],
        # A long grace: only a process that missed its SIGTERM would wait it out, past the wait below.
        env={**os.environ, **QUIET, "GAMERULES_GRACE_S": "60"},
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        url = f"http://localhost:{http_port}"
        wait_http(url + "/readyz")
        status, body, _ = http(url, "/v1/games/reversi:legalMoves", {"position": {"notation": START}})
        assert status == 200 and [move["notation"] for move in body["moves"]] == ["d3", "c4", "f5", "e6"]
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()


def _processes_with(argument: str) -> list[int]:
    """The processes whose command line holds ``argument`` (as one word), from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as file:
                    words = file.read().split(b"\0")
            except OSError:  # gone meanwhile
                continue
            if argument.encode() in words:
                found.append(int(entry))
    return found


def test_a_stop_while_the_server_starts_leaves_no_process_behind():
    """SIGTERM as soon as the gRPC server's process exists, before it serves: make run's program passes it on
    and exits, and neither the server nor its workers outlive it (they used to, without a parent)."""
    grpc_port = free_port()
    process = subprocess.Popen(
        [
            sys.executable, "-m", "service.run", "--host", "127.0.0.1", "--grpc-port", str(grpc_port),
            "--http-port", str(free_port()), "--metrics-port", "0",
        ],
        env={**os.environ, **QUIET},
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not [pid for pid in _processes_with(str(grpc_port)) if pid != process.pid]:
            assert time.monotonic() < deadline and process.poll() is None, "the server was never started"
            time.sleep(0.01)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
        deadline = time.monotonic() + 10
        while _processes_with(str(grpc_port)):
            assert time.monotonic() < deadline, f"left running: {_processes_with(str(grpc_port))}"
            time.sleep(0.1)
    finally:
        if process.poll() is None:
            process.kill()
        for pid in _processes_with(str(grpc_port)):
            os.kill(pid, signal.SIGKILL)
