"""Strands' learned evaluation: what a player reads off a position, weighed by weights fitted from self-play
(``service/learn/strands.py``, ``make train-strands``), shipped as ``data/weights.json``.

Per colour, integer counts (``colour_features``):

- ``largest`` and ``second``: its two largest groups;
- ``room``: the largest region of its stones and the empty cells that holds one of its stones (a bound on any
  group it can still make);
- ``liberties``: the empty cells next to its largest group (how freely that group grows; the most over tied
  largest groups);
- ``join``: the largest group one more stone makes (1 plus the groups an empty cell touches; 0 without an
  empty cell next to its stones): whose groups can still join;
- ``groups``: how many groups it has;
- ``frontier``: the empty cells next to any of its stones.

A position's vector (``feature_vector``) holds, for the seat to move, its count less the opponent's for each of
those, then ``tempo`` (+1 when the seat to move makes the last turn if every turn covers all it may: the full turns
left, summed over labels as ⌈empty cells / label⌉, are odd; −1 otherwise) and a constant 1; each of these nine times
1, e and e², e the empty cells' share of the board, so the weights drift smoothly with the stage. The value is the
weights' dot product with the vector: the estimated final margin of the largest groups, in stones, for the seat to
move. The C twin (``service/native/search/strands.c``, ``learned_value``) sums the same products in the same
order, so the doubles are equal (the twin tests check it on random positions of every layout).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from service.core.bits import set_bits
from service.engines.strands.groups import group_masks
from service.engines.strands.layouts import Layout

COLOUR_FEATURES = ("largest", "second", "room", "liberties", "join", "groups", "frontier")
BASE_FEATURES = (*COLOUR_FEATURES, "tempo", "constant")
STAGE_POWERS = 3  # each base feature times e**0, e**1, e**2
SIZE = len(BASE_FEATURES) * STAGE_POWERS
WEIGHTS_FILE = Path(__file__).with_name("data") / "weights.json"


def colour_features(layout: Layout, stones: int, empty: int) -> tuple[int, ...]:
    """The counts of ``COLOUR_FEATURES`` for the colour holding ``stones``."""
    groups = group_masks(layout, stones)
    sizes = sorted((g.bit_count() for g in groups), reverse=True)
    largest = sizes[0] if sizes else 0
    second = sizes[1] if len(sizes) > 1 else 0
    room = max((r.bit_count() for r in group_masks(layout, stones | empty) if r & stones), default=0)
    liberties = max(((layout.dilate(g) & empty).bit_count() for g in groups if g.bit_count() == largest), default=0)
    size_of = {}
    for group in groups:
        size = group.bit_count()
        for bit in set_bits(group):
            size_of[bit] = (group, size)
    neighbours = layout.neighbours
    join = 0
    frontier = layout.dilate(stones) & empty
    for cell in set_bits(frontier):
        touched = {size_of[b] for b in set_bits(neighbours[cell] & stones)}
        join = max(join, 1 + sum(size for _, size in touched))
    return (largest, second, room, liberties, join, len(groups), frontier.bit_count())


def full_turns_left(layout: Layout, empty: int) -> int:
    """The turns left if every turn covers all it may: ⌈empty cells / label⌉ summed over labels."""
    return sum(-(-(empty & layout.label_masks[label]).bit_count() // label) for label in range(1, 7))


def feature_vector(layout: Layout, mine: int, theirs: int) -> list[float]:
    """The ``SIZE`` inputs of the evaluation for the seat holding ``mine``, to move in an unfinished game."""
    empty = layout.board & ~(mine | theirs)
    own = colour_features(layout, mine, empty)
    other = colour_features(layout, theirs, empty)
    base = [float(a - b) for a, b in zip(own, other, strict=True)]
    base.append(1.0 if full_turns_left(layout, empty) % 2 else -1.0)
    base.append(1.0)
    e = empty.bit_count() / layout.size
    return [x * p for x in base for p in (1.0, e, e * e)]


def dot(weights: Sequence[float], inputs: Sequence[float]) -> float:
    """The weights' sum over the inputs, left to right (the C twin's order)."""
    total = 0.0
    for w, x in zip(weights, inputs, strict=True):
        total += w * x
    return total


@dataclass(frozen=True, slots=True)
class Weights:
    """One weights vector (``SIZE`` doubles, in ``feature_vector``'s order) and the record of how it was made."""

    values: tuple[float, ...]
    made: dict[str, object]

    def value(self, layout: Layout, mine: int, theirs: int) -> float:
        """Estimated final margin for the seat holding ``mine``, to move in an unfinished game."""
        return dot(self.values, feature_vector(layout, mine, theirs))


def read_weights(text: str) -> Weights:
    """Weights from the JSON of ``write``: ``{"made": {...}, "weights": [SIZE numbers]}``; ValueError naming the
    field when it is not that."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("a Strands weights file is a JSON object with 'made' and 'weights'")
    values = data.get("weights")
    if not isinstance(values, list) or len(values) != SIZE:
        raise ValueError(f"'weights' must be a list of {SIZE} numbers")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and abs(v) < 1e6 for v in values):
        raise ValueError("every entry of 'weights' must be a finite number below 1e6 in size")
    made = data.get("made")
    if not isinstance(made, dict):
        raise ValueError("'made' must be an object recording the command and the sample")
    return Weights(tuple(float(v) for v in values), made)


@lru_cache(maxsize=1)
def shipped() -> Weights:
    """The weights shipped in the package (``WEIGHTS_FILE``)."""
    return read_weights(WEIGHTS_FILE.read_text(encoding="utf-8"))
