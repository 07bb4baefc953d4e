"""Seeded variety: among the root moves within a level's margin of the best, the level picks by its seed, so
games against the service do not repeat (the same seed still gives the same answer).

A level makes its ``Choice`` once (``choose``: one draw from its seeded random stream, and each streamed
iteration made to show the pick the same draw makes there, so the last iteration streamed is the answer),
searches ``choice.width`` root moves exactly (the search's multi-PV) and hands the answer to ``choice.pick``.
A proved answer keeps its value: only moves proved equal to the best are picked among, whatever the margin.

The strongest levels (Reversi ``expert``; Kalah, Petak Sawah and Dots and Boxes ``hard``) vary only in the
``opening``, the first quarter of the game: that is where games part ways. Past it they play the best move
they find and score only the moves the caller asked for, as an engine plays after its opening book: a margin
there gives value away on every move, and scoring four moves exactly takes time from the best one
(measured against varying on every move with ``python -m bench.native_levels --only reversi --games 40
--positions 12 --seed 2``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from service.core.values import ScoredMove, SearchResult
from service.search.deadline import Deadline

WIDTH = 4  # root moves scored exactly for the pick
OPENING_SHARE = 4  # the opening is the game's first 1/OPENING_SHARE


def opening(progress: int, length: int) -> bool:
    """Whether a game ``progress`` of ``length`` units in (discs placed, seeds stored, cells taken, lines drawn)
    is still in its opening, where the strongest levels vary their play."""
    return progress * OPENING_SHARE < length


def width(top_n: int) -> int:
    """How many root moves to score exactly for a caller who asked for ``top_n``."""
    return max(top_n, WIDTH)


def draw(rng: random.Random) -> float:
    """The level's one draw for its pick, in [0, 1)."""
    return rng.random()


def pick(result: SearchResult, drawn: float, margin: float, top_n: int) -> SearchResult:
    """``result`` with its move chosen by ``drawn`` among the alternatives within ``margin`` of the best
    (``margin`` 0, or a proved best: among the equals), the chosen one first, trimmed to ``top_n``; its line is
    the chosen alternative's own (its move alone where the search kept none)."""
    scored = result.alternatives
    if not scored:
        return result
    best = scored[0]
    slack = 0.0 if best.exact else margin
    near = [m for m in scored if m.value >= best.value - slack and m.exact == best.exact]
    chosen = near[min(len(near) - 1, int(drawn * len(near)))]
    rest: list[ScoredMove] = [m for m in scored if m is not chosen]
    result.alternatives = ([chosen, *rest])[:top_n]
    if chosen is not best:
        result.move, result.value = chosen.move, chosen.value
        result.pv = list(chosen.pv) if chosen.pv and chosen.pv[0] == chosen.move else [chosen.move]
    return result


@dataclass(frozen=True, slots=True)
class Choice:
    """A level's seeded choice for one best move: its draw, its margin (0: the best move, ties aside) and how
    many root moves its search scores exactly."""

    drawn: float
    margin: float
    width: int

    def pick(self, result: SearchResult, top_n: int) -> SearchResult:
        return pick(result, self.drawn, self.margin, top_n)


def choose(rng: random.Random, stop: Deadline, margin: float, top_n: int, varied: bool = True) -> Choice:
    """The level's ``Choice``: with ``varied`` (a lighter level always, a strongest level in the ``opening``)
    among the moves within ``margin`` of the best, scoring ``width(top_n)`` root moves; otherwise its best move,
    scoring the ``top_n`` asked for. Streamed iterations of ``stop`` show the same pick."""
    choice = Choice(draw(rng), margin, width(top_n)) if varied else Choice(draw(rng), 0.0, top_n)
    report_picks(stop, choice.drawn, choice.margin, top_n)
    return choice


def report_picks(stop: Deadline, drawn: float, margin: float, top_n: int) -> None:
    """Make ``stop``'s iteration reports (streamed analysis), when it has them, show the pick."""
    report = stop.on_iteration
    if report is not None:
        stop.on_iteration = lambda partial: report(pick(partial, drawn, margin, top_n))
