"""grpc-gateway's HTTP mapping where it is more than one JSON message each way, and the gateway's answers: the
query parameters of a GET rule, a ``google.api.HttpBody`` answer (RenderPosition's image), a server stream
(AnalyzePosition, ReviewGame) as newline-delimited JSON or Server-Sent Events, and ``Answer``, what every route
of the gateway (``service/api/rest/gateway_path.py``) gives the front to write."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field

import grpc
from google.protobuf import descriptor, json_format
from google.protobuf.message import Message
from google.rpc import status_pb2
from grpc_status import rpc_status

from service.api import protojson
from service.api.errors import HTTP_STATUS, status_json
from service.api.limits import MAX_QUERY_CHARS
from service.core.jsonvalue import JSON

HTTP_BODY = "google.api.HttpBody"
# An image is the same for the same request: caches may keep it a day, and revalidate it by its ETag after.
IMAGE_CACHE_CONTROL = "public, max-age=86400"
# An SVG opened on its own is a document: it may run nothing and load nothing.
IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


def status_of(error: grpc.RpcError) -> status_pb2.Status:
    """The ``google.rpc.Status`` a failed call carries (or one made of its code and message)."""
    status = rpc_status.from_call(error)
    if status is None:
        status = status_pb2.Status(code=error.code().value[0], message=error.details() or "")
    return status


# --- query parameters, as grpc-gateway reads them -----------------------------------------------------------

_FD = descriptor.FieldDescriptor
_INTEGERS = frozenset(
    {
        _FD.TYPE_INT32,
        _FD.TYPE_INT64,
        _FD.TYPE_UINT32,
        _FD.TYPE_UINT64,
        _FD.TYPE_SINT32,
        _FD.TYPE_SINT64,
        _FD.TYPE_FIXED32,
        _FD.TYPE_FIXED64,
        _FD.TYPE_SFIXED32,
        _FD.TYPE_SFIXED64,
    }
)


class QueryError(ValueError):
    """A query parameter that names no field of the request, or a value its field cannot hold."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _scalar(field: descriptor.FieldDescriptor, text: str, name: str) -> object:
    if field.type == _FD.TYPE_STRING:
        return text
    if field.type == _FD.TYPE_BOOL:
        if text.lower() in ("true", "1", ""):
            return True
        if text.lower() in ("false", "0"):
            return False
        raise QueryError(name, f"{name}: expected true or false, got {text[:40]!r}")
    if field.type in _INTEGERS:
        if not re.fullmatch(r"-?[0-9]{1,20}", text):
            raise QueryError(name, f"{name}: expected an integer, got {text[:40]!r}")
        return int(text)
    if field.type in (_FD.TYPE_DOUBLE, _FD.TYPE_FLOAT):
        try:
            return float(text)
        except ValueError:
            raise QueryError(name, f"{name}: expected a number, got {text[:40]!r}") from None
    if field.type == _FD.TYPE_ENUM:
        value = field.enum_type.values_by_name.get(text)
        if value is None:
            raise QueryError(name, f"{name}: not one of {', '.join(field.enum_type.values_by_name)}")
        return value.number
    raise QueryError(name, f"{name}: this field cannot be given as a query parameter")


def apply_query(message: Message, params: list[tuple[str, str]], bound: set[str]) -> None:
    """Set the fields ``params`` name (dotted paths of proto or JSON names) on ``message``; a repeated field
    takes each of its values in order. Fields bound from the path (``bound``) cannot be set again."""
    for name, text in params:
        if len(text) > MAX_QUERY_CHARS:
            raise QueryError(name[:100], f"{name[:100]}: {len(text)} characters; at most {MAX_QUERY_CHARS} a parameter")
        target: Message = message
        parts = name.split(".")
        for depth, part in enumerate(parts):
            fields = target.DESCRIPTOR.fields_by_name
            field = fields.get(part) or next((f for f in fields.values() if f.json_name == part), None)
            path = ".".join(parts[: depth + 1])
            if field is None or (depth == 0 and field.name in bound):
                raise QueryError(name[:100], f"{name[:100]}: no such query parameter")
            if depth < len(parts) - 1:
                if field.type != _FD.TYPE_MESSAGE or field.is_repeated:
                    raise QueryError(path, f"{path}: has no fields")
                target = getattr(target, field.name)
                continue
            if field.type == _FD.TYPE_MESSAGE:
                raise QueryError(path, f"{path}: give its fields, e.g. {path}.notation")
            value = _scalar(field, text, path)
            if field.is_repeated:
                getattr(target, field.name).append(value)
            else:
                try:
                    setattr(target, field.name, value)
                except ValueError:  # out of the field's range
                    raise QueryError(path, f"{path}: {text[:40]!r} is out of range") from None


# --- answers -------------------------------------------------------------------------------------------------


@dataclass
class Answer:
    """An HTTP answer as the gateway writes it: status, headers, and the body whole or, for a stream, chunk by
    chunk as ``stream`` yields them."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    stream: AsyncIterator[bytes] | None = None

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)


def json_answer(status: int, body: str | bytes, headers: Mapping[str, str] | None = None) -> Answer:
    data = body.encode() if isinstance(body, str) else body
    return Answer(status, [("Content-Type", "application/json"), *(headers or {}).items()], data)


def status_answer(status: status_pb2.Status, headers: Mapping[str, str] | None = None) -> Answer:
    """An error as grpc-gateway writes it: the ``google.rpc.Status`` JSON, its HTTP status from the code."""
    return json_answer(HTTP_STATUS.get(status.code, 500), status_json(status), headers)


def body_answer(answer: Message, if_none_match: str) -> Answer:
    """A ``google.api.HttpBody`` answer: its bytes and content type, with an ETag (a digest of the bytes) and
    cache headers; 304 when the client already holds those bytes (``If-None-Match``)."""
    data: bytes = answer.data
    content_type: str = answer.content_type
    etag = etag_of(data)
    headers = [("ETag", etag), ("Cache-Control", IMAGE_CACHE_CONTROL), ("X-Content-Type-Options", "nosniff")]
    if content_type.startswith("image/svg"):
        headers.append(("Content-Security-Policy", IMAGE_CSP))
    if etag_held(etag, if_none_match):
        return Answer(304, headers)
    return Answer(200, [("Content-Type", content_type), *headers], data)


def tagged_json_answer(text: str, if_none_match: str) -> Answer:
    """A GET's JSON answer (ListGames, GetGame) with an ETag, a digest of its bytes; 304 when the client holds
    them. No ``Cache-Control``: the games change with a release, so a client revalidates each time."""
    data = text.encode()
    etag = etag_of(data)
    if etag_held(etag, if_none_match):
        return Answer(304, [("ETag", etag)])
    return json_answer(200, data, {"ETag": etag})


def etag_of(data: bytes) -> str:
    """A strong ETag of ``data``: a digest of its bytes."""
    return '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


def etag_held(etag: str, if_none_match: str) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (or ``*``)."""
    tags = [tag.strip() for tag in if_none_match.split(",")]
    return etag in tags or "*" in tags


# --- server streams ------------------------------------------------------------------------------------------

STREAM_HEADERS = (("Cache-Control", "no-store"), ("X-Accel-Buffering", "no"))
NDJSON = "application/x-ndjson"
EVENT_STREAM = "text/event-stream"


def stream_type(accept: str) -> str:
    """Server-Sent Events for a client that accepts them, else newline-delimited JSON (grpc-gateway's)."""
    return EVENT_STREAM if EVENT_STREAM in accept else NDJSON


def frame(kind: str, payload: Mapping[str, JSON], content_type: str) -> bytes:
    """One message of a stream: ``{"result": ...}`` or ``{"error": Status}``, a line or an event."""
    text = json.dumps({kind: payload}, separators=(",", ":"))
    return (f"event: {kind}\ndata: {text}\n\n" if content_type == EVENT_STREAM else text + "\n").encode()


def result_frame(message: Message, content_type: str) -> bytes:
    return frame("result", protojson.to_dict(message), content_type)


def error_frame(status: status_pb2.Status, content_type: str) -> bytes:
    return frame("error", json_format.MessageToDict(status), content_type)


def stream_answer(content_type: str, chunks: AsyncIterator[bytes]) -> Answer:
    """A server stream's answer (AnalyzePosition, ReviewGame): its chunks written as they come."""
    shown = f"{content_type}; charset=utf-8" if content_type == EVENT_STREAM else content_type
    return Answer(200, [("Content-Type", shown), *STREAM_HEADERS], stream=chunks)
