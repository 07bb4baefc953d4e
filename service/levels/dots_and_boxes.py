"""Dots and Boxes' best-move levels: which search, evaluation and budget each plays with.

``easy`` is one-ply greedy; ``medium`` alpha-beta to six plies within 4000 nodes, counting boxes only (seeded
tie-breaks); ``hard`` searches with the engine's chain reductions and chain evaluation, in the native engine when
the service has it (``service/native``: the same search and values, some fifteen times the positions a second;
a node of either counts as one of the budget, ``NODE_WEIGHT``) and on the Python search otherwise. It proves the rest
of the game once that fits its budget, answering ``exact`` with the margin including the boxes already held:
natively with the core's solve mode (with a share of its budget, where the proof looks affordable:
``_proof_affordable``), in Python with the exact solver (``dots_and_boxes_exact.py``) when ``exact_affordable``.
A time limit replaces its node budget and is used until spent or the game is proved. In the opening
(``variety.opening``), where its answer is an estimate, it picks by its seed among the root moves within
``VARIETY_MARGIN`` of the best (``variety.py``), so its games do not repeat. In the pie setup every level uses one
rule (``_setup_move``): stop, or draw a safe line, whichever leaves the position that looks most balanced, since
seat 2 will take the better colour; the keep / swap choice is searched (``easy``: the static estimate).
"""

from __future__ import annotations

from typing import Any

from service.core.values import Level, Limits, ScoredMove, SearchResult, StopSignal
from service.engines.dots_and_boxes import STOP, SWAP, DotsAndBoxesPosition, side_counts
from service.levels import variety
from service.levels.dots_and_boxes_exact import exact_affordable, solve
from service.levels.driver import GameLevels
from service.levels.native_search import callers_resources
from service.native import engine as native
from service.search import greedy, search

# The hard level's node budget when the caller gives no time limit (answers are then the same on every machine);
# with a time limit it searches until the time is up or the game is proved instead.
HARD_NODES = 20_000
HARD_LIMITS = Limits(max_nodes=HARD_NODES)
# Natively, hard first tries to prove the rest of the game when the proof looks affordable within half its node
# budget or three quarters of its time (``_proof_affordable``), then searches with what is left (or all of it).
# Measured on random 5x5 endgames, a proof in the core's solve mode takes at most some 3,000 nodes from 20
# undrawn lines and about 2.3 times more per further line (from 24: up to 85k; the empty 3x3 board, 24 lines,
# 10M in about 4 s); the native search runs at well over a thousand nodes a millisecond.
# Native nodes per node of the budget (and of the answer's count): one, so the same budget costs natively about a
# fourteenth of the CPU and plays at least as well. Measured on 5x5 (``python -m bench.native_levels --only
# dots-and-boxes``: hard natively against hard on the Python path, each with the level's own budget, seeded
# openings with the colours swapped): with 1, 10 wins and 6 losses in 16 games (seed 1) and 17 and 15 in 32 (seed
# 2), at 14.4x and 13.8x the best moves per CPU second; with 2, 5 wins and 3 losses in 8 games at 7.8x.
NODE_WEIGHT = 1
PROOF_NODES_AT_20 = 3_000
PROOF_GROWTH = 2.3
NATIVE_NODES_PER_MS = 1_000
# How far below the best (in boxes of estimated margin) a move may be for hard's seeded choice in the opening
# (``variety.opening``: the first quarter of the lines drawn); a proved value admits only the moves proved equal
# to the best.
VARIETY_MARGIN = 0.25


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
    limits = callers_resources(limits, HARD_LIMITS)
    varied = variety.opening(position.lines.bit_count(), position.geometry.line_count)
    choice = variety.choose(rng, stop, VARIETY_MARGIN, top_n, varied)
    answer = _hard_native(position, limits, choice, top_n, stop)
    if answer is not None:
        return answer
    free = (position.lines ^ position.geometry.full).bit_count()
    if position.phase == "play" and exact_affordable(free, limits.max_nodes):
        solved = solve(position, limits, top_n, stop)
        if solved is not None:
            return solved
    return choice.pick(search(position, limits, stop=stop, top_n=choice.width, rng=rng), top_n)


def _hard_native(
    position: Any, limits: Limits, choice: variety.Choice, top_n: int, stop: StopSignal
) -> SearchResult | None:
    """``hard`` in the native engine, or None without it (or on a board it does not hold): a proof with half the
    node budget or three quarters of the time where that looks affordable, then the search with what is left,
    and the level's seeded ``choice``."""
    if not native.available("dots-and-boxes"):
        return None
    free = (position.lines ^ position.geometry.full).bit_count()
    spent = 0
    proof_ms = None if limits.max_time_ms is None else max(1, limits.max_time_ms * 3 // 4)
    proof_nodes = None if limits.max_nodes is None else max(1, limits.max_nodes // 2)
    native_nodes = None if proof_nodes is None else proof_nodes * NODE_WEIGHT
    if position.phase == "play" and _proof_affordable(free, native_nodes, proof_ms):
        # As the Python exact solver: a proof goes to the end whatever the depth limit, and answers its move
        # alone as the line (the same answer on both paths).
        share = Limits(max_time_ms=proof_ms, max_nodes=proof_nodes)
        proof = native.search(position, share, stop=stop, top_n=top_n, solve=True, node_weight=NODE_WEIGHT)
        if proof is None:
            return None
        if proof.exact:
            proof.pv = proof.pv[:1]
            return proof
        if proof.stop_reason not in ("time", "nodes"):  # the caller stopped it
            return proof
        spent = proof.nodes
        limits = Limits(
            max_time_ms=None if limits.max_time_ms is None else max(1, limits.max_time_ms - (proof_ms or 0)),
            max_depth=limits.max_depth,
            max_nodes=None if limits.max_nodes is None else max(1, limits.max_nodes - spent),
        )
    found = native.search(position, limits, stop=stop, top_n=choice.width, node_weight=NODE_WEIGHT)
    if found is None:
        return None
    found.nodes += spent
    return choice.pick(found, top_n)


def _proof_affordable(free: int, nodes: int | None, time_ms: int | None) -> bool:
    """Whether a native proof from ``free`` undrawn lines is likely to end within ``nodes`` nodes and
    ``time_ms`` milliseconds (None: no such limit)."""
    budgets = [n for n in (nodes, None if time_ms is None else time_ms * NATIVE_NODES_PER_MS) if n is not None]
    return not budgets or min(budgets) >= PROOF_NODES_AT_20 * PROOF_GROWTH ** (free - 20)


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
            f"the last two) and values chains and loops by the long-chain rule ({HARD_NODES:,} positions, or until "
            "the time limit when one is given; in compiled code when the service has it); once the rest of the "
            "game fits its budget (some 21 undrawn lines in compiled code, 18 in Python) it solves it exactly "
            "and plays perfectly. In the opening (the first quarter of the lines) the seed varies its choice among "
            "moves of about equal value.",
            HARD_LIMITS,
        ),
    ),
    default="hard",
    strategies={"easy": _easy, "medium": _medium, "hard": _hard},
)
