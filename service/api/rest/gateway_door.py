"""The gateway's door: the connections no request has come through yet, which neither the front nor granian bounds.

Why. granian hands the front a request once its headers have arrived, and its header timeout starts only with a
request's first byte: a connection that sends nothing stays open for ever, and holds one of the worker's
``--max-connections`` (granian's backpressure). 4,500 of them from one address left every other client waiting in
the listen backlog. A front proxy closes such connections and bounds each address's share; so does the door, from
inside each worker:

- **First byte.** A connection that has received no byte within ``first_byte_s`` (the headers' timeout) is shut.
- **Idle.** A connection with no request in flight that has received nothing for ``idle_s`` since its last request
  ended is shut (a client's keep-alive pool reconnects when it needs to). Bytes that came after its last request
  ended, or before any request reached the front, are a request on its way in (a busy worker may take a while to
  hand it over): the header and body timeouts bound those, not the door.
- **Per address.** At most ``per_address`` connections of one client address that have received no byte yet: the
  newest beyond it are shut at once, so one address opening connections and sending nothing cannot fill the
  worker while others wait.

How. A thread of the worker looks every ``period_s`` at the worker's own sockets (``/proc/self/fd``): the TCP
connections whose local port is one this process listens on (granian's accepted connections), each with the
kernel's ``TCP_INFO`` (bytes received, milliseconds since data last arrived). A connection to shut is shut with
``shutdown`` on a duplicate of its descriptor: granian's reader then sees the end of the stream and closes it as
it closes any connection a client ended. Requests in flight are the front's (``Front``): it tells the door which
client ports have one and when the last one ended (``busy``/``done``); those in flight are never idle. Linux
only; elsewhere the door does nothing (``available``), and the deployment's proxy bounds the connections.
"""

from __future__ import annotations

import logging
import os
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from service.api import metrics

_log = logging.getLogger(__name__)

# struct tcp_info (linux/tcp.h): tcpi_last_data_recv (__u32, ms) at byte 52, tcpi_bytes_received (__u64) at 128.
_LAST_DATA_RECV = struct.Struct("=I")
_BYTES_RECEIVED = struct.Struct("=Q")
_LAST_DATA_RECV_AT, _BYTES_RECEIVED_AT, _TCP_INFO_BYTES = 52, 128, 136
_TCP_LISTEN = 10  # tcpi_state of a listening socket
# How much later than a request's end its connection's last bytes may seem to come and still be that request's
# (the kernel's clock of the bytes and the worker's of the end are read apart).
_SLACK_MS = 50


@dataclass(frozen=True, slots=True)
class DoorConfig:
    first_byte_s: float = 10.0  # the gateway's --header-timeout-s
    idle_s: float = 10.0  # the same: a keep-alive connection's next request arrives within it
    per_address: int = 64  # a thirty-second of --max-connections, at least PER_ADDRESS_LEAST
    period_s: float = 0.25


PER_ADDRESS_LEAST = 8


def per_address(max_connections: int) -> int:
    """Connections of one address that have sent nothing yet, for a worker of ``max_connections``."""
    return max(PER_ADDRESS_LEAST, max_connections // 32)


@dataclass(frozen=True, slots=True)
class Connection:
    """One accepted connection as the kernel sees it."""

    fd: int
    peer: tuple[str, int]
    received: int  # bytes received so far
    quiet_ms: int  # since data last arrived (since it was accepted when none has)


def available() -> bool:
    """Whether the door can see this process's connections (Linux's ``/proc`` and ``TCP_INFO``)."""
    return hasattr(socket, "TCP_INFO") and os.path.isdir("/proc/self/fd")


def connections() -> list[Connection]:
    """This process's accepted TCP connections on the ports it listens on."""
    listening: set[int] = set()
    accepted: list[tuple[int, socket.socket]] = []
    for name in os.listdir("/proc/self/fd"):
        sock = _socket_of(int(name))
        if sock is None:
            continue
        info = _tcp_info(sock)
        if info is None:
            sock.close()
            continue
        if info[0] == _TCP_LISTEN:
            listening.add(sock.getsockname()[1])
            sock.close()
        else:
            accepted.append((int(name), sock))
    found = []
    for fd, sock in accepted:
        try:
            if sock.getsockname()[1] in listening:
                info = _tcp_info(sock)
                if info is not None:
                    received = _BYTES_RECEIVED.unpack_from(info, _BYTES_RECEIVED_AT)[0]
                    quiet = _LAST_DATA_RECV.unpack_from(info, _LAST_DATA_RECV_AT)[0]
                    found.append(Connection(fd, sock.getpeername()[:2], received, quiet))
        except OSError:  # closed meanwhile
            pass
        finally:
            sock.close()
    return found


def _socket_of(fd: int) -> socket.socket | None:
    """A duplicate of ``fd`` as a socket when it is a TCP socket (closing it leaves ``fd`` open)."""
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    if not target.startswith("socket:"):
        return None
    try:
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        return None
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
        sock.close()
        return None
    return sock


def _tcp_info(sock: socket.socket) -> bytes | None:
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_BYTES)
    except OSError:
        return None
    return info if len(info) >= _TCP_INFO_BYTES else None


def to_shut(
    found: list[Connection], busy: set[int], ended_ms: Mapping[int, int], config: DoorConfig
) -> list[tuple[Connection, str]]:
    """The connections the door shuts and why (``first-byte``, ``idle``, ``per-address``): the rules of the
    module's docstring over what the kernel said (``busy``: the client ports with a request in flight;
    ``ended_ms``: milliseconds since the last request of each client port ended)."""
    shut: list[tuple[Connection, str]] = []
    silent_by_address: dict[str, list[Connection]] = {}
    for conn in found:
        if conn.received == 0:
            if conn.quiet_ms >= config.first_byte_s * 1000:
                shut.append((conn, "first-byte"))
            else:
                silent_by_address.setdefault(conn.peer[0], []).append(conn)
        elif _idle(conn, busy, ended_ms) >= config.idle_s * 1000:
            shut.append((conn, "idle"))
    for silent in silent_by_address.values():
        if len(silent) > config.per_address:
            silent.sort(key=lambda conn: conn.quiet_ms)  # the newest first
            shut.extend((conn, "per-address") for conn in silent[: len(silent) - config.per_address])
    return shut


def _idle(conn: Connection, busy: set[int], ended_ms: Mapping[int, int]) -> int:
    """Milliseconds ``conn`` has been between requests: 0 with one in flight or on its way in."""
    port = conn.peer[1]
    ended = ended_ms.get(port)
    if port in busy or ended is None or conn.quiet_ms + _SLACK_MS < ended:
        return 0
    return min(conn.quiet_ms, ended)


class Door:
    """One worker's door: ``start`` its thread; the front calls ``busy`` and ``done`` around each request."""

    def __init__(self, config: DoorConfig) -> None:
        self.config = config
        self._busy: Counter[int] = Counter()  # client ports with requests in flight
        self._ended: dict[int, float] = {}  # client ports: when their last request ended (time.monotonic)
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def busy(self, port: int) -> None:
        with self._lock:
            self._busy[port] += 1

    def done(self, port: int) -> None:
        with self._lock:
            self._busy[port] -= 1
            if self._busy[port] <= 0:
                del self._busy[port]
            self._ended[port] = time.monotonic()

    def start(self) -> bool:
        """Start the thread (a daemon); False where the door cannot see connections."""
        if not available():
            return False
        threading.Thread(target=self._run, name="gateway-door", daemon=True).start()
        return True

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.config.period_s):
            try:
                self.sweep()
            except Exception:  # the door must never take the worker down; it tries again next period
                _log.exception("the gateway's door could not look at its connections")

    def sweep(self) -> int:
        """Shut what ``to_shut`` says now; how many were shut."""
        found = connections()
        now, open_ports = time.monotonic(), {conn.peer[1] for conn in found}
        with self._lock:
            busy = set(self._busy)
            for port in [port for port in self._ended if port not in open_ports]:  # closed since
                del self._ended[port]
            ended_ms = {port: int((now - at) * 1000) for port, at in self._ended.items()}
        shut = 0
        for conn, reason in to_shut(found, busy, ended_ms, self.config):
            if _shut(conn):
                metrics.observe_door(reason)
                shut += 1
        return shut


def _shut(conn: Connection) -> bool:
    """End ``conn`` (both ways) through a duplicate of its descriptor, if the descriptor is still that
    connection (it may have been closed and reused since the look); granian closes its own descriptor."""
    sock = _socket_of(conn.fd)
    if sock is None:
        return False
    try:
        if sock.getpeername()[:2] != conn.peer:
            return False
        sock.shutdown(socket.SHUT_RDWR)
        return True
    except OSError:
        return False
    finally:
        sock.close()
