"""The gateway's door (``service/api/rest/gateway_door.py``) and the front's per-address bound on bodies: a
connection that sends nothing is closed after the header timeout, one idle between requests likewise, one
with a request in flight never; one address's silent connections beyond its share are closed at once; one
address's bodies beyond its share are refused. Real gateway processes and sockets on loopback addresses."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from service.api.rest import gateway_door
from service.api.rest.gateway_asgi import per_address_bodies
from service.api.rest.gateway_door import Connection, DoorConfig, per_address, to_shut
from tests.api.conftest import running_gateway
from tests.api.test_faults import best_move_from, legal_moves
from tests.api.test_serving import server_process

pytestmark = pytest.mark.skipif(not gateway_door.available(), reason="the door reads Linux's /proc and TCP_INFO")

CONFIG = DoorConfig(first_byte_s=10, idle_s=10, per_address=2)


def conn(port: int, received: int, quiet_ms: int, address: str = "10.0.0.1") -> Connection:
    return Connection(fd=port, peer=(address, port), received=received, quiet_ms=quiet_ms)


def test_what_the_door_shuts_and_why() -> None:
    found = [
        conn(1, 0, 10_000),  # silent for the header timeout: shut
        conn(2, 0, 9_999),  # silent, younger: kept (one of the address's two)
        conn(3, 120, 10_000),  # idle between requests: shut
        conn(4, 120, 60_000),  # a request in flight (busy): kept however quiet
        conn(5, 120, 500),  # spoke lately: kept
        conn(6, 120, 60_000),  # its request ended lately (a long search): kept
        conn(7, 120, 60_000),  # bytes that no request reached the front with yet: on their way in, kept
        conn(8, 120, 20_000),  # bytes after its last request ended: the next one on its way in, kept
    ]
    ended = {3: 10_000, 4: 70_000, 5: 600, 6: 9_000, 8: 30_000}
    shut = to_shut(found, {4}, ended, CONFIG)
    assert [(c.fd, why) for c, why in shut] == [(1, "first-byte"), (3, "idle")]
    assert [c.fd for c, _ in to_shut([conn(6, 120, 60_000)], set(), {6: 10_000}, CONFIG)] == [6]  # 10 s on


def test_one_addresss_silent_connections_beyond_its_share_newest_first() -> None:
    found = [conn(p, 0, 1000 - p) for p in range(1, 6)] + [conn(9, 0, 5, "10.0.0.2")]
    shut = to_shut(found, set(), {}, CONFIG)
    # Five silent connections of 10.0.0.1, two allowed: the three newest (least quiet) go; 10.0.0.2's one stays.
    assert sorted(c.fd for c, why in shut if why == "per-address") == [3, 4, 5]
    assert len(shut) == 3


def test_the_shares_follow_the_workers_bounds() -> None:
    assert (per_address(2048), per_address(64), per_address(1)) == (64, 8, 8)
    assert (per_address_bodies(512), per_address_bodies(3)) == (128, 1)


def silent(count: int, port: int, source: str) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        sock.settimeout(20)
        socks.append(sock)
    return socks


def closed_by_peer(sock: socket.socket) -> bool:
    """Whether the gateway ended the connection (the end of the stream, or a reset) before ``sock``'s timeout."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


@pytest.fixture(scope="module")
def door_gateway() -> Iterator[tuple[str, int]]:
    """A gateway worker with a 1 s header timeout and 64 connections (8 silent ones per address)."""
    with server_process(workers=1) as running:
        extra = ("--header-timeout-s", "1", "--max-connections", "64", "--max-bodies", "8")
        with running_gateway(running.address, extra=extra) as url:
            yield url, int(url.rpartition(":")[2])


def test_a_connection_that_sends_nothing_is_closed_after_the_header_timeout(door_gateway) -> None:
    url, port = door_gateway
    sock = silent(1, port, "127.0.0.4")[0]
    began = time.monotonic()
    try:
        assert closed_by_peer(sock), "still open 20 s later"
        assert time.monotonic() - began >= 0.5  # not at once: it had its time
    finally:
        sock.close()
    assert legal_moves(url)[0] == 200


def test_a_request_in_flight_keeps_its_connection_past_the_timeout(door_gateway) -> None:
    url, _ = door_gateway
    assert best_move_from(url, "127.0.0.5", 2500) == 200  # 2.5 s of search, quiet all along: not idle


def test_one_addresss_silent_connections_beyond_its_share_are_closed_and_others_served(door_gateway) -> None:
    url, port = door_gateway
    flood = silent(40, port, "127.0.0.6")
    try:
        time.sleep(0.2)
        assert legal_moves(url)[0] == 200, "another client waited behind the flood"
        gone = sum(closed_by_peer(sock) for sock in flood[::-1][:32])  # the newest go first
        assert gone == 32, f"{gone} of the 32 beyond the share of 8 closed"
    finally:
        for sock in flood:
            sock.close()


def test_one_addresss_bodies_beyond_its_share_are_refused(door_gateway) -> None:
    """--max-bodies 8: one address may be sending 2 at once; a third is answered 503 at once."""
    url, port = door_gateway
    stalled = silent(3, port, "127.0.0.7")
    try:
        head = "POST /v1/games/reversi:legalMoves HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"
        for sock in stalled:
            sock.sendall(head.encode())
            time.sleep(0.1)
        answer = stalled[2].recv(200)
        assert answer.startswith(b"HTTP/1.1 503"), answer
        assert legal_moves(url)[0] == 200, "another address's body is read"
    finally:
        for sock in stalled:
            sock.close()


def test_the_doors_thread_ends_when_the_worker_shuts_down() -> None:
    door = gateway_door.Door(DoorConfig(period_s=0.05))
    assert door.start()
    threads = [t for t in threading.enumerate() if t.name == "gateway-door"]
    assert threads, "the door's thread did not start"
    door.stop()
    for thread in threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in threads)
