"""When the call interceptor tells its observers (``service/api/calls.py``): a counter before the answer is
sent, a log line once the call is over (gRPC's callback at its end), at once when the call is already over."""

from __future__ import annotations

import time

import grpc
import pytest

from gamerules.v1 import gamerules_pb2 as pb
from service.api import calls, logs, metrics
from service.api.calls import Call


class _Observer:
    def __init__(self, after_answer: bool) -> None:
        self.after_answer = after_answer
        self.told: list[Call] = []

    def started(self, service: str, method: str) -> None:
        pass

    def finished(self, call: Call) -> None:
        self.told.append(call)


class _Context:
    """What ``calls._finished`` reads of a servicer context; ``over``: the call has already ended."""

    def __init__(self, over: bool = False) -> None:
        self.over = over
        self.at_end: list = []

    def code(self) -> grpc.StatusCode | None:
        return None

    def is_active(self) -> bool:
        return True

    def invocation_metadata(self) -> tuple:
        return (("x-request-id", "r-7"),)

    def add_callback(self, callback) -> bool:
        if self.over:
            return False
        self.at_end.append(callback)
        return True


def _finish(context: _Context, *observers: _Observer, began: float = 0.0) -> None:
    """``_finished`` as the interceptor calls it, with the observers split as ``ObservingInterceptor`` splits
    them."""
    interceptor = calls.ObservingInterceptor(observers, [])
    request = pb.LegalMovesRequest(game="reversi")
    calls._finished(interceptor._told, "gamerules.v1.GameRules", "LegalMoves", request, context, False, began)


def test_a_counter_is_told_at_once_and_a_log_line_once_the_call_is_over():
    counter, log = _Observer(after_answer=False), _Observer(after_answer=True)
    context = _Context()
    began = time.perf_counter()
    _finish(context, counter, log, began=began)
    handler_left = time.perf_counter() - began
    assert len(counter.told) == 1 and log.told == []
    (at_end,) = context.at_end
    time.sleep(0.05)  # the answer on its way
    at_end()  # gRPC calls it when the call has ended, its answer sent
    assert log.told == counter.told
    (call,) = log.told
    assert (call.method, call.game, call.code, call.request_id) == ("LegalMoves", "reversi", grpc.StatusCode.OK, "r-7")
    # Its duration is the time until the handler left, not until the line was written.
    assert 0 < call.seconds <= handler_left


def test_a_call_already_over_is_told_at_once():
    log = _Observer(after_answer=True)
    _finish(_Context(over=True), log)
    assert len(log.told) == 1


@pytest.mark.parametrize(("observer", "after_answer"), [(logs.CallLog(), True), (metrics.GrpcMetrics([]), False)])
def test_the_service_log_waits_for_the_answer_and_its_metrics_do_not(observer, after_answer):
    assert observer.after_answer is after_answer
