"""The gateway's pacing of best moves (``service/api/rest/gateway_pacing.py``): a BestMove is sent on to the
server's fair queue rather than refused at the gateway, and a 429 to BestMove comes after a hold; both bounded by
the caller's deadline and on threads of their own, so that the rules calls are served while best moves wait. Real
gRPC servers (one with its only search slot taken and no queue: every BestMove refused) and real gateway
processes."""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent import futures

import pytest

from gamerules.v1 import gamerules_pb2 as pb
from service.api.rest.gateway_pacing import Pacing
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import ServiceConfig
from tests.api.conftest import http, running_gateway
from tests.api.test_faults import legal_moves, long_search
from tests.api.test_serving import best_move_request, fresh_stub

HELD = "gamerules_gateway_held_refusals_total"


@pytest.fixture(scope="module")
def busy_server() -> Iterator[str]:
    """A server whose only search slot is taken (a search held until the module ends) and that queues
    nothing: every BestMove sent to it is refused at once."""
    running = create_server(
        ServerConfig(service=ServiceConfig(search_slots=1, search_queue=0, max_think_ms=300_000)), address="127.0.0.1:0"
    )
    address = f"127.0.0.1:{running.port}"
    channel, stub = fresh_stub(address)
    searching = stub.BestMove.future(
        best_move_request(pb.SearchLimits(max_time_ms=240_000, max_depth=60, max_nodes=10**9)), timeout=300
    )
    try:
        yield address
    finally:
        searching.cancel()
        channel.close()
        running.shutdown(1)


def held_so_far(url: str) -> float:
    with urllib.request.urlopen(url + "/metrics", timeout=10) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith(HELD + " "):
                return float(line.split()[1])
    return 0.0


def wait_held(url: str, count: int, patience_s: float = 30) -> None:
    """Until the gateway has started holding ``count`` refusals; a failure if it has not within ``patience_s``
    (the refusals' deadlines are shorter: by then every one was answered)."""
    give_up = time.monotonic() + patience_s
    while (held := held_so_far(url)) < count:
        assert time.monotonic() < give_up, f"the gateway held {held:g} refusals, not {count}"
        time.sleep(0.05)


def refused_best_move(url: str, timeout: str) -> tuple[int, dict, object]:
    return http(url, "/v1/games/reversi:bestMove", long_search(300), headers={"Grpc-Timeout": timeout})


def test_refused_best_moves_are_held_on_threads_of_their_own_while_rules_calls_are_served(busy_server):
    """More refused best moves than the worker has request threads (8) are held at once, each until its
    deadline is near (the hold, 60 s, is longer than any deadline here), and a legal-move call is answered
    meanwhile; each then gets its 429 with Retry-After, before its deadline."""
    hold = {"GAMERULES_GATEWAY_REFUSAL_HOLD_S": "60", "GAMERULES_GATEWAY_WAITING_BEST_MOVES": "16"}
    with running_gateway(busy_server, env=hold) as url, futures.ThreadPoolExecutor(12) as pool:
        # All reach the server (the worker's share for best moves, then the slots) and are refused there.
        calls = [pool.submit(refused_best_move, url, "5S") for _ in range(12)]
        wait_held(url, 12)
        assert legal_moves(url)[0] == 200
        assert not any(call.done() for call in calls), "a refusal was answered before its hold ended"
        answers = [call.result() for call in calls]
    assert [status for status, _, _ in answers] == [429] * 12
    for _, body, headers in answers:
        assert 1 <= int(headers["Retry-After"]) <= 10  # type: ignore[index]  # at the gateway 1; the server's: 10
        assert body["details"][0]["reason"] == "OVERLOADED"


def test_refusals_beyond_the_held_ones_are_answered_at_once(busy_server):
    """With one hold slot, a second refused best move gets its 429 while the first is still held."""
    hold = {"GAMERULES_GATEWAY_REFUSAL_HOLD_S": "60", "GAMERULES_GATEWAY_WAITING_BEST_MOVES": "1"}
    with running_gateway(busy_server, env=hold) as url, futures.ThreadPoolExecutor(1) as pool:
        first = pool.submit(refused_best_move, url, "4S")
        wait_held(url, 1)
        status, body, _ = refused_best_move(url, "4S")
        assert status == 429 and body["details"][0]["reason"] == "OVERLOADED"
        assert not first.done(), "the first refusal is still held"
        assert held_so_far(url) == 1
        assert first.result()[0] == 429


def test_a_best_move_waits_for_the_gateways_share_instead_of_being_refused():
    """A gateway worker of 3 threads sends one BestMove on at a time (2 stay for the rules calls); the server
    queues searches. Two at once with 10 s deadlines: the second waits at the gateway, then in the server's
    queue, and both are answered (the gateway used to refuse the second at once)."""
    running = create_server(ServerConfig(service=ServiceConfig(search_slots=1, search_queue=4)), address="127.0.0.1:0")
    try:
        with (
            running_gateway(f"127.0.0.1:{running.port}", extra=("--threads", "3", "--max-queue-wait-s", "5")) as url,
            futures.ThreadPoolExecutor(2) as pool,
        ):
            answers = list(
                pool.map(
                    lambda _: http(
                        url, "/v1/games/reversi:bestMove", long_search(700), headers={"Grpc-Timeout": "10S"}
                    ),
                    range(2),
                )
            )
            assert legal_moves(url)[0] == 200
        assert [status for status, _, _ in answers] == [200, 200], answers
        assert all(body["stopReason"] == "time" for _, body, _ in answers)
    finally:
        running.shutdown(1)


def test_a_best_move_that_waited_at_the_gateway_is_sent_on_with_the_rest_of_its_deadline():
    """A best move that waited for the gateway's share has only the rest of its deadline left, and the server
    is told so. The second call here (deadline 5 s) waits about 2 s behind a 3 s search: told the rest, the
    server searches about 2.7 s; told the whole deadline, it would search 4.7 s (5 s less its margin) and answer
    after the caller gave up. The search's own time (``elapsedMs``) tells the two apart with a second to spare
    either way, where the answer's arrival against the client's clock would hang on the host's load."""
    running = create_server(ServerConfig(service=ServiceConfig(search_slots=1, search_queue=4)), address="127.0.0.1:0")
    try:
        with (
            running_gateway(f"127.0.0.1:{running.port}", extra=("--threads", "3", "--max-queue-wait-s", "5")) as url,
            futures.ThreadPoolExecutor(1) as pool,
        ):
            first = pool.submit(http, url, "/v1/games/reversi:bestMove", long_search(3000))
            time.sleep(1.0)  # the first has the worker's one place for best moves (a second to spare)
            status, body, _ = http(
                url, "/v1/games/reversi:bestMove", long_search(10_000), headers={"Grpc-Timeout": "5S"}
            )
            assert status == 200 and body["stopReason"] == "deadline", body
            assert body["elapsedMs"] < 3700, f"searched {body['elapsedMs']} ms: told the whole deadline, not the rest"
            assert first.result()[0] == 200
    finally:
        running.shutdown(1)


def test_waits_never_reach_into_the_deadline_and_take_only_their_slots():
    pacing = Pacing(slots=1, hold_s=60)
    assert not pacing.hold(time.perf_counter() + 0.01), "no time to hold before the deadline: answered at once"
    assert not Pacing(slots=0, hold_s=1).hold(time.perf_counter() + 10)
    assert not Pacing(slots=4, hold_s=0).hold(time.perf_counter() + 10)
    share = threading.BoundedSemaphore(1)
    release = pacing.admit(share, time.perf_counter() + 10)
    assert release == share.release, "a free place of the share is taken at once"
    beyond = pacing.admit(share, time.perf_counter() + 10)
    assert beyond is not None and pacing.waiting == 1, "the share taken: sent on, on the slot"
    assert pacing.admit(share, time.perf_counter() + 10) is None, "share and slot taken: refused"
    assert not pacing.hold(time.perf_counter() + 10), "its one slot is taken"
    beyond()
    release()
    assert pacing.waiting == 0
    started = threading.Event()
    holding = threading.Thread(target=pacing.hold, args=(time.perf_counter() + 1, started.set))
    holding.start()
    assert started.wait(30), "the hold did not start"
    assert pacing.waiting == 1
    assert pacing.admit(share, time.perf_counter() + 10) == share.release, "the share is not the holds'"
    assert pacing.admit(share, time.perf_counter() + 10) is None, "its one slot holds a refusal"
    holding.join()
    share.release()
    assert pacing.waiting == 0


def test_a_best_move_may_wait_a_while_for_the_share_before_it_is_sent_on_its_slot():
    share = threading.BoundedSemaphore(1)
    assert share.acquire(blocking=False)
    waiting = Pacing(slots=1, hold_s=1, max_wait_s=30)
    with futures.ThreadPoolExecutor(1) as pool:
        admitted = pool.submit(waiting.admit, share, time.perf_counter() + 30)
        while waiting.waiting == 0 and not admitted.done():
            time.sleep(0.01)
        share.release()
        assert admitted.result() == share.release, "the place freed while it waited: the slot is given back"
    assert waiting.waiting == 0
    began = time.perf_counter()
    sent = Pacing(slots=1, hold_s=1, max_wait_s=0.2).admit(share, time.perf_counter() + 30)
    assert sent is not None and sent != share.release, "sent on, on its slot, once its wait is over"
    assert 0.2 <= time.perf_counter() - began < 10
    assert Pacing(slots=1, hold_s=1, max_wait_s=30).admit(share, time.perf_counter() + 0.01) is not None, (
        "no time to wait: sent on at once"
    )


def test_the_server_gets_the_time_left_less_the_gateways_share():
    from service.api.rest.gateway_pacing import MARGIN_S, servers_share

    assert servers_share(1.0) == pytest.approx(1.0 - MARGIN_S)
    assert servers_share(MARGIN_S * 1.5) == pytest.approx(MARGIN_S)  # never less than the margin itself
    assert servers_share(MARGIN_S / 2) == pytest.approx(MARGIN_S / 2)  # nor more than is left
