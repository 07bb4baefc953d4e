"""Dots and Boxes' best-move levels: which search, evaluation and budget each plays with.

``easy`` is one-ply greedy; ``medium`` alpha-beta to six plies within 4000 nodes, counting boxes only (seeded
tie-breaks); ``hard`` proves the value with the exact solver (``dots_and_boxes_exact.py``) when the solve is
affordable (at most 18 undrawn lines, or more with a larger node budget: ``exact_affordable``), answering ``exact``
with the margin including the boxes already held, else alpha-beta on the engine's chain reductions and chain
evaluation. In the pie setup every level uses one rule (``_setup_move``): stop, or draw a safe line, whichever
leaves the position that looks most balanced, since seat 2 will take the better colour; the keep / swap choice is
searched (``easy``: the static estimate).
"""

from __future__ import annotations

from typing import Any

from service.core.values import Level, Limits, ScoredMove, SearchResult, StopSignal
from service.engines.dots_and_boxes import STOP, SWAP, DotsAndBoxesPosition, side_counts
from service.levels.dots_and_boxes_exact import exact_affordable, solve
from service.levels.driver import GameLevels
from service.search import greedy, search


def _setup_move(position: DotsAndBoxesPosition, rng: Any, top_n: int) -> SearchResult:
    """Seat 1's setup rule at every level: stop at the most balanced point it can see. Each candidate (stop,
    or a line that gives no box away) is scored by how little seat 2 could gain by choosing a colour after
    it (``-|estimated margin of A|``); ties go to stopping, then to a seeded random line."""
    g = position.geometry
    sides = side_counts(g, position.lines)
    candidates = [
        line for line in position.legal_moves() if line >= 0 and all(sides[box] <= 1 for box in g.line_boxes[line])
    ]
    if not candidates:
        candidates = [line for line in position.legal_moves() if line >= 0]
    rng.shuffle(candidates)
    if position.lines:
        candidates.insert(0, STOP)
    scored = [ScoredMove(move, -abs(position.play(move).colour_value())) for move in candidates]
    scored.sort(key=lambda s: -s.value)
    best = scored[0]
    return SearchResult(
        move=best.move,
        value=best.value,
        exact=False,
        depth=1,
        nodes=len(scored),
        stop_reason="rule",
        pv=[best.move],
        alternatives=scored[: max(top_n, 1)],
    )


def _easy_key(position: Any, move: Any) -> float:
    # A beginner takes a box when one is there, avoids handing one over, and otherwise draws anywhere;
    # at the pie choice it takes the colour the static estimate favours (seat 2 holds B after keep).
    if move < 0:
        value = position.colour_value()
        return value if move == SWAP else -value
    g, lines = position.geometry, position.lines
    after = lines | (1 << move)
    value = 0.0
    for box in g.line_boxes[move]:
        count = (after & g.box_lines[box]).bit_count()
        if count == 4:
            value += 2.0
        elif count == 3:
            value -= 1.0
    return value


def _easy(position: Any, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    if position.phase == "setup":
        return _setup_move(position, rng, top_n)
    return greedy(position, _easy_key, rng, top_n, moves=position.legal_moves())


def _medium(position: Any, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    if position.phase == "setup":
        return _setup_move(position, rng, top_n)
    salt = rng.getrandbits(32)

    def box_margin_with_ties_broken(pos: DotsAndBoxesPosition, seat: int) -> float:
        # Equal box counts are told apart by a seeded pseudo-random amount below half a box (seat 1's view,
        # so it stays zero-sum): the seed varies the play without ever preferring fewer boxes.
        jitter = ((hash(pos) ^ salt) & 1023) / 4096
        return pos.box_margin(seat) + (jitter if seat == 1 else -jitter)

    return search(position, limits, stop=stop, top_n=top_n, rng=rng, evaluate=box_margin_with_ties_broken)


def _hard(position: Any, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    if position.phase == "setup":
        return _setup_move(position, rng, top_n)
    free = (position.lines ^ position.geometry.full).bit_count()
    if position.phase == "play" and exact_affordable(free, limits.max_nodes):
        solved = solve(position, limits, top_n, stop)
        if solved is not None:
            return solved
    return search(position, limits, stop=stop, top_n=top_n, rng=rng)


LEVELS = GameLevels(
    "dots-and-boxes",
    levels=(
        Level("easy", "Takes a box when it can and avoids handing one over; otherwise draws a random line."),
        Level(
            "medium",
            "Looks up to six lines ahead (a few thousand positions) counting only the boxes taken, so it guards "
            "and takes boxes but knows nothing of chains or control; the seed varies its choice among equals.",
            Limits(max_depth=6, max_nodes=4_000),
        ),
        Level(
            "hard",
            "Searches with chain reductions (takes free boxes at once, in an opened chain takes all or leaves "
            "the last two) and values chains and loops by the long-chain rule; once at most 18 lines remain (more "
            "with a larger node budget) it solves the rest of the game exactly and plays perfectly.",
            Limits(max_nodes=20_000),
        ),
    ),
    default="hard",
    strategies={"easy": _easy, "medium": _medium, "hard": _hard},
)
