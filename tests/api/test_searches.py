"""The search pool's fair queue (``service/api/rpc/searches.py``) and who a caller is (``service/api/callers.py``).

The pool runs in thread mode with searches that hold their slot until the test lets them go, so every case is
decided by the queue's rules, not by how fast the box is."""

from __future__ import annotations

import pickle
import threading
import time
from collections.abc import Iterator
from concurrent import futures

import pytest

from service import core
from service.api import callers
from service.api.rpc import searches
from service.api.rpc.searches import CallerGone, CallerStop, Overloaded, SearchJob, SearchPool


class Held:
    """Searches that run until released, by the game name their job carries (the tests' label for a call)."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self._release: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def __call__(self, job: SearchJob, stop: core.StopSignal) -> core.SearchResult:
        with self._lock:
            self.started.append(job.game)
            event = self._release.setdefault(job.game, threading.Event())
        event.wait(30)
        return core.SearchResult(move=job.game, value=0.0, exact=False)

    def release(self, label: str) -> None:
        with self._lock:
            self._release.setdefault(label, threading.Event()).set()

    def wait_started(self, *labels: str) -> None:
        deadline = time.monotonic() + 10
        while not all(label in self.started for label in labels):
            assert time.monotonic() < deadline, (labels, self.started)
            time.sleep(0.005)


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    searches_held = Held()
    monkeypatch.setattr(searches, "_search", searches_held)
    yield searches_held
    for label in list(searches_held.started):
        searches_held.release(label)


def job(label: str, seconds: float = 20.0, time_ms: int | None = None) -> SearchJob:
    limits = core.Limits(max_time_ms=time_ms) if time_ms else None
    return SearchJob(label, "", None, limits, 0, 1, time.monotonic() + seconds, "time")


def submit(
    pool: SearchPool, runner: futures.ThreadPoolExecutor, label: str, caller: str, **kw: float
) -> futures.Future:
    return runner.submit(pool.run, job(label, **kw), CallerStop(), caller)


def waiting(pool: SearchPool, count: int) -> None:
    deadline = time.monotonic() + 10
    while pool.waiting != count:
        assert time.monotonic() < deadline, pool.waiting
        time.sleep(0.005)


def test_a_caller_holds_at_most_half_the_slots_and_another_gets_the_rest(held: Held) -> None:
    pool = SearchPool(capacity=2, queue_size=4, mode="thread", max_wait_s=20)
    with futures.ThreadPoolExecutor(8) as runner:
        greedy = [submit(pool, runner, f"greedy{index}", "greedy") for index in range(3)]
        held.wait_started("greedy0")
        waiting(pool, 2)  # greedy's other two wait although a slot is free: its share is one
        assert held.started == ["greedy0"]
        modest = submit(pool, runner, "modest", "modest")
        held.wait_started("modest")  # the free slot is the modest caller's at once
        held.release("modest")
        assert modest.result(10).move == "modest"
        for index in range(3):
            held.release(f"greedy{index}")
        assert [call.result(10).move for call in greedy] == ["greedy0", "greedy1", "greedy2"]
    pool.close()


def test_a_freed_slot_goes_to_the_caller_running_fewest_then_to_the_longest_waiting(held: Held) -> None:
    pool = SearchPool(capacity=2, queue_size=8, mode="thread", max_wait_s=20, caller_slots=2)
    with futures.ThreadPoolExecutor(8) as runner:
        calls = [submit(pool, runner, "a1", "a"), submit(pool, runner, "a2", "a")]
        held.wait_started("a1", "a2")
        calls.append(submit(pool, runner, "a3", "a"))
        waiting(pool, 1)
        calls.append(submit(pool, runner, "b1", "b"))
        waiting(pool, 2)
        held.release("a1")  # a runs one, b none: b's call goes first although a3 came first
        held.wait_started("b1")
        assert "a3" not in held.started
        held.release("a2")
        held.wait_started("a3")
        for label in ("a3", "b1"):
            held.release(label)
        assert [call.result(10).move for call in calls] == ["a1", "a2", "a3", "b1"]
    pool.close()


def test_a_full_queue_makes_room_for_another_caller_by_refusing_the_greediest(held: Held) -> None:
    pool = SearchPool(capacity=1, queue_size=2, mode="thread", max_wait_s=20)
    with futures.ThreadPoolExecutor(8) as runner:
        first = submit(pool, runner, "g0", "greedy")
        held.wait_started("g0")
        queued = [submit(pool, runner, "g1", "greedy"), submit(pool, runner, "g2", "greedy")]
        waiting(pool, 2)
        with pytest.raises(Overloaded):  # greedy's own third waiter: the queue is full of greedy's
            pool.run(job("g3"), CallerStop(), "greedy")
        modest = submit(pool, runner, "m", "modest")
        with pytest.raises(Overloaded, match="this caller has the most"):
            queued[1].result(10)  # greedy's newest gave its place up
        held.release("g0")
        held.wait_started("m")  # and the modest call has the slot before greedy's older one
        for label in ("m", "g1"):
            held.release(label)
        assert modest.result(10).move == "m" and queued[0].result(10).move == "g1" and first.result(10).move == "g0"
    pool.close()


def test_a_call_waits_at_most_the_bound_and_is_told_when_the_slot_frees(held: Held) -> None:
    pool = SearchPool(capacity=1, queue_size=4, mode="thread", max_wait_s=0.2)
    with futures.ThreadPoolExecutor(2) as runner:
        holder = runner.submit(pool.run, job("h", time_ms=4000), CallerStop(), "a")
        held.wait_started("h")
        began = time.monotonic()
        with pytest.raises(Overloaded, match="no search slot freed in time") as refused:
            pool.run(job("late", seconds=30), CallerStop(), "b")  # its deadline would let it wait 30 s
        assert time.monotonic() - began < 20  # the bound, not the deadline (no tighter wall-clock claim)
        assert 1 <= refused.value.retry_after_s <= 4  # the holder's 4 s
        held.release("h")
        holder.result(10)
    pool.close()


class Leaving(CallerStop):
    """A call whose caller leaves when the test says so."""

    __slots__ = ("gone",)

    def __init__(self) -> None:
        self.gone = False

    def active(self) -> bool:
        return not self.gone


def test_a_call_whose_caller_left_while_it_waited_is_passed_over_and_never_searches(held: Held) -> None:
    pool = SearchPool(capacity=1, queue_size=4, mode="thread", max_wait_s=20)
    with futures.ThreadPoolExecutor(4) as runner:
        holder = submit(pool, runner, "h", "a")
        held.wait_started("h")
        leaving = Leaving()
        gone = runner.submit(pool.run, job("gone"), leaving, "b")
        waiting(pool, 1)
        following = submit(pool, runner, "next", "c")
        waiting(pool, 2)
        leaving.gone = True  # its caller leaves; the slot frees before the waiting call could look
        held.release("h")
        held.wait_started("next")
        with pytest.raises(CallerGone):
            gone.result(10)
        held.release("next")
        assert following.result(10).move == "next" and holder.result(10).move == "h"
        assert "gone" not in held.started and pool.waiting == 0
    pool.close()


def test_a_caller_is_its_key_else_a_trusted_peers_word_else_its_address() -> None:
    trusted = callers.trusted_networks(callers.DEFAULT_TRUSTED_PEERS)
    metadata = {"x-api-key": "secret", callers.CALLER_METADATA: "user-7"}
    keyed = callers.identify(metadata.get, "ipv4:10.0.0.7:5000", trusted)
    assert keyed.kind == "key" and "secret" not in keyed.name
    forwarded = {callers.CALLER_METADATA: "user-7"}.get
    assert callers.identify(forwarded, "ipv4:127.0.0.1:5000", trusted) == callers.Caller(
        "forwarded:user-7", "forwarded"
    )
    assert callers.identify(forwarded, "ipv6:[::1]:5000", trusted).kind == "forwarded"
    # From a peer that is not trusted the word counts for nothing: a client cannot split itself into many.
    assert callers.identify(forwarded, "ipv4:10.0.0.7:5000", trusted) == callers.Caller("address:10.0.0.7", "address")
    assert callers.identify({}.get, "ipv6:[2001:db8::1]:443", trusted).name == "address:2001:db8::1"
    with pytest.raises(ValueError, match="GAMERULES_TRUSTED_PEERS: 'nonsense'"):
        callers.trusted_networks("10.0.0.0/8, nonsense")


def test_the_gateway_names_a_trusted_clients_player_and_otherwise_the_address() -> None:
    trusted = callers.trusted_networks("10.0.0.0/8")
    assert callers.named_by("10.1.2.3", " player-7 ", trusted) == "10.1.2.3/player-7"
    assert callers.named_by("192.168.0.9", "player-7", trusted) == "192.168.0.9", "an untrusted client's is ignored"
    assert callers.named_by("10.1.2.3", "", trusted) == callers.named_by("10.1.2.3", None, trusted) == "10.1.2.3"
    assert len(callers.named_by("10.1.2.3", "p" * 500, trusted)) == callers.MAX_CALLER_CHARS
    with pytest.raises(ValueError, match="send addresses or networks"):
        callers.networks_setting("10.0.0.0/8, nonsense")


class _Streamed(CallerStop):
    """A streamed analysis's stop signal: it keeps every iteration handed to it."""

    __slots__ = ("end", "iterations", "on_iteration", "reason")

    def __init__(self) -> None:
        self.end = time.monotonic() + 30
        self.reason = "deadline"
        self.iterations: list[core.SearchResult] = []
        self.on_iteration = self.iterations.append


def test_a_streamed_search_takes_no_iteration_an_earlier_search_of_its_slot_left_behind() -> None:
    """A search process's queue feeds from a thread of its own, which a loaded box runs late: iterations of an
    earlier search of the slot may still arrive after its answer. They were handed to the next search of the
    slot (a Kalah line played on a Reversi board: INTERNAL, under load). Each message now names its search."""
    pool = SearchPool(capacity=1, queue_size=1, mode="process", max_wait_s=20)
    try:
        pool.start()
        left_behind = core.SearchResult(move=99, value=0.0, exact=False, pv=[99, 98, 97], depth=7)
        pool._updates[0].put((0, pickle.dumps(left_behind)))  # run 0: no search of this pool is numbered so
        kalah = "4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4"
        stop = _Streamed()
        answer = pool.run(SearchJob("kalah", kalah, "hard", core.Limits(max_depth=3), 0, 1, stop.end, "deadline"), stop)
        assert [it.depth for it in stop.iterations] == [1, 2, 3]  # this search's, in order, every one
        assert all(it.move in range(1, 7) for it in stop.iterations) and answer.move in range(1, 7)
    finally:
        pool.close()
