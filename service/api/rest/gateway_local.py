"""The gateway served inside this process, for scripts and tests: a synchronous client of the same ASGI app a
granian worker serves (the front and the one request path), without a socket.

``GatewayClient(config)`` runs the app on an event loop of its own, in a thread of its own (the app's gRPC
channels belong to that loop); each request goes through the front whole (body bounds, request id, release
header) as it would from a client on loopback. Used by ``record_examples``, the docs' samples, benchmarks and
tests that need the gateway's answers without starting a gateway process.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
import urllib.parse
from collections.abc import Coroutine, Iterator, Mapping
from types import TracebackType
from typing import TypeVar

from service.api.rest.gateway_asgi import ASGIMessage, Front, Scope
from service.api.rest.gateway_config import GatewayConfig
from service.api.rest.gateway_path import GatewayPath

T = TypeVar("T")


class Headers(Mapping[str, str]):
    """An answer's headers, by name in any case (repeated ones joined with commas)."""

    def __init__(self, pairs: list[tuple[bytes, bytes]]) -> None:
        self._named: dict[str, str] = {}
        self._case: dict[str, str] = {}
        for raw_name, raw_value in pairs:
            name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
            key = name.lower()
            self._named[key] = f"{self._named[key]},{value}" if key in self._named else value
            self._case.setdefault(key, name)

    def __getitem__(self, name: str) -> str:
        return self._named[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._named

    def __iter__(self) -> Iterator[str]:
        return iter(self._case.values())

    def __len__(self) -> int:
        return len(self._named)


@dataclasses.dataclass
class LocalAnswer:
    """One answer: its status, headers and body bytes."""

    status_code: int
    headers: Headers
    data: bytes

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    @property
    def json(self) -> object:
        return json.loads(self.data) if self.data else None


class GatewayClient:
    """A synchronous client of the gateway app built from ``config``, served in this process."""

    def __init__(self, config: GatewayConfig | None = None, client: str = "127.0.0.1") -> None:
        self._config = config or GatewayConfig.from_env()
        self._client = client
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="gateway-local", daemon=True)
        self._thread.start()
        self._path = self._run(self._build())
        self._front = Front(self._path, self._config.front())

    async def _build(self) -> GatewayPath:
        return GatewayPath(self._config)

    def _run(self, coroutine: Coroutine[object, object, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def open(
        self,
        path: str,
        method: str = "GET",
        json: object = None,
        data: bytes | str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> LocalAnswer:
        """One request: ``json`` sent as a JSON body, or ``data`` as is."""
        body = _body(json, data)
        sent = {"Content-Type": "application/json"} if json is not None else {}
        sent.update(headers or {})
        if body or method not in ("GET", "HEAD", "OPTIONS"):
            sent["Content-Length"] = str(len(body))
        status, answer_headers, answer = self._run(self._request(method, path, sent, body))
        return LocalAnswer(status, Headers(answer_headers), answer)

    def get(self, path: str, headers: Mapping[str, str] | None = None) -> LocalAnswer:
        return self.open(path, "GET", headers=headers)

    def post(
        self,
        path: str,
        json: object = None,
        data: bytes | str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> LocalAnswer:
        return self.open(path, "POST", json, data, headers)

    def options(self, path: str, headers: Mapping[str, str] | None = None) -> LocalAnswer:
        return self.open(path, "OPTIONS", headers=headers)

    async def _request(
        self, method: str, target: str, headers: Mapping[str, str], body: bytes
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        path, _, query = target.partition("?")
        scope: Scope = {
            "type": "http",
            "http_version": "1.1",
            "method": method,
            "path": urllib.parse.unquote(path),
            "query_string": query.encode("latin-1"),
            "headers": [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()],
            "client": (self._client, 40000),
            "server": ("127.0.0.1", 80),
        }
        pending: list[ASGIMessage] = [{"type": "http.request", "body": body, "more_body": False}]
        never = asyncio.Event()  # the client never leaves

        async def receive() -> ASGIMessage:
            if pending:
                return pending.pop(0)
            await never.wait()
            return {"type": "http.disconnect"}

        started: ASGIMessage = {}
        parts: list[bytes] = []

        async def send(message: ASGIMessage) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
            else:
                parts.append(message.get("body", b""))

        await self._front(scope, receive, send)
        return started["status"], list(started.get("headers", [])), b"".join(parts)

    def close(self) -> None:
        self._run(self._path.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def __enter__(self) -> GatewayClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def _body(payload: object, data: bytes | str | None) -> bytes:
    if payload is not None:
        return json.dumps(payload).encode()
    if isinstance(data, str):
        return data.encode()
    return data or b""


def local_client(
    backend: str, timeout_s: float | None = None, config: GatewayConfig | None = None, client: str = "127.0.0.1"
) -> GatewayClient:
    """A client at the address ``client`` of the gateway in front of the gRPC server at ``backend`` (the rest of
    its config ``config``'s, else the environment's), with ``timeout_s`` as the default deadline when given."""
    config = config or GatewayConfig.from_env()
    config = dataclasses.replace(config, grpc_target=backend, timeout_s=timeout_s or config.timeout_s)
    return GatewayClient(config, client)
