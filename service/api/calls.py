"""What each gRPC call was and how it ended, for the metrics and the log: one server interceptor that times
every unary call once and hands the result to observers (``service/api/metrics.py``, ``service/api/logs.py``).

The code a call ended with is read from the servicer context: ``abort`` / ``abort_with_status`` (how every
error of ours leaves) and ``set_code`` record it there. A call the client cancelled or let run past its
deadline ends CANCELLED / DEADLINE_EXCEEDED whatever the handler returned. A server-streaming method of the
observed services (AnalyzePosition) is timed until its stream ends; other services' streaming methods (health
Watch, reflection) pass through unobserved.

It also decodes the requests: bytes that are no request of the method (corrupt wire format, invalid UTF-8
in a string, messages nested past protobuf's limit) are answered INVALID_ARGUMENT with a Status, counted
and logged in one line like any other refused call. (gRPC itself would answer INTERNAL "Exception
deserializing request!" and log a traceback, outside every interceptor.)
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

import grpc
from google.protobuf import descriptor
from google.protobuf.message import Message
from google.rpc import status_pb2
from grpc_status import rpc_status

from service.api.errors import invalid
from service.api.version import RELEASE_METADATA, VERSION

_log = logging.getLogger(__name__)

# Every answer names the worker process that gave it, in its initial metadata (``host/pid``: the pod and the
# pid in the JSON log lines); the gateway passes it on as the ``Gamerules-Worker`` header.
WORKER_METADATA = "gamerules-worker"

# Client-chosen strings that end up in logs are cut to this length.
_MAX_TEXT = 64

# A method's request and answer messages, passed through the interceptor untouched.
_Request = TypeVar("_Request", bound=Message)
_Response = TypeVar("_Response")


@dataclass(frozen=True, slots=True)
class Call:
    """One finished unary call."""

    service: str  # gamerules.v1.GameRules
    method: str  # LegalMoves
    game: str  # the request's game id ("" when it has none); client text, cut to 64 characters
    code: grpc.StatusCode
    seconds: float
    request_id: str  # the caller's x-request-id, if any (cut to 64 characters)


class CallObserver(Protocol):
    # Whether ``finished`` waits until the call's answer has been sent: a log line does (``_finished``), a
    # counter does not, so that a client reading the metrics after its answer finds its call counted.
    after_answer: bool

    def started(self, service: str, method: str) -> None: ...

    def finished(self, call: Call) -> None: ...


def split_method(full_method: str) -> tuple[str, str]:
    """``/gamerules.v1.GameRules/LegalMoves`` -> (``gamerules.v1.GameRules``, ``LegalMoves``)."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service, method


def final_code(context: grpc.ServicerContext, failed: bool) -> grpc.StatusCode:
    """How a call ended, from its context (``failed``: the handler raised)."""
    code = context.code()
    if code is not None:
        return code
    if not context.is_active():
        remaining = context.time_remaining()
        expired = remaining is not None and remaining <= 0
        return grpc.StatusCode.DEADLINE_EXCEEDED if expired else grpc.StatusCode.CANCELLED
    return grpc.StatusCode.UNKNOWN if failed else grpc.StatusCode.OK


def game_of(request: Message | Undecodable) -> str:
    """The game a request is about (``game`` or, for GetGame, ``name``), without the ``games/`` prefix."""
    name = getattr(request, "game", None) or getattr(request, "name", None) or ""
    return name.removeprefix("games/")[:_MAX_TEXT] if isinstance(name, str) else ""


def _request_id(context: grpc.ServicerContext) -> str:
    for key, value in context.invocation_metadata():
        if key == "x-request-id":
            return str(value)[:_MAX_TEXT]
    return ""


class ObservingInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]  # grpc has no type stubs
    """Times every unary call of the ``services`` and tells each observer when it starts and how it ended.
    Calls to methods the server does not have are not observed, so every label value stays bounded."""

    def __init__(self, observers: Sequence[CallObserver], services: Iterable[descriptor.ServiceDescriptor]) -> None:
        self._observers = tuple(observers)
        # Told when the handler leaves, and once the call is over (``_finished``).
        self._told = (
            tuple(observer for observer in observers if not observer.after_answer),
            tuple(observer for observer in observers if observer.after_answer),
        )
        self._known = {f"/{s.full_name}/{m.name}" for s in services for m in s.methods}
        # Wrapped handlers per method, reused while the server hands out the same handler object.
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        full_method = handler_call_details.method
        if handler is None or full_method not in self._known:
            return handler
        if handler.unary_unary is None and handler.unary_stream is None:
            return handler
        cached = self._wrapped.get(full_method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        if handler.unary_unary is not None:
            wrapped = handler._replace(unary_unary=self._observe(full_method, handler.unary_unary))
        else:
            wrapped = handler._replace(unary_stream=self._observe_stream(full_method, handler.unary_stream))
        wrapped = wrapped._replace(request_deserializer=_tolerant(handler.request_deserializer))
        self._wrapped[full_method] = (handler, wrapped)
        return wrapped

    def _observe_stream(
        self, full_method: str, behaviour: Callable[[_Request, grpc.ServicerContext], Iterator[_Response]]
    ) -> Callable[[_Request | Undecodable, grpc.ServicerContext], Iterator[_Response]]:
        """``_observe`` for a server-streaming method: the call ends when its stream does."""
        service, method = split_method(full_method)
        observers, told = self._observers, self._told
        worker = _worker()

        def observed(request: _Request | Undecodable, context: grpc.ServicerContext) -> Iterator[_Response]:
            for observer in observers:
                observer.started(service, method)
            began = time.perf_counter()
            failed = True
            try:
                yield from behaviour(_begin(method, request, context, worker), context)
                failed = False
            finally:
                _finished(told, service, method, request, context, failed, began)

        return observed

    def _observe(
        self, full_method: str, behaviour: Callable[[_Request, grpc.ServicerContext], _Response]
    ) -> Callable[[_Request | Undecodable, grpc.ServicerContext], _Response]:
        service, method = split_method(full_method)
        observers, told = self._observers, self._told
        worker = _worker()

        def observed(request: _Request | Undecodable, context: grpc.ServicerContext) -> _Response:
            for observer in observers:
                observer.started(service, method)
            began = time.perf_counter()
            failed = True
            try:
                response = behaviour(_begin(method, request, context, worker), context)
                failed = False
                return response
            finally:
                _finished(told, service, method, request, context, failed, began)

        return observed


def _finished(
    told: tuple[Sequence[CallObserver], Sequence[CallObserver]],
    service: str,
    method: str,
    request: Message | Undecodable,
    context: grpc.ServicerContext,
    failed: bool,
    began: float,
) -> None:
    """Tell the observers how a call ended (unary or streaming alike), as its handler left it. Those that
    wait for the answer are told once the call is over, from gRPC's own thread: a log line written before
    the answer woke the process that forwards the lines (``logs.capture_stderr``) and delayed the answer
    behind it (``python -m bench.load`` measures a call's latency)."""
    seconds = time.perf_counter() - began
    call = Call(service, method, game_of(request), final_code(context, failed), seconds, _request_id(context))
    at_once, later = told
    for observer in at_once:
        observer.finished(call)
    if not later:
        return

    def tell() -> None:
        for observer in later:
            observer.finished(call)

    if not context.add_callback(tell):  # the call is already over
        tell()


def _worker() -> tuple[tuple[str, str], ...]:
    """This process's ``gamerules-worker`` metadata (read when the handler is wrapped: after the fork) and the
    release (``gamerules-version``)."""
    return ((WORKER_METADATA, f"{socket.gethostname()}/{os.getpid()}"), (RELEASE_METADATA, VERSION))


def _begin(
    method: str, request: _Request | Undecodable, context: grpc.ServicerContext, worker: tuple[tuple[str, str], ...]
) -> _Request:
    """Name the worker; refuse a request that did not decode (one log line, an INVALID_ARGUMENT Status), else
    hand it on."""
    context.send_initial_metadata(worker)
    if isinstance(request, Undecodable):
        _log.warning("undecodable request", extra={"method": method, "error": request.error})
        context.abort_with_status(rpc_status.to_status(request.status()))
        raise AssertionError("abort_with_status returned")  # it raises; grpc has no stubs to say so
    return request


class Undecodable:
    """What a request's bytes decode to when they are no request of the method."""

    __slots__ = ("error",)

    def __init__(self, error: str) -> None:
        self.error = error[:200]

    def status(self) -> status_pb2.Status:
        return invalid("", f"the request is not a valid message of this method ({self.error})").to_status()


def _tolerant(
    deserialize: Callable[[bytes], _Request] | None,
) -> Callable[[bytes], _Request | Undecodable] | None:
    if deserialize is None:
        return None

    def decode(data: bytes) -> _Request | Undecodable:
        try:
            return deserialize(data)
        except Exception as error:  # DecodeError, RecursionError: whatever the bytes provoke
            return Undecodable(f"{type(error).__name__}: {error}")

    return decode
