"""The gateway's connections to the gRPC server, over ``grpc.aio`` in the worker's event loop, and how calls are
spread over them.

The server's workers share one port (``SO_REUSEPORT``), and the kernel hands each new connection to one of
them; calls on one connection all go to the same worker. So the gateway opens ``GatewayConfig.connections``
(``GAMERULES_GRPC_TARGET_CONNECTIONS``) connections and takes them in turn: the calls spread over every worker
that got a connection (with 8 connections and 2 workers, all 8 land on one worker once in 128 starts), and,
behind a Kubernetes Service, over the pods as well. A unary call that fails UNAVAILABLE (the worker died, the
connection broke: nothing of it ran) is sent again once, on the next connection; every RPC is a pure function
of its request, so a retry cannot do anything twice.

A call given the request's hang-up (``gone``, set by the front when the client leaves) is cancelled once it is
set: the server sees the call cancelled and stops its search (``ClientGone``). The channels are made on first
use, in the event loop that uses them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TypeVar

import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.api.rest.gateway import RETRY_PAUSE_S, SERVICE, Route, channel_arguments, worker_of
from service.api.rest.gateway_config import GatewayConfig

Metadata = list[tuple[str, str]]
T = TypeVar("T")


class ClientGone(Exception):
    """The HTTP client left while its call ran: the call was cancelled."""

    MESSAGE = "the client closed the connection before the answer"


def _serialize(message: Message) -> bytes:
    data: bytes = message.SerializeToString()
    return data


class Backends:
    """One gateway worker's ``grpc.aio`` channels to the server, and its calls on them."""

    def __init__(self, config: GatewayConfig, routes: list[Route]) -> None:
        self._config, self._routes = config, routes
        self._channels: list[grpc.aio.Channel] = []
        self._unary: list[dict[str, grpc.aio.UnaryUnaryMultiCallable]] = []  # per channel: by gRPC path
        self._streams: list[dict[str, grpc.aio.UnaryStreamMultiCallable]] = []
        self._turn = 0

    def _open(self) -> None:
        for index in range(self._config.connections):
            options, credentials = channel_arguments(self._config, index)
            target = self._config.grpc_target
            if credentials is None:
                channel = grpc.aio.insecure_channel(target, options=options)
            else:
                channel = grpc.aio.secure_channel(target, credentials, options=options)
            self._channels.append(channel)
            unary, streams = {}, {}
            for route in self._routes:
                if route.method.server_streaming:
                    streams[route.path] = channel.unary_stream(
                        route.path, request_serializer=_serialize, response_deserializer=route.response_class.FromString
                    )
                else:
                    unary[route.path] = channel.unary_unary(
                        route.path, request_serializer=_serialize, response_deserializer=route.response_class.FromString
                    )
            self._unary.append(unary)
            self._streams.append(streams)

    def _next(self) -> int:
        if not self._channels:
            self._open()
        self._turn = (self._turn + 1) % len(self._channels)
        return self._turn

    async def unary(
        self, route: Route, message: Message, timeout: float, metadata: Metadata, gone: asyncio.Event | None = None
    ) -> tuple[Message, str]:
        """(answer, the worker that answered): sent on the next connection in turn, and once more on the one
        after if it fails UNAVAILABLE. Raises the call's ``grpc.aio.AioRpcError``, or ``ClientGone``."""
        deadline = time.monotonic() + timeout
        first = self._next()
        try:
            return await self._send(self._unary[first][route.path], message, timeout, metadata, gone)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            # A worker that died breaks all its connections at once, but each learns of it on its own: after a
            # moment's pause the next connection knows, and reconnects (to a live worker) if it was one of them.
            await asyncio.sleep(min(RETRY_PAUSE_S, max(deadline - time.monotonic(), 0.0)))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise
        retry = (first + 1) % len(self._channels)
        return await self._send(self._unary[retry][route.path], message, remaining, metadata, gone)

    @staticmethod
    async def _send(
        multicallable: grpc.aio.UnaryUnaryMultiCallable,
        message: Message,
        timeout: float,
        metadata: Metadata,
        gone: asyncio.Event | None,
    ) -> tuple[Message, str]:
        call = multicallable(message, timeout=timeout, metadata=metadata)
        answer: Message = await unless_gone(call, gone, call)
        return answer, worker_of(await call.initial_metadata())

    def stream(self, route: Route, message: Message, timeout: float, metadata: Metadata) -> grpc.aio.UnaryStreamCall:
        """A server-streaming call, started; its messages are read with ``read()``."""
        call: grpc.aio.UnaryStreamCall = self._streams[self._next()][route.path](
            message, timeout=timeout, metadata=metadata
        )
        return call

    async def serving(self) -> bool:
        """Whether the server says it serves the API (gRPC health), within 2 s; its RpcError if it cannot."""
        self._next()
        stub = health_pb2_grpc.HealthStub(self._channels[0])
        request = health_pb2.HealthCheckRequest(service=SERVICE.full_name)
        answer = await stub.Check(request, timeout=2)
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)

    async def close(self) -> None:
        for channel in self._channels:
            await channel.close()
        self._channels.clear()


async def unless_gone(pending: Awaitable[T], gone: asyncio.Event | None, call: grpc.aio.Call) -> T:
    """``pending``'s result, unless the client leaves first (``gone`` set): then ``call`` is cancelled, which
    stops the server's search, and ``ClientGone`` raised."""
    if gone is None:
        return await pending
    if gone.is_set():
        call.cancel()
        raise ClientGone
    task = asyncio.ensure_future(pending)
    waiter = asyncio.ensure_future(gone.wait())
    try:
        await asyncio.wait((task, waiter), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:  # the request's own task: its call goes with it
        call.cancel()
        task.cancel()
        raise
    finally:
        waiter.cancel()
    if task.done():
        return task.result()
    call.cancel()
    task.cancel()
    raise ClientGone
