"""Where best-move searches run, and how many at once: a bounded queue in front of a fixed number of search
slots, with the searches at a lower scheduling priority than the calls of the rules.

Admission. A process runs at most ``capacity`` searches at once; up to ``queue`` more calls wait for a slot,
each until the time its own search must end (the caller's deadline minus the answer margin, at most the
server's cap), less ``MIN_SEARCH_S`` so that the search it waited for still has time to find a move. A call
is refused (``Overloaded``: RESOURCE_EXHAUSTED with ``Retry-After``) only when the queue is full or when no
slot freed in time to meet its deadline.

Priority. A portal sends a rules call on every human move and expects it back at once; a search takes all the
CPU it is given. So searches run on cores of their own where the server owns several (``cpus.py``: the
workers, which serve the rules calls, on the others), and where the kernel's scheduler can put the rules calls
first:

- ``process`` (the default): in ``capacity`` search processes per worker at nice ``SEARCH_NICE``. The worker's
  interpreter then never waits for a search to hand back its lock, and the kernel gives the rules calls
  the cores first. Forked by a forkserver, which starts from a fresh interpreter: a process that runs gRPC
  must not fork itself.
- ``thread``: in ``capacity`` threads of the worker, each niced on its own (``os.setpriority`` on the
  thread's id, Linux). Cheaper, but a search thread holds the interpreter lock that the rules calls of its
  process need; the serving benchmark (``python -m bench --only soak``) measures both.

A search's stop signal is the caller's: it ends when the call is cancelled or its time is up (``end``).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import threading
import time
from concurrent import futures
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from service import core
from service.api import cpus
from service.engines import GAMES
from service.levels import LEVELS, play_level

_log = logging.getLogger(__name__)

MODES = ("process", "thread")
SEARCH_NICE = 10  # above the rules calls' 0; the Linux scheduler then gives a search ~1/10 of a contended core
# A search granted its slot later than this before its end would only return its first guess: refused instead.
MIN_SEARCH_S = 0.02
_CANCEL_POLL_S = 0.05  # how often a waiting call checks whether its caller went away (process mode)
_WORKER_WATCH_S = 1.0  # how often a search process checks that its worker is still there


class Overloaded(Exception):
    """No search slot: the queue is full, or no slot freed in time for the call's deadline."""


class SearchLost(Exception):
    """The search process died under the search (killed, out of memory); the call is safe to retry."""


# Whether a search leaves the interpreter lock to others while it runs (a native engine that releases it).
# Until then a worker runs one search at a time whatever the cores: its workers are one per core already, and
# more slots would split one core between searches that each answer worse in their time.
SEARCHES_RELEASE_THE_GIL = False


def default_capacity() -> int:
    """Searches per worker process: the cores it may use once searches run in parallel, else one."""
    return len(os.sched_getaffinity(0)) if SEARCHES_RELEASE_THE_GIL else 1


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


class SearchPool:
    """Admission and execution of one process's searches (``mode``: ``process`` or ``thread``)."""

    def __init__(
        self,
        capacity: int,
        queue_size: int,
        mode: str = "process",
        nice: int = SEARCH_NICE,
        cores: frozenset[int] | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"search mode must be one of {MODES}, not {mode!r}")
        self.capacity, self.mode, self._nice, self._cores = capacity, mode, nice, cores
        self._admitted = threading.BoundedSemaphore(capacity + queue_size)
        # The slots themselves: a search holds a ticket, which also names its cancel flag in process mode.
        self._tickets: queue.Queue[int] = queue.Queue()
        for ticket in range(capacity):
            self._tickets.put(ticket)
        self._lock = threading.Lock()
        self._executor: futures.Executor | None = None
        self._cancelled: Any = None  # process mode: one shared byte per ticket, set when its caller went away

    def run(self, job: SearchJob, stop: CallerStop) -> core.SearchResult:
        """The search's result; Overloaded when there is no slot in time; the engine's RulesError as raised.
        ``stop`` is the call's own stop signal (its ``active()`` says whether the caller still waits)."""
        if not self._admitted.acquire(blocking=False):
            raise Overloaded("too many best-move searches in progress and waiting")
        try:
            try:
                ticket = self._tickets.get(timeout=max(job.end - MIN_SEARCH_S - time.monotonic(), 0.0))
            except queue.Empty:
                raise Overloaded("no search slot freed in time for the call's deadline") from None
            try:
                return self._search(job, ticket, stop)
            finally:
                self._tickets.put(ticket)
        finally:
            self._admitted.release()

    def start(self) -> None:
        """Start the search processes or threads now rather than on the first search (a server's worker does,
        so that no caller waits for a process to start, and its memory is there from the start)."""
        self._started().submit(_ready).result()

    def close(self) -> None:
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True, cancel_futures=True)
                self._executor = None

    # --- the two modes ---------------------------------------------------------------------------------

    def _search(self, job: SearchJob, ticket: int, stop: CallerStop) -> core.SearchResult:
        if self.mode == "thread":
            return self._started().submit(_search, job, stop).result()
        if stop.on_iteration is not None:
            # Streamed analysis hands each iteration to its caller as it completes: that needs the search
            # in this process (in the slot it holds), where the caller's callback is.
            return _search(job, stop)
        for attempt in (1, 2):
            executor = self._started()
            self._cancelled[ticket] = 0
            future = executor.submit(_search_in_child, job, ticket)
            try:
                while True:
                    try:
                        answer = future.result(timeout=_CANCEL_POLL_S)
                        break
                    except futures.TimeoutError:
                        if not stop.active():
                            self._cancelled[ticket] = 1
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
                    context.set_forkserver_preload(["service.api.searches"])
                    if self._cancelled is None:
                        self._cancelled = context.RawArray("b", self.capacity)
                    self._executor = futures.ProcessPoolExecutor(
                        self.capacity,
                        context,
                        initializer=_init_child,
                        initargs=(self._cancelled, self._nice, os.getpid(), self._cores),
                    )
            return self._executor

    def _replace(self, broken: futures.Executor) -> None:
        with self._lock:
            if self._executor is broken:
                self._executor = None
        broken.shutdown(wait=False, cancel_futures=True)


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
    """The stop signal of a call (``service/api/servicer.py``'s): a ``Stop`` that also says whether the caller
    still waits (``active()``)."""

    __slots__ = ()

    def active(self) -> bool:
        return True


class _ChildStop(core.Stop):
    """A search process's stop signal: ``"cancelled"`` once the worker set this search's flag, ``reason`` once
    the monotonic clock (the host's, the same in every process) reaches ``end``."""

    __slots__ = ("_flags", "_ticket", "end", "reason")
    end: float

    def __init__(self, flags: Any, ticket: int, end: float, reason: str) -> None:
        self._flags, self._ticket = flags, ticket
        self.end = end
        self.reason = reason

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


def _init_child(cancelled: Any, nice: int, worker: int, cores: frozenset[int] | None) -> None:
    global _child_cancelled
    _child_cancelled = cancelled
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


def _search_in_child(job: SearchJob, ticket: int) -> core.SearchResult | _Failure:
    stop = _ChildStop(_child_cancelled, ticket, job.end, job.reason)
    try:
        return _search(job, stop)
    except core.RulesError as error:
        return _Failure(type(error), error.message, error.field)
