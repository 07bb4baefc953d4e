"""CORS for the REST gateway, so browser-based portals on other origins can call it.

Off unless origins are configured: ``GAMERULES_CORS_ORIGINS`` (read by ``gateway_config``) is a
comma-separated list of origins (``https://portal.example,http://localhost:3000``) or ``*`` for any.
An allowed origin gets the ``Access-Control-*`` headers on the ``/v1/`` routes and ``/openapi.json``, and a
preflight ``OPTIONS`` on a ``/v1/`` route is answered here (204) without reaching the gRPC server. Other
origins get no CORS headers, so the browser refuses them.
No credentials mode: API keys travel in headers, which CORS allows anyway.
"""

from __future__ import annotations

from collections.abc import Iterable

from flask import Flask, Response, request

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


def install_cors(app: Flask, origins: Iterable[str]) -> None:
    """Answer preflights and add CORS headers for ``origins`` (nothing at all when there are none)."""
    allowed = frozenset(origins)
    if not allowed:
        return
    any_origin = "*" in allowed

    def allow(origin: str | None) -> str | None:
        if not origin:
            return None
        if any_origin:
            return "*"
        return origin if origin in allowed else None

    @app.before_request
    def preflight() -> Response | None:
        if request.method != "OPTIONS" or not request.path.startswith(_PREFIXES):
            return None
        if "Access-Control-Request-Method" not in request.headers:
            return None
        response = Response(status=204)
        origin = allow(request.headers.get("Origin"))
        if origin is not None:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Allow-Methods"] = ALLOWED_METHODS
            response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
            response.headers["Access-Control-Max-Age"] = str(MAX_AGE_S)
        response.vary.add("Origin")
        return response

    @app.after_request
    def add_headers(response: Response) -> Response:
        if not _covered(request.path) or "Access-Control-Allow-Origin" in response.headers:
            return response
        origin = allow(request.headers.get("Origin"))
        if origin is not None:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        if not any_origin:
            response.vary.add("Origin")
        return response
