"""Dots and Boxes chain analysis: the structure of the open boxes, for ``search_moves`` and ``evaluate``.

Search moves. In regular play the usual sound reductions apply (``play_moves``): a box that can be taken without
opening anything is taken at once; in an opened chain the only choices are "take the next box" or (with exactly
two left) the double-dealing line; an opened loop leaves four; among isolated chains and loops (both ends on the
border) only one opening per kind and length is tried, at the end of a long chain and in the middle of a 2-chain
(the hard-hearted handout).

Evaluation. ``estimate_rest`` estimates the margin the colour to move will make on the boxes not yet complete
(``evaluate`` adds the boxes held): safe lines are played out in a fixed order to learn who must open the first
chain, then the chains and loops are valued exactly as a simple loony endgame (``loony_value``: the long-chain rule
with its double-dealing sacrifices), which is exact once every open box has two sides; while safe lines remain
that guess is weighed down (to nothing at six). Both depend on the lines only and are memoised per board.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from service.core.bits import set_bits
from service.engines.dots_and_boxes.geometry import Geometry


def side_counts(geo: Geometry, lines: int) -> list[int]:
    """How many of each box's four sides ``lines`` draws (box order)."""
    return [(lines & mask).bit_count() for mask in geo.box_lines]


def _exit(geo: Geometry, lines: int, box: int, entry: int) -> tuple[int, int]:
    """The open side of ``box`` other than ``entry`` (a box with two open sides; ``entry`` -1 for any):
    the line and the box across it (-1 at the border)."""
    for line, nxt in geo.box_edges[box]:
        if line != entry and not lines >> line & 1:
            return line, nxt
    raise AssertionError("a box with no open side was walked into")  # pragma: no cover - a bug, not input


def _follow(geo: Geometry, lines: int, sides: Sequence[int], box: int) -> tuple[list[int], list[int], bool]:
    """From a takeable box (three sides), the boxes the taker can take in a row and the line that takes each
    (``path[i]`` leaves ``chain[i]``). The flag is True when the chain ends in another takeable box (an
    opened loop, or a chain opened at both ends); then ``path`` has one line fewer than ``chain``."""
    chain = [box]
    line, nxt = _exit(geo, lines, box, -1)
    path = [line]
    while True:
        if nxt < 0:
            return chain, path, False
        count = sides[nxt]
        if count == 3:
            chain.append(nxt)
            return chain, path, True
        if count != 2:
            return chain, path, False
        chain.append(nxt)
        line, nxt = _exit(geo, lines, nxt, line)
        path.append(line)


def _capture_moves(geo: Geometry, lines: int, sides: Sequence[int], takeable: list[int]) -> list[int] | None:
    """The sound reduction while boxes can be taken, or None when every line must be tried."""
    long_take = -1
    options: list[int] = []
    for box in takeable:
        chain, path, two_ended = _follow(geo, lines, sides, box)
        k = len(chain)
        if k == 1 or (two_ended and k == 2):
            # Taking opens nothing (the next box has at most one side) or takes two at once: take it now.
            return [path[0]]
        if (not two_ended and k >= 3) or (two_ended and k >= 5):
            long_take = path[0]
        elif not two_ended or k == 4:
            # Two left: take, or the double-dealing line at the far end. An opened loop of four: take, or
            # the middle line (two dominoes for the opponent).
            options += path[:2]
        else:  # three in a row takeable at both ends: rare enough to try everything
            return None
    if long_take >= 0:
        return [long_take]
    return list(dict.fromkeys(options))


class _Component:
    """A maximal run of open boxes with exactly two sides: a chain (ends at the border, at a box with fewer
    sides, or at a takeable box) or a loop."""

    __slots__ = ("boxes", "isolated", "lines", "loop")

    def __init__(self, boxes: list[int], lines: list[int], loop: bool, isolated: bool) -> None:
        self.boxes = boxes
        self.lines = lines  # the open lines of the run, in order along it (for a chain: both end lines too)
        self.loop = loop
        self.isolated = isolated  # nothing else touches it: a loop, or a chain with both ends on the border

    def opening(self) -> int:
        """The one opening worth trying in an isolated component: the end of a long chain, the middle
        line of a 2-chain (the hard-hearted handout), any line of a 1-chain or a loop."""
        if self.loop or len(self.boxes) != 2:
            return self.lines[0]
        return self.lines[1]


def _components(geo: Geometry, lines: int, sides: Sequence[int]) -> list[_Component]:
    """Every chain and loop of open boxes with two sides, walked out from each box not yet seen."""
    seen = bytearray(geo.box_count)
    found = []
    edges = geo.box_edges
    for start in range(geo.box_count):
        if sides[start] != 2 or seen[start]:
            continue
        seen[start] = 1
        halves = []
        ends_on_border = 0
        loop = False
        for first, first_box in [edge for edge in edges[start] if not lines >> edge[0] & 1]:
            boxes: list[int] = []
            run = [first]
            line, nxt = first, first_box
            while True:
                if nxt < 0:
                    ends_on_border += 1
                    break
                if nxt == start:
                    loop = True
                    break
                if sides[nxt] != 2:
                    break
                seen[nxt] = 1
                boxes.append(nxt)
                for edge_line, edge_box in edges[nxt]:
                    if edge_line != line and not lines >> edge_line & 1:
                        line, nxt = edge_line, edge_box
                        break
                run.append(line)
            halves.append((boxes, run))
            if loop:
                break
        if loop:
            boxes, run = halves[0]
            found.append(_Component([start, *boxes], run, True, True))
        else:
            (left, left_run), (right, right_run) = halves
            chain = [*reversed(left), start, *right]
            run = [*reversed(left_run), *right_run]
            found.append(_Component(chain, run, False, ends_on_border == 2))
    return found


def run_lengths(geo: Geometry, lines: int, sides: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The sorted lengths of the chains and of the loops of ``_components``, without building them.
    Clobbers ``sides`` (each counted box is marked done)."""
    chains: list[int] = []
    loops: list[int] = []
    edges = geo.box_edges
    for start, count in enumerate(sides):
        if count != 2:
            continue
        sides[start] = 5
        length = 1
        loop = False
        for first, nxt in edges[start]:
            if lines >> first & 1:
                continue
            line = first
            while nxt >= 0 and sides[nxt] == 2:
                sides[nxt] = 5
                length += 1
                for edge_line, edge_box in edges[nxt]:
                    if edge_line != line and not lines >> edge_line & 1:
                        line, nxt = edge_line, edge_box
                        break
            if nxt == start:
                loop = True
                break
        (loops if loop else chains).append(length)
    return tuple(sorted(chains)), tuple(sorted(loops))


@lru_cache(maxsize=65536)
def loony_value(chains: tuple[int, ...], loops: tuple[int, ...]) -> int:
    """The exact margin, over the boxes of these independent chains and loops, for the player who must open
    one of them (a simple loony endgame). Chains of one or two are opened so that they cannot be declined
    (a 2-chain by its middle line); the opponent of the opener of a longer chain either takes it all and
    opens the next one, or takes all but two and hands the opener those two with the duty to move again
    (all but four for a loop). ``chains`` and ``loops`` are sorted lengths."""
    if not chains and not loops:
        return 0
    best = -(1 << 30)
    for i, length in enumerate(chains):
        if i and chains[i - 1] == length:
            continue
        rest = loony_value((*chains[:i], *chains[i + 1 :]), loops)
        value = -length - rest
        if length >= 3:
            value = min(value, 4 - length + rest)
        best = max(best, value)
    for i, length in enumerate(loops):
        if i and loops[i - 1] == length:
            continue
        rest = loony_value(chains, (*loops[:i], *loops[i + 1 :]))
        best = max(best, min(-length - rest, 8 - length + rest))
    return best


_BLIND_SAFE_MOVES = 6


@lru_cache(maxsize=1 << 16)
def estimate_rest(geo: Geometry, lines: int) -> float:
    """An estimate of the margin the colour to move will make on the boxes not yet complete.

    Takeable boxes go to the mover (with the choice to decline the last two of a chain when that keeps
    control); then the safe lines (those that give no box away) are drawn in index order to learn who must
    open the first chain; then the chains and loops are valued as a simple loony endgame, that value weighed
    down the more safe lines remained. Boxes at junctions of several chains are left out (counted as shared).
    Exact when every open box has two sides.
    (Memoised: it depends on the lines only, and search meets the same lines with different owners.)"""
    sides = side_counts(geo, lines)
    line_boxes = geo.line_boxes
    gained = 0
    decline = 0  # the cost of declining the last takeable run to keep control (0: no such choice)
    while True:
        takeable = [box for box, count in enumerate(sides) if count == 3]
        if not takeable:
            break
        chain, _path, two_ended = _follow(geo, lines, sides, takeable[0])
        k = len(chain)
        if not two_ended and k >= 2:
            decline = 4
        elif two_ended and k >= 4:
            decline = 8
        else:
            decline = 0
        for box in chain:
            for line in geo.box_sides[box]:
                if not lines >> line & 1:
                    lines |= 1 << line
                    for other in line_boxes[line]:
                        sides[other] += 1
        gained += k
    safe_moves = 0
    pairs = geo.line_pairs
    for line in set_bits(lines ^ geo.full):
        first, second = pairs[line]
        if sides[first] <= 1 and sides[second] <= 1:
            lines |= 1 << line
            for box in line_boxes[line]:
                sides[box] += 1
            safe_moves += 1
    chains, loops = run_lengths(geo, lines, sides)
    rest = loony_value(chains, loops)
    if safe_moves & 1:
        rest = -rest
    # The parity read off one fixed order of safe lines is a guess while many remain (both sides will fight
    # over it), and trusting it fully made the search sacrifice real boxes for imagined control: fade it out
    # linearly, to nothing at _BLIND_SAFE_MOVES safe lines.
    value = float(rest) * max(0.0, 1.0 - safe_moves / _BLIND_SAFE_MOVES)
    if gained:
        return gained + (max(value, -decline - value) if decline else value)
    return value


# --------------------------------------------------------------------------------------------------
# The search moves of regular play.


@lru_cache(maxsize=1 << 16)
def play_moves(geo: Geometry, lines: int) -> tuple[int, ...]:
    """``search_moves`` in regular play (memoised: it depends on the lines only)."""
    if lines == geo.full:
        return ()
    sides = side_counts(geo, lines)
    takeable = [box for box, count in enumerate(sides) if count == 3]
    if takeable:
        reduced = _capture_moves(geo, lines, sides, takeable)
        if reduced is not None:
            return tuple(reduced)
    return tuple(_ordered(geo, lines, sides))


def _ordered(geo: Geometry, lines: int, sides: Sequence[int]) -> list[int]:
    """Every undrawn line worth trying with no box to take: safe lines first, then one opening per kind of
    isolated chain or loop and every other line, cheapest sacrifice first."""
    safe = []
    unsafe: list[tuple[int, int]] = []
    free = lines ^ geo.full
    pairs = geo.line_pairs
    for line in set_bits(free):
        first, second = pairs[line]
        if sides[first] <= 1 and sides[second] <= 1:
            safe.append(line)
    if len(safe) == free.bit_count():
        return safe
    in_isolated = 0
    openings: dict[tuple[bool, int], int] = {}
    cost = [0] * geo.line_count
    for component in _components(geo, lines, sides):
        size = len(component.boxes)
        if component.isolated:
            for line in component.lines:
                in_isolated |= 1 << line
            openings.setdefault((component.loop, size), component.opening())
        else:
            for line in component.lines:
                cost[line] += size
    for (_loop, size), line in openings.items():
        unsafe.append((size, line))
    safe_set = set(safe)
    for line in set_bits(free & ~in_isolated):
        if line not in safe_set:
            unsafe.append((cost[line] or 1, line))
    unsafe.sort()
    return safe + [line for _size, line in unsafe]
