"""The service's environment variables: one family, ``GAMERULES_*``, read through ``env`` (README:
Configuration).

Where things listen: ``GAMERULES_HOST`` and one port per protocol, ``GAMERULES_GRPC_PORT`` (50051, the server),
``GAMERULES_HTTP_PORT`` (8080, the gateway), ``GAMERULES_METRICS_PORT`` (9464, the server's metrics). Where a
client finds the gRPC server: ``GAMERULES_GRPC_TARGET`` (the gateway, the ``gamerules`` command, the client
library and the examples), with ``GAMERULES_GRPC_TARGET_CA`` / ``_CERT`` / ``_KEY`` for TLS to it; the gateway's
URL for HTTP clients: ``GAMERULES_HTTP_URL``. A setting both processes have is ``GAMERULES_X`` for the server and
``GAMERULES_GATEWAY_X`` for the gateway; one they share (``GAMERULES_GRACE_S``, ``GAMERULES_LOG_*``,
``GAMERULES_API_KEYS``...) is one name for both.

The names of release 0.1.0 that this scheme replaced still work for one release (``RENAMED``): each logs a
warning naming its successor the first time it is read; the new name wins when both are set.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

# Old name -> new name. Kept for one release (0.2.x), then removed.
RENAMED: dict[str, str] = {
    "GAMERULES_BACKEND": "GAMERULES_GRPC_TARGET",
    "GAMERULES_BACKEND_CA": "GAMERULES_GRPC_TARGET_CA",
    "GAMERULES_BACKEND_CERT": "GAMERULES_GRPC_TARGET_CERT",
    "GAMERULES_BACKEND_KEY": "GAMERULES_GRPC_TARGET_KEY",
}
# GAMERULES_GATEWAY_BIND (host:port) became GAMERULES_HOST and GAMERULES_HTTP_PORT: see ``gateway_bind``.
OLD_GATEWAY_BIND = "GAMERULES_GATEWAY_BIND"
DEFAULT_HOST = "localhost"
DEFAULT_GRPC_PORT = 50051
DEFAULT_HTTP_PORT = 8080
DEFAULT_METRICS_PORT = 9464
DEFAULT_GRPC_TARGET = f"{DEFAULT_HOST}:{DEFAULT_GRPC_PORT}"

LOG = logging.getLogger("gamerules.config")
_warned: set[str] = set()


def deprecated(old: str, new: str) -> None:
    """Say once per process that ``old`` is read in place of ``new`` (in the JSON logs once they are set up)."""
    if old not in _warned:
        _warned.add(old)
        LOG.warning(f"{old} is deprecated and will stop working in the next release: use {new}")


def env(name: str, default: str = "", environ: Mapping[str, str] | None = None) -> str:
    """The value of the variable ``name``, else of the old name it replaced (with a warning), else ``default``.
    An empty value counts as unset."""
    environ = os.environ if environ is None else environ
    value = environ.get(name)
    if value:
        return value
    for old, new in RENAMED.items():
        if new == name and environ.get(old):
            deprecated(old, new)
            return environ[old]
    return default


def gateway_bind(environ: Mapping[str, str] | None = None) -> str:
    """The gateway's ``host:port``: ``GAMERULES_HOST`` and ``GAMERULES_HTTP_PORT``; while no HTTP port is
    given, the old ``GAMERULES_GATEWAY_BIND`` (with a warning: the image sets ``GAMERULES_HOST`` for both
    roles, so a deployment that moved the gateway with the old name keeps its port); else ``localhost:8080``."""
    environ = os.environ if environ is None else environ
    host, port = environ.get("GAMERULES_HOST"), environ.get("GAMERULES_HTTP_PORT")
    if not port and environ.get(OLD_GATEWAY_BIND):
        deprecated(OLD_GATEWAY_BIND, "GAMERULES_HOST and GAMERULES_HTTP_PORT")
        return environ[OLD_GATEWAY_BIND]
    return f"{host or DEFAULT_HOST}:{port or DEFAULT_HTTP_PORT}"
