"""The REST gateway's front: the HTTP side of a request, asynchronously, before the Flask app sees it.

Why. Under granian's WSGI interface a request held one of the worker's threads from its first byte to its
last, body included, and the interface has no read timeout: 150 connections that sent one byte of their body
and stalled took every thread, and the rules calls behind them waited for ever. A production proxy reads the
body before it bothers the application (nginx buffers it; Envoy times each stage). So does this front, under
granian's ASGI interface (``gateway_server``):

- **Body.** Read here, in the worker's event loop, where a waiting body costs no thread: each chunk within
  ``body_chunk_s``, the whole within ``body_s``, at most ``max_body`` bytes (refused beyond, whatever the
  framing; the rest of such a body, up to ``DRAIN_BYTES`` within ``DRAIN_S``, is read and dropped first, as
  a proxy's lingering close does, so that a client still sending reads the refusal instead of a broken
  pipe). A body that stalls is answered 408 with ``Connection: close``, counted
  (``gamerules_gateway_slow_clients_total``) and logged once.
- **Bounds.** At most ``max_bodies`` bodies are being read at once in a worker, a quarter of them from one
  client address; one more is answered 503 with ``Connection: close`` and ``Retry-After`` before its body is
  read. The connections themselves are bounded by granian (``backpressure``) and its ``header_read_timeout``
  once a request has begun, and before that, between requests and per address by the door
  (``gateway_door``), which the front tells of each request in flight.
- **Handler.** The Flask app then runs on one of ``threads`` threads with the body whole in memory: its
  threads wait only on gRPC calls, never on a client.
- **Hang-up.** The interface says when the client goes (``http.disconnect``): the app's
  ``environ[CLIENT_WATCH]`` reads it, and a best move or a stream whose client left is cancelled.

The response goes back as the app writes it: whole in one message when it declares its length, chunk by
chunk when it streams (``:analyze``).
"""

from __future__ import annotations

import asyncio
import io
import logging
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from concurrent import futures
from typing import TYPE_CHECKING, Any

from google.rpc import code_pb2

from service.api import metrics
from service.api.errors import error_status, status_json
from service.api.rest import answer_headers
from service.api.rest.gateway_config import CLIENT_WATCH, FrontConfig

if TYPE_CHECKING:
    from service.api.rest.gateway_door import Door
    from service.api.rest.gateway_unary import UnaryPath

_log = logging.getLogger(__name__)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

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
    """The ASGI application of one gateway worker, in front of the WSGI ``app``."""

    def __init__(
        self,
        app: Callable[..., Iterable[bytes]],
        config: FrontConfig,
        unary: UnaryPath | None = None,
        door: Door | None = None,
    ) -> None:
        self._app, self._config, self._unary, self._door = app, config, unary, door
        self._pool = futures.ThreadPoolExecutor(max(1, config.threads), thread_name_prefix="gateway")
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
                self._pool.shutdown(wait=False)
                if self._door is not None:
                    self._door.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Every answer, whoever writes it, names the release and the request's id (``answer_headers``); the
        # id is settled here, before the app, the rules path or the log reads it.
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
        routed = self._unary.route(scope) if self._unary is not None else None
        if routed is not None:  # a rules call: answered in this loop (``gateway_unary``)
            status, headers, answer = await self._unary.answer(scope, *routed, body)  # type: ignore[union-attr]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": answer})
            return
        await self._answer(scope, body, receive, send)

    async def _answer(self, scope: Scope, body: bytes, receive: Receive, send: Send) -> None:
        gone = threading.Event()
        watcher = asyncio.ensure_future(_watch_disconnect(receive, gone))
        try:
            await self._respond(_environ(scope, body, gone), send, gone)
        finally:
            watcher.cancel()

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
                message = await asyncio.wait_for(receive(), wait)
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

    async def _respond(self, environ: dict[str, Any], send: Send, gone: threading.Event) -> None:
        loop = asyncio.get_running_loop()
        chunks: asyncio.Queue[bytes | None] = asyncio.Queue()

        def hand(chunk: bytes | None) -> None:
            loop.call_soon_threadsafe(chunks.put_nowait, chunk)

        # The answer's start comes back in one hop (the whole answer, when it declares its length); a stream's
        # further chunks follow through ``chunks``, None after the last.
        run = self._pool.submit(_run_app, self._app, environ, hand, gone, self._pool.submit)
        started = await asyncio.wrap_future(run)
        if started is None:
            await _refuse(send, 500, code_pb2.INTERNAL, "INTERNAL", "internal error; it has been logged")
            return
        status, headers, body, more = started
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": more})
        while more:
            chunk = await chunks.get()
            more = chunk is not None
            await send({"type": "http.response.body", "body": chunk or b"", "more_body": more})


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


async def _watch_disconnect(receive: Receive, gone: threading.Event) -> None:
    """Set ``gone`` once the interface says the client has left (the body is whole: that is all it says)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            gone.set()
            return


def _run_app(
    app: Callable[..., Iterable[bytes]],
    environ: dict[str, Any],
    hand: Callable[[bytes | None], None],
    gone: threading.Event,
    go_on: Callable[..., Any],
) -> tuple[int, list[tuple[bytes, bytes]], bytes, bool] | None:
    """Run the WSGI app on this (pool) thread: (status, headers, first body, more to come), the whole answer
    when it declares its length; a streamed answer's further chunks go to ``hand`` (None after the last) from
    another of the pool's threads (``go_on``) as the app yields them. None when the app failed before it
    started an answer."""
    started: list[tuple[int, list[tuple[bytes, bytes]], bool]] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], None]:
        encoded = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers]
        sized = any(name == b"content-length" for name, _ in encoded)
        started[:] = [(int(status.split(" ", 1)[0]), encoded, sized)]
        return lambda _: None  # the write() callable of old WSGI apps: Flask never calls it

    result: Iterable[bytes] | None = None
    streaming = False
    try:
        result = app(environ, start_response)
        iterator = iter(result)
        status, headers, sized = started[0]
        if sized:
            return status, headers, b"".join(iterator), False
        first = next(iterator, b"")
        go_on(_stream_rest, iterator, result, hand, gone)  # on another thread of the pool, once this returns
        streaming = True
        return status, headers, first, True
    except Exception:
        _log.exception("the gateway app failed on %s %s", environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"))
        return None
    finally:
        if not streaming:
            _close(result)


def _stream_rest(iterator: Any, result: Any, hand: Callable[[bytes | None], None], gone: threading.Event) -> None:
    try:
        for chunk in iterator:
            if gone.is_set():
                break
            if chunk:
                hand(chunk)
    except Exception:
        _log.exception("the gateway app failed in a streamed answer")
    finally:
        _close(result)
        hand(None)


def _close(result: Any) -> None:
    close = getattr(result, "close", None)
    if callable(close):
        try:
            close()
        except Exception:
            _log.exception("closing the gateway app's answer failed")


def _stamped(scope: Scope, send: Send) -> tuple[Scope, Send]:
    """The scope with its request id settled (the caller's if sane, else a new one) and a ``send`` that adds
    ``answer_headers.stamps`` to the answer's start, where the app has not written them already."""
    headers = scope.get("headers", ())
    sent = [value for name, value in headers if name == b"x-request-id"]
    request_id = answer_headers.request_id(sent[0].decode("latin-1") if len(sent) == 1 else "")
    if sent != [request_id.encode("latin-1")]:
        kept = [(name, value) for name, value in headers if name != b"x-request-id"]
        scope = {**scope, "headers": [*kept, (b"x-request-id", request_id.encode("latin-1"))]}
    stamps = [(name.lower().encode(), value.encode("latin-1")) for name, value in answer_headers.stamps(request_id)]

    async def stamped(message: dict[str, Any]) -> None:
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


def _environ(scope: Scope, body: bytes, gone: threading.Event) -> dict[str, Any]:
    """The WSGI environ (PEP 3333) of an ASGI HTTP scope, the body whole."""
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    path = scope.get("root_path", "") + scope["path"]
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": "",
        "PATH_INFO": path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "REMOTE_ADDR": str(client[0]),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        CLIENT_WATCH: lambda: gone.is_set,
    }
    for raw_name, raw_value in scope.get("headers", ()):
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        if name in ("CONTENT_LENGTH", "TRANSFER_ENCODING"):
            continue  # the body is whole: its length is the one above
        if name == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = value
            continue
        key = f"HTTP_{name}"
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


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
