"""The gateway's pacing of best moves (``service/api/rest/gateway_pacing.py``): a BestMove is sent on to the
server's fair queue rather than refused at the gateway, and a 429 to BestMove comes after a hold; both bounded by
the caller's deadline, and waiting in the worker's event loop, so that the rules calls are served while best
moves wait. Real gRPC servers (one with its only search slot taken and no queue: every BestMove refused) and real
gateway processes."""

from __future__ import annotations

import asyncio
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


def test_refused_best_moves_are_held_while_rules_calls_are_served(busy_server):
    """Twelve refused best moves are held at once, each until its deadline is near (the hold, 60 s, is longer
    than any deadline here), and a legal-move call is answered meanwhile; each then gets its 429 with
    Retry-After, before its deadline."""
    hold = {"GAMERULES_GATEWAY_REFUSAL_HOLD_S": "60", "GAMERULES_GATEWAY_WAITING_BEST_MOVES": "16"}
    with running_gateway(busy_server, env=hold) as url, futures.ThreadPoolExecutor(12) as pool:
        # All reach the server and are refused there; each holds one of the 16 slots.
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


def test_a_best_move_waits_in_the_servers_queue_instead_of_being_refused():
    """The server has one slot and queues searches. Two at once with 10 s deadlines: the second waits in the
    server's queue, and both are answered (the gateway once refused the second at once). The settings of the
    gateway's old request threads are accepted and change nothing."""
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


def test_a_best_move_that_waited_is_searched_for_the_rest_of_its_deadline():
    """A best move that waited behind another has only the rest of its deadline left: the gateway passes the
    caller's deadline on at once and the call waits in the server's queue, which counts the wait against it
    (through REST, end to end). The second call here (deadline 5 s) waits about 2 s behind a 3 s search:
    counting the wait, the server searches about 2.7 s; not counting it, it would search 4.7 s (5 s less the
    gateway's margin) and answer after the caller gave up. The search's own time (``elapsedMs``) tells the two
    apart with a second to spare either way, where the answer's arrival against the client's clock would hang
    on the host's load."""
    running = create_server(ServerConfig(service=ServiceConfig(search_slots=1, search_queue=4)), address="127.0.0.1:0")
    try:
        with (
            running_gateway(f"127.0.0.1:{running.port}") as url,
            futures.ThreadPoolExecutor(1) as pool,
        ):
            first = pool.submit(http, url, "/v1/games/reversi:bestMove", long_search(3000))
            time.sleep(1.0)  # the first has the server's one slot (a second to spare)
            status, body, _ = http(
                url, "/v1/games/reversi:bestMove", long_search(10_000), headers={"Grpc-Timeout": "5S"}
            )
            assert status == 200 and body["stopReason"] == "deadline", body
            assert body["elapsedMs"] < 3700, f"searched {body['elapsedMs']} ms: told the whole deadline, not the rest"
            assert first.result()[0] == 200
    finally:
        running.shutdown(1)


def test_holds_never_reach_into_the_deadline_and_take_only_their_slots():
    async def run() -> None:
        pacing = Pacing(slots=1, hold_s=60)
        assert not await pacing.hold(time.perf_counter() + 0.01), "no time to hold before the deadline"
        assert not await Pacing(slots=0, hold_s=1).hold(time.perf_counter() + 10)
        assert not await Pacing(slots=4, hold_s=0).hold(time.perf_counter() + 10)
        started = asyncio.Event()
        holding = asyncio.ensure_future(pacing.hold(time.perf_counter() + 1, started.set))
        await asyncio.wait_for(started.wait(), 30)
        assert pacing.waiting == 1
        assert not await pacing.hold(time.perf_counter() + 10), "its one slot is taken: answered at once"
        assert await holding and pacing.waiting == 0
        began = time.perf_counter()
        assert await Pacing(slots=1, hold_s=60).hold(began + 0.5)
        assert time.perf_counter() - began < 0.5, "held until the margin before the deadline, no longer"

    asyncio.run(run())


def test_the_server_gets_the_time_left_less_the_gateways_share():
    from service.api.rest.gateway_pacing import MARGIN_S, servers_share

    assert servers_share(1.0) == pytest.approx(1.0 - MARGIN_S)
    assert servers_share(MARGIN_S * 1.5) == pytest.approx(MARGIN_S)  # never less than the margin itself
    assert servers_share(MARGIN_S / 2) == pytest.approx(MARGIN_S / 2)  # nor more than is left
