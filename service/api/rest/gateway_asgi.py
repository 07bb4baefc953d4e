"""The REST gateway's front: the HTTP side of every request, in the worker's event loop.

Why. Under granian's WSGI interface a request held one of the worker's threads from its first byte to its
last, body included, and the interface has no read timeout: 150 connections that sent one byte of their body
and stalled took every thread, and the rules calls behind them waited for ever. A production proxy reads the
body before it bothers the application (nginx buffers it; Envoy times each stage). So does this front, under
granian's ASGI interface (``gateway_server``):

- **Body.** Read here, where a waiting body costs nothing but its bytes: each chunk within ``body_chunk_s``,
  the whole within ``body_s``, at most ``max_body`` bytes (refused beyond, whatever the framing; the rest of
  such a body, up to ``DRAIN_BYTES`` within ``DRAIN_S``, is read and dropped first, as a proxy's lingering
  close does, so that a client still sending reads the refusal instead of a broken pipe). A body that stalls
  is answered 408 with ``Connection: close``, counted (``gamerules_gateway_slow_clients_total``) and logged
  once.
- **Bounds.** At most ``max_bodies`` bodies are being read at once in a worker, a quarter of them from one
  client address; one more is answered 503 with ``Connection: close`` and ``Retry-After`` before its body is
  read. The connections themselves are bounded by granian (``backpressure``) and its ``header_read_timeout``
  once a request has begun, and before that, between requests and per address by the door
  (``gateway_door``), which the front tells of each request in flight.
- **Handler.** The request, its body whole, then goes to the one request path (``gateway_path``), in this
  same loop: every route, no thread.
- **Hang-up.** The interface says when the client goes (``http.disconnect``): a route that asks for the
  request's ``gone`` (a search, a stream) gets an event the front sets then, and its call is cancelled.

The answer goes back whole in one message, or chunk by chunk as a stream yields them (``:analyze``);
a ``HEAD`` gets the headers of the ``GET`` and no body.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from google.rpc import code_pb2

from service.api import metrics
from service.api.errors import error_status, status_json
from service.api.rest import answer_headers
from service.api.rest.gateway_config import FrontConfig
from service.api.rest.gateway_path import GatewayPath, Request
from service.api.rest.mapping import Answer

if TYPE_CHECKING:
    from service.api.rest.gateway_door import Door

_log = logging.getLogger(__name__)

# The ASGI boundary: the spec's scope and events are dicts whose values' types depend on their keys (and the
# event's ``type``), which granian builds and reads as plain dicts; no typed form of them is installed (asgiref's
# TypedDicts). The one ``Any`` left in the gateway's types.
ASGIMessage = dict[str, Any]
Scope = ASGIMessage  # the connection's scope, a dict of the same kind
Receive = Callable[[], Awaitable[ASGIMessage]]
Send = Callable[[ASGIMessage], Awaitable[None]]

# A body refused as too large is read on and dropped, at most this much for at most this long, before the
# refusal: a client that writes its whole body before it reads (most do) then gets the answer.
DRAIN_BYTES = 16 << 20
DRAIN_S = 2.0
_BUSY = "too many request bodies arriving at this gateway at once; retry shortly"
PER_ADDRESS_SHARE = 4  # one client address may send a quarter of a worker's bodies at once


def per_address_bodies(max_bodies: int) -> int:
    """Bodies one client address may be sending at once to a worker of ``max_bodies``."""
    return max(1, max_bodies // PER_ADDRESS_SHARE)


_STALLED = "body: did not arrive in time; send the whole body at once (the gateway waits a few seconds for it)"


class _Stalled(Exception):
    """The client stopped sending its body (``stage``: "body_chunk" or "body")."""

    def __init__(self, stage: str) -> None:
        super().__init__(stage)
        self.stage = stage


class _TooLarge(Exception):
    pass


class _Gone(Exception):
    """The client left before its body was whole."""


class Front:
    """The ASGI application of one gateway worker, in front of its request path."""

    def __init__(self, path: GatewayPath, config: FrontConfig, door: Door | None = None) -> None:
        self._path, self._config, self._door = path, config, door
        self._reading = 0  # bodies being read now (only the event loop's thread counts them)
        self._reading_from: Counter[str] = Counter()  # and by client address
        self._per_address = per_address_bodies(config.max_bodies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            port = _client_port(scope)
            if self._door is not None:  # a connection with a request in flight is never idle
                self._door.busy(port)
            try:
                await self._http(scope, receive, send)
            finally:
                if self._door is not None:
                    self._door.done(port)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self._path.close()
                if self._door is not None:
                    self._door.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Every answer, whoever writes it, names the release and the request's id (``answer_headers``); the
        # id is settled here, before the path or the log reads it.
        scope, send = _stamped(scope, send)
        if _bodiless(scope):
            await self._answer(scope, b"", receive, send)
            return
        address = (scope.get("client") or ("", 0))[0]
        if self._reading >= self._config.max_bodies or self._reading_from[address] >= self._per_address:
            metrics.observe_slow_client("refused")
            await _refuse(send, 503, code_pb2.RESOURCE_EXHAUSTED, "GATEWAY_BUSY", _BUSY)
            return
        self._reading += 1
        self._reading_from[address] += 1
        try:
            body = await self._body(scope, receive)
        except _Stalled as stalled:
            metrics.observe_slow_client(stalled.stage)
            client = scope.get("client") or ("", 0)
            _log.info("closed a client that stopped sending its body (%s) from %s", stalled.stage, client[0])
            await _refuse(send, 408, code_pb2.DEADLINE_EXCEEDED, "BODY_TIMEOUT", _STALLED, "body")
            return
        except _TooLarge:
            message = f"body: larger than {self._config.max_body} bytes"
            await _refuse(send, 400, code_pb2.INVALID_ARGUMENT, "REQUEST_TOO_LARGE", message, "body")
            return
        except _Gone:
            return
        finally:
            self._reading -= 1
            self._reading_from[address] -= 1
            if not self._reading_from[address]:
                del self._reading_from[address]
        await self._answer(scope, body, receive, send)

    async def _answer(self, scope: Scope, body: bytes, receive: Receive, send: Send) -> None:
        """Hand the request to the path and write its answer; the hang-up watched only if a route asks."""
        watch = _HangUp(receive)
        head = scope["method"] == "HEAD"

        async def write(answer: Answer) -> None:
            await _write(answer, head, send, watch)

        try:
            await self._path.handle(request_of(scope, body, watch.gone), write)
        finally:
            watch.stop()

    async def _body(self, scope: Scope, receive: Receive) -> bytes:
        declared = _content_length(scope)
        if declared is not None and declared > self._config.max_body:
            await _drain(receive, self._config.body_chunk_s)
            raise _TooLarge
        loop = asyncio.get_running_loop()
        end = loop.time() + self._config.body_s
        parts: list[bytes] = []
        size = 0
        while True:
            left = end - loop.time()
            wait = min(self._config.body_chunk_s, left)
            if wait <= 0:
                raise _Stalled("body")
            try:
                async with asyncio.timeout(wait):  # no task of its own, unlike wait_for: the common case is cheap
                    message = await receive()
            except TimeoutError:
                raise _Stalled("body_chunk" if wait < left else "body") from None
            if message["type"] == "http.disconnect":
                raise _Gone
            chunk = message.get("body", b"")
            if chunk:
                size += len(chunk)
                if size > self._config.max_body:
                    if message.get("more_body", False):
                        await _drain(receive, self._config.body_chunk_s)
                    raise _TooLarge
                parts.append(chunk)
            if not message.get("more_body", False):
                return b"".join(parts)


async def _drain(receive: Receive, chunk_s: float) -> None:
    """Read and drop the rest of a refused body: until its end, ``DRAIN_BYTES``, ``DRAIN_S``, a chunk that
    takes longer than ``chunk_s``, or the client's leaving, whichever comes first."""
    loop = asyncio.get_running_loop()
    end, dropped = loop.time() + DRAIN_S, 0
    while dropped < DRAIN_BYTES:
        wait = min(chunk_s, end - loop.time())
        if wait <= 0:
            return
        try:
            message = await asyncio.wait_for(receive(), wait)
        except TimeoutError:
            return
        if message["type"] == "http.disconnect" or not message.get("more_body", False):
            return
        dropped += len(message.get("body", b""))


class _HangUp:
    """A request's "has the client gone?": an event set on ``http.disconnect``, watched from the first time a
    route asks for it (the body is whole by then: a disconnect is all the interface still says)."""

    def __init__(self, receive: Receive) -> None:
        self._receive = receive
        self._event: asyncio.Event | None = None
        self._watcher: asyncio.Task[None] | None = None

    def gone(self) -> asyncio.Event:
        if self._event is None:
            self._event = asyncio.Event()
            self._watcher = asyncio.ensure_future(self._watch(self._event))
        return self._event

    async def _watch(self, event: asyncio.Event) -> None:
        while (await self._receive())["type"] != "http.disconnect":
            pass
        event.set()

    def left(self) -> bool:
        return self._event is not None and self._event.is_set()

    def stop(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()


async def _write(answer: Answer, head: bool, send: Send, watch: _HangUp) -> None:
    """Write ``answer``: whole, with its length (no body to a HEAD), or a stream chunk by chunk as it comes,
    until it ends or the client leaves."""
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in answer.headers]
    if answer.stream is None:
        if answer.status not in (204, 304):
            headers.append((b"content-length", str(len(answer.body)).encode()))
        await send({"type": "http.response.start", "status": answer.status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if head else answer.body})
        return
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    chunks = answer.stream
    try:
        async for chunk in chunks:
            if watch.left():
                return
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    except Exception:  # the answer has started: it can only end short (a client sees no final chunk)
        if not watch.left():  # a client that left is no failure
            _log.exception("a streamed answer failed")
        return
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def _stamped(scope: Scope, send: Send) -> tuple[Scope, Send]:
    """The scope with its request id settled (the caller's if sane, else a new one) and a ``send`` that adds
    ``answer_headers.stamps`` to the answer's start, where the path has not written them already."""
    headers = scope.get("headers", ())
    sent = [value for name, value in headers if name == b"x-request-id"]
    request_id = answer_headers.request_id(sent[0].decode("latin-1") if len(sent) == 1 else "")
    if sent != [request_id.encode("latin-1")]:
        kept = [(name, value) for name, value in headers if name != b"x-request-id"]
        scope = {**scope, "headers": [*kept, (b"x-request-id", request_id.encode("latin-1"))]}
    stamps = [(name.lower().encode(), value.encode("latin-1")) for name, value in answer_headers.stamps(request_id)]

    async def stamped(message: ASGIMessage) -> None:
        if message["type"] == "http.response.start":
            written = {name for name, _ in message.get("headers", ())}
            missing = [(name, value) for name, value in stamps if name not in written]
            if missing:
                message = {**message, "headers": [*message.get("headers", ()), *missing]}
        await send(message)

    return scope, stamped


def _client_port(scope: Scope) -> int:
    """The client's port (granian gives it as text), 0 when the scope has none."""
    try:
        return int((scope.get("client") or ("", 0))[1])
    except (TypeError, ValueError):
        return 0


def _bodiless(scope: Scope) -> bool:
    """A GET, HEAD or OPTIONS that declares no body (a chunked one is read like any other)."""
    if scope.get("method") not in ("GET", "HEAD", "OPTIONS"):
        return False
    return not any(name in (b"content-length", b"transfer-encoding") for name, _ in scope.get("headers", ()))


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def request_of(scope: Scope, body: bytes, gone: Callable[[], asyncio.Event]) -> Request:
    """The path's request of an ASGI HTTP scope, its body whole: headers by lower-case name, repeated ones
    joined with commas."""
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", ()):
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        headers[name] = f"{headers[name]},{value}" if name in headers else value
    client = scope.get("client") or ("", 0)
    return Request(
        method=scope["method"],
        path=scope.get("root_path", "") + scope["path"],
        query=scope.get("query_string", b""),
        headers=headers,
        client=str(client[0]),
        body=body,
        gone=gone,
    )


async def _refuse(send: Send, http_status: int, code: int, reason: str, message: str, field: str = "") -> None:
    """An error answer of the front, written as every gateway error is (``errors.error_status``), and the
    connection closed after it: its body was not read (whole)."""
    body = status_json(error_status(code, message, reason, field))
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    if code == code_pb2.RESOURCE_EXHAUSTED:
        headers.append((b"retry-after", b"1"))
    await send({"type": "http.response.start", "status": http_status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
