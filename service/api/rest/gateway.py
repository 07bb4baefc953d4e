"""The REST gateway's contract: the routes read from the protos' HTTP annotations, and how a request becomes a
call and a call's answer or error becomes JSON.

No route is written by hand: every ``google.api.http`` rule of the GameRules service becomes a ``Route``, the
JSON is the standard proto3 mapping (what grpc-gateway or Envoy would produce from the same protos), the
caller's deadline travels on as the gRPC deadline (``Grpc-Timeout`` header, as grpc-gateway reads it), and
errors come back as the ``google.rpc.Status`` JSON with grpc-gateway v2's status codes. What a route needs is
read from the contract too: a server-streaming method is a stream, a request that takes search limits runs a
search (``Route.searches``), a ``google.api.HttpBody`` answer is bytes.

Every request, whatever its route, takes one path: the front (``gateway_asgi``: the HTTP side, bodies,
timeouts, hang-ups) hands it to ``gateway_path``, which routes it and answers it in the worker's event loop,
calling the server over ``grpc.aio`` (``gateway_backends``). Run it with
``python -m service.api.rest.gateway_server`` (granian, N worker processes). Its configuration is one value,
``GatewayConfig`` (``service/api/rest/gateway_config.py``, which reads every variable once;
``docs/operations.md`` lists them).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import grpc
from google.api import annotations_pb2
from google.protobuf import descriptor, descriptor_pool, json_format, message_factory
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2

from gamerules.v1 import gamerules_pb2 as pb
from service.api import protojson
from service.api.calls import WORKER_METADATA
from service.api.errors import closest, error_status
from service.api.rest.gateway_config import GatewayConfig
from service.api.rest.mapping import status_of

SERVICE = pb.DESCRIPTOR.services_by_name["GameRules"]
RETRY_PAUSE_S = 0.1
MAX_TIMEOUT_S = 300.0
# A Grpc-Timeout shorter than this (``1n``, ``500u``) is a deadline already passed when the call would start: gRPC's
# channel counts deadlines in whole milliseconds, and would have sent the call with none.
MIN_TIMEOUT_S = 1e-3
_TIMEOUT_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
SEARCH_LIMITS = "SearchLimits"  # the contract's message of a search's limits


@dataclass(frozen=True)
class Route:
    """One HTTP rule: a verb, a compiled path template, and the RPC it calls."""

    verb: str
    template: str  # the proto's path template: also the bounded ``route`` label of the HTTP metrics
    pattern: re.Pattern[str]
    body: str
    method: descriptor.MethodDescriptor

    @functools.cached_property
    def path(self) -> str:
        """The RPC's gRPC path, ``/gamerules.v1.GameRules/LegalMoves``."""
        return f"/{SERVICE.full_name}/{self.method.name}"

    @functools.cached_property
    def response_class(self) -> type[Message]:
        found: type[Message] = message_factory.GetMessageClass(self.method.output_type)
        return found

    @functools.cached_property
    def request_class(self) -> type[Message]:
        found: type[Message] = message_factory.GetMessageClass(self.method.input_type)
        return found

    @functools.cached_property
    def searches(self) -> bool:
        """Whether the call runs a search, read from the contract: its request takes search limits (BestMove,
        AnalyzePosition, ReviewGame). It may wait long for a search slot, so it watches its client."""
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


def build_routes() -> list[Route]:
    """The routes of the HTTP rules, in the protos' order (the first whose template and verb match is the one)."""
    routes = []
    for method in SERVICE.methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        verb = rule.WhichOneof("pattern")
        if verb is None:
            continue
        template = getattr(rule, verb)
        routes.append(Route(verb.upper(), template, compile_template(template), rule.body, method))
    return routes


# --- errors as grpc-gateway writes them ------------------------------------------------------------


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


def strict_json_error(body: Mapping[str, object], message: descriptor.Descriptor) -> tuple[str, str] | None:
    """(field path, what is wrong) for the first value of a request body that the OpenAPI document calls
    invalid but proto3 JSON would read anyway: ``null`` (read as "unset") and a 32-bit integer written as a
    string (``"5"``). The API accepts exactly what its document describes (docs/api.md). Walked without
    recursion: the body may be deep; keys that are no field are left to the parser, which refuses them."""
    stack: list[tuple[str, object, descriptor.Descriptor]] = [("", body, message)]
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


def _shape_error(inner: descriptor.Descriptor, whole_list: bool, value: object) -> str | None:
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


def non_finite_path(body: object) -> str | None:
    """The JSON path (``options.size``, ``moves[2]``) of the first NaN or Infinity in ``body``, None if none.
    Walked without recursion, keys as the caller wrote them."""
    stack: list[tuple[str, object]] = [("", body)]
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


ChannelOptions = list[tuple[str, str | int]]


def channel_arguments(config: GatewayConfig, index: int = 0) -> tuple[ChannelOptions, grpc.ChannelCredentials | None]:
    """A channel's options and credentials (None: plaintext) to the gRPC server: TLS when the config names a
    CA to trust, with a client certificate (mutual TLS) when it names one. ``index`` tells the channels apart:
    channels with the same arguments would share one connection."""
    options: ChannelOptions = [
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


def body_refusal(raw: bytes, route: Route, message: Message) -> status_pb2.Status | None:
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


def answer_json(answer: Message) -> str:
    """An RPC's answer as the gateway writes it: proto3 JSON, compact."""
    return json.dumps(protojson.to_dict(answer), separators=(",", ":"))


def worker_of(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The gRPC worker named in a call's initial metadata (``host/pid``), or ""."""
    for key, value in metadata or ():
        if key == WORKER_METADATA:
            return str(value)
    return ""


# Headers passed on to the gRPC server as metadata (API keys, tracing).
FORWARDED_HEADERS = frozenset({"authorization", "x-api-key", "x-request-id", "traceparent"})
