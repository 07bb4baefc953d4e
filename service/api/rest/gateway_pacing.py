"""How the gateway paces best moves: a BestMove is sent on to the server's fair queue rather than refused at the
gateway, and a BestMove refused with 429 gets its answer only after a hold.

Fairness is the server's (``service/api/rpc/searches.py``): it knows every caller of every gateway worker and
pod (the gateway names each call's caller, ``callers.py``), shares its slots between them and lets a call wait
for one as long as its deadline allows. A bound of the gateway's own, first come first served, would refuse a
modest caller behind a greedy one before the server could be fair. So every best move is sent on, with the rest
of its deadline less ``MARGIN_S``; a worker's calls in flight are bounded by its connections (the door and
granian's ``--max-connections``), and a waiting call costs the event loop nothing.

Why hold refusals. A client that ignores ``Retry-After`` calls again the moment its 429 arrives, and each
refusal costs the gateway a request's whole path on the same cores and interpreter as the rules calls: a few
dozen such clients made it answer thousands of refusals a second and the legal-move calls waited behind them
(``python -m bench --only soak --part flood --gateway-pacing off,on`` measures it). Making the refusal cheaper
does not help: a closed loop of clients spends whatever the gateway saves on more refusals. Not answering at
once does: a refusal (the server's queue is full, or no slot freed in time) is held for the ``Retry-After`` the
client is about to be told. A client then calls at most once per hold, however it treats the header, and one
that honours it waits no longer than it would have anyway. A worker holds at most ``slots`` refusals at once
(``--waiting-best-moves``); one more is answered at once.

Every wait ends early enough for the caller's deadline: the answer leaves at least ``MARGIN_S`` before it, so
a caller with a short deadline still reads a 429 (with its ``Retry-After``) and not a timeout. Everything here
runs in the worker's event loop: the counts need no lock, and a hold is a sleep of the request's own task.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable

DEFAULT_HOLD_S = 1.0  # the Retry-After of a refused best move
DEFAULT_SLOTS = 64  # refusals a worker holds at once: a 64-client flood on one worker is paced whole
# Each hold is a random part of ``hold_s``, down to this fraction less: the refusals of a flood that came
# together would otherwise wake together, once per hold, and go through the interpreter in one burst.
HOLD_SPREAD = 0.5
MARGIN_S = 0.05  # a waiting best move is answered at least this long before the caller's deadline
# The latest, after its arrival, that a refusal's hold ends: a saturated gateway answers within seconds, not at
# the caller's deadline (``python -m bench --only saturation``).
ANSWER_REFUSALS_BY_S = 3.0


def servers_share(left_s: float) -> float:
    """The part of a best move's time ``left_s`` the gateway gives the server as its deadline: all but
    ``MARGIN_S`` (at least ``MARGIN_S`` of it, or all of a shorter time), so that the server's answer, with its
    ``stopReason``, and not a 504, reaches the caller in time."""
    return max(left_s - MARGIN_S, min(left_s, MARGIN_S))


class Pacing:
    """One gateway worker's held refusals: at most ``slots`` at once, each held ``hold_s`` (0: none), never past
    its deadline less ``MARGIN_S``. Deadlines are ``time.perf_counter()`` values. Used from one event loop."""

    def __init__(self, slots: int, hold_s: float) -> None:
        self.hold_s, self.slots = hold_s, slots
        self.waiting = 0  # refusals held now (read by the tests)

    async def hold(self, deadline: float, on_hold: Callable[[], None] | None = None) -> bool:
        """Wait before a refusal is answered, calling ``on_hold`` as the hold starts; False, at once, when
        holds are off, every slot is taken or the deadline is too near to wait at all."""
        seconds = min(self.hold_s * random.uniform(1 - HOLD_SPREAD, 1), deadline - MARGIN_S - time.perf_counter())
        if seconds <= 0 or self.waiting >= self.slots:
            return False
        self.waiting += 1
        try:
            if on_hold is not None:
                on_hold()
            await asyncio.sleep(seconds)
        finally:
            self.waiting -= 1
        return True
