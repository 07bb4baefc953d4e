"""Where best-move searches run, and how many at once: a bounded, fair queue in front of a fixed number of
search slots, with the searches at a lower scheduling priority than the calls of the rules.

Admission. A process runs at most ``capacity`` searches at once, and one caller at most ``caller_slots`` of
them (half, at least one): a caller is who ``callers.py`` says (its API key, a trusted backend's word, its
address). Up to ``queue`` more calls wait for a slot; when the queue is full, a call of the caller with the
most calls waiting is refused to make room for another caller's (``_push_out``). A slot that frees goes to the
waiting caller that runs the fewest searches; among equals, to the one whose last search started longest
ago, then to the longest-waiting call.
A call waits at most ``max_wait_s`` (10 s), and never past the time its own search must end (the
caller's deadline minus the answer margin, at most the server's cap) less ``MIN_SEARCH_S``. Beyond that it
is refused (``Overloaded``: RESOURCE_EXHAUSTED with ``google.rpc.RetryInfo``, 429 with ``Retry-After``
over REST), with a retry delay of when the soonest running search ends. So one greedy caller running twenty
10 s searches takes one slot of two and the queue's places of each worker, and another caller's 100 ms
search still finds a slot (``python -m bench --only fair`` measures both).

Priority. A portal sends a rules call on every human move and expects it back at once; a search takes all the
CPU it is given. So searches run on cores of their own where the server owns several (``cpus.py``: the
workers, which serve the rules calls, on the others), and where the kernel's scheduler can put the rules calls
first:

- ``process`` (the default): in ``capacity`` search processes per worker at nice ``SEARCH_NICE``. The worker's
  interpreter then never waits for a search to hand back its lock, and the kernel gives the rules calls
  the cores first. Streamed analyses search there too, and hand each iteration back through a queue of
  their slot. Forked by a forkserver, which starts from a fresh interpreter: a process that runs gRPC
  must not fork itself.
- ``thread``: in ``capacity`` threads of the worker, each niced on its own (``os.setpriority`` on the
  thread's id, Linux). Cheaper, but a search thread holds the interpreter lock that the rules calls of its
  process need; the serving benchmark (``python -m bench --only soak``) measures both.

A search's stop signal is the caller's: it ends when the call is cancelled or its time is up (``end``).
"""

from __future__ import annotations

import ctypes
import itertools
import logging
import math
import multiprocessing
import multiprocessing.queues
import os
import pickle
import queue
import signal
import threading
import time
from collections.abc import Callable
from concurrent import futures
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeAlias

from service import core
from service.api import cpus
from service.games import GAMES, LEVELS
from service.levels import play_level

_log = logging.getLogger(__name__)

MODES = ("process", "thread")
SEARCH_NICE = 10  # above the rules calls' 0; the Linux scheduler then gives a search ~1/10 of a contended core
# A search granted its slot later than this before its end would only return its first guess: refused instead.
MIN_SEARCH_S = 0.02
_CALLERS_REMEMBERED = 1024  # callers whose last start the queue keeps before it forgets those gone
_CANCEL_POLL_S = 0.05  # how often a waiting call checks whether its caller went away (process mode)
_WORKER_WATCH_S = 1.0  # how often a search process checks that its worker is still there


class Overloaded(Exception):
    """No search slot: the queue (or the caller's part of it) is full, or no slot freed in time. ``retry_after_s``:
    when a slot is expected to be free (the soonest running search's end)."""

    def __init__(self, message: str, retry_after_s: int = 1, waited: bool = False) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s
        self.waited = waited  # refused after waiting in the queue (else at once)


class CallerGone(Exception):
    """The caller went away while its search waited for a slot: nothing was searched, nobody reads the answer."""


class SearchLost(Exception):
    """The search process died under the search (killed, out of memory); the call is safe to retry."""


# Searches per worker process. Two: a search process holds no lock of the worker's, so a second caller's search
# runs beside a first one's (each caller may hold half the slots), and a lone caller uses one slot per worker,
# one search per core with a worker per core, as when there was one slot.
DEFAULT_CAPACITY = 2
# The longest a best move waits for a slot before its 429 (never past its own deadline): the server's cap on a
# search: a caller's deadline decides how long it waits, in fair order.
DEFAULT_MAX_WAIT_S = 10.0


def default_capacity() -> int:
    return DEFAULT_CAPACITY


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One best-move search, in plain values (a search process receives it pickled)."""

    game: str
    notation: str
    level: str | None
    limits: core.Limits | None
    seed: int
    top_n: int
    end: float  # time.monotonic() at which the search must have answered (the clock is the host's)
    reason: str  # the stop reason once ``end`` is reached: "time" (the server's cap) or "deadline"
    cap_ms: int | None = None  # the server's cap on one search, which the level's Budget applies
    purpose: core.Purpose = "play"


@dataclass(slots=True)
class _Waiter:
    caller: str
    order: int
    stop: CallerStop
    ticket: int | None = None  # set by the one that hands it a slot
    pushed_out: bool = False  # set when a call of a caller with fewer waiting took its place


class SearchPool:
    """Admission and execution of one process's searches (``mode``: ``process`` or ``thread``)."""

    def __init__(
        self,
        capacity: int,
        queue_size: int,
        mode: str = "process",
        nice: int = SEARCH_NICE,
        cores: frozenset[int] | None = None,
        max_wait_s: float = DEFAULT_MAX_WAIT_S,
        caller_slots: int | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"search mode must be one of {MODES}, not {mode!r}")
        self.capacity, self.mode, self._nice, self._cores = capacity, mode, nice, cores
        self.queue_size, self.max_wait_s = queue_size, max_wait_s
        self.caller_slots = caller_slots or max(1, capacity // 2)
        self._free = list(range(capacity))  # the slots' tickets; a ticket also names its cancel flag and queue
        self._ends: dict[int, float] = {}  # a running search's ticket: when it must end
        self._running: dict[str, int] = {}  # searches running, by caller
        self._last_start: dict[str, int] = {}  # when each caller last started a search (in ``_order``'s count)
        self._waiting: list[_Waiter] = []
        self._order = itertools.count()
        self._turn = threading.Condition()
        self._lock = threading.Lock()
        self._executor: futures.Executor | None = None
        self._cancelled: Any = None  # process mode: one shared byte per ticket, set when its caller went away
        self._updates: list[Any] = []  # process mode: one queue per ticket, a streamed analysis's iterations
        self._runs = itertools.count(1)  # each process-mode search's number: its streamed messages carry it

    def run(self, job: SearchJob, stop: CallerStop, caller: str = "") -> core.SearchResult:
        """The search's result; Overloaded when there is no slot in time; the engine's RulesError as raised.
        ``stop`` is the call's own stop signal (its ``active()`` says whether the caller still waits);
        ``caller`` who asks (``callers.py``), for the fair share."""
        ticket = self._admit(job, stop, caller)
        try:
            if not stop.active():  # it left as the slot came: the slot goes on to the next caller at once
                raise CallerGone("the caller went away before its search started")
            return self._search(job, ticket, stop)
        finally:
            self._release(ticket, caller)

    # --- the fair queue --------------------------------------------------------------------------------

    def _admit(self, job: SearchJob, stop: CallerStop, caller: str) -> int:
        with self._turn:
            waiter = _Waiter(caller, next(self._order), stop)
            self._waiting.append(waiter)
            self._hand_out()
            if waiter.ticket is None and len(self._waiting) > self.queue_size:
                self._push_out(waiter)
            until = min(job.end - MIN_SEARCH_S, time.monotonic() + self.max_wait_s)
            try:
                while waiter.ticket is None:
                    if waiter.pushed_out:
                        raise Overloaded(
                            "too many best-move searches in progress and waiting; this caller has the most",
                            self._retry_after(),
                        )
                    if not stop.active():
                        raise CallerGone("the caller went away while its search waited for a slot")
                    left = until - time.monotonic()
                    if left <= 0:
                        raise Overloaded("no search slot freed in time", self._retry_after(), waited=True)
                    self._turn.wait(min(left, _CANCEL_POLL_S))
            finally:
                if waiter.ticket is None and not waiter.pushed_out:
                    self._waiting.remove(waiter)
            self._ends[waiter.ticket] = _expected_end(job)
            return waiter.ticket

    def _push_out(self, arrived: _Waiter) -> None:
        """The queue is one over full: refuse the newest call of the caller with the most calls waiting (the
        one that just arrived when it is that caller's, or ties with it). So a caller may fill the queue while
        nobody else waits, and gives up its places one by one as others come."""
        counts: dict[str, int] = {}
        for waiter in self._waiting:
            counts[waiter.caller] = counts.get(waiter.caller, 0) + 1
        most = max(counts, key=lambda caller: (counts[caller], caller == arrived.caller))
        victim = arrived if counts[most] <= counts[arrived.caller] else None
        if victim is None:
            victim = max((w for w in self._waiting if w.caller == most), key=lambda w: w.order)
        self._waiting.remove(victim)
        victim.pushed_out = True
        self._turn.notify_all()

    def _take(self, caller: str) -> int:
        ticket = self._free.pop()
        self._running[caller] = self._running.get(caller, 0) + 1
        if len(self._last_start) >= _CALLERS_REMEMBERED:  # forget the callers that have nothing here now
            present = set(self._running) | {waiter.caller for waiter in self._waiting}
            self._last_start = {name: when for name, when in self._last_start.items() if name in present}
        self._last_start[caller] = next(self._order)
        return ticket

    def _release(self, ticket: int, caller: str) -> None:
        with self._turn:
            self._ends.pop(ticket, None)
            left = self._running[caller] - 1
            if left:
                self._running[caller] = left
            else:
                del self._running[caller]
            self._free.append(ticket)
            self._hand_out()

    def _hand_out(self) -> None:
        """Give free slots to waiters: the caller running the fewest searches first, then the longest waiting.
        A waiter whose caller left is passed over (its own loop sees it and leaves the queue)."""
        while self._free:
            eligible = [
                w for w in self._waiting if self._running.get(w.caller, 0) < self.caller_slots and w.stop.active()
            ]
            if not eligible:
                return
            chosen = min(
                eligible, key=lambda w: (self._running.get(w.caller, 0), self._last_start.get(w.caller, -1), w.order)
            )
            self._waiting.remove(chosen)
            chosen.ticket = self._take(chosen.caller)  # its end is noted once it has woken (``_admit``)
            self._turn.notify_all()

    @property
    def waiting(self) -> int:
        """The calls waiting for a slot now."""
        with self._turn:
            return len(self._waiting)

    def _retry_after(self) -> int:
        """Whole seconds until the soonest running search must end (1 to 10)."""
        soonest = min(self._ends.values(), default=time.monotonic() + 1)
        return min(max(math.ceil(soonest - time.monotonic()), 1), 10)

    def start(self) -> None:
        """Start every search process or thread now rather than on the first searches (a server's worker does,
        so that no caller waits for a process to start: on a loaded box that took longer than a 1 s deadline).
        Jobs handed in at once each start a process of their own, up to ``capacity``."""
        executor = self._started()
        for ready in [executor.submit(_ready) for _ in range(self.capacity)]:
            ready.result()

    def close(self) -> None:
        """Stop the search processes (searches in flight finish first) and free what they shared: the worker
        ends with ``os._exit``, which runs no finalizer, so its queues' semaphores would be left to the resource
        tracker, which warns of each ("leaked semaphore objects") on stderr."""
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True, cancel_futures=True)
                self._executor = None
            for updates in self._updates:
                updates.close()
            # The last references: each queue's semaphores are unlinked as they go.
            self._updates, self._cancelled = [], None

    # --- the two modes ---------------------------------------------------------------------------------

    def _search(self, job: SearchJob, ticket: int, stop: CallerStop) -> core.SearchResult:
        if self.mode == "thread":
            return self._started().submit(_search, job, stop).result()
        streamed = stop.on_iteration is not None
        for attempt in (1, 2):
            executor = self._started()
            self._cancelled[ticket] = 0
            updates = self._updates[ticket]
            run = next(self._runs)
            future = executor.submit(_search_in_child, job, ticket, streamed, run)
            try:
                answer = self._wait(future, stop, ticket, updates if streamed else None, run)
            except BrokenProcessPool:
                self._replace(executor)
                if attempt == 2:
                    raise SearchLost("the search process died twice in a row") from None
                _log.error("a search process died: starting new ones and searching again")
                continue
            if isinstance(answer, _Failure):
                raise answer.error()
            return answer
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait(
        self,
        future: futures.Future[core.SearchResult | _Failure],
        stop: CallerStop,
        ticket: int,
        updates: _Updates | None,
        run: int,
    ) -> core.SearchResult | _Failure:
        """The child's answer, cancelling its search once the caller went away; a streamed analysis's
        iterations handed to ``stop.on_iteration`` as they come (all of them before the answer).

        The child's queue is its slot's, and its feeder thread may still be sending when the answer is in: each
        message carries its search's ``run``, so one left over from an earlier search of the slot is dropped,
        and the answer waits (``_STREAM_END_S`` at most) for this search's last iteration and its end."""
        done_at: float | None = None
        while True:
            if updates is not None:
                try:
                    owner, partial = updates.get(timeout=_CANCEL_POLL_S)
                except queue.Empty:
                    pass
                else:
                    if owner != run:
                        continue  # an earlier search's, sent after its answer: not this caller's
                    if partial == _END:
                        updates = None
                    elif stop.on_iteration is not None and isinstance(partial, bytes):
                        stop.on_iteration(pickle.loads(partial))
                    if not stop.active():
                        self._cancelled[ticket] = 1
                    continue
                if future.done():
                    done_at = done_at or time.monotonic()
                    if time.monotonic() - done_at > _STREAM_END_S:  # the child died before it ended the stream
                        return future.result()
            else:
                try:
                    return future.result(timeout=_CANCEL_POLL_S)
                except futures.TimeoutError:
                    pass
            if not stop.active():
                self._cancelled[ticket] = 1

    def _started(self) -> futures.Executor:
        with self._lock:
            if self._executor is None:
                if self.mode == "thread":
                    self._executor = futures.ThreadPoolExecutor(
                        self.capacity,
                        thread_name_prefix="search",
                        initializer=_lower_priority,
                        initargs=(self._nice, self._cores),
                    )
                else:
                    context = multiprocessing.get_context("forkserver")
                    context.set_forkserver_preload(["service.api.rpc.searches"])
                    if self._cancelled is None:
                        self._cancelled = context.RawArray("b", self.capacity)
                        self._updates = [context.Queue() for _ in range(self.capacity)]
                    self._executor = futures.ProcessPoolExecutor(
                        self.capacity,
                        context,
                        initializer=_init_child,
                        initargs=(self._cancelled, self._updates, self._nice, os.getpid(), self._cores),
                    )
            return self._executor

    def _replace(self, broken: futures.Executor) -> None:
        with self._lock:
            if self._executor is broken:
                self._executor = None
        broken.shutdown(wait=False, cancel_futures=True)


def _expected_end(job: SearchJob) -> float:
    """When a search that starts now is expected to end: its time, if it asked for one, else its end."""
    if job.limits is not None and job.limits.max_time_ms:
        return min(job.end, time.monotonic() + job.limits.max_time_ms / 1000)
    return job.end


def _ready() -> bool:
    return True


def _lower_priority(nice: int, cores: frozenset[int] | None = None) -> None:
    """Nice the calling thread (Linux schedules threads; ``setpriority`` on a thread id sets that thread's), and
    keep it on the search cores when there are some (``cpus.py``)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    except OSError as error:  # not Linux, or a sandbox that forbids it: the searches run at normal priority
        _log.warning("cannot lower the search priority: %s", error)
    if cores:
        try:
            cpus.pin_thread(cores)
        except OSError as error:  # a sandbox that forbids it: the searches run on every core
            _log.warning("cannot move the search to its cores: %s", error)


class CallerStop(core.Stop):
    """The stop signal of a call (``service/api/rpc/servicer.py``'s): a ``Stop`` that also says whether the caller
    still waits (``active()``)."""

    __slots__ = ()

    def active(self) -> bool:
        return True


class _ChildStop(core.Stop):
    """A search process's stop signal: ``"cancelled"`` once the worker set this search's flag, ``reason`` once
    the monotonic clock (the host's, the same in every process) reaches ``end``."""

    __slots__ = ("_flags", "_ticket", "end", "on_iteration", "reason")
    end: float

    def __init__(self, flags: _Flags, ticket: int, end: float, reason: str) -> None:
        self._flags, self._ticket = flags, ticket
        self.end = end
        self.reason = reason
        self.on_iteration: Callable[[core.SearchResult], None] | None = None

    def __call__(self) -> str:
        if self._flags[self._ticket]:
            return "cancelled"
        return self.reason if time.monotonic() >= self.end else ""


def _search(job: SearchJob, stop: core.StopSignal) -> core.SearchResult:
    position = GAMES[job.game].parse_position(job.notation)
    return play_level(
        LEVELS[job.game],
        position,
        job.level,
        job.limits,
        job.seed,
        job.top_n,
        stop,
        cap_ms=job.cap_ms,
        purpose=job.purpose,
    )


# --- inside a search process ---------------------------------------------------------------------------

_child_cancelled: Any = None
_child_updates: list[Any] = []
_END = "end"  # what a streamed search puts in its queue after its last iteration
# How long an answer that is in waits for its stream's end still on the way (the child's queue feeds from a
# thread of its own, which a loaded box runs late).
_STREAM_END_S = 2.0
# The worker and its search processes share (process mode) a cancel flag per ticket, and a queue per ticket of
# a streamed analysis's messages: (its search's run, a pickled iteration or ``_END``).
_Flags: TypeAlias = "ctypes.Array[ctypes.c_byte]"
_Updates: TypeAlias = "multiprocessing.queues.Queue[tuple[int, bytes | str]]"


def _init_child(
    cancelled: _Flags, updates: list[_Updates], nice: int, worker: int, cores: frozenset[int] | None
) -> None:
    global _child_cancelled, _child_updates
    _child_cancelled, _child_updates = cancelled, updates
    # A terminal's Ctrl-C reaches every process of its group: the worker stops its searches itself (``close``),
    # and a search process ending on its own KeyboardInterrupt would only write a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _lower_priority(nice, cores)  # the only thread yet: the watcher below inherits it
    threading.Thread(target=_exit_with, args=(worker,), name="worker-watch", daemon=True).start()


def _exit_with(worker: int) -> None:
    """End this search process once its worker is gone (killed, or exited without closing its pool). A pool
    process waits for work on a pipe it also holds the other end of, so it would wait forever, and keep the
    forkserver alive with it."""
    while True:
        time.sleep(_WORKER_WATCH_S)
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # a process of someone else's now holds the number: ours is gone
            os._exit(0)


@dataclass(frozen=True, slots=True)
class _Failure:
    """An engine error, carried back from a search process whole (an exception pickles its message only)."""

    kind: type[core.RulesError]
    message: str
    field: str

    def error(self) -> core.RulesError:
        return self.kind(self.message, self.field)


def _search_in_child(job: SearchJob, ticket: int, streamed: bool = False, run: int = 0) -> core.SearchResult | _Failure:
    stop = _ChildStop(_child_cancelled, ticket, job.end, job.reason)
    updates = _child_updates[ticket] if streamed else None
    if updates is not None:
        # Each completed iteration, to the worker as it completes: pickled now, as it stands (the queue's
        # own thread would pickle it later, while the search goes on).
        stop.on_iteration = lambda partial: updates.put((run, pickle.dumps(partial)))
    try:
        return _search(job, stop)
    except core.RulesError as error:
        return _Failure(type(error), error.message, error.field)
    finally:
        if updates is not None:
            updates.put((run, _END))
