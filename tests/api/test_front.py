"""The gateway's front (``service/api/rest/gateway_asgi.py``) against clients that are slow or too many, and the
input both transports refuse: NaN and Infinity, deadlines in every unit gRPC has.

Real servers on loopback: the session's gRPC server and gateway processes of the test's own, with short
stage timeouts so that a stalled client is closed within the test. Each stall is a raw socket that sent its
headers and one byte of its body."""

from __future__ import annotations

import contextlib
import socket
import time
import urllib.request
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import struct_pb2

from gamerules.v1 import gamerules_pb2 as pb
from service.api.rest.gateway import MAX_TIMEOUT_S, grpc_timeout
from service.games import GAMES
from tests.api.conftest import http, running_gateway

START = GAMES["reversi"].new_position().to_notation()
LEGAL = {"position": {"notation": START}}
SHORT = ("--body-timeout-s", "2", "--body-chunk-timeout-s", "1", "--header-timeout-s", "2")


def stall(url: str, path: str = "/v1/games/reversi:legalMoves", source: str = "") -> socket.socket:
    """A connection whose request has headers and one byte of a 100-byte body, then nothing (from the client
    address ``source``, any 127.x.y.z, when given)."""
    host, _, port = url.removeprefix("http://").partition(":")
    sock = socket.create_connection((host, int(port)), timeout=30, source_address=(source, 0) if source else None)
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n".encode())
    sock.sendall(b"Content-Length: 100\r\n\r\n{")
    return sock


def answer_of(sock: socket.socket) -> bytes:
    """All the server sends until it closes the connection."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def slow_clients(url: str) -> dict[str, float]:
    found: dict[str, float] = {}
    with urllib.request.urlopen(url + "/metrics", timeout=10) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith("gamerules_gateway_slow_clients_total{"):
                stage = line.split('stage="')[1].split('"')[0]
                found[stage] = float(line.rsplit(" ", 1)[1])
    return found


@pytest.fixture(scope="module")
def short_gateway(grpc_address: str) -> Iterator[str]:
    with running_gateway(grpc_address, extra=SHORT) as url:
        yield url


def test_stalled_bodies_take_no_thread_and_are_closed_with_408(short_gateway: str) -> None:
    with contextlib.ExitStack() as stack:
        # A hundred stalled bodies at once: each costs the worker its bytes, and holds nothing else.
        stalled = [stack.enter_context(stall(short_gateway)) for _ in range(100)]
        status, body, _ = http(short_gateway, "/v1/games/reversi:legalMoves", LEGAL)
        assert status == 200 and body["totalSize"] == 4  # answered beside them
        answers = [answer_of(sock) for sock in stalled]  # each closed by the gateway, not by the test
    for answer in answers:
        head, _, body_bytes = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408") and b"connection: close" in head.lower(), answer
        assert b'"reason":"BODY_TIMEOUT"' in body_bytes and b'"field":"body"' in body_bytes, answer
    assert slow_clients(short_gateway).get("body_chunk", 0) >= 100


def test_a_body_that_trickles_is_cut_at_the_whole_bodys_time(short_gateway: str) -> None:
    """Each chunk within the chunk time, the whole never within the body's: 408 all the same."""
    with stall(short_gateway) as sock:
        began = time.monotonic()
        with contextlib.suppress(OSError):
            while time.monotonic() - began < 10:
                sock.sendall(b" ")  # a byte each half second: each chunk in time
                time.sleep(0.5)
        assert answer_of(sock).startswith(b"HTTP/1.1 408")
    assert slow_clients(short_gateway).get("body", 0) >= 1


def test_an_idle_keep_alive_connection_is_closed_at_the_header_time(short_gateway: str) -> None:
    host, _, port = short_gateway.removeprefix("http://").partition(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        assert sock.recv(65536) == b""  # then closed by the gateway, idle (the test's own timeout is 30 s)


def test_bodies_beyond_the_workers_bound_are_refused_at_once(grpc_address: str) -> None:
    """Three bodies from three addresses (one address may send a quarter of the bound, at least one), and a
    fourth request from a fourth is refused."""
    with running_gateway(grpc_address, extra=(*SHORT, "--max-bodies", "3")) as url, contextlib.ExitStack() as stack:
        for source in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
            stack.enter_context(stall(url, source=source))
        time.sleep(0.3)  # the three are being received
        status, body, headers = http(url, "/v1/games/reversi:legalMoves", LEGAL)
        assert status == 503 and headers["Retry-After"] == "1" and headers["Connection"] == "close"
        assert body["details"][0]["reason"] == "GATEWAY_BUSY"
        assert slow_clients(url).get("refused", 0) == 1


def test_a_chunked_body_over_the_limit_is_refused_whole(short_gateway: str) -> None:
    host, _, port = short_gateway.removeprefix("http://").partition(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(
            f"POST /v1/games/reversi:score HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        )
        chunk = b"x" * 65536
        with contextlib.suppress(OSError):  # the gateway may close while this still sends
            for _ in range(20):  # 1.25 MiB: over the 1 MiB limit
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        answer = answer_of(sock)
    assert answer.startswith(b"HTTP/1.1 400") and b"REQUEST_TOO_LARGE" in answer, answer[:300]


@pytest.mark.parametrize("framing", ["length", "chunked"])
def test_a_client_that_sends_its_whole_too_large_body_first_reads_the_refusal(short_gateway: str, framing: str) -> None:
    """The gateway reads and drops the rest of a body it refuses as too large (a proxy's lingering close), so a
    client that writes everything before it reads, as urllib does, gets the 400 and no broken pipe."""
    host, _, port = short_gateway.removeprefix("http://").partition(":")
    body = b"x" * (4 << 20)  # 4 MiB: four times the limit
    framed = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body) if framing == "chunked" else body
    header = "Transfer-Encoding: chunked" if framing == "chunked" else f"Content-Length: {len(body)}"
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(f"POST /v1/games/reversi:score HTTP/1.1\r\nHost: {host}\r\n{header}\r\n\r\n".encode() + framed)
        answer = answer_of(sock)
    assert answer.startswith(b"HTTP/1.1 400") and b"REQUEST_TOO_LARGE" in answer, answer[:300]


# --- input both transports refuse ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"game":"reversi","options":{"size":NaN}}', "options.size"),
        (b'{"options":{"size":Infinity}}', "options.size"),
        (b'{"options":{"nested":{"list":[1,-Infinity]}}}', "options.nested.list[1]"),
    ],
)
def test_nan_and_infinity_in_a_body_are_refused_naming_the_field(gateway_url: str, body: bytes, field: str) -> None:
    status, answer, _ = http(gateway_url, "/v1/games/reversi:newGame", body)
    assert status == 400, answer
    assert answer["details"][1]["fieldViolations"][0]["field"] == field
    assert "finite number" in answer["message"]


def test_nan_in_grpc_options_is_invalid_argument_naming_the_field(stub) -> None:
    options = struct_pb2.Struct()
    options["size"] = float("nan")
    with pytest.raises(grpc.RpcError) as refused:
        stub.NewGame(pb.NewGameRequest(game="reversi", options=options), timeout=10)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details().startswith("options.size: must be a finite number")


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("1000u", 0.001),
        ("1m", 0.001),
        ("2500m", 2.5),
        ("5S", 5.0),
        ("1M", 60.0),
        ("99999999n", 0.099999999),
        ("1H", 3600),
    ],
)
def test_grpc_timeout_is_read_in_gRPC_s_units(header: str, seconds: float) -> None:
    """Each unit as gRPC defines it, the 1 ms floor included (a live call of 1 ms would measure the box's load,
    not the reading); the service's cap still applies to the hour."""
    assert grpc_timeout(header, 30.0) == pytest.approx(min(seconds, MAX_TIMEOUT_S))


# Live: a deadline under the floor is refused at once whatever the load; one of seconds in any unit is served.
@pytest.mark.parametrize(
    ("timeout", "status"), [("1n", 504), ("999u", 504), ("5000000u", 200), ("5000m", 200), ("5S", 200), ("1M", 200)]
)
def test_grpc_timeout_is_read_in_each_unit(gateway_url: str, timeout: str, status: int) -> None:
    answer = http(gateway_url, "/v1/games/reversi:legalMoves", LEGAL, headers={"Grpc-Timeout": timeout})
    assert answer[0] == status, answer
    if status == 504:
        assert answer[1]["details"][0]["reason"] == "DEADLINE_EXCEEDED"
