"""The REST gateway: HTTP+JSON in front of the gRPC server, built from the protos' HTTP annotations.

No route is written by hand: every ``google.api.http`` rule of the GameRules service becomes a route, the
JSON is the standard proto3 mapping (what grpc-gateway or Envoy would produce from the same protos), the
caller's deadline travels on as the gRPC deadline (``Grpc-Timeout`` header, as grpc-gateway reads it), and
errors come back as the ``google.rpc.Status`` JSON with grpc-gateway v2's status codes.

Run it under a production WSGI server: ``gunicorn 'service.api.gateway:create_app()'`` (``service/run.py``
does this for ``make run``). Configuration: ``GAMERULES_BACKEND`` (the gRPC address, default
``localhost:50051``), ``GAMERULES_GATEWAY_TIMEOUT_S`` (default deadline, 30).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
from flask import Flask, Response, request
from google.api import annotations_pb2
from google.protobuf import descriptor, json_format, message_factory
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from gamerules.v1 import gamerules_pb2 as pb
from service.api.errors import HTTP_STATUS

_log = logging.getLogger(__name__)

SERVICE = pb.DESCRIPTOR.services_by_name["GameRules"]
MAX_BODY_BYTES = 1 << 20
MAX_TIMEOUT_S = 300.0
_TIMEOUT_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}


@dataclass(frozen=True)
class Route:
    """One HTTP rule: a verb, a compiled path template, and the RPC it calls."""

    verb: str
    pattern: re.Pattern[str]
    body: str
    method: descriptor.MethodDescriptor
    call: Callable[..., Message]

    @property
    def request_class(self) -> type[Message]:
        return message_factory.GetMessageClass(self.method.input_type)


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


def build_routes(channel: grpc.Channel) -> list[Route]:
    routes = []
    for method in SERVICE.methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        verb = rule.WhichOneof("pattern")
        if verb is None:
            continue
        template = getattr(rule, verb)
        call = channel.unary_unary(
            f"/{SERVICE.full_name}/{method.name}",
            request_serializer=lambda message: message.SerializeToString(),
            response_deserializer=message_factory.GetMessageClass(method.output_type).FromString,
        )
        routes.append(Route(verb.upper(), compile_template(template), rule.body, method, call))
    return routes


# --- errors as grpc-gateway writes them ------------------------------------------------------------


def status_response(status: status_pb2.Status, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(json_format.MessageToDict(status), separators=(",", ":"))
    response = Response(body, status=HTTP_STATUS.get(status.code, 500), mimetype="application/json")
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def error_response(code: int, message: str, reason: str = "", field: str = "") -> Response:
    status = status_pb2.Status(code=code, message=message)
    if reason:
        status.details.add().Pack(error_details_pb2.ErrorInfo(reason=reason, domain="gamerules.v1"))
    if field:
        violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=message)
        status.details.add().Pack(error_details_pb2.BadRequest(field_violations=[violation]))
    return status_response(status)


def _rpc_error_response(error: grpc.RpcError) -> Response:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    if status is None:
        status = status_pb2.Status(code=error.code().value[0], message=error.details() or "")  # type: ignore[attr-defined]
    headers = {}
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            if "retry_after_seconds" in info.metadata:
                headers["Retry-After"] = info.metadata["retry_after_seconds"]
    if status.code == code_pb2.RESOURCE_EXHAUSTED and "Retry-After" not in headers:
        headers["Retry-After"] = "1"
    return status_response(status, headers)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def parse_error_field(message: str) -> str:
    """The field a protobuf JSON ParseError is about, in snake_case dotted form (best effort)."""
    path = [_snake(name) for name in re.findall(r"Failed to parse (\w+) field", message)]
    unknown = re.search(r'has no field named "([^"]+)"', message)
    if unknown:
        path.append(_snake(unknown.group(1)))
    return ".".join(path)


def _timeout(default_s: float) -> float | Response:
    header = request.headers.get("Grpc-Timeout", "")
    if not header:
        return default_s
    match = re.fullmatch(r"(\d{1,8})([HMSmun])", header)
    if not match:
        return error_response(code_pb2.INVALID_ARGUMENT, "Grpc-Timeout: expected e.g. 500m or 2S", "INVALID_TIMEOUT")
    return min(int(match.group(1)) * _TIMEOUT_UNITS[match.group(2)], MAX_TIMEOUT_S)


# --- the app ---------------------------------------------------------------------------------------


def create_app(backend: str | None = None, timeout_s: float | None = None) -> Flask:
    """The gateway app forwarding to the gRPC server at ``backend``."""
    backend = backend or os.environ.get("GAMERULES_BACKEND", "localhost:50051")
    default_timeout = timeout_s or float(os.environ.get("GAMERULES_GATEWAY_TIMEOUT_S", "30"))
    channel = grpc.insecure_channel(backend, options=[("grpc.max_receive_message_length", 16 << 20)])
    routes = build_routes(channel)
    health_stub = health_pb2_grpc.HealthStub(channel)

    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES

    @app.get("/healthz")
    def healthz() -> Response:
        return Response('{"status":"ok"}', mimetype="application/json")

    @app.get("/readyz")
    def readyz() -> Response:
        try:
            answer = health_stub.Check(health_pb2.HealthCheckRequest(service=SERVICE.full_name), timeout=2)
        except grpc.RpcError as error:
            return Response(json.dumps({"status": "unavailable", "backend": str(error.code())}), 503, mimetype="application/json")
        serving = answer.status == health_pb2.HealthCheckResponse.SERVING
        body = json.dumps({"status": "ready" if serving else "not serving"})
        return Response(body, 200 if serving else 503, mimetype="application/json")

    @app.route("/v1/<path:subpath>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    def dispatch(subpath: str) -> Response:
        path = "/v1/" + subpath
        matched = [(route, m) for route in routes if (m := route.pattern.match(path))]
        if not matched:
            return error_response(code_pb2.NOT_FOUND, f"no such resource or method: {path[:200]}", "NOT_FOUND")
        for route, match in matched:
            if route.verb == request.method:
                return _forward(route, match.groupdict())
        return error_response(code_pb2.UNIMPLEMENTED, f"{request.method} is not allowed on {path[:200]}")

    def _forward(route: Route, path_params: dict[str, str]) -> Response:
        message = route.request_class()
        if route.body:
            raw = request.get_data(cache=False)
            if raw.strip():
                try:
                    body = json.loads(raw)
                except (ValueError, UnicodeDecodeError) as error:
                    return error_response(code_pb2.INVALID_ARGUMENT, f"body: not valid JSON ({error})", "INVALID_JSON", "body")
                if not isinstance(body, dict):
                    return error_response(code_pb2.INVALID_ARGUMENT, "body: must be a JSON object", "INVALID_JSON", "body")
                try:
                    json_format.ParseDict(body, message)
                except (json_format.ParseError, ValueError, TypeError, RecursionError) as error:
                    field = parse_error_field(str(error)) or "body"
                    text = str(error).splitlines()[0][:300]
                    return error_response(code_pb2.INVALID_ARGUMENT, f"{field}: {text}", "INVALID_JSON", field)
        for name, value in path_params.items():
            setattr(message, name.replace("__", "."), value)
        timeout = _timeout(default_timeout)
        if isinstance(timeout, Response):
            return timeout
        metadata = [(key.lower(), value) for key, value in request.headers.items() if key.lower() in _FORWARDED]
        try:
            answer = route.call(message, timeout=timeout, metadata=metadata)
        except grpc.RpcError as error:
            return _rpc_error_response(error)
        body = json_format.MessageToJson(answer, always_print_fields_with_no_presence=True, indent=None)
        return Response(body, mimetype="application/json")

    @app.errorhandler(413)
    def too_large(_: Any) -> Response:
        return error_response(
            code_pb2.INVALID_ARGUMENT, f"body: larger than {MAX_BODY_BYTES} bytes", "REQUEST_TOO_LARGE", "body"
        )

    @app.errorhandler(404)
    def not_found(_: Any) -> Response:
        return error_response(code_pb2.NOT_FOUND, f"no such resource: {request.path[:200]}", "NOT_FOUND")

    @app.errorhandler(405)
    def not_allowed(_: Any) -> Response:
        return error_response(code_pb2.UNIMPLEMENTED, f"{request.method} is not allowed on {request.path[:200]}")

    return app


# Headers passed on to the gRPC server as metadata (API keys, tracing).
_FORWARDED = frozenset({"authorization", "x-api-key", "x-request-id", "traceparent"})
