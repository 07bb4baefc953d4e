"""Multi-ProbCut's model (Buro's selective search, as Logistello, Edax and Egaroucid prune): a shallow search
predicts a deep one. At a node of depth ``depth`` the search first asks a search of ``shallow(depth)`` plies
whether its value lies so far outside the window that the deep value, ``a * shallow + b`` give or take
``width`` standard deviations of the fitted spread, cannot come back inside; if so the node is cut there.

The relation is fitted per game stage from the project's own searches (``python -m service.learn.probcut``
writes the data file a level ships with its evaluation). A stage is the engine's ``plies_left()`` (Reversi: the
empty squares and one), so the model is the same for every game that has one.

Both searches read the same numbers: the Python search asks ``check``, the native core reads ``table()``
(rows of stage by depth: shallow depth, a, b, margin; a shallow depth of 0 is no check). Neither prunes
selectively in a proof (solve mode, or a node searched to the end of the game).
"""

from __future__ import annotations

import array
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from service.core.jsonvalue import JSONObject

MAX_DEPTH = 64  # deepest node the table has a row for (deeper nodes use its last row)
FIELDS = 4  # shallow depth, a, b, margin per row of ``table()``


def shallow_depth(depth: int) -> int:
    """The shallow search that predicts a node of ``depth``: about a quarter of it, twice, of the same parity
    (an odd search rates the side to move higher than an even one), and never under one ply (Edax's rule)."""
    found = 2 * (depth // 4) + (depth & 1)
    return found if found > 0 else depth - 2


@dataclass(frozen=True)
class Selectivity:
    """A fitted multi-ProbCut model. ``edges``: the stage buckets' lower ends, ascending (a stage belongs to the
    last bucket whose edge it reaches); ``slopes``/``intercepts``: the deep value's line in the shallow one per
    bucket; ``spread``: the standard deviation of the deep value about its line, ``c0 + c1 * stage + c2 * depth
    + c3 * shallow``; ``width``: how many deviations outside the window a cut needs; ``min_depth``: the
    shallowest node that is checked."""

    edges: tuple[int, ...]
    slopes: tuple[float, ...]
    intercepts: tuple[float, ...]
    spread: tuple[float, float, float, float]
    width: float = 1.5
    min_depth: int = 3
    fitted_depth: int = 11

    def bucket(self, stage: int) -> int:
        found = 0
        for i, edge in enumerate(self.edges):
            if stage >= edge:
                found = i
        return found

    def check(self, stage: int, depth: int) -> tuple[int, float, float, float] | None:
        """(shallow depth, a, b, margin) for a node of ``depth`` at ``stage``, None where it is not checked.
        ``margin`` is ``width`` times the spread: a cut needs ``a * v + b`` beyond the window by that much."""
        if depth < self.min_depth:
            return None
        shallow = shallow_depth(depth)
        if shallow < 1 or shallow >= depth:
            return None
        i = self.bucket(stage)
        c0, c1, c2, c3 = self.spread
        fitted = depth if depth <= self.fitted_depth else self.fitted_depth - ((self.fitted_depth - depth) & 1)
        sigma = max(0.5, c0 + c1 * stage + c2 * fitted + c3 * shallow_depth(fitted))
        return shallow, self.slopes[i], self.intercepts[i], self.width * sigma

    def with_width(self, width: float) -> Selectivity:
        return Selectivity(
            self.edges, self.slopes, self.intercepts, self.spread, width, self.min_depth, self.fitted_depth
        )

    def table(self, stages: int) -> array.array[float]:
        """The rows the native core reads: ``stages`` by ``MAX_DEPTH`` rows of ``FIELDS`` doubles."""
        out = array.array("d")
        for stage in range(stages):
            for depth in range(MAX_DEPTH):
                found = self.check(stage, depth)
                out.extend(found if found is not None else (0.0, 0.0, 0.0, 0.0))
        return out

    def to_json(self) -> JSONObject:
        return {
            "edges": list(self.edges),
            "slopes": list(self.slopes),
            "intercepts": list(self.intercepts),
            "spread": list(self.spread),
            "width": self.width,
            "min_depth": self.min_depth,
            "fitted_depth": self.fitted_depth,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Selectivity:
        edges = tuple(int(e) for e in _numbers(data, "edges"))
        slopes = tuple(float(a) for a in _numbers(data, "slopes"))
        intercepts = tuple(float(b) for b in _numbers(data, "intercepts"))
        spread = tuple(float(c) for c in _numbers(data, "spread"))
        if not edges or len(slopes) != len(edges) or len(intercepts) != len(edges) or len(spread) != 4:
            raise ValueError("a selectivity model needs one slope and intercept per stage edge and 4 spread terms")
        if any(a <= 0 for a in slopes):
            raise ValueError("a selectivity model's slopes must be positive")
        return cls(
            edges,
            slopes,
            intercepts,
            (spread[0], spread[1], spread[2], spread[3]),
            float(_number(data, "width", 1.5)),
            int(_number(data, "min_depth", 3)),
            int(_number(data, "fitted_depth", 11)),
        )

    @classmethod
    def read(cls, path: Path) -> Selectivity:
        return cls.from_json(json.loads(path.read_text()))


def _numbers(data: Mapping[str, object], key: str) -> Sequence[int | float]:
    """A model file's list of numbers ``key``, or ValueError."""
    values = data[key]
    if not isinstance(values, list | tuple) or not all(isinstance(value, int | float) for value in values):
        raise ValueError(f"a selectivity model's {key} must be a list of numbers")
    return values


def _number(data: Mapping[str, object], key: str, default: float) -> int | float:
    """A model file's number ``key`` (``default`` when absent), or ValueError."""
    value = data.get(key, default)
    if not isinstance(value, int | float):
        raise ValueError(f"a selectivity model's {key} must be a number")
    return value
