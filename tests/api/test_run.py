"""``make run``'s program (``python -m service.run``): the gRPC server and the gateway on ``localhost`` as the
README's first commands start them, answering the README's curl call, and both stopped by one SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

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
