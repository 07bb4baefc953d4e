"""The rules calls, answered in the gateway worker's event loop: no thread, no Flask.

Why. A LegalMoves through the Flask app took a hop to one of the front's threads, Flask's request and
response objects, and a blocking gRPC call on that thread; ``python -m bench.load`` measured what the gateway
adds to direct gRPC, and a profile put most of it in those hops rather than in the transcoding
(``docs/development.md``, "The gateway's cost"). The rules calls (LegalMoves, ApplyMove, Score, NewGame, the
other POST routes whose RPC is unary) are short and the bulk of a portal's traffic: the front hands them
here, and they are decoded, sent with ``grpc.aio`` on the worker's own loop and answered in it.

The answers are the app's, byte for byte: the same body parsing (``gateway.body_refusal``), deadline
(``gateway.grpc_timeout``), metadata, retry on another connection, error Status (``gateway.rpc_error_answer``),
API-key check, metrics and access log; ``tests/api/test_gateway_unary.py`` compares the two paths on good
and bad requests. Whatever else (GET routes, BestMove and the streams, which wait and watch their client,
``:render``'s bytes, a browser's request when CORS is on, the playground, health and metrics) goes to the
app, as before.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import grpc
from google.protobuf import message_factory
from google.rpc import code_pb2, status_pb2

from service.api import auth, logs, metrics
from service.api.callers import CALLER_METADATA
from service.api.errors import HTTP_STATUS, error_status, status_json
from service.api.rest.gateway import (
    FORWARDED_HEADERS,
    RETRY_PAUSE_S,
    SERVICE,
    Route,
    answer_json,
    body_refusal,
    build_routes,
    channel_arguments,
    grpc_timeout,
    rpc_error_answer,
    worker_of,
)
from service.api.rest.gateway_config import GatewayConfig
from service.api.rest.mapping import HTTP_BODY

_log = logging.getLogger(__name__)

Headers = list[tuple[bytes, bytes]]
Answer = tuple[int, Headers, bytes]  # status, headers, body


def answers_here(route: Route) -> bool:
    """Whether a route is a rules call this path answers: POST with a body, unary, no search (``Route.searches``),
    JSON out."""
    method = route.method
    return (
        route.verb == "POST"
        and route.body == "*"
        and not method.server_streaming
        and not route.searches
        and method.output_type.full_name != HTTP_BODY
    )


class UnaryPath:
    """The rules calls of one gateway worker (``gateway_server.worker_app`` builds it beside the app)."""

    def __init__(self, config: GatewayConfig) -> None:
        self._config = config
        # The routes in the app's order (the first whose template and verb match is the one), without a channel:
        # this path calls over its own ``grpc.aio`` channels.
        self._routes = build_routes(None)
        self._calls: list[dict[str, Any]] | None = None  # per channel: method name -> its aio callable
        self._turn = 0

    def route(self, scope: dict[str, Any]) -> tuple[Route, dict[str, str]] | None:
        """The route and path variables of a request this path answers; None for the app's."""
        if scope["method"] != "POST" or not scope["path"].startswith("/v1/"):
            return None
        if self._config.cors_origins and any(name == b"origin" for name, _ in scope.get("headers", ())):
            return None  # CORS headers are the app's
        for route in self._routes:
            match = route.pattern.match(scope["path"])
            if match is not None and route.verb == "POST":
                return (route, match.groupdict()) if answers_here(route) else None
        return None

    async def answer(self, scope: dict[str, Any], route: Route, variables: dict[str, str], body: bytes) -> Answer:
        """The request's answer, counted and logged as the app counts and logs its own."""
        started = time.perf_counter()
        headers = _headers(scope)
        try:
            answer = await self._answer(scope, headers, route, variables, body)
        except Exception:  # as the app's 500: logged, answered with a Status, the worker serving on
            _log.exception("unexpected failure on POST %s", scope["path"][:200])
            answer = _status_answer(error_status(code_pb2.INTERNAL, "internal error; it has been logged", "INTERNAL"))
        game = (variables.get("game") or variables.get("name") or "").removeprefix("games/")
        seconds = time.perf_counter() - started
        metrics.observe_http("POST", route.template, answer[0], seconds)
        logs.log_http("POST", route.template, answer[0], seconds, game, headers.get("x-request-id", ""))
        return answer

    async def _answer(
        self, scope: dict[str, Any], headers: dict[str, str], route: Route, variables: dict[str, str], body: bytes
    ) -> Answer:
        keys = self._config.api_keys
        if keys and not keys.accepts(auth.presented_key(headers.get)):
            return _status_answer(auth.unauthenticated().to_status(), {"WWW-Authenticate": "Bearer"})
        message = route.request_class()
        refusal = body_refusal(body, route, message)
        if refusal is not None:
            return _status_answer(refusal)
        for name, value in variables.items():
            setattr(message, name.replace("__", "."), value)
        timeout = grpc_timeout(headers.get("grpc-timeout", ""), self._config.timeout_s)
        if isinstance(timeout, status_pb2.Status):
            return _status_answer(timeout)
        metadata = [(name, value) for name, value in headers.items() if name in FORWARDED_HEADERS]
        client = scope.get("client") or ("", 0)
        metadata.append((CALLER_METADATA, str(client[0])))  # the HTTP client, for the server's fair share
        try:
            answer, worker = await self._call(route.method.name, message, timeout, metadata)
        except grpc.aio.AioRpcError as error:
            status, extra = rpc_error_answer(error)
            worker = _quietly_worker(error)
            return _status_answer(status, {**extra, **({"Gamerules-Worker": worker} if worker else {})})
        extra_headers = {"Gamerules-Worker": worker} if worker else {}
        return _json_answer(200, answer_json(answer), extra_headers)

    async def _call(self, method: str, message: Any, timeout: float, metadata: list[tuple[str, str]]) -> Any:
        """(answer, worker): sent on the next connection in turn, and once more on the one after if it fails
        UNAVAILABLE (as ``gateway.Backends.call``: nothing of such a call ran)."""
        calls = self._channels()
        deadline = time.monotonic() + timeout
        first = self._turn = (self._turn + 1) % len(calls)
        try:
            return await _send(calls[first][method], message, timeout, metadata)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            await asyncio.sleep(min(RETRY_PAUSE_S, max(deadline - time.monotonic(), 0.0)))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise
        return await _send(calls[(first + 1) % len(calls)][method], message, remaining, metadata)

    def _channels(self) -> list[dict[str, Any]]:
        """The aio channels, made on first use: in the worker's event loop, where they are used."""
        if self._calls is None:
            self._calls = [self._channel_calls(index) for index in range(self._config.connections)]
        return self._calls

    def _channel_calls(self, index: int) -> dict[str, Any]:
        options, credentials = channel_arguments(self._config, index)
        target = self._config.grpc_target
        if credentials is None:
            channel = grpc.aio.insecure_channel(target, options=options)
        else:
            channel = grpc.aio.secure_channel(target, credentials, options=options)
        return {
            route.method.name: channel.unary_unary(
                f"/{SERVICE.full_name}/{route.method.name}",
                request_serializer=lambda message: message.SerializeToString(),
                response_deserializer=message_factory.GetMessageClass(route.method.output_type).FromString,
            )
            for route in self._routes
            if answers_here(route)
        }


async def _send(call: Any, message: Any, timeout: float, metadata: list[tuple[str, str]]) -> tuple[Any, str]:
    invocation = call(message, timeout=timeout, metadata=metadata)
    answer = await invocation
    return answer, worker_of(await invocation.initial_metadata())


def _quietly_worker(error: grpc.aio.AioRpcError) -> str:
    try:
        return worker_of(error.initial_metadata())
    except Exception:  # a call that never reached a worker has no metadata
        return ""


def _headers(scope: dict[str, Any]) -> dict[str, str]:
    """The request's headers by lower-case name, repeated ones joined with commas (as the app sees them)."""
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", ()):
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        headers[name] = f"{headers[name]},{value}" if name in headers else value
    return headers


def _status_answer(status: status_pb2.Status, headers: dict[str, str] | None = None) -> Answer:
    return _json_answer(HTTP_STATUS.get(status.code, 500), status_json(status), headers or {})


def _json_answer(code: int, body: str | bytes, headers: dict[str, str]) -> Answer:
    data = body.encode("utf-8") if isinstance(body, str) else body
    raw: Headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]
    return code, raw, data
