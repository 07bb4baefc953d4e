"""The REST gateway's configuration: one value, built once from the environment (``GatewayConfig.from_env``).

Every ``GAMERULES_*`` variable the gateway reads is read here and nowhere else (``docs/operations.md`` lists
them). ``gateway_server`` builds the config from its flags and the environment and hands it to its workers
in the environment (``to_env``: granian's workers are processes of their own); each worker reads it back once
(``worker_app``). ``gateway_path.GatewayPath`` takes the value; tests build one with the fields they need.

A malformed value is refused at start with a message naming the variable and saying what to send.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from service.api import auth, callers, environment, settings
from service.api.rest import gateway_pacing

MAX_BODY_BYTES = 1 << 20
BACKEND_CONNECTIONS = 8  # gRPC connections per worker (``gateway_backends.Backends``)
DEFAULT_TIMEOUT_S = 30.0  # a call's deadline when the request sets none (``Grpc-Timeout``)
# Settings of the gateway's request threads, which are gone: every request is served in its worker's event
# loop (``gateway_path``). Still read and checked, so that a deployment that sets them starts as before, and
# ignored, with a warning at start (``gateway_server``).
IGNORED = {"threads": "GAMERULES_GATEWAY_THREADS", "max_queue_wait_s": "GAMERULES_GATEWAY_MAX_QUEUE_WAIT_S"}
# The stages of a request, bounded as a production proxy bounds them (``gateway_asgi``).
DEFAULT_BODY_S = 10.0  # the whole body
DEFAULT_BODY_CHUNK_S = 5.0  # each chunk of it after the one before
DEFAULT_MAX_BODIES = 512  # bodies arriving at once in a worker


# A variable's value the gateway cannot use; the message names it and says what to send.
ConfigError = settings.SettingError


@dataclass(frozen=True, slots=True)
class BackendTls:
    """TLS to the gRPC server: the CA to trust, and a client certificate for mutual TLS (PEM file paths)."""

    ca: str
    cert: str = ""
    key: str = ""


@dataclass(frozen=True, slots=True)
class FrontConfig:
    """The front's bounds on a request's stages (``gateway_asgi``)."""

    max_body: int = MAX_BODY_BYTES  # bytes
    body_s: float = DEFAULT_BODY_S  # the whole body within this
    body_chunk_s: float = DEFAULT_BODY_CHUNK_S  # and each chunk of it within this of the one before
    max_bodies: int = DEFAULT_MAX_BODIES  # bodies read at once per worker


# Each field's variable. A field missing here is not read from the environment (the API keys: ``auth.load``).
_VARIABLES = {
    "grpc_target": "GAMERULES_GRPC_TARGET",
    "connections": "GAMERULES_GRPC_TARGET_CONNECTIONS",
    "timeout_s": "GAMERULES_GATEWAY_TIMEOUT_S",
    "max_body_bytes": "GAMERULES_GATEWAY_MAX_BODY_BYTES",
    "threads": "GAMERULES_GATEWAY_THREADS",
    "waiting_best_moves": "GAMERULES_GATEWAY_WAITING_BEST_MOVES",
    "refusal_hold_s": "GAMERULES_GATEWAY_REFUSAL_HOLD_S",
    "max_queue_wait_s": "GAMERULES_GATEWAY_MAX_QUEUE_WAIT_S",
    "body_s": "GAMERULES_GATEWAY_BODY_TIMEOUT_S",
    "body_chunk_s": "GAMERULES_GATEWAY_BODY_CHUNK_TIMEOUT_S",
    "max_bodies": "GAMERULES_GATEWAY_MAX_BODIES",
    "cors_origins": "GAMERULES_CORS_ORIGINS",
    "trusted_clients": "GAMERULES_GATEWAY_TRUSTED_CLIENTS",
}
_TLS_VARIABLES = {
    "ca": "GAMERULES_GRPC_TARGET_CA",
    "cert": "GAMERULES_GRPC_TARGET_CERT",
    "key": "GAMERULES_GRPC_TARGET_KEY",
}


@dataclass(frozen=True, slots=True)
class GatewayConfig:
    """How the gateway serves. ``threads`` and ``max_queue_wait_s`` are read and ignored (``IGNORED``)."""

    grpc_target: str = environment.DEFAULT_GRPC_TARGET
    connections: int = BACKEND_CONNECTIONS
    tls: BackendTls | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_body_bytes: int = MAX_BODY_BYTES
    threads: int | None = None  # ignored
    waiting_best_moves: int | None = None  # refusals held at once; None: ``gateway_pacing.DEFAULT_SLOTS``
    refusal_hold_s: float = gateway_pacing.DEFAULT_HOLD_S
    max_queue_wait_s: float | None = None  # ignored
    body_s: float = DEFAULT_BODY_S
    body_chunk_s: float = DEFAULT_BODY_CHUNK_S
    max_bodies: int = DEFAULT_MAX_BODIES
    cors_origins: tuple[str, ...] = ()  # none: no CORS headers (``cors.py``)
    trusted_clients: tuple[callers.Network, ...] = ()  # whose Gamerules-Caller header names the caller
    api_keys: auth.ApiKeys = field(default_factory=auth.ApiKeys)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> GatewayConfig:
        """The config the variables set (unset ones: the defaults); ConfigError naming a malformed one."""
        environ = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name, variable in _VARIABLES.items():
            raw = environment.env(variable, environ=environ).strip()
            if raw:
                values[name] = settings.value(variable, _KINDS[name], None, environ)
        ca, cert, key = (
            settings.value(_TLS_VARIABLES[part], settings.pem_file, "", environ) for part in ("ca", "cert", "key")
        )
        if bool(cert) != bool(key):
            raise ConfigError("GAMERULES_GRPC_TARGET_CERT and GAMERULES_GRPC_TARGET_KEY go together: send both")
        if cert and not ca:
            raise ConfigError("GAMERULES_GRPC_TARGET_CERT needs GAMERULES_GRPC_TARGET_CA: send the server's CA too")
        if ca:
            values["tls"] = BackendTls(ca, cert, key)
        return cls(api_keys=auth.load(environ=environ), **values)  # type: ignore[arg-type]

    def to_env(self) -> dict[str, str]:
        """The variables that give this config back through ``from_env`` (the API keys aside: the workers
        read them from the same variables or file)."""
        variables = {}
        for name, variable in _VARIABLES.items():
            value = getattr(self, name)
            if value is None:
                continue
            variables[variable] = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
        if self.tls is not None:
            variables.update({_TLS_VARIABLES[part]: getattr(self.tls, part) for part in _TLS_VARIABLES})
        return variables

    @property
    def paced_best_moves(self) -> int:
        """Refused best moves a worker holds at once (``gateway_pacing``)."""
        return gateway_pacing.DEFAULT_SLOTS if self.waiting_best_moves is None else self.waiting_best_moves

    def ignored(self) -> list[str]:
        """The variables of ``IGNORED`` this config was given a value for."""
        return [variable for name, variable in IGNORED.items() if getattr(self, name) is not None]

    def front(self) -> FrontConfig:
        """The front's bounds on a request's stages."""
        return FrontConfig(
            max_body=self.max_body_bytes,
            body_s=self.body_s,
            body_chunk_s=self.body_chunk_s,
            max_bodies=self.max_bodies,
        )


# What each field's variable accepts (docs/operations.md's table quotes the ranges).
_KINDS: dict[str, settings.Kind[object]] = {
    "grpc_target": settings.target,
    "connections": settings.whole(1, 64),
    "timeout_s": settings.seconds(0, settings.MAX_SECONDS),
    "max_body_bytes": settings.whole(settings.MIN_REQUEST_BYTES, settings.MAX_REQUEST_BYTES),
    "threads": settings.whole(1, settings.MAX_THREADS),
    "waiting_best_moves": settings.whole(0, 4096),
    "refusal_hold_s": settings.seconds(0, 60, zero=True),
    "max_queue_wait_s": settings.seconds(0, 60, zero=True),
    "body_s": settings.seconds(0, settings.MAX_SECONDS),
    "body_chunk_s": settings.seconds(0, settings.MAX_SECONDS),
    "max_bodies": settings.whole(1, 100_000),
    "cors_origins": settings.origins,
    "trusted_clients": callers.networks_setting,
}
