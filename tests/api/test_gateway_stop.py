"""A gateway stopped while its workers are still starting ends at once and cleanly: a worker that serves nothing
yet has nothing to finish, so it does not wait for its start (which on a loaded host can outlast the grace
period, and granian then killed it: "Killing worker-1 after it refused to gracefully stop")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from service.api.rest import gateway_server
from tests.api.conftest import free_port

# The real gateway, with workers that take 20 s to build their app (as imports and set-up can on a loaded host).
_SLOW_START = """
import sys, time
from service.api.rest import gateway_server

configure = gateway_server.worker_config


def slowly():
    time.sleep(20)  # in a worker only: the main process never builds the app
    return configure()


gateway_server.worker_config = slowly
sys.exit(gateway_server.main(sys.argv[1:]))
"""


def test_a_stop_while_the_workers_start_ends_them_at_once_without_killing(grpc_address):
    port = free_port()
    command = [sys.executable, "-c", _SLOW_START, "--bind", f"127.0.0.1:{port}", "--grpc-target", grpc_address]
    process = subprocess.Popen(
        [*command, "--workers", "2", "--grace-s", "10"],
        env={**os.environ, "GAMERULES_LOG_LEVEL": "INFO"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    try:
        lines = []
        while sum("Spawning worker-" in line for line in lines) < 2:
            line = process.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        time.sleep(1)  # both workers are building their app
        stopped = time.monotonic()
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
        seconds = time.monotonic() - stopped
    finally:
        if process.poll() is None:
            process.kill()
    log = "".join(lines) + out
    assert process.returncode == 0, log
    assert "Stopped worker-1" in log and "Stopped worker-2" in log and "Granian shutdown completed" in log, log
    assert "Killing" not in log and "refused to gracefully stop" not in log and "Traceback" not in log, log
    assert "Started worker" not in log, log  # they ended before they served
    # Not the grace period's 10 s, nor the app's 20 s: the workers ended on the signal.
    assert seconds < 8, (seconds, log)


def _exits_at_once() -> None:
    os._exit(0)


def test_a_worker_that_exited_is_seen_ended_whichever_thread_collects_its_status():
    """granian's watcher thread and its stop both collect a worker's exit status; when the watcher is first,
    ``Process.is_alive()`` says True until it has stored the status (granian then logged "Killing worker-2
    after it refused to gracefully stop" about an exited worker). ``ended`` reads the sentinel instead."""
    import multiprocessing

    from granian.server.mp import WorkerProcess

    process = multiprocessing.get_context("fork").Process(target=_exits_at_once)
    process.start()
    os.waitpid(process.pid, 0)  # the watcher thread was first, and has not stored the status yet
    assert process.is_alive()  # multiprocessing's answer meanwhile: the trap
    assert gateway_server.ended(process)
    # The patch is pinned to the granian the project pins, and applies to it.
    lock = (Path(__file__).resolve().parents[2] / "requirements.lock").read_text()
    assert f"granian=={gateway_server.PATCHED_GRANIAN}\n" in lock
    gateway_server._see_workers_end()
    worker = WorkerProcess.__new__(WorkerProcess)
    worker.inner = process
    assert not worker.is_alive()
