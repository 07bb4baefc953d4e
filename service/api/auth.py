"""API keys, for exposure beyond a trusted network (off unless keys are configured).

Keys come from a file (one per line; blank lines and ``#`` comments ignored) and/or the environment
(``GAMERULES_API_KEYS``, comma-separated) — never from the command line, where ``ps`` would show them.
A caller presents one as ``authorization: Bearer KEY`` or ``x-api-key: KEY`` (gRPC metadata or HTTP
headers). Keys are compared as SHA-256 digests with ``hmac.compare_digest`` against every configured key,
so the time taken says nothing about how close a guess was or which key matched. A missing or wrong key is
UNAUTHENTICATED (HTTP 401) with the same message either way. The gRPC health service stays open, so load
balancers and Kubernetes probes need no key.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable, Iterable, Mapping

import grpc
from grpc_status import rpc_status

from service.api import settings
from service.api.errors import ApiError

ENV_KEYS = "GAMERULES_API_KEYS"
ENV_KEYS_FILE = "GAMERULES_API_KEYS_FILE"
MESSAGE = "a valid API key is required"
# Services callable without a key: the health service only (it reveals nothing but up/down).
OPEN_SERVICES = frozenset({"grpc.health.v1.Health"})


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()


class ApiKeys:
    """A set of accepted keys; empty means the check is off."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self._digests = tuple({_digest(key) for key in keys if key})

    def __bool__(self) -> bool:
        return bool(self._digests)

    def __len__(self) -> int:
        return len(self._digests)

    def accepts(self, presented: str | None) -> bool:
        digest = _digest(presented or "")
        matched = False
        for accepted in self._digests:  # every key, always: no early exit
            matched |= hmac.compare_digest(accepted, digest)
        return matched and bool(presented)


def load(path: str | None = None, environ: Mapping[str, str] | None = None) -> ApiKeys:
    """The keys in ``path`` (default ``$GAMERULES_API_KEYS_FILE``) and ``$GAMERULES_API_KEYS``.

    A ``SettingError`` (the start refused) for a file that is missing, holds no key (empty, comments only) or
    holds something other than keys (a PEM file: ``-----BEGIN ...``), and for ``GAMERULES_API_KEYS`` set to no
    key (``,``): each would otherwise switch the check off, or make a certificate's lines keys, silently."""
    environ = os.environ if environ is None else environ
    path = path or environ.get(ENV_KEYS_FILE) or None
    keys: list[str] = []
    given = environ.get(ENV_KEYS, "")
    if given.strip():
        keys = [key.strip() for key in given.split(",") if key.strip()]
        if not keys or any(_not_a_key(key) for key in keys):
            raise settings.SettingError(f"{ENV_KEYS}=<hidden>: send API keys, comma-separated, without spaces")
    if path:
        keys += _file_keys(path)
    return ApiKeys(keys)


def _not_a_key(key: str) -> bool:
    return key.startswith("-----") or any(c.isspace() or not c.isprintable() for c in key)


def _file_keys(path: str) -> list[str]:
    refused = f"{ENV_KEYS_FILE}={path!r}: send a file of API keys, one a line ('#' comments)"
    try:
        with open(path, encoding="utf-8") as file:
            lines = [line.strip() for line in file if line.strip() and not line.lstrip().startswith("#")]
    except FileNotFoundError:
        raise settings.SettingError(f"{refused}: there is no such file") from None
    except (OSError, UnicodeError) as error:
        raise settings.SettingError(f"{refused}: it cannot be read ({type(error).__name__})") from None
    if not lines:
        raise settings.SettingError(f"{refused}: it holds no key")
    if any(_not_a_key(line) for line in lines):
        raise settings.SettingError(f"{refused}: it holds lines that are no keys (a certificate or key file?)")
    return lines


def presented_key(get: Callable[[str], str | None]) -> str | None:
    """The key a caller presented, given a lookup of a (lower-case) header or metadata key."""
    authorization = get("authorization") or ""
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return get("x-api-key") or None


def unauthenticated() -> ApiError:
    return ApiError(grpc.StatusCode.UNAUTHENTICATED, "UNAUTHENTICATED", MESSAGE)


# --- gRPC --------------------------------------------------------------------------------------------------


def _deny(request: object, context: grpc.ServicerContext) -> None:
    context.abort_with_status(rpc_status.to_status(unauthenticated().to_status()))


_DENIED = {
    "unary_unary": grpc.unary_unary_rpc_method_handler(_deny),
    "unary_stream": grpc.unary_stream_rpc_method_handler(_deny),
    "stream_unary": grpc.stream_unary_rpc_method_handler(_deny),
    "stream_stream": grpc.stream_stream_rpc_method_handler(_deny),
}


class ApiKeyInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]  # grpc has no type stubs
    """Refuses every call without an accepted key (unknown methods too: the answer reveals nothing)."""

    def __init__(self, keys: ApiKeys) -> None:
        self._keys = keys

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        method: str = handler_call_details.method
        if method.lstrip("/").rpartition("/")[0] in OPEN_SERVICES:
            return continuation(handler_call_details)
        metadata = dict(handler_call_details.invocation_metadata or ())
        if self._keys.accepts(presented_key(lambda name: _text(metadata.get(name)))):
            return continuation(handler_call_details)
        handler = continuation(handler_call_details)
        if handler is None:
            return _DENIED["unary_unary"]
        kind = ("stream" if handler.request_streaming else "unary") + "_"
        kind += "stream" if handler.response_streaming else "unary"
        return _DENIED[kind]


def _text(value: str | bytes | None) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value
