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

import random
import time
from collections.abc import Sequence

from service.core.values import Level, Limits, ScoredMove, SearchResult
from service.engines.dots_and_boxes import STOP, SWAP, DotsAndBoxesMove, DotsAndBoxesPosition, side_counts
from service.levels import ladder, variety
from service.levels.budget import Budget
from service.levels.dots_and_boxes_exact import exact_affordable, solve
from service.levels.driver import GameLevels
from service.levels.review import CHANCE_SCALE
from service.native import engine as native
from service.search import Deadline, greedy, search

# The hard level's node budget when the caller gives no time limit (answers are then the same on every machine);
# with a time limit it searches until the time is up or the game is proved instead.
HARD_NODES = 20_000
# The review's judge (``judge.py``): the strongest level with eight times its node budget, at most JUDGE_MS a
# search (``python -m bench.review`` measures what it costs and how well it tells the players apart).
JUDGE_NODES = 8 * HARD_NODES
JUDGE_MS = 2_000

HARD_LIMITS = Limits(max_nodes=HARD_NODES)
# Hard first tries to prove the rest of the game when the proof looks affordable within these shares of its node
# budget and of its time (``_proof``), then searches with what is left (or all of it).
PROOF_NODE_SHARE = 0.5
PROOF_TIME_SHARE = 0.75
# A proof in the core's solve mode of a random 5x5 endgame takes at most ``PROOF_NODES_AT_20`` nodes from 20
# undrawn lines and about ``PROOF_GROWTH`` times more per further line (``python -m bench.solve --games
# dots-and-boxes``).
# Native nodes per node of the budget (and of the answer's count): one, so the same budget costs natively a
# fraction of the CPU and plays at least as well as on the Python path; a weight of 2 saved less and won no
# more. Measured on 5x5 with ``python -m bench.native_levels --only dots-and-boxes`` (hard natively against hard
# on the Python path, each with the level's own budget, seeded openings with the colours swapped).
NODE_WEIGHT = 1
PROOF_NODES_AT_20 = 3_000
PROOF_GROWTH = 2.3
NATIVE_NODES_PER_MS = 1_000
# The Python exact solver's nodes a CPU millisecond, to tell whether a proof fits a time: its ``nodes`` over the
# process time of ``dots_and_boxes_exact.solve`` on seeded 5x5 endgames of 19 undrawn lines ran 7 to 18 on a
# loaded box; the figure sits near the slow end, so a proof it admits fits.
EXACT_NODES_PER_MS = 15
# How far below the best (in boxes of estimated margin) a move may be for hard's seeded choice in the opening
# (``variety.opening``: the first quarter of the lines drawn); a proved value admits only the moves proved equal
# to the best.
VARIETY_MARGIN = 0.25


def _setup_move(position: DotsAndBoxesPosition, rng: random.Random, top_n: int) -> SearchResult:
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


def _easy_key(position: DotsAndBoxesPosition, move: DotsAndBoxesMove) -> float:
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


def _easy(
    position: DotsAndBoxesPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline
) -> SearchResult:
    if position.phase == "setup":
        return _setup_move(position, rng, top_n)
    return greedy(position, _easy_key, rng, top_n, moves=position.legal_moves())


def _medium(
    position: DotsAndBoxesPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline
) -> SearchResult:
    if position.phase == "setup":
        return _setup_move(position, rng, top_n)
    salt = rng.getrandbits(32)

    def box_margin_with_ties_broken(pos: DotsAndBoxesPosition, seat: int) -> float:
        # Equal box counts are told apart by a seeded pseudo-random amount below half a box (seat 1's view,
        # so it stays zero-sum): the seed varies the play without ever preferring fewer boxes.
        jitter = ((hash(pos) ^ salt) & 1023) / 4096
        return pos.box_margin(seat) + (jitter if seat == 1 else -jitter)

    # An analysis counts the boxes alone: the seed's tie-breaks are play's variety.
    evaluate = box_margin_with_ties_broken if budget.varied else DotsAndBoxesPosition.box_margin
    return search(position, budget.limits, stop=stop, top_n=top_n, rng=rng, evaluate=evaluate)


def _hard(
    position: DotsAndBoxesPosition, budget: Budget, rng: random.Random, top_n: int, stop: Deadline
) -> SearchResult:
    """A proof first where it looks affordable within its share of the budget (``_proof``), then the chain search
    with what is left, and the seeded choice in the opening of a game played."""
    if position.phase == "setup":
        return _setup_move(position, rng, top_n)
    varied = budget.varied and variety.opening(position.lines.bit_count(), position.geometry.line_count)
    choice = variety.choose(rng, stop, VARIETY_MARGIN, top_n, varied)
    began = time.monotonic()
    proof, spent = _proof(position, budget, top_n, stop)
    if proof is not None:
        return proof
    limits = budget.rest(spent, began) if spent is not None else budget.limits
    found = native.search(position, limits, stop=stop, top_n=choice.width, node_weight=NODE_WEIGHT)
    if found is None:
        found = search(position, limits, stop=stop, top_n=choice.width, rng=rng)
    found.nodes += spent or 0
    return choice.pick(found, top_n)


def _proof(
    position: DotsAndBoxesPosition, budget: Budget, top_n: int, stop: Deadline
) -> tuple[SearchResult | None, int | None]:
    """(the proved answer, or one the caller stopped, or None; the nodes of the budget a proof spent, None when
    none was tried). A proof is tried where it looks affordable: natively in the core's solve mode within
    ``PROOF_NODE_SHARE`` of the node budget or ``PROOF_TIME_SHARE`` of the time; in Python with the exact solver
    within the node budget (its nodes are not the search's) or ``PROOF_TIME_SHARE`` of the time. It goes to the
    end whatever the depth limit and answers its move alone as the line (the same answer on both paths)."""
    if position.phase != "play":
        return None, None
    free = (position.lines ^ position.geometry.full).bit_count()
    left_ms = budget.time_left_ms()
    time_ms = None if left_ms is None else max(1, int(left_ms * PROOF_TIME_SHARE))
    if native.holds(position):
        share = budget.share(PROOF_NODE_SHARE, time_ms)
        if not _proof_affordable(free, share.max_nodes, time_ms, NATIVE_NODES_PER_MS):
            return None, None
        proof = native.search(position, share, stop=stop, top_n=top_n, solve=True, node_weight=NODE_WEIGHT)
        if proof is None:
            return None, None
        if proof.exact or proof.stop_reason not in ("time", "nodes"):  # proved, or the caller stopped it
            proof.pv = proof.pv[:1]
            return proof, proof.nodes
        return None, proof.nodes
    share = budget.share(1.0, time_ms)
    nodes = share.max_nodes
    if time_ms is not None:  # what the time share buys, when that is less
        by_time = EXACT_NODES_PER_MS * time_ms
        nodes = by_time if nodes is None else min(nodes, by_time)
    if not exact_affordable(free, nodes):
        return None, None
    return solve(position, share, top_n, Deadline(share, stop)), 0


def _proof_affordable(free: int, nodes: int | None, time_ms: float | None, per_ms: int) -> bool:
    """Whether a native proof from ``free`` undrawn lines is likely to end within ``nodes`` nodes and
    ``time_ms`` milliseconds at ``per_ms`` nodes a millisecond (None: no such limit)."""
    budgets = [n for n in (nodes, None if time_ms is None else time_ms * per_ms) if n is not None]
    return not budgets or min(budgets) >= PROOF_NODES_AT_20 * PROOF_GROWTH ** (free - 20)


# The rated ladder (``ladder.py``; the game's page lists it with its ratings): rungs below ``hard`` that score the
# moves with its search a few moves deep and err like people; ``make fit-ladder`` measures their ratings.
RUNGS = ladder.rungs(
    depths=(1, 1, 1, 2, 3, 3, 4, 5),
    mean_losses=(3.0, 0.8, 0.45, 0.25, 0.12, 0.06, 0.03, 0.015),
    sure_from=2,
)


def sure_moves(position: DotsAndBoxesPosition, moves: Sequence[DotsAndBoxesMove]) -> list[DotsAndBoxesMove]:
    """A free box that gives nothing away: the search's sound reductions leave one move and it takes a box (a
    capture that ends a chain's last two boxes, where declining them may be right, is not one)."""
    only = position.search_moves()
    if len(only) != 1 or only[0] not in moves:
        return []
    seat = position.to_move
    return [only[0]] if position.play(only[0]).scores()[seat - 1] > position.scores()[seat - 1] else []


_RUNG_LEVELS, _RUNG_STRATEGIES = ladder.ladder_levels(RUNGS, "hard's search", _hard, "dots-and-boxes", sure_moves)
LADDER = (*(rung.name for rung in RUNGS), "hard")

LEVELS: GameLevels[DotsAndBoxesPosition, DotsAndBoxesMove] = GameLevels(
    "dots-and-boxes",
    levels=(
        Level("easy", "Takes a box when it can and avoids handing one over; otherwise draws a random line."),
        Level(
            "medium",
            "Looks up to six lines ahead (a few thousand positions) counting only the boxes taken, so it guards "
            "and takes boxes but knows nothing of chains or control; the seed varies its choice among equals.",
            Limits(max_depth=6, max_nodes=4_000),
        ),
        *_RUNG_LEVELS,
        Level(
            "hard",
            "Searches with chain reductions (takes free boxes at once, in an opened chain takes all or leaves "
            f"the last two) and values chains and loops by the long-chain rule ({HARD_NODES:,} positions, or until "
            "the time limit when one is given; in compiled code when the service has it); once the rest of the "
            "game fits its budget (some 21 undrawn lines in compiled code, 18 in Python) it solves it exactly "
            "and plays perfectly. In the opening (the first quarter of the lines) the seed varies its choice among "
            "moves of about equal value.",
            HARD_LIMITS,
            think_ms=ladder.think_ms(len(LADDER)),
        ),
    ),
    default="hard",
    strategies={"easy": _easy, "medium": _medium, "hard": _hard, **_RUNG_STRATEGIES},
    review_scale=CHANCE_SCALE,
    judge=Limits(max_nodes=JUDGE_NODES, max_time_ms=JUDGE_MS),
    ladder=LADDER,
    sure_moves=sure_moves,
)
