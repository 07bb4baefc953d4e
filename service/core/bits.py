"""Bit masks as the engines use them: a set of squares, cells or lines is a Python int."""

from __future__ import annotations

# The set bits of every byte value, already offset by the byte's place, for the first ``_BYTES`` bytes: 320
# bits cover every board of every game (Dots and Boxes' 312 lines on 12x12, Strands' 306-bit padded grid,
# Reversi's 256 squares); longer masks go on bit by bit.
_BYTES = 40
_BYTE_BITS = tuple(
    tuple(tuple(8 * k + i for i in range(8) if byte >> i & 1) for byte in range(256)) for k in range(_BYTES)
)


def set_bits(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, lowest first (a byte at a time: this is a hot path)."""
    out: list[int] = []
    k = 0
    while mask and k < _BYTES:
        byte = mask & 255
        if byte:
            out += _BYTE_BITS[k][byte]
        mask >>= 8
        k += 1
    mask <<= 8 * k  # what is left, at its place
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
