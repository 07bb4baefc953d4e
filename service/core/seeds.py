"""Seeded randomness that is the same on every machine and Python version.

``hash()`` is salted per process and ``random.seed(str)`` may change across versions, so every seed a caller
gives goes through SHA-256 here: ``seeded_int`` for a search's ``random.Random``, ``Sha256Stream`` for the
random boards (Petak Sawah's rocks, Strands' random layouts), whose recipes ``docs/games/`` spells out so
that other implementations can deal the same boards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable


def seeded_int(seed: str) -> int:
    """A stable 64-bit integer from a caller's seed string."""
    return int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:8], "big")


class Sha256Stream:
    """Unbiased integers from a series of SHA-256 digests: ``block(b)`` is the digest of block b = 0, 1, …,
    and each digest gives four 64-bit big-endian words, bytes 0..8 first, then 8..16, 16..24, 24..32."""

    __slots__ = ("_block", "_digest", "_words")

    def __init__(self, block: Callable[[int], bytes]) -> None:
        self._digest = block
        self._block = 0
        self._words: list[int] = []

    def _word(self) -> int:
        if not self._words:
            digest = self._digest(self._block)
            self._block += 1
            self._words = [int.from_bytes(digest[j : j + 8], "big") for j in (24, 16, 8, 0)]
        return self._words.pop()

    def below(self, bound: int) -> int:
        """Uniform in 0..bound-1 by rejection: words at or above the largest multiple of ``bound`` are
        skipped, so there is no modulo bias."""
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            word = self._word()
            if word < limit:
                return word % bound

    def shuffle(self, items: list[int]) -> None:
        """Fisher–Yates from the last item down: item i swaps with item ``below(i + 1)``."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
