"""grpc-gateway's HTTP mapping where it is more than one JSON message each way: the query parameters of a GET
rule, a ``google.api.HttpBody`` answer (RenderPosition's image), and a server stream (AnalyzePosition) as
newline-delimited JSON or Server-Sent Events. Used by the gateway (``service/api/rest/gateway.py``)."""

from __future__ import annotations

import hashlib
import json
import queue
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
from flask import Response, request
from google.protobuf import descriptor, json_format
from google.protobuf.message import Message
from google.rpc import status_pb2
from grpc_status import rpc_status

from service.api import protojson
from service.api.limits import MAX_QUERY_CHARS

HTTP_BODY = "google.api.HttpBody"
# An image is the same for the same request: caches may keep it a day, and revalidate it by its ETag after.
IMAGE_CACHE_CONTROL = "public, max-age=86400"
# An SVG opened on its own is a document: it may run nothing and load nothing.
IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
# How long a stream waits for its next message before it looks whether its client is still there.
HEARTBEAT_S = 0.05


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


# --- answers that are not one JSON message -------------------------------------------------------------------


def body_response(answer: Message) -> Response:
    """A ``google.api.HttpBody`` answer: its bytes and content type, with an ETag (a digest of the bytes) and
    cache headers; 304 when the client already holds those bytes."""
    data: bytes = answer.data
    etag = _etag(data)
    headers = {"ETag": etag, "Cache-Control": IMAGE_CACHE_CONTROL, "X-Content-Type-Options": "nosniff"}
    if answer.content_type.startswith("image/svg"):
        headers["Content-Security-Policy"] = IMAGE_CSP
    if _held(etag):
        return Response(status=304, headers=headers)
    return Response(data, content_type=answer.content_type, headers=headers)


def tagged_json_response(text: str) -> Response:
    """A GET's JSON answer (ListGames, GetGame) with an ETag, a digest of its bytes; 304 when the client holds
    them. No ``Cache-Control``: the games change with a release, so a client revalidates each time."""
    data = text.encode()
    etag = _etag(data)
    if _held(etag):
        return Response(status=304, headers={"ETag": etag})
    return Response(data, mimetype="application/json", headers={"ETag": etag})


def _etag(data: bytes) -> str:
    return '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


def _held(etag: str) -> bool:
    """Whether the request's ``If-None-Match`` names ``etag`` (or ``*``)."""
    held = [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]
    return etag in held or "*" in held


def stream_response(
    answers: Any, error_response: Callable[[grpc.RpcError], Response], client_gone: Callable[[], bool] | None = None
) -> Response:
    """A server stream as newline-delimited JSON (grpc-gateway's framing: one ``{"result": ...}`` a line,
    ``{"error": Status}`` if the call fails after it started), or as Server-Sent Events when the client accepts
    them. A call that fails before its first message answers the usual error status instead. Closing the
    response (the client left) cancels the call, which stops the search behind it.

    A search's iterations come further and further apart, and the client may leave in between: a thread of its
    own reads the stream, and the answer, while it has nothing new, looks every ``HEARTBEAT_S`` whether the
    client is still there. Before the first message (the response not started) by asking ``client_gone``
    (the server's word: ``gateway.CLIENT_WATCH``), which cancels the call: 499. Once streaming, by sending an
    empty chunk (nothing reaches the wire): the server cannot hand it on once the client's connection is gone,
    and closes the response (granian, as PEP 3333 has it)."""
    received = _read_in_thread(answers)
    first = _first(received, answers, client_gone)
    if isinstance(first, grpc.RpcError):
        return error_response(first)
    events = "text/event-stream" in request.headers.get("Accept", "")

    def frame(kind: str, payload: dict[str, Any]) -> str:
        text = json.dumps({kind: payload}, separators=(",", ":"))
        return f"event: {kind}\ndata: {text}\n\n" if events else text + "\n"

    def frames() -> Iterator[str]:
        try:
            item = first
            while item is not _END:
                if isinstance(item, grpc.RpcError):
                    yield frame("error", json_format.MessageToDict(status_of(item)))
                    return
                yield frame("result", protojson.to_dict(item))
                while True:
                    try:
                        item = _unless_raised(received.get(timeout=HEARTBEAT_S))
                        break
                    except queue.Empty:
                        yield ""  # undeliverable once the client has gone: the server closes this iterator
        finally:
            answers.cancel()

    mimetype = "text/event-stream" if events else "application/x-ndjson"
    return Response(frames(), mimetype=mimetype, headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


_END = object()  # the stream ended without an error


def _read_in_thread(answers: Any) -> queue.SimpleQueue[Any]:
    """The stream's messages as a daemon thread reads them, then ``_END`` or the exception it ended with.
    Unbounded: an analysis sends one message an iteration of its search, tens in all."""
    received: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def read() -> None:
        try:
            for answer in answers:
                received.put(answer)
        except BaseException as error:  # handed over: an RpcError is answered, anything else raised there
            received.put(error)
        else:
            received.put(_END)

    threading.Thread(target=read, name="stream-reader", daemon=True).start()
    return received


def _first(received: queue.SimpleQueue[Any], answers: Any, client_gone: Callable[[], bool] | None) -> Any:
    """The stream's first item (``_read_in_thread``); the call cancelled meanwhile if its client left."""
    while True:
        try:
            return _unless_raised(received.get(timeout=HEARTBEAT_S))
        except queue.Empty:
            if client_gone is not None and client_gone():
                answers.cancel()  # the reader hands over the call's CANCELLED next
                client_gone = None


def _unless_raised(item: Any) -> Any:
    """``item``, unless it is an exception other than the call's RpcError: that is raised."""
    if isinstance(item, BaseException) and not isinstance(item, grpc.RpcError):
        raise item
    return item
