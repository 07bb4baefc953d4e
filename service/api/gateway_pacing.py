"""How the gateway paces refused best moves: a BestMove refused with 429 gets its answer only after a hold.

Why. A client that ignores ``Retry-After`` calls again the moment its 429 arrives. Refusing costs the gateway
a request's whole path through Flask, on the same cores and interpreter as the rules calls, so 64 such
clients made it answer about 2,000 refusals a second and the legal-move calls waited behind them (p99 8 to 33
times idle in ``python -m bench --only soak``). Making the refusal cheaper does not help: a closed loop of
clients spends whatever the gateway saves on more refusals. Holding the 429 for the ``Retry-After`` the client
was about to be told does: a client then calls at most once per hold, however it treats the header, and a
client that honours it waits no longer than it would have anyway.

The hold ends early enough for the caller's deadline: the 429 leaves at least ``HOLD_MARGIN_S`` before it, so
a caller with a short deadline still reads a 429 (with its ``Retry-After``) and not a timeout.

Threads. A WSGI server runs each request on a thread until its answer is written (granian iterates a
response's body on the same thread), so a held refusal holds a thread while it sleeps: no CPU, no interpreter
lock. A worker holds at most ``slots`` refusals at once, on threads of their own on top of ``--threads``
(``gateway_server`` gives granian both), so held refusals never take the threads the rules calls need; a
refusal that finds every slot taken is answered at once, as before.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

DEFAULT_HOLD_S = 1.0  # the Retry-After of a refused best move
DEFAULT_SLOTS = 64  # refusals held at once per worker: a 64-client flood on one worker is held whole
# Each hold is a random part of ``hold_s``, down to this fraction less: the refusals of a flood that came
# together would otherwise wake together, once per hold, and go through the interpreter in one burst.
HOLD_SPREAD = 0.5
HOLD_MARGIN_S = 0.05  # a held 429 leaves this long before the caller's deadline, for the trip back


class RefusalHold:
    """Holds refused calls, at most ``slots`` at once, each for ``hold_s`` or until its deadline is near."""

    def __init__(self, slots: int, hold_s: float) -> None:
        self.hold_s = hold_s
        self._slots = threading.BoundedSemaphore(slots) if slots > 0 and hold_s > 0 else None
        self._lock = threading.Lock()
        self.holding = 0  # refusals held now (read by the tests)

    def hold(self, deadline: float, on_hold: Callable[[], None] | None = None) -> bool:
        """Wait before a refusal is answered, until ``hold_s`` has passed or ``deadline`` (a
        ``time.perf_counter()`` value) is ``HOLD_MARGIN_S`` away, calling ``on_hold`` as the hold starts;
        False, at once, when no slot is free or the deadline is too near to wait at all."""
        seconds = min(self.hold_s * random.uniform(1 - HOLD_SPREAD, 1), deadline - HOLD_MARGIN_S - time.perf_counter())
        if self._slots is None or seconds <= 0 or not self._slots.acquire(blocking=False):
            return False
        with self._lock:
            self.holding += 1
        if on_hold is not None:
            on_hold()
        try:
            time.sleep(seconds)
        finally:
            with self._lock:
                self.holding -= 1
            self._slots.release()
        return True
