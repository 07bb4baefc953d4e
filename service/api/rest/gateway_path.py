"""The gateway's one request path: every route, answered in the worker's event loop.

Why one path, and why not Flask. The gateway used to answer the rules calls in its event loop and hand the rest
(GET routes, BestMove and the streams, ``:render``, CORS, health, metrics, the playground) to a Flask app on a
pool of threads, each cross-cutting rule called from both. Measured with ``python -m bench.load`` (the
figures: ``docs/development.md``, "The gateway's cost"), a LegalMoves through the Flask app cost clearly more
than the whole budget the gateway has for its own work: the hop to a thread and back, the WSGI environ and
Flask's request and response objects, and a blocking gRPC call on that thread. So every route is served
here, and the Flask app is gone: one router, and each rule in one place.

- **Routing** is the contract's: the ``google.api.http`` rules (``gateway.build_routes``), the first whose
  template and verb match; a path with other verbs is 405 with its ``Allow``; then the fixed routes
  (``/``, ``/playground/...``, ``/healthz``, ``/readyz``, ``/metrics``, ``/openapi.json``); else 404.
  ``HEAD`` is a ``GET`` without the body; ``OPTIONS`` is a CORS preflight or 405.
- **What a route needs** is read from the contract, not from a method's name: a server-streaming method is
  a stream, written as its messages come; a request with search limits (``Route.searches``) is sent with the
  rest of its deadline, watches its client and has its 429 held (``gateway_pacing``); an ``HttpBody`` answer
  is bytes with an ETag; a GET's JSON has an ETag too.
- **Hang-ups**: a search or a stream asks the front for the request's ``gone`` (the front watches
  ``http.disconnect``): the call is cancelled when it is set, and the server stops its search.
- **Errors** are ``google.rpc.Status`` JSON with grpc-gateway's HTTP statuses (``mapping.status_answer``);
  anything unexpected is logged and answered 500 INTERNAL, the worker serving on.
- **Every answer** is counted and timed (``http_requests_total``, ``http_request_duration_seconds``, the route
  label bounded: a proto template or a fixed path) and logged as one JSON line, here; its release and request
  id headers are the front's (``answer_headers``).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import logging
import mimetypes
import os
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import grpc
from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2

from service.api import auth, logs, metrics
from service.api.callers import CALLER_HEADER, CALLER_METADATA, named_by
from service.api.errors import error_status
from service.api.rest import gateway_pacing
from service.api.rest.cors import Cors
from service.api.rest.gateway import (
    FORWARDED_HEADERS,
    Route,
    answer_json,
    body_refusal,
    build_routes,
    grpc_timeout,
    rpc_error_answer,
    worker_of,
)
from service.api.rest.gateway_backends import Backends, ClientGone, Metadata, unless_gone
from service.api.rest.gateway_config import GatewayConfig
from service.api.rest.mapping import (
    HTTP_BODY,
    Answer,
    QueryError,
    apply_query,
    body_answer,
    error_frame,
    etag_held,
    etag_of,
    json_answer,
    result_frame,
    status_answer,
    status_of,
    stream_answer,
    stream_type,
    tagged_json_answer,
)
from service.api.rest.openapi import serve_openapi

_log = logging.getLogger(__name__)

PLAYGROUND = os.path.join(os.path.dirname(os.path.abspath(__file__)), "playground")
PLAYGROUND_PREFIX = "/playground/"
OTHER = "other"  # the route label of a request that matched no route
_METRICS_CLOSED = (
    "the metrics need Authorization: Bearer with GAMERULES_METRICS_TOKEN (set one to scrape from elsewhere "
    "than this host)"
)


@dataclass
class Request:
    """A request as the front hands it over, its body whole. ``headers`` by lower-case name (repeated ones
    joined with commas); ``gone`` gives the event set when the client leaves (the front starts watching when
    it is first asked)."""

    method: str
    path: str
    query: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    client: str = ""
    body: bytes = b""
    gone: Callable[[], asyncio.Event] = asyncio.Event
    started: float = field(default_factory=time.perf_counter)


@dataclass
class _Handled:
    """An answer and what the access log and the metrics say of it."""

    answer: Answer
    route: str = OTHER
    game: str = ""


class GatewayPath:
    """The routes of one gateway worker, each answered in its event loop."""

    def __init__(self, config: GatewayConfig) -> None:
        self._config = config
        self._routes = build_routes()
        self._backends = Backends(config, self._routes)
        self._pacing = gateway_pacing.Pacing(config.paced_best_moves, config.refusal_hold_s)
        self._cors = Cors(config.cors_origins)
        self._access = metrics.metrics_access()
        self._fixed: dict[str, Callable[[Request], Awaitable[Answer]]] = {
            "/": self._playground_page,
            "/healthz": self._healthz,
            "/readyz": self._readyz,
            "/metrics": self._metrics,
            "/openapi.json": self._openapi,
        }
        metrics.record_process_metrics()  # this worker's process_* series (multi-process mode only)

    async def close(self) -> None:
        await self._backends.close()

    async def handle(self, request: Request, write: Callable[[Answer], Awaitable[None]]) -> None:
        """Answer the request through ``write``, counted and timed until its answer is ready, and logged once
        it is written: a log line before the answer delayed it (``logs.capture_stderr``'s forwarding; ``python
        -m bench.load`` measures a call's latency)."""
        try:
            handled = await self._dispatch(request)
        except Exception:  # logged, answered with a Status, the worker serving on
            _log.exception("unexpected failure on %s %s", request.method[:16], request.path[:200])
            internal = error_status(code_pb2.INTERNAL, "internal error; it has been logged", "INTERNAL")
            handled = _Handled(status_answer(internal))
        answer = handled.answer
        self._cors.decorate(request.path, request.headers, answer)
        seconds = time.perf_counter() - request.started
        metrics.observe_http(request.method, handled.route, answer.status, seconds)
        try:
            await write(answer)
        finally:
            request_id = request.headers.get("x-request-id", "")
            logs.log_http(request.method, handled.route, answer.status, seconds, handled.game, request_id)

    async def _dispatch(self, request: Request) -> _Handled:
        if request.method == "OPTIONS":
            return _Handled(self._options(request))
        verb = "GET" if request.method == "HEAD" else request.method  # a GET without the body (RFC 9110)
        if request.path.startswith("/v1/"):
            return await self._api(request, verb)
        fixed = self._fixed.get(request.path)
        if fixed is not None:
            if verb != "GET":
                return _Handled(method_not_allowed(request, ["GET"]))
            return _Handled(await fixed(request), request.path)
        if request.path.startswith(PLAYGROUND_PREFIX):
            if verb != "GET":
                return _Handled(method_not_allowed(request, ["GET"]))
            return _Handled(static_file(request.path.removeprefix(PLAYGROUND_PREFIX), request), PLAYGROUND_PREFIX)
        return _Handled(not_found(request))

    def _options(self, request: Request) -> Answer:
        """A CORS preflight (``cors.py``), else 405 with the verbs the path really has, or 404."""
        preflight = self._cors.preflight(request.method, request.path, request.headers)
        if preflight is not None:
            return preflight
        if request.path.startswith("/v1/"):
            allowed = [route.verb for route in self._routes if route.pattern.match(request.path)]
        elif request.path in self._fixed or request.path.startswith(PLAYGROUND_PREFIX):
            allowed = ["GET"]
        else:
            allowed = []
        return method_not_allowed(request, allowed) if allowed else not_found(request)

    async def _api(self, request: Request, verb: str) -> _Handled:
        keys = self._config.api_keys
        if keys and not keys.accepts(auth.presented_key(request.headers.get)):
            return _Handled(status_answer(auth.unauthenticated().to_status(), {"WWW-Authenticate": "Bearer"}))
        allowed = []
        for route in self._routes:
            found = route.pattern.match(request.path)
            if found is None:
                continue
            if route.verb == verb:
                variables = found.groupdict()
                game = (variables.get("game") or variables.get("name") or "").removeprefix("games/")
                return _Handled(await self._forward(request, route, variables), route.template, game)
            allowed.append(route.verb)
        if not allowed:
            message = f"no such resource or method: {request.path[:200]}"
            return _Handled(status_answer(error_status(code_pb2.NOT_FOUND, message, "NOT_FOUND")))
        return _Handled(method_not_allowed(request, allowed))

    async def _forward(self, request: Request, route: Route, variables: dict[str, str]) -> Answer:
        """The route's call: its request message from the query or the body and the path, its deadline and
        metadata; then a stream, a search or a plain unary call, as the contract says."""
        message = route.request_class()
        refusal = _fill(message, request, route, set(variables))
        if refusal is not None:
            return status_answer(refusal)
        for name, value in variables.items():
            setattr(message, name.replace("__", "."), value)
        timeout = grpc_timeout(request.headers.get("grpc-timeout", ""), self._config.timeout_s)
        if isinstance(timeout, status_pb2.Status):
            return status_answer(timeout)
        metadata = self._metadata(request)
        if route.method.server_streaming:
            return await self._stream(request, route, message, timeout, metadata)
        if route.searches:
            return await self._search(request, route, message, timeout, metadata)
        try:
            answer, worker = await self._backends.unary(route, message, timeout, metadata)
        except grpc.aio.AioRpcError as error:
            return _error_answer(error)
        return _answer(route, answer, worker, request)

    def _metadata(self, request: Request) -> Metadata:
        """The call's metadata: the forwarded headers (the request id the front settled among them) and the
        caller, for the server's fair share of searches (``callers.py``): the HTTP client, not the gateway, or
        the player a trusted client names."""
        metadata = [(name, value) for name, value in request.headers.items() if name in FORWARDED_HEADERS]
        named = request.headers.get(CALLER_HEADER.lower())
        metadata.append((CALLER_METADATA, named_by(request.client, named, self._config.trusted_clients)))
        return metadata

    async def _search(
        self, request: Request, route: Route, message: Message, timeout: float, metadata: Metadata
    ) -> Answer:
        """A BestMove: sent on to the server's fair queue with the rest of its deadline less the gateway's share;
        cancelled when its client leaves (499); a 429 held a while first (``gateway_pacing``), so that a client
        ignoring Retry-After cannot spin."""
        left = gateway_pacing.servers_share(request.started + timeout - time.perf_counter())
        try:
            answer, worker = await self._backends.unary(route, message, left, metadata, request.gone())
        except ClientGone:  # nobody reads this answer; the access log and the metrics do
            return status_answer(status_pb2.Status(code=code_pb2.CANCELLED, message=ClientGone.MESSAGE))
        except grpc.aio.AioRpcError as error:
            refused = _error_answer(error)
            if refused.status == 429:
                answer_by = request.started + min(timeout, gateway_pacing.ANSWER_REFUSALS_BY_S)
                await self._pacing.hold(answer_by, metrics.observe_held_refusal)
            return refused
        return _answer(route, answer, worker, request)

    async def _stream(
        self, request: Request, route: Route, message: Message, timeout: float, metadata: Metadata
    ) -> Answer:
        """A server stream (AnalyzePosition, ReviewGame) as newline-delimited JSON (grpc-gateway's framing: one
        ``{"result": ...}`` a line, ``{"error": Status}`` if the call fails after it started), or as Server-Sent
        Events to a client that accepts them; a call that fails before its first message answers its error
        status instead. The call is cancelled when the client leaves, which stops the search behind it."""
        gone = request.gone()
        call = self._backends.stream(route, message, timeout, metadata)
        try:
            first = await unless_gone(call.read(), gone, call)
        except ClientGone:
            return status_answer(status_pb2.Status(code=code_pb2.CANCELLED, message=ClientGone.MESSAGE))
        except grpc.aio.AioRpcError as error:
            return _error_answer(error)
        content_type = stream_type(request.headers.get("accept", ""))

        async def chunks() -> AsyncIterator[bytes]:
            item = first
            try:
                while item is not grpc.aio.EOF:
                    assert isinstance(item, Message)
                    yield result_frame(item, content_type)
                    item = await unless_gone(call.read(), gone, call)
            except ClientGone:
                return
            except grpc.aio.AioRpcError as error:
                yield error_frame(status_of(error), content_type)
            finally:
                call.cancel()

        return stream_answer(content_type, chunks())

    # --- the fixed routes ----------------------------------------------------------------------------------

    async def _playground_page(self, request: Request) -> Answer:
        return static_file("index.html", request)

    async def _healthz(self, request: Request) -> Answer:
        return json_answer(200, '{"status":"ok"}')

    async def _readyz(self, request: Request) -> Answer:
        try:
            serving = await self._backends.serving()
        except grpc.aio.AioRpcError as error:
            return json_answer(503, json.dumps({"status": "unavailable", "backend": str(error.code())}))
        return json_answer(200 if serving else 503, json.dumps({"status": "ready" if serving else "not serving"}))

    async def _metrics(self, request: Request) -> Answer:
        # On the public port: with a token, to whom shows it; without, to loopback only (a sidecar, the host).
        access = self._access
        if not access.allows(request.headers.get("authorization")) or (
            not access.token and not _loopback(request.client)
        ):
            closed = error_status(code_pb2.UNAUTHENTICATED, _METRICS_CLOSED, "METRICS_TOKEN")
            return status_answer(closed, {"WWW-Authenticate": "Bearer"})
        body, content_type = metrics.exposition(request.headers.get("accept", ""))
        return Answer(200, [("Content-Type", content_type)], body)

    async def _openapi(self, request: Request) -> Answer:
        return serve_openapi(bool(self._config.api_keys), request.headers.get("accept-encoding", ""))


def _fill(message: Message, request: Request, route: Route, bound: set[str]) -> status_pb2.Status | None:
    """Fill the call's request from the query (a rule without a body) or the JSON body; the refusal if it
    cannot be."""
    if route.body:
        return body_refusal(request.body, route, message)
    query = request.query.decode("utf-8", "replace")
    try:
        apply_query(message, urllib.parse.parse_qsl(query, keep_blank_values=True), bound)
    except QueryError as error:
        return error_status(code_pb2.INVALID_ARGUMENT, str(error), "INVALID_ARGUMENT", error.field)
    return None


def _answer(route: Route, answer: Message, worker: str, request: Request) -> Answer:
    """A call's answer: bytes for an ``HttpBody``, JSON with an ETag for a GET, else JSON; naming the gRPC
    worker that answered (``Gamerules-Worker: host/pid``)."""
    held = request.headers.get("if-none-match", "")
    if route.method.output_type.full_name == HTTP_BODY:
        written = body_answer(answer, held)
    elif route.verb == "GET":  # ListGames, GetGame: the same answer until a release, revalidated by its ETag
        written = tagged_json_answer(answer_json(answer), held)
    else:
        written = json_answer(200, answer_json(answer))
    if worker:
        written.headers.append(("Gamerules-Worker", worker))
    return written


def _error_answer(error: grpc.aio.AioRpcError) -> Answer:
    """A failed call's Status, with its ``Retry-After`` and the worker that refused it, if any."""
    status, headers = rpc_error_answer(error)
    worker = worker_of(error.initial_metadata())  # None when the call never reached a worker
    return status_answer(status, {**headers, **({"Gamerules-Worker": worker} if worker else {})})


def not_found(request: Request) -> Answer:
    return status_answer(error_status(code_pb2.NOT_FOUND, f"no such resource: {request.path[:200]}", "NOT_FOUND"))


def method_not_allowed(request: Request, allowed: list[str]) -> Answer:
    """A path that exists, with another verb: 405 and UNIMPLEMENTED in the body, as grpc-gateway v2 answers."""
    message = f"{request.method[:16]} is not allowed on {request.path[:200]}"
    answer = status_answer(error_status(code_pb2.UNIMPLEMENTED, message, "METHOD_NOT_ALLOWED"))
    answer.status = 405
    answer.headers.append(("Allow", ", ".join(sorted(set(allowed)))))
    return answer


def static_file(name: str, request: Request) -> Answer:
    """One of the playground's files (``PLAYGROUND``), with its type and an ETag (304 when the client holds
    it); 404 for a name that is no file there."""
    found = _playground().get(name)
    if found is None:
        return not_found(request)
    data, etag, kind = found
    headers = [("ETag", etag), ("Cache-Control", "no-cache")]
    if etag_held(etag, request.headers.get("if-none-match", "")):
        return Answer(304, headers)
    return Answer(200, [("Content-Type", kind), *headers], data)


@functools.cache
def _playground() -> dict[str, tuple[bytes, str, str]]:
    """The playground's files by name, read once: (bytes, ETag, content type)."""
    files = {}
    for entry in os.scandir(PLAYGROUND):
        if entry.is_file(follow_symlinks=False):
            with open(entry.path, "rb") as file:
                data = file.read()
            kind = mimetypes.guess_type(entry.name)[0] or "application/octet-stream"
            files[entry.name] = (data, etag_of(data), f"{kind}; charset=utf-8" if kind.startswith("text/") else kind)
    return files


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.partition("%")[0]).is_loopback
    except ValueError:
        return False
