"""How the gateway paces best moves: a BestMove is sent on to the server's fair queue rather than refused at the
gateway, and a BestMove refused with 429 gets its answer only after a hold.

Fairness is the server's (``service/api/rpc/searches.py``): it knows every caller of every gateway worker and
pod (the gateway names each call's caller, ``callers.py``), shares its slots between them and lets a call wait
for one as long as its deadline allows. A bound of the gateway's own, first come first served, would refuse a
modest caller behind a greedy one before the server could be fair. So a best move takes a place in the worker's
share of request threads (``gateway._search_share``) when one is free, else one of ``slots`` threads set aside
for best moves, and is sent on either way; only a best move that finds both taken is refused at the gateway.

Why hold refusals. A client that ignores ``Retry-After`` calls again the moment its 429 arrives. Refusing costs
the gateway a request's whole path through Flask, on the same cores and interpreter as the rules calls, so a few
dozen such clients made it answer thousands of refusals a second and the legal-move calls waited behind them
(``python -m bench --only soak --part flood --gateway-pacing off,on`` measures it). Making the refusal cheaper
does not help: a closed loop of clients spends whatever the gateway saves on more refusals. Not answering at
once does: a refusal (the server's queue is full, or no slot freed in time) is held for the ``Retry-After`` the
client is about to be told. A client then calls at most once per hold, however it treats the header, and one
that honours it waits no longer than it would have anyway.

Every wait ends early enough for the caller's deadline: the answer leaves at least ``MARGIN_S`` before it, so
a caller with a short deadline still reads a 429 (with its ``Retry-After``) and not a timeout.

Threads. A WSGI server runs each request on a thread until its answer is written (granian iterates a
response's body on the same thread), so a best move holds a thread while the server searches or queues it:
no CPU, no interpreter lock. A worker keeps at most ``slots`` best moves beyond its share (sent on, or holding
their 429) at once, on threads of their own on top of ``--threads`` (``gateway_server`` gives granian both),
so they never take the threads the rules calls need; a best move that finds every slot taken is answered its
429 at once.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

DEFAULT_HOLD_S = 1.0  # the Retry-After of a refused best move
DEFAULT_SLOTS = 64  # best moves beyond the share per worker: a 64-client flood on one worker is sent on whole
# Each hold is a random part of ``hold_s``, down to this fraction less: the refusals of a flood that came
# together would otherwise wake together, once per hold, and go through the interpreter in one burst.
HOLD_SPREAD = 0.5
MARGIN_S = 0.05  # a waiting best move is answered at least this long before the caller's deadline
# The longest a best move waits here for a place in the worker's share before it is sent on on a slot of its own
# (0: at once; the server's queue is where calls wait, in fair order), and the latest, after its arrival, that a
# refusal's hold ends: a saturated gateway answers within seconds, not at the caller's deadline
# (``python -m bench --only saturation``).
DEFAULT_MAX_WAIT_S = 0.0
ANSWER_REFUSALS_BY_S = 3.0


def servers_share(left_s: float) -> float:
    """The part of a best move's time ``left_s`` the gateway gives the server as its deadline: all but
    ``MARGIN_S`` (at least ``MARGIN_S`` of it, or all of a shorter time), so that the server's answer, with its
    ``stopReason``, and not a 504, reaches the caller in time."""
    return max(left_s - MARGIN_S, min(left_s, MARGIN_S))


class Pacing:
    """One gateway worker's best moves beyond its share: at most ``slots`` at once, each sent on to the server
    (``admit``) or holding its 429 (``hold``: ``hold_s``, 0 for none), never past its deadline less
    ``MARGIN_S``. Deadlines are ``time.perf_counter()`` values."""

    def __init__(self, slots: int, hold_s: float, max_wait_s: float = DEFAULT_MAX_WAIT_S) -> None:
        self.hold_s, self.max_wait_s = hold_s, max_wait_s
        self._slots = threading.BoundedSemaphore(slots) if slots > 0 else None
        self._lock = threading.Lock()
        self.waiting = 0  # best moves on a slot now, sent on or holding (read by the tests)

    def admit(self, share: threading.Semaphore, deadline: float) -> Callable[[], None] | None:
        """A place for a best move to be sent on: one of ``share`` if one is free (or frees within
        ``max_wait_s`` and the deadline), else a slot; None when neither is free. The caller calls the answer
        once its call has ended, to give the place back."""
        if share.acquire(blocking=False):
            return share.release
        if not self._sit():
            return None
        seconds = min(deadline - MARGIN_S - time.perf_counter(), self.max_wait_s)
        if seconds > 0 and share.acquire(timeout=seconds):
            self._leave()
            return share.release
        return self._leave

    def hold(self, deadline: float, on_hold: Callable[[], None] | None = None) -> bool:
        """Wait before a refusal is answered, calling ``on_hold`` as the hold starts; False, at once, when
        holds are off, no slot is free or the deadline is too near to wait at all."""
        seconds = min(self.hold_s * random.uniform(1 - HOLD_SPREAD, 1), deadline - MARGIN_S - time.perf_counter())
        if seconds <= 0 or not self._sit():
            return False
        try:
            if on_hold is not None:
                on_hold()
            time.sleep(seconds)
        finally:
            self._leave()
        return True

    def _sit(self) -> bool:
        if self._slots is None or not self._slots.acquire(blocking=False):
            return False
        with self._lock:
            self.waiting += 1
        return True

    def _leave(self) -> None:
        with self._lock:
            self.waiting -= 1
        assert self._slots is not None
        self._slots.release()
