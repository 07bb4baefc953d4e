"""CORS for the REST gateway, so browser-based portals on other origins can call it.

Off unless origins are configured: ``GAMERULES_CORS_ORIGINS`` (read by ``gateway_config``) is a
comma-separated list of origins (``https://portal.example,http://localhost:3000``) or ``*`` for any.
An allowed origin gets the ``Access-Control-*`` headers on the ``/v1/`` routes and ``/openapi.json``, and a
preflight ``OPTIONS`` on a ``/v1/`` route is answered here (204) without reaching the gRPC server. Other
origins get no CORS headers, so the browser refuses them.
No credentials mode: API keys travel in headers, which CORS allows anyway.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from service.api.rest.mapping import Answer

ALLOWED_METHODS = "GET, POST, OPTIONS"
# Request headers a browser may send: the JSON body, the deadline, API keys and tracing.
ALLOWED_HEADERS = "Content-Type, Grpc-Timeout, Authorization, X-Api-Key, X-Request-Id, Traceparent"
# Response headers a page may read: the refusal's pause, the release, the request's id and the answer's tag.
EXPOSED_HEADERS = "Retry-After, Gamerules-Version, X-Request-Id, ETag"
MAX_AGE_S = 600
_PREFIXES = ("/v1/",)
_PATHS = frozenset({"/openapi.json"})


def _covered(path: str) -> bool:
    return path in _PATHS or path.startswith(_PREFIXES)


def add_vary(answer: Answer, name: str) -> None:
    """Name ``name`` in the answer's ``Vary`` header (once)."""
    for index, (key, value) in enumerate(answer.headers):
        if key.lower() == "vary":
            named = [part.strip() for part in value.split(",") if part.strip()]
            if name.lower() not in (part.lower() for part in named):
                answer.headers[index] = (key, ", ".join([*named, name]))
            return
    answer.headers.append(("Vary", name))


class Cors:
    """The CORS rules for ``origins`` (none: no CORS headers at all). ``headers``: the request's, by lower-case
    name."""

    def __init__(self, origins: Iterable[str]) -> None:
        self._allowed = frozenset(origins)
        self._any = "*" in self._allowed

    def _allow(self, origin: str | None) -> str | None:
        if not origin:
            return None
        if self._any:
            return "*"
        return origin if origin in self._allowed else None

    def preflight(self, method: str, path: str, headers: Mapping[str, str]) -> Answer | None:
        """The answer to a preflight (an OPTIONS on a ``/v1/`` route naming the method it asks for); None for
        any other request."""
        if not self._allowed or method != "OPTIONS" or not path.startswith(_PREFIXES):
            return None
        if "access-control-request-method" not in headers:
            return None
        answer = Answer(204)
        origin = self._allow(headers.get("origin"))
        if origin is not None:
            answer.headers += [
                ("Access-Control-Allow-Origin", origin),
                ("Access-Control-Allow-Methods", ALLOWED_METHODS),
                ("Access-Control-Allow-Headers", ALLOWED_HEADERS),
                ("Access-Control-Max-Age", str(MAX_AGE_S)),
            ]
        add_vary(answer, "Origin")
        return answer

    def decorate(self, path: str, headers: Mapping[str, str], answer: Answer) -> None:
        """Add the CORS headers an answer on ``path`` carries for the request's origin."""
        if not self._allowed or not _covered(path) or answer.header("Access-Control-Allow-Origin") is not None:
            return
        origin = self._allow(headers.get("origin"))
        if origin is not None:
            answer.headers += [
                ("Access-Control-Allow-Origin", origin),
                ("Access-Control-Expose-Headers", EXPOSED_HEADERS),
            ]
        if not self._any:
            add_vary(answer, "Origin")
