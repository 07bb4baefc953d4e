"""Strands groups: the connected groups of a colour's stones and the comparison of group sizes that decides the game
(``docs/games/strands.md``)."""

from __future__ import annotations

from service.engines.strands.layouts import Layout


def group_masks(layout: Layout, stones: int) -> list[int]:
    """The groups of ``stones`` (connected through adjacency), each as a bitmask."""
    groups = []
    while stones:
        group = stones & -stones
        while True:
            grown = layout.dilate(group) & stones
            if grown == group:
                break
            group = grown
        groups.append(group)
        stones ^= group
    return groups


def sorted_group_sizes(layout: Layout, stones: int) -> list[int]:
    """Group sizes of ``stones``, largest first."""
    return sorted((g.bit_count() for g in group_masks(layout, stones)), reverse=True)


def compare_group_sizes(black: list[int], white: list[int]) -> tuple[int, int, int]:
    """Decide the rules' comparison: (winner seat, deciding index, margin in group-size units).

    The first differing entry decides (the larger wins); when one list is a prefix of the other, the
    longer wins and the margin is its extra entry. Equal lists return winner 0 (impossible on a full
    board, whose odd cell count makes the stone counts differ).
    """
    for i, (b, w) in enumerate(zip(black, white, strict=False)):
        if b != w:
            return (1 if b > w else 2), i, abs(b - w)
    if len(black) == len(white):
        return 0, len(black), 0
    longer = black if len(black) > len(white) else white
    return (1 if longer is black else 2), min(len(black), len(white)), longer[min(len(black), len(white))]
