"""The REST gateway: HTTP+JSON in front of the gRPC server, built from the protos' HTTP annotations.

No route is written by hand: every ``google.api.http`` rule of the GameRules service becomes a route, the
JSON is the standard proto3 mapping (what grpc-gateway or Envoy would produce from the same protos), the
caller's deadline travels on as the gRPC deadline (``Grpc-Timeout`` header, as grpc-gateway reads it), and
errors come back as the ``google.rpc.Status`` JSON with grpc-gateway v2's status codes.

Run it with ``python -m service.api.rest.gateway_server`` (granian, N worker processes whose metrics meet in one
multi-process directory; ``service/run.py`` starts it for ``make run``); any WSGI server can serve
``create_app()``. Its configuration is one value, ``GatewayConfig`` (``service/api/rest/gateway_config.py``,
which reads every variable once; ``docs/operations.md`` lists them).

Every answer is counted and timed in ``http_requests_total`` / ``http_request_duration_seconds`` with the
proto's path template as the ``route`` (bounded), logged as one JSON line, and ``/metrics`` exposes them.

As grpc-gateway does: a GET rule reads the request's other fields from query parameters (``position.notation``,
``showLegalMoves`` or ``show_legal_moves``; a repeated field repeats its parameter); an RPC answering
``google.api.HttpBody`` (RenderPosition) answers its bytes with their content type (here with an ``ETag`` and
cache headers, and 304 to a matching ``If-None-Match``); a server-streaming RPC (AnalyzePosition) answers
newline-delimited JSON, one ``{"result": message}`` per line and ``{"error": status}`` if the call fails once
it has started, or Server-Sent Events (``event: result`` / ``event: error``, the same JSON as data) to a client
that accepts ``text/event-stream`` (``service/api/rest/mapping.py``). A client that disconnects cancels the call
of a best move or a stream, which stops its search: the server tells the app that the client left
(``CLIENT_WATCH``), and a stream also finds out by writing to it. ``/`` is the playground
(``service/api/rest/playground/``, static files that use only this API).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import ipaddress
import itertools
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
from flask import Flask, Response, g, request, send_from_directory
from google.api import annotations_pb2
from google.protobuf import descriptor, descriptor_pool, json_format, message_factory
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gamerules.v1 import gamerules_pb2 as pb
from service.api import auth, logs, metrics, protojson
from service.api.callers import CALLER_HEADER, CALLER_METADATA, named_by
from service.api.calls import WORKER_METADATA
from service.api.errors import HTTP_STATUS, closest, error_status, overloaded, status_json
from service.api.rest import answer_headers, gateway_pacing
from service.api.rest.cors import install_cors
from service.api.rest.gateway_config import CLIENT_WATCH, GatewayConfig
from service.api.rest.mapping import (
    HTTP_BODY,
    QueryError,
    apply_query,
    body_response,
    status_of,
    stream_response,
    tagged_json_response,
)
from service.api.rest.openapi import serve_openapi

_log = logging.getLogger(__name__)

SERVICE = pb.DESCRIPTOR.services_by_name["GameRules"]
RETRY_PAUSE_S = 0.1
DISCARD_LIMIT_FACTOR = 8  # a refused body up to this many times the limit is read to its end before the 400
MAX_TIMEOUT_S = 300.0
# A Grpc-Timeout shorter than this (``1n``, ``500u``) is a deadline already passed when the call would start: gRPC's
# channel counts deadlines in whole milliseconds, and would have sent the call with none.
MIN_TIMEOUT_S = 1e-3
_TIMEOUT_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
PLAYGROUND = os.path.join(os.path.dirname(os.path.abspath(__file__)), "playground")
# The server may tell the app when a request's client has gone: ``environ[CLIENT_WATCH]()``, called when a
# call starts, gives a function that says True once the client has left (``service/api/rest/gateway_asgi.py``'s
# front provides it from the server's disconnect). A best move then waits for its answer ``HANGUP_POLL_S`` at a
# time, asking it in between, and cancels its call when the client left: the server stops the search. Without
# it (another WSGI server), it waits.
HANGUP_POLL_S = 0.05


SEARCH_LIMITS = "SearchLimits"  # the contract's message of a search's limits


@dataclass(frozen=True)
class Route:
    """One HTTP rule: a verb, a compiled path template, and the RPC it calls."""

    verb: str
    template: str  # the proto's path template: also the bounded ``route`` label of the HTTP metrics
    pattern: re.Pattern[str]
    body: str
    method: descriptor.MethodDescriptor
    call: Any  # grpc.UnaryUnaryMultiCallable, or UnaryStreamMultiCallable for a server-streaming method

    @property
    def request_class(self) -> type[Message]:
        found: type[Message] = message_factory.GetMessageClass(self.method.input_type)
        return found

    @property
    def searches(self) -> bool:
        """Whether the call runs a search, read from the contract: its request takes search limits (BestMove,
        AnalyzePosition, ReviewGame). A unary one waits its turn for a search slot and watches its client."""
        return any(
            field.message_type is not None and field.message_type.name == SEARCH_LIMITS
            for field in self.method.input_type.fields
        )


def compile_template(template: str) -> re.Pattern[str]:
    """``/v1/{game=games/*}:newGame`` -> a regex with a named group per variable (google.api.http syntax:
    ``*`` is one path segment, ``**`` any number)."""

    pieces, done = [], 0
    for match in re.finditer(r"\{([^}]+)\}", template):
        name, _, pattern = match.group(1).partition("=")
        segments = (pattern or "*").split("/")
        regex = "/".join(".+" if s == "**" else "[^/:]+" if s == "*" else re.escape(s) for s in segments)
        pieces += [re.escape(template[done : match.start()]), f"(?P<{name.replace('.', '__')}>{regex})"]
        done = match.end()
    pieces.append(re.escape(template[done:]))
    regex = "".join(pieces)
    return re.compile(f"^{regex}$")


def build_routes(channel: grpc.Channel | None) -> list[Route]:
    """The routes of the HTTP rules, each calling its RPC on ``channel`` (None: routes without a call)."""
    routes = []
    for method in SERVICE.methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        verb = rule.WhichOneof("pattern")
        if verb is None:
            continue
        template = getattr(rule, verb)
        routes.append(Route(verb.upper(), template, compile_template(template), rule.body, method, None))
        if channel is None:
            continue
        # Server-streaming methods (AnalyzePosition) are called as streams; every other one is unary.
        make_call = channel.unary_stream if method.server_streaming else channel.unary_unary
        call = make_call(
            f"/{SERVICE.full_name}/{method.name}",
            request_serializer=lambda message: message.SerializeToString(),
            response_deserializer=message_factory.GetMessageClass(method.output_type).FromString,
            # As the generated stubs do: the method is registered with the channel once, not per call.
            _registered_method=True,
        )
        routes[-1] = dataclasses.replace(routes[-1], call=call)
    return routes


# --- errors as grpc-gateway writes them ------------------------------------------------------------


def status_response(status: status_pb2.Status, headers: dict[str, str] | None = None) -> Response:
    response = Response(status_json(status), status=HTTP_STATUS.get(status.code, 500), mimetype="application/json")
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def error_response(code: int, message: str, reason: str = "", field: str = "") -> Response:
    return status_response(error_status(code, message, reason, field))


def method_not_allowed(path: str, allowed: list[str]) -> Response:
    """A path that exists, with another verb: 405 and UNIMPLEMENTED in the body, as grpc-gateway v2 answers."""
    response = error_response(
        code_pb2.UNIMPLEMENTED, f"{request.method[:16]} is not allowed on {path[:200]}", "METHOD_NOT_ALLOWED"
    )
    response.status_code = 405
    response.headers["Allow"] = ", ".join(sorted(set(allowed)))
    return response


def _rpc_error_response(error: grpc.RpcError) -> Response:
    return status_response(*rpc_error_answer(error))


def rpc_error_answer(error: grpc.RpcError) -> tuple[status_pb2.Status, dict[str, str]]:
    """A failed call's Status and the headers its answer carries (``Retry-After`` from the server's hint)."""
    status = status_of(error)
    headers = {}
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            if "retry_after_seconds" in info.metadata:
                headers["Retry-After"] = info.metadata["retry_after_seconds"]
    if status.code == code_pb2.RESOURCE_EXHAUSTED and "Retry-After" not in headers:
        headers["Retry-After"] = "1"
    return status, headers


def parse_error_field(message: str) -> str:
    """The field a protobuf JSON ParseError is about, in snake_case dotted form (best effort). An ``optional``
    field's error says only where it was (``Couldn't parse integer: 1.5 at BestMoveRequest.rating``): that place,
    less the message's name, where it goes further than the ``Failed to parse`` chain."""
    path = [protojson.snake_case(name) for name in re.findall(r"Failed to parse (\w+) field", message)]
    unknown = re.search(r'has no field named "([^"]+)"', message)
    if unknown:
        path.append(protojson.snake_case(unknown.group(1)))
        return ".".join(path)
    at = re.search(r" at \w+((?:\.\w+)+)", message)
    if at:
        where = [protojson.snake_case(name) for name in at.group(1).split(".")[1:]]
        if len(where) > len(path) and where[: len(path)] == path:
            path = where
    return ".".join(path)


# Messages whose contents may be JSON null (a Struct's entries, a list's items): never walked into.
_NULL_ALLOWED = frozenset({"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"})
_FD = descriptor.FieldDescriptor
# 64-bit integers are strings in proto3 JSON; 32-bit ones are numbers.
_INTEGERS_32 = frozenset({_FD.TYPE_INT32, _FD.TYPE_SINT32, _FD.TYPE_SFIXED32, _FD.TYPE_UINT32, _FD.TYPE_FIXED32})


@functools.cache
def _fields_by_key(message: descriptor.Descriptor) -> dict[str, descriptor.FieldDescriptor]:
    """A message's fields by the keys a JSON body may name them with: proto name and JSON name."""
    return {**{f.name: f for f in message.fields}, **{f.json_name: f for f in message.fields}}


def strict_json_error(body: dict[str, Any], message: descriptor.Descriptor) -> tuple[str, str] | None:
    """(field path, what is wrong) for the first value of a request body that the OpenAPI document calls
    invalid but proto3 JSON would read anyway: ``null`` (read as "unset") and a 32-bit integer written as a
    string (``"5"``). The API accepts exactly what its document describes (docs/api.md). Walked without
    recursion: the body may be deep; keys that are no field are left to the parser, which refuses them."""
    stack: list[tuple[str, Any, descriptor.Descriptor]] = [("", body, message)]
    while stack:
        path, value, kind = stack.pop()
        if not isinstance(value, dict):
            continue
        fields = _fields_by_key(kind)
        for key, item in value.items():
            field = fields.get(key)
            if field is None:
                continue
            where = f"{path}.{field.name}" if path else field.name
            inner = field.message_type if field.type == _FD.TYPE_MESSAGE else None
            if inner is not None and inner.full_name == "google.protobuf.Value":
                continue  # null is a Value
            items = list(enumerate(item)) if field.is_repeated and isinstance(item, list) else [(None, item)]
            for index, element in items:
                at = where if index is None else f"{where}[{index}]"
                if element is None:
                    return at, "null is not a value here; leave the field out for its default"
                if field.type in _INTEGERS_32 and isinstance(element, str):
                    return at, "a number is written without quotes"
                if inner is not None and inner.full_name not in _NULL_ALLOWED:
                    shape = _shape_error(inner, index is None and field.is_repeated, element)
                    if shape is not None:
                        return at, shape
                    stack.append((at, element, inner))
    return None


def _shape_error(inner: descriptor.Descriptor, whole_list: bool, value: Any) -> str | None:
    """What to send instead of ``value`` for a field of our messages that is no JSON object (or, for a
    repeated field, no list): ``"move": "d3"`` is answered with the object it means, ``{"notation": "d3"}``."""
    if not inner.full_name.startswith(_OUR_MESSAGES) or isinstance(value, list if whole_list else dict):
        return None
    noted = "notation" in inner.fields_by_name
    shown = value if isinstance(value, str) and len(value) <= 120 else "..."  # a whole notation, or none
    example = json.dumps({"notation": shown} if noted else {})
    sent = _JSON_KINDS.get(type(value), "a value")
    if whole_list:
        return f"must be a list of {inner.name} objects such as [{example}], not {sent}"
    return f"must be a {inner.name} object, not {sent}" + (f"; send {example}" if noted else "")


_OUR_MESSAGES = "gamerules.v1."
_JSON_KINDS = {
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "an object",
}


class _NonFinite:
    """What ``json.loads`` reads ``NaN``, ``Infinity`` and ``-Infinity`` as (Python's JSON accepts them, JSON
    does not): found by ``non_finite_path``, which names the field."""

    def __init__(self, text: str) -> None:
        self.text = text


def non_finite_path(body: Any) -> str | None:
    """The JSON path (``options.size``, ``moves[2]``) of the first NaN or Infinity in ``body``, None if none.
    Walked without recursion, keys as the caller wrote them."""
    stack: list[tuple[str, Any]] = [("", body)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _NonFinite):
            return path
        if isinstance(value, dict):
            stack.extend((f"{path}.{key[:64]}" if path else key[:64], item) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((f"{path}[{index}]", item) for index, item in enumerate(value))
    return None


def grpc_timeout(header: str, default_s: float) -> float | status_pb2.Status:
    """The call's timeout as the ``Grpc-Timeout`` header says (gRPC's units), or the Status refusing it."""
    if not header:
        return default_s
    match = re.fullmatch(r"(\d{1,8})([HMSmun])", header)
    if not match:
        return error_status(
            code_pb2.INVALID_ARGUMENT,
            "Grpc-Timeout: expected 1 to 8 digits and a unit (H, M, S, m, u or n), e.g. 500m or 2S",
            "INVALID_TIMEOUT",
        )
    seconds = int(match.group(1)) * _TIMEOUT_UNITS[match.group(2)]
    if seconds < MIN_TIMEOUT_S:
        # A deadline this close has passed by the time the call could start: gRPC's own answer to it.
        return error_status(
            code_pb2.DEADLINE_EXCEEDED,
            f"Grpc-Timeout: {header} passed before the call could start",
            "DEADLINE_EXCEEDED",
        )
    return min(seconds, MAX_TIMEOUT_S)


def _timeout(default_s: float) -> float | Response:
    timeout = grpc_timeout(request.headers.get("Grpc-Timeout", ""), default_s)
    return status_response(timeout) if isinstance(timeout, status_pb2.Status) else timeout


def channel_arguments(config: GatewayConfig, index: int = 0) -> tuple[list[tuple[str, Any]], Any]:
    """A channel's options and credentials (None: plaintext) to the gRPC server: TLS when the config names a
    CA to trust, with a client certificate (mutual TLS) when it names one. ``index`` tells the channels apart:
    channels with the same arguments would share one connection."""
    options: list[tuple[str, Any]] = [
        ("grpc.max_receive_message_length", 16 << 20),
        ("grpc.use_local_subchannel_pool", 1),
        ("gamerules.connection", index),
    ]
    if config.tls is None:
        return options, None

    def read(path: str) -> bytes | None:
        if not path:
            return None
        with open(path, "rb") as file:
            return file.read()

    tls = config.tls
    return options, grpc.ssl_channel_credentials(read(tls.ca), read(tls.key), read(tls.cert))


def _backend_channel(config: GatewayConfig, index: int = 0) -> grpc.Channel:
    options, credentials = channel_arguments(config, index)
    if credentials is None:
        return grpc.insecure_channel(config.grpc_target, options=options)
    return grpc.secure_channel(config.grpc_target, credentials, options=options)


def _instrument(app: Flask) -> None:
    """Count, time and log every answer. Registered first, so its clock starts before any other hook runs
    and its after-hook (run last) sees the final status."""

    @app.before_request
    def start_clock() -> None:
        g.started = time.perf_counter()
        # Settled by the front already; under another WSGI server, here.
        g.request_id = answer_headers.request_id(request.headers.get(answer_headers.REQUEST_ID_HEADER))

    @app.after_request
    def observe(response: Response) -> Response:
        seconds = time.perf_counter() - g.get("started", time.perf_counter())
        # The proto template the call matched; else a fixed path (/healthz...); never a path with variables.
        rule = request.url_rule.rule if request.url_rule is not None else ""
        if request.endpoint == "static":
            rule = "/playground/"  # the playground's files, one label for all
        route = g.get("route") or (rule if rule and "<" not in rule else "other")
        metrics.observe_http(request.method, route, response.status_code, seconds)
        logs.log_http(
            request.method,
            route,
            response.status_code,
            seconds,
            g.get("game", ""),
            g.get("request_id", ""),
        )
        for name, value in answer_headers.stamps(g.get("request_id") or answer_headers.request_id(None)):
            response.headers[name] = value
        return response


# --- the app ---------------------------------------------------------------------------------------


_METRICS_CLOSED = (
    "the metrics need Authorization: Bearer with GAMERULES_METRICS_TOKEN (set one to scrape from elsewhere "
    "than this host)"
)


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.partition("%")[0]).is_loopback
    except ValueError:
        return False


def _add_fixed_routes(app: Flask, health_stub: health_pb2_grpc.HealthStub) -> None:
    """The routes that are not the API's: the playground, liveness, readiness and metrics."""

    @app.get("/")
    def playground() -> Response:
        return send_from_directory(PLAYGROUND, "index.html")

    @app.get("/healthz")
    def healthz() -> Response:
        return Response('{"status":"ok"}', mimetype="application/json")

    access = metrics.metrics_access()

    @app.get("/metrics")
    def metrics_endpoint() -> Response:
        # On the public port: with a token, to whom shows it; without, to loopback only (a sidecar, the host).
        if not access.allows(request.headers.get("Authorization")) or (
            not access.token and not _loopback(request.remote_addr or "")
        ):
            answer = error_response(code_pb2.UNAUTHENTICATED, _METRICS_CLOSED, "METRICS_TOKEN")
            answer.headers["WWW-Authenticate"] = "Bearer"
            return answer
        body, content_type = metrics.exposition(request.headers.get("Accept", ""))
        return Response(body, content_type=content_type)

    @app.get("/readyz")
    def readyz() -> Response:
        try:
            answer = health_stub.Check(health_pb2.HealthCheckRequest(service=SERVICE.full_name), timeout=2)
        except grpc.RpcError as error:
            return Response(
                json.dumps({"status": "unavailable", "backend": str(error.code())}), 503, mimetype="application/json"
            )
        serving = answer.status == health_pb2.HealthCheckResponse.SERVING
        body = json.dumps({"status": "ready" if serving else "not serving"})
        return Response(body, 200 if serving else 503, mimetype="application/json")


def body_refusal(raw: bytes, route: Route, message: Any) -> status_pb2.Status | None:
    """Fill ``message`` from the JSON body ``raw`` (proto3 JSON, strictly); the error Status if it is not."""
    if not raw.strip(b" \t\n\r"):  # JSON's whitespace only: a form feed is no empty body
        return None
    try:
        body = json.loads(raw, parse_constant=_NonFinite)
    except (ValueError, UnicodeDecodeError) as error:
        return error_status(code_pb2.INVALID_ARGUMENT, f"body: not valid JSON ({error})", "INVALID_JSON", "body")
    except RecursionError:
        return error_status(code_pb2.INVALID_ARGUMENT, "body: JSON nested too deeply", "INVALID_JSON", "body")
    if not isinstance(body, dict):
        return error_status(code_pb2.INVALID_ARGUMENT, "body: must be a JSON object", "INVALID_JSON", "body")
    where = non_finite_path(body)
    if where is not None:
        field = where or "body"
        return error_status(
            code_pb2.INVALID_ARGUMENT,
            f"{field}: NaN and Infinity are no JSON numbers; send a finite number",
            "INVALID_JSON",
            field,
        )
    strict = strict_json_error(body, route.method.input_type)
    if strict is not None:
        field, text = strict
        return error_status(code_pb2.INVALID_ARGUMENT, f"{field}: {text}", "INVALID_JSON", field)
    try:
        json_format.ParseDict(body, message)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as error:
        field = parse_error_field(str(error)) or "body"
        text = str(error).splitlines()[0][:300] + _field_hint(str(error))
        return error_status(code_pb2.INVALID_ARGUMENT, f"{field}: {text}", "INVALID_JSON", field)
    return None


_UNKNOWN_FIELD = re.compile(r'Message type "([\w.]+)" has no field named "([^"]{1,100})"')


def _field_hint(error: str) -> str:
    """For a ParseError about an unknown field, the message's field it most likely meant (``topn``:
    ``; did you mean "topN"?``), else ""."""
    unknown = _UNKNOWN_FIELD.search(error)
    if unknown is None:
        return ""
    try:
        message = descriptor_pool.Default().FindMessageTypeByName(unknown.group(1))
    except KeyError:
        return ""
    json_names = {**{f.name: f.json_name for f in message.fields}, **{f.json_name: f.json_name for f in message.fields}}
    meant = closest(unknown.group(2), json_names)
    return f'; did you mean "{json_names[meant]}"?' if meant else ""


def _parse_body(raw: bytes, route: Route, message: Any) -> Response | None:
    refusal = body_refusal(raw, route, message)
    return None if refusal is None else status_response(refusal)


def create_app(
    config: GatewayConfig | None = None, backend: str | None = None, timeout_s: float | None = None
) -> Flask:
    """The gateway app as ``config`` has it (None: ``GatewayConfig.from_env()``); ``backend`` and ``timeout_s``
    replace its gRPC target and default deadline."""
    # The API's routes are closures over this app's configuration (backends, limits, keys): one factory.
    config = config or GatewayConfig.from_env()
    if backend or timeout_s:
        config = dataclasses.replace(
            config, grpc_target=backend or config.grpc_target, timeout_s=timeout_s or config.timeout_s
        )
    default_timeout, max_body, api_keys = config.timeout_s, config.max_body_bytes, config.api_keys
    channels = [_backend_channel(config, index) for index in range(config.connections)]
    backends = Backends(channels)
    searches = _search_share(config.threads)
    # Under another WSGI server, whose threads the app does not know, best moves wait only when asked to.
    pacing = gateway_pacing.Pacing(config.paced_best_moves, config.refusal_hold_s, config.max_queue_wait_s)
    metrics.record_process_metrics()  # this worker's process_* series (multi-process mode only)
    routes = backends.routes[0]

    # The playground's files are the app's static files, under /playground/.
    app = Flask(__name__, static_folder=PLAYGROUND, static_url_path="/playground")
    app.config["MAX_CONTENT_LENGTH"] = max_body
    _instrument(app)
    install_cors(app, config.cors_origins)  # none: no CORS headers (preflights first)
    app.add_url_rule("/openapi.json", "openapi", lambda: serve_openapi(bool(api_keys)))

    _add_fixed_routes(app, health_pb2_grpc.HealthStub(channels[0]))

    @app.before_request
    def options_not_allowed() -> Response | None:
        """OPTIONS that is no CORS preflight (``service/api/rest/cors.py`` answers those first): 405 with the
        methods the path really has, as for any other verb it does not have."""
        if request.method != "OPTIONS":
            return None
        if request.path.startswith("/v1/"):
            allowed = [route.verb for route in routes if route.pattern.match(request.path)]
        else:
            known = app.url_map.bind("").allowed_methods(request.path)
            allowed = [verb for verb in known if verb not in ("HEAD", "OPTIONS")]
        if not allowed:
            return not_found(None)
        return method_not_allowed(request.path, allowed)

    # OPTIONS never gets here (``options_not_allowed``), nor Flask's automatic answer, whose Allow would list
    # every verb of this catch-all rule.
    @app.route("/v1/<path:subpath>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"], provide_automatic_options=False)
    def dispatch(subpath: str) -> Response:
        if api_keys and not api_keys.accepts(auth.presented_key(lambda name: request.headers.get(name))):
            response = status_response(auth.unauthenticated().to_status())
            response.headers["WWW-Authenticate"] = "Bearer"
            return response
        path = "/v1/" + subpath
        matched = [(route, m) for route in routes if (m := route.pattern.match(path))]
        if not matched:
            return error_response(code_pb2.NOT_FOUND, f"no such resource or method: {path[:200]}", "NOT_FOUND")
        # HEAD is a GET without the body (RFC 9110): the same call, the same headers; werkzeug drops the body.
        verb = "GET" if request.method == "HEAD" else request.method
        for route, match in matched:
            if route.verb == verb:
                g.route = route.template
                g.game = (match.groupdict().get("game") or match.groupdict().get("name") or "").removeprefix("games/")
                return _forward(route, match.groupdict())
        return method_not_allowed(path, [route.verb for route, _ in matched])

    def _forward(route: Route, path_params: dict[str, str]) -> Response:
        message = route.request_class()
        if not route.body:
            try:
                apply_query(message, list(request.args.items(multi=True)), set(path_params))
            except QueryError as error:
                return error_response(code_pb2.INVALID_ARGUMENT, str(error), "INVALID_ARGUMENT", error.field)
        else:
            raw = _read_body(max_body)
            if raw is None:
                return too_large(None)
            refused = _parse_body(raw, route, message)
            if refused is not None:
                return refused
        for name, value in path_params.items():
            setattr(message, name.replace("__", "."), value)
        timeout = _timeout(default_timeout)
        if isinstance(timeout, Response):
            return timeout
        metadata = [(key.lower(), value) for key, value in request.headers.items() if key.lower() in FORWARDED_HEADERS]
        metadata = [(key, value) for key, value in metadata if key != "x-request-id"] + [("x-request-id", g.request_id)]
        # The caller, for the server's fair share of searches (``callers.py``): the HTTP client, not the gateway,
        # or the player a trusted client names.
        named = request.headers.get(CALLER_HEADER)
        metadata.append((CALLER_METADATA, named_by(request.remote_addr or "", named, config.trusted_clients)))
        if route.method.server_streaming:
            gone = _client_watch()
            return stream_response(route.call(message, timeout=timeout, metadata=metadata), _rpc_error_response, gone)
        if route.searches:
            response = _search(route, message, timeout, metadata)
            if response.status_code == 429:  # held a while first, so that a client ignoring Retry-After cannot spin
                answer_by = g.started + min(timeout, gateway_pacing.ANSWER_REFUSALS_BY_S)
                pacing.hold(answer_by, metrics.observe_held_refusal)
            return response
        try:
            answer, call = backends.call(route, message, timeout, metadata)
        except grpc.RpcError as error:
            return _with_worker(_rpc_error_response(error), error)
        return _answer(route, answer, call)

    def _search(route: Route, message: Message, timeout: float, metadata: list[tuple[str, str]]) -> Response:
        """A BestMove: sent on to the server's fair queue with a place in the worker's share of threads for
        searches, or one of the threads set aside for them (``gateway_pacing``), else 429; cancelled when its
        client leaves (499)."""
        gone = _client_watch()
        release = None if searches is None else pacing.admit(searches, g.started + timeout)
        if searches is not None and release is None:
            return status_response(overloaded(_GATEWAY_BUSY).to_status(), {"Retry-After": "1"})
        # The call's deadline has not moved while it waited: the server gets the time that is left, less the
        # gateway's own share.
        left = gateway_pacing.servers_share(g.started + timeout - time.perf_counter())
        try:
            answer, call = backends.call(route, message, left, metadata, gone)
        except ClientGone:  # nobody reads this answer; the access log and the metrics do
            return status_response(status_pb2.Status(code=code_pb2.CANCELLED, message=ClientGone.MESSAGE))
        except grpc.RpcError as error:
            return _with_worker(_rpc_error_response(error), error)
        finally:
            if release is not None:
                release()
        return _answer(route, answer, call)

    @app.errorhandler(413)
    def too_large(_: Any) -> Response:
        # Also for a chunked body over the limit (``_read_body``): whatever its framing, never cut. A body
        # of a declared length not far over the limit is read to its end first, so that the client, still
        # sending it, reads this answer rather than a broken connection.
        _discard_body(request.content_length or 0, DISCARD_LIMIT_FACTOR * max_body)
        return error_response(
            code_pb2.INVALID_ARGUMENT, f"body: larger than {max_body} bytes", "REQUEST_TOO_LARGE", "body"
        )

    @app.errorhandler(404)
    def not_found(_: Any) -> Response:
        return error_response(code_pb2.NOT_FOUND, f"no such resource: {request.path[:200]}", "NOT_FOUND")

    @app.errorhandler(500)
    def internal(error: Any) -> Response:
        cause = getattr(error, "original_exception", None) or error
        _log.error("unexpected failure on %s %s", request.method, request.path[:200], exc_info=cause)
        return error_response(code_pb2.INTERNAL, "internal error; it has been logged", "INTERNAL")

    @app.errorhandler(405)
    def not_allowed(error: Any) -> Response:
        return method_not_allowed(request.path, getattr(error, "valid_methods", None) or [])

    return app


_GATEWAY_BUSY = "too many best-move calls in progress and waiting at this gateway; retry shortly"


def _answer(route: Route, answer: Message, call: grpc.Call) -> Response:
    if route.method.output_type.full_name == HTTP_BODY:
        return _with_worker(body_response(answer), call)
    if route.verb == "GET":  # ListGames, GetGame: the same answer until a release, revalidated by its ETag
        return _with_worker(tagged_json_response(answer_json(answer)), call)
    return _with_worker(Response(answer_json(answer), mimetype="application/json"), call)


def answer_json(answer: Message) -> str:
    """An RPC's answer as the gateway writes it: proto3 JSON, compact."""
    return json.dumps(protojson.to_dict(answer), separators=(",", ":"))


def _search_share(threads: int) -> threading.BoundedSemaphore | None:
    """How many of a worker's ``threads`` may wait on BestMove at once (None: no bound, the threads unknown).
    A best move waits in the server's queue up to its deadline and holds its thread meanwhile; a flood of
    them must not take the threads the rules calls need, so a quarter (at least two) stay theirs."""
    if threads <= 0:
        return None
    return threading.BoundedSemaphore(max(1, threads - max(2, threads // 4)))


def _client_watch() -> Callable[[], bool] | None:
    """The request's "has the client gone?" (``CLIENT_WATCH``), None when the server tells nothing of it."""
    watch = request.environ.get(CLIENT_WATCH)
    return watch() if callable(watch) else None


class ClientGone(Exception):
    """The HTTP client left while its call ran: the call was cancelled."""

    MESSAGE = "the client closed the connection before the answer"


def _discard_body(length: int, limit: int) -> None:
    stream = request.environ.get("wsgi.input")
    if stream is None or not 0 < length <= limit:
        return
    with contextlib.suppress(Exception):  # a client that went away: nothing to protect
        while length > 0 and (chunk := stream.read(min(length, 1 << 16))):
            length -= len(chunk)


def _read_body(limit: int) -> bytes | None:
    """The request body, None when it is longer than ``limit`` bytes. A chunked body has no Content-Length
    for Flask's limit to check, and its stream ends quietly at the limit: one byte more tells."""
    if request.content_length is not None:
        return request.get_data(cache=False)  # Flask refused a longer declared length already (413)
    stream = request.environ.get("wsgi.input")
    if stream is None:
        return b""
    raw = stream.read(limit + 1)
    return None if len(raw) > limit else raw


class Backends:
    """The gateway's connections to the gRPC server and how calls are spread over them.

    The server's workers share one port (``SO_REUSEPORT``), and the kernel hands each new connection to one
    of them; calls on one connection all go to the same worker. So the gateway opens
    ``GatewayConfig.connections`` (``GAMERULES_GRPC_TARGET_CONNECTIONS``) connections and takes them in turn: the
    calls spread over every worker that got a connection (with 8 connections and 2 workers, all 8 land on one
    worker once in 128 starts), and, behind a Kubernetes Service, over the pods as well. A call that fails
    UNAVAILABLE (the worker died, the connection broke: nothing of it ran) is sent again once, on the next
    connection; every RPC is a pure function of its request, so a retry cannot do anything twice.

    Given ``client_gone`` (``CLIENT_WATCH``), a call waits for its answer ``HANGUP_POLL_S`` at a time and is
    cancelled, raising ``ClientGone``, once that says the client left."""

    def __init__(self, channels: list[grpc.Channel]) -> None:
        self.routes = [build_routes(channel) for channel in channels]
        # Each route's place in every channel's list (the lists are built alike), found once, not per call.
        self._index = {(route.verb, route.template): index for index, route in enumerate(self.routes[0])}
        self._turn = itertools.count()

    def call(
        self,
        route: Route,
        message: Message,
        timeout: float,
        metadata: list[tuple[str, str]],
        client_gone: Callable[[], bool] | None = None,
    ) -> tuple[Message, grpc.Call]:
        index = self._index[route.verb, route.template]
        deadline = time.monotonic() + timeout
        first = next(self._turn) % len(self.routes)
        try:
            return _send(self.routes[first][index], message, timeout, metadata, client_gone)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            # A worker that died breaks all its connections at once, but each learns of it on its own: after a
            # moment's pause the next connection knows, and reconnects (to a live worker) if it was one of them.
            time.sleep(min(RETRY_PAUSE_S, max(deadline - time.monotonic(), 0.0)))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise
        retry = (first + 1) % len(self.routes)
        return _send(self.routes[retry][index], message, remaining, metadata, client_gone)


def _send(
    route: Route,
    message: Message,
    timeout: float,
    metadata: list[tuple[str, str]],
    client_gone: Callable[[], bool] | None,
) -> tuple[Message, grpc.Call]:
    """One unary call: (answer, call), or the call's RpcError; ``ClientGone`` once ``client_gone`` says so."""
    if client_gone is None:
        answered: tuple[Message, grpc.Call] = route.call.with_call(message, timeout=timeout, metadata=metadata)
        return answered
    future = route.call.future(message, timeout=timeout, metadata=metadata)
    while True:
        try:
            return future.result(timeout=HANGUP_POLL_S), future  # the call's RpcError if it failed
        except grpc.FutureTimeoutError:
            if client_gone():
                future.cancel()  # the server sees the call cancelled, and stops the search
                raise ClientGone from None


def _with_worker(response: Response, call: grpc.Call) -> Response:
    """Name the gRPC worker that answered (``Gamerules-Worker: host/pid``, from its initial metadata)."""
    with contextlib.suppress(Exception):  # a call that never reached a worker has no metadata
        worker = worker_of(call.initial_metadata())
        if worker:
            response.headers["Gamerules-Worker"] = worker
    return response


def worker_of(metadata: Any) -> str:
    """The gRPC worker named in a call's initial metadata (``host/pid``), or ""."""
    for key, value in metadata or ():
        if key == WORKER_METADATA:
            return str(value)
    return ""


# Headers passed on to the gRPC server as metadata (API keys, tracing).
FORWARDED_HEADERS = frozenset({"authorization", "x-api-key", "x-request-id", "traceparent"})
