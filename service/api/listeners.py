"""Whether a port is free before a process listens on it, and the message that names what to set when not.

The server's workers share their port with ``SO_REUSEPORT``, and so would a second instance started on the
same port by the same user: it would take half of the first one's connections without a word. Before any
listener is opened, each process asks here whether its port is free, and a taken one fails at once with a
message naming the variable (and the ``make run`` variable) that moves it.
"""

from __future__ import annotations

import errno
import socket
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Listener:
    """One of the service's listeners: what it serves and the settings that move it."""

    what: str  # "gRPC", "HTTP", "metrics"
    variable: str  # the environment variable of its port
    make_variable: str  # ``make run``'s variable of the same port


GRPC = Listener("gRPC", "GAMERULES_GRPC_PORT", "GRPC_PORT")
HTTP = Listener("HTTP", "GAMERULES_HTTP_PORT", "HTTP_PORT")
METRICS = Listener("metrics", "GAMERULES_METRICS_PORT", "METRICS_PORT")


def in_use(host: str, port: int) -> bool:
    """Whether something listens on ``host:port`` already (port 0, "any free port", never is). A plain bind
    without ``SO_REUSEPORT`` fails on a port another socket holds, but not on one a closed connection left in
    TIME_WAIT (``SO_REUSEADDR``, as every listener of ours sets)."""
    if port == 0:
        return False
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return False  # the listener itself says the host is wrong
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    return True
    return False


def taken(listener: Listener, host: str, port: int) -> str:
    """The message for a taken port: what could not listen, and what to set."""
    return (
        f"cannot listen for {listener.what} on {host}:{port}: the port is in use (another instance?); "
        f"set {listener.variable} (make run {listener.make_variable}=...) to a free port"
        + (", or 0 for none" if listener is METRICS else "")
    )


def free_port(host: str) -> int:
    """A port free on ``host`` now (the system's pick)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])
