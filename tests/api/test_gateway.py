"""The REST gateway: a real gateway process in front of a real gRPC server, spoken to over HTTP."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from concurrent import futures

import pytest

from service.api.rest.gateway import compile_template, parse_error_field
from service.api.rest.gateway_server import parse_bind
from service.games import GAMES
from tests.api.conftest import QUIET, free_port, gateway_command, http, wait_http

START = GAMES["reversi"].new_position().to_notation()


def reason_of(body: dict) -> str:
    return next(d["reason"] for d in body["details"] if d["@type"].endswith("ErrorInfo"))


def fields_of(body: dict) -> list[str]:
    return [v["field"] for d in body["details"] if d["@type"].endswith("BadRequest") for v in d["fieldViolations"]]


def test_templates_compile_from_the_http_rules():
    pattern = compile_template("/v1/{game=games/*}:legalMoves")
    assert pattern.match("/v1/games/reversi:legalMoves").group("game") == "games/reversi"
    assert pattern.match("/v1/games/reversi") is None
    assert compile_template("/v1/{name=games/*}").match("/v1/games/kalah:newGame") is None


def test_parse_error_fields():
    assert (
        parse_error_field("Failed to parse position field: Failed to parse notation field: bad.") == "position.notation"
    )
    assert parse_error_field('Message type "X" has no field named "pageSizes" at "X".') == "page_sizes"
    # An optional field's error names only its place (the message's name first).
    assert parse_error_field("Couldn't parse integer: 1.5 at BestMoveRequest.rating") == "rating"
    assert parse_error_field("Expected true or false without quotes at RenderPositionRequest.coordinates") == (
        "coordinates"
    )
    deep = (
        "Failed to parse limits field: Failed to parse maxDepth field: Couldn't parse integer: 1.5 at X.limits.maxDepth"
    )
    assert parse_error_field(deep) == "limits.max_depth"


def test_games_and_the_done_when_walkthrough(gateway_url):
    status, body, _ = http(gateway_url, "/v1/games")
    assert status == 200 and "reversi" in [g["id"] for g in body["games"]]
    status, body, _ = http(gateway_url, "/v1/games/reversi")
    assert status == 200 and body["name"] == "games/reversi" and body["defaultLevel"] == "expert"

    status, body, _ = http(gateway_url, "/v1/games/reversi:newGame", {"options": {}, "seed": "1"})
    assert status == 200 and body["position"]["notation"] == START and body["toMove"] == 1

    status, body, _ = http(gateway_url, "/v1/games/reversi:legalMoves", {"position": {"notation": START}})
    assert status == 200
    # Board order (row by row from the top), as docs/games/*.md order cells.
    assert [m["notation"] for m in body["moves"]] == ["d3", "c4", "f5", "e6"]
    assert body["toMove"] == 1 and body["gameOver"] is False and body["totalSize"] == 4
    assert body["nextPageToken"] == ""

    status, body, _ = http(
        gateway_url, "/v1/games/reversi:applyMove", {"position": {"notation": START}, "move": {"notation": "d3"}}
    )
    assert status == 200 and body["toMove"] == 2 and body["gameOver"] is False
    assert body["events"][0]["type"] == "place"
    status, score, _ = http(gateway_url, "/v1/games/reversi:score", {"position": body["position"]})
    assert status == 200 and score["scores"] == [4, 1] and score["gameOver"] is False and "winner" not in score


def test_structured_position_and_options_in_camel_case(gateway_url):
    status, body, _ = http(gateway_url, "/v1/games/reversi:newGame", {"options": {"size": 6, "blackSeat": 2}})
    assert status == 200 and body["toMove"] == 2
    structured = {"reversi": body["position"]["reversi"]}
    status, moves, _ = http(gateway_url, "/v1/games/reversi:legalMoves", {"position": structured, "pageSize": 2})
    assert status == 200 and len(moves["moves"]) == 2 and moves["totalSize"] == 4 and moves["nextPageToken"]


def test_best_move_over_http(gateway_url):
    request = {"position": {"notation": START}, "level": "expert", "seed": "7", "topN": 3, "limits": {"maxDepth": 2}}
    status, body, _ = http(gateway_url, "/v1/games/reversi:bestMove", request)
    assert status == 200 and body["move"]["notation"] in {"c4", "d3", "e6", "f5"}
    assert body["depth"] == 2 and len(body["alternatives"]) == 3 and body["pv"][0] == body["move"]
    assert isinstance(body["nodes"], int) and isinstance(body["exact"], bool)


@pytest.mark.parametrize(
    ("path", "body", "status", "reason", "field"),
    [
        ("/v1/games/reversi:score", {"position": {"notation": "B W"}}, 400, "INVALID_NOTATION", "position.notation"),
        ("/v1/games/reversi:score", {"position": {"reversi": {"board": ["...."]}}}, 400, "INVALID_POSITION", None),
        ("/v1/games/reversi:score", {"position": {"notation": 5}}, 400, "INVALID_JSON", "position.notation"),
        ("/v1/games/reversi:score", {"positon": {}}, 400, "INVALID_JSON", "positon"),
        ("/v1/games/reversi:score", b"{not json", 400, "INVALID_JSON", "body"),
        ("/v1/games/reversi:score", b"[1, 2]", 400, "INVALID_JSON", "body"),
        ("/v1/games/reversi:legalMoves", {"position": {"notation": START}, "pageSize": "x"}, 400, "INVALID_JSON",
         "page_size"),
        ("/v1/games/reversi:applyMove", {"position": {"notation": START}, "move": {"notation": "a1"}}, 400,
         "ILLEGAL_MOVE", None),
        ("/v1/games/reversi:bestMove", {"position": {"notation": START}, "level": "godlike"}, 400, "UNKNOWN_LEVEL",
         "level"),
        ("/v1/games/chess:score", {"position": {"notation": START}}, 404, "UNKNOWN_GAME", None),
        ("/v1/games/chess", None, 404, "UNKNOWN_GAME", None),
        ("/v1/nothing/here", None, 404, "NOT_FOUND", None),
        ("/v1/games/reversi:newGame", {"options": {"size": 5}}, 400, "INVALID_OPTION", "options.size"),
        # null is refused where proto3 JSON would read it as "unset"; inside options it is a value to check.
        ("/v1/games/reversi:score", {"position": None}, 400, "INVALID_JSON", "position"),
        ("/v1/games/reversi:applyMoves", {"position": {"notation": START}, "moves": [{"notation": "d3"}, None]},
         400, "INVALID_JSON", "moves[1]"),
        ("/v1/games/dots-and-boxes:score", {"position": {"dotsAndBoxes": {"rows": 2, "boxesA": None}}}, 400,
         "INVALID_JSON", "position.dots_and_boxes.boxes_a"),
        ("/v1/games/reversi:newGame", {"options": {"size": None}}, 400, "INVALID_OPTION", "options.size"),
        ("/v1/games/reversi:legalMoves", {"position": {"notation": START}, "pageSize": "5"}, 400, "INVALID_JSON",
         "page_size"),
        ("/v1/games/kalah:applyMove", {"position": {"notation": "4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4"},
         "move": {"kalah": {"pit": "3"}}}, 400, "INVALID_JSON", "move.kalah.pit"),
        ("/v1/games/reversi:score", {}, 400, "INVALID_POSITION", "position"),
        ("/v1/games/reversi:bestMove", {"position": {"notation": START}, "topN": 65}, 400, "INVALID_ARGUMENT",
         "top_n"),
        ("/v1/games/reversi:score", b"{" + b'"a":' * 1 + b'"' + b"x" * (2 << 20) + b'"}', 400, "REQUEST_TOO_LARGE",
         "body"),
    ],
)  # fmt: skip
def test_errors_are_status_bodies(gateway_url, path, body, status, reason, field):
    got, answer, _ = http(gateway_url, path, body)
    assert got == status, answer
    assert set(answer) >= {"code", "message", "details"} and answer["message"]
    assert reason_of(answer) == reason
    if field:
        assert field in fields_of(answer)


@pytest.mark.parametrize(
    ("path", "body", "field", "said"),
    [
        # Every route reads bodies alike: a rules call and a search.
        ("/v1/games/reversi:applyMove", {"position": {"notation": START}, "move": "d3"}, "move",
         'must be a Move object, not a string; send {"notation": "d3"}'),
        ("/v1/games/reversi:bestMove", {"position": START}, "position",
         f'must be a Position object, not a string; send {{"notation": "{START}"}}'),
        ("/v1/games/reversi:applyMoves", {"position": {"notation": START}, "moves": "d3"}, "moves",
         'must be a list of Move objects such as [{"notation": "d3"}], not a string'),
        ("/v1/games/reversi:applyMoves", {"position": {"notation": START}, "moves": ["d3"]}, "moves[0]",
         'send {"notation": "d3"}'),
        ("/v1/games/reversi:bestMove", {"position": {"notation": START}, "limits": 5}, "limits",
         "must be a SearchLimits object, not a number"),
    ],
)  # fmt: skip
def test_a_value_of_the_wrong_json_shape_is_told_what_to_send(gateway_url, path, body, field, said):
    status, answer, _ = http(gateway_url, path, body)
    assert status == 400 and reason_of(answer) == "INVALID_JSON", answer
    assert fields_of(answer) == [field]
    assert answer["message"].startswith(f"{field}: ") and said in answer["message"]


def test_method_not_allowed_and_deadline_header(gateway_url):
    status, body, _ = http(gateway_url, "/v1/games/reversi:score", method="GET")
    assert status == 405 and body["code"] == 12  # grpc-gateway v2: 405, UNIMPLEMENTED in the body
    # OPTIONS (CORS off) is a verb no path takes: 405 with the true Allow.
    for path, allow in [("/v1/games", "GET"), ("/v1/games/reversi:score", "POST")]:
        status, body, headers = http(gateway_url, path, method="OPTIONS")
        assert status == 405 and headers["Allow"] == allow and body["code"] == 12
    status, body, _ = http(gateway_url, "/v1/games", headers={"Grpc-Timeout": "soon"})
    assert status == 400 and reason_of(body) == "INVALID_TIMEOUT"
    # A search with no limit of its own ends soon (the native search gets through expert's own node budget in
    # well under the second): only the deadline stops it.
    request = {"position": {"notation": START}, "limits": {"maxDepth": 60, "maxNodes": 10**9}}
    status, body, _ = http(gateway_url, "/v1/games/reversi:bestMove", request, headers={"Grpc-Timeout": "1S"})
    assert status == 200 and body["stopReason"] == "deadline", body


def test_health_endpoints(gateway_url):
    assert http(gateway_url, "/healthz")[0] == 200
    status, body, _ = http(gateway_url, "/readyz")
    assert status == 200 and body["status"] == "ready"


def test_sigterm_lets_requests_in_flight_finish(grpc_address):
    """SIGTERM to the gateway process: a best-move request already in flight still gets its answer, new
    connections are refused at once while it drains (a refusal a client may retry elsewhere), and the process
    exits 0."""
    port = free_port()
    process = subprocess.Popen(gateway_command(port, grpc_address), env={**os.environ, **QUIET})
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/healthz")
        request = {"position": {"notation": START}, "limits": {"maxTimeMs": 3000, "maxDepth": 60, "maxNodes": 10**9}}
        with futures.ThreadPoolExecutor(1) as pool:
            in_flight = pool.submit(http, url, "/v1/games/reversi:bestMove", request)
            # By then the request is being searched on the server, with two seconds to go even on a slow host.
            time.sleep(1.0)
            process.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            with pytest.raises(OSError) as refused:
                http(url, "/healthz")
            assert isinstance(getattr(refused.value, "reason", refused.value), ConnectionRefusedError)
            assert not in_flight.done(), "the drain ended before the search: the refusal proved nothing"
            status, body, _ = in_flight.result(timeout=30)
        assert status == 200 and body["stopReason"] == "time", body
        assert process.wait(timeout=30) == 0
        with pytest.raises(OSError):
            http(url, "/healthz")
    finally:
        if process.poll() is None:
            process.kill()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the workers' process groups from /proc")
def test_a_terminals_ctrl_c_reaches_the_gateways_main_process_alone(grpc_address):
    """The gateway started by hand in a terminal (a process group of its own), stopped by Ctrl-C (SIGINT to the
    whole group): its workers are in groups of their own, so only the main process hears it and stops them; it
    exits 0 and logs no ERROR line. (A worker that heard the Ctrl-C first ended, and the main process logged its
    "Unexpected exit" as an ERROR and exited 1, now and then.)"""
    port = free_port()
    process = subprocess.Popen(
        gateway_command(port, grpc_address, workers=2),
        env={**os.environ, **QUIET},
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz")
        workers = _children(process.pid)
        assert len(workers) >= 2, workers
        assert all(os.getpgid(worker) not in (process.pid, os.getpgid(process.pid)) for worker in workers)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=30)
        assert process.returncode == 0, err
        assert "ERROR" not in err and "Traceback" not in err, err
        assert not [worker for worker in workers if os.path.exists(f"/proc/{worker}")], "a worker outlived the stop"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_bind_addresses():
    """granian binds to IP addresses: a host name such as the default ``localhost`` is resolved first."""
    assert parse_bind("localhost:8080")[0] in {"127.0.0.1", "::1"}
    assert parse_bind("localhost:8080")[1] == 8080
    assert parse_bind("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_bind("[::1]:9000") == ("::1", 9000)
    for wrong in ("8080", "localhost:", "localhost:http", "localhost:70000", ":8080"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_bind(wrong)


# A granian worker in miniature: forked from a main process whose stop handler only marks the main process's
# server as stopping, it gets SIGTERM while it is still starting (before the app is built and before granian
# listens), then builds the app (``worker_app`` sets up the relay) and installs granian's handler.
_EARLY_STOP = """
import os, signal, sys, time
from service.api.rest import gateway_server

signal.signal(signal.SIGTERM, lambda *_: None)  # granian's main-process handler: a worker must not run it
gateway_server._relay_stop_signals()
pid = os.fork()
if pid == 0:
    os.kill(os.getpid(), signal.SIGTERM)  # the stop arrives while the worker starts
    time.sleep(5)  # still here: the signal was lost, or kept for later
    os._exit(3)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def test_a_worker_ends_on_a_stop_signal_that_came_while_it_started():
    """Granian forks its workers; one that gets SIGTERM before granian listens in it serves nothing yet and
    ends at once, with status 0 (it used to run the handler inherited from the main process, lose the signal
    and serve until killed; then to keep the signal until it listened, and be killed when its start outlasted
    the grace period: tests/api/test_gateway_stop.py)."""
    done = subprocess.run([sys.executable, "-c", _EARLY_STOP], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr


def test_sigterm_while_workers_start_stops_every_worker_gracefully(grpc_address):
    """The real gateway with three workers, stopped as soon as one of them answers (on a small host the
    others are then still starting): every worker stops on the signal, none is killed at the end of the
    grace period, and the process exits 0. The grace period is long so that only a lost signal reaches it."""
    port = free_port()
    command = [*gateway_command(port, grpc_address, workers=3), "--grace-s", "60"]
    process = subprocess.Popen(
        command, env={**os.environ, "GAMERULES_LOG_LEVEL": "INFO"}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz")
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=50)
    finally:
        if process.poll() is None:
            process.kill()
    log = out.decode()
    assert process.returncode == 0, log
    assert "Granian shutdown completed" in log and "refused to gracefully stop" not in log, log
