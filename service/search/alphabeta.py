"""Iterative-deepening negamax alpha-beta: the best-move search of every game with modest branching.

It knows only the engine contract (``service/core/contract.py``: ``to_move``, ``search_moves``, ``play``,
``evaluate``, ``final_value``, ``plies_left``, ``search_moves_complete``); the node search is
``service/search/tree.py``, this module the root and the iterations.

- Negamax where a seat may move several times in a row: a child's value changes sign only when the seat
  to move changes; a finished child (``to_move == 0``) is worth ``final_value(parent's seat)``.
- Principal variation search (null windows after the first move, re-search on a fail high) with fail-soft
  values, aspiration windows at the root from the third iteration on.
- A transposition table keyed by the position itself (depth, value, bound, best move, proved), bounded in
  size and made fresh for every call, so nothing survives between calls (the service is stateless).
- Move ordering: the table's move, then two killer moves per ply, then the engine's ``search_moves()``
  order re-sorted (stably) by the history heuristic. Enhanced transposition cutoffs at deeper nodes.
- Proofs: every value carries a "proved" flag, true when only finished games (or proved table entries)
  decided it. An iteration whose root value is proved ends the search: ``exact=True``, ``stop_reason``
  "solved", ``value`` = the proved final margin, unless the engine says its ``search_moves`` were capped
  (``search_moves_complete()`` false): then nothing was proved and the answer says so.
- Solve mode (``solve=True``): after ``solve_lead`` shallow iterations the next one goes straight to the
  end of the game (``plies_left()`` of the engine, capped by ``max_depth``) instead of deepening a ply at a
  time: when the game is short enough to prove, the shallow passes cost most of the nodes and buy little
  ordering. Enhanced transposition cutoffs are off there (they cost more than they save in a proof).
  ``depth`` is the last finished iteration's, except after a leap for an engine without ``plies_left`` (Kalah),
  which goes to ``_SOLVE_DEPTH``, a depth no game of it reaches: a proof there answers as its depth the length
  of its proved line (the ``pv``, which a proof walks to the end of the game), the plies the proof had to look
  ahead on the line that decides it. The native core (``core.c``) answers the same.
- Lines: the answer's ``pv`` is the best move's line, kept by the root pass below it (the triangular table)
  and continued from the transposition table (``Tree.principal_variation``). Each scored root move of a
  multi-PV pass (``top_n`` > 1) lands inside its window, so its child's search leaves its line too: every
  alternative carries its own (``ScoredMove.pv``, continued the same way; the best one's is the ``pv``). Lines
  are information: nothing of the search's choices, values or nodes depends on them.
- Plug-ins (``service/search/plugins.py``): a level may hand the search an endgame solver (asked first at
  every node in solve mode) and a faster search below a node (a compiled kernel).
- One Deadline polled at every node; when it fires the search unwinds at once and answers with the last
  completed iteration. Under a time limit, a new iteration is not started when the time left is shorter than
  the last iteration took (it could not finish, and would not change the answer).

Values are floats in the game's own units from the point of view of the seat to move at the root.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from service.core.contract import PositionT
from service.core.errors import GameOverError
from service.core.selectivity import Selectivity
from service.core.values import Limits, Move, ScoredMove, SearchResult, StopSignal
from service.search.deadline import Deadline, given_limit, never
from service.search.greedy import static_value
from service.search.plugins import NO_PLUGINS, Plugins
from service.search.tree import INF, Stopped, Tree

DEFAULT_TT_SIZE = 250_000  # entries; about 100 MB with the positions they keep alive
ASPIRATION = 2.0  # first half-width of the root window, in the game's units (doubles on each failure)
_ASPIRATION_FROM = 3  # iterations below this depth use a full window
_PV_LIMIT = 256  # longest principal variation reported
_SOLVE_DEPTH = 1000  # solve mode's depth for an engine without ``plies_left`` (a game this long is not solved)

Root = list[tuple[Move, PositionT]]  # the root's moves with the positions after them, best first
Scores = list[tuple[float, int, bool]]  # (value, index into the root, proved), best first
Kept = dict[int, Sequence[Move]]  # a root pass's line of each scored move (by its index), starting with the move


@dataclass(slots=True)
class _Answer:
    """The last completed iteration: what the search answers when it stops."""

    move: Move
    value: float
    alternatives: list[ScoredMove]
    pv: list[Move] = field(default_factory=list)
    exact: bool = False
    depth: int = 0


def search(
    position: PositionT,
    limits: Limits | None = None,
    *,
    stop: StopSignal = never,
    top_n: int = 1,
    rng: random.Random | None = None,
    evaluate: Callable[[PositionT, int], float] | None = None,
    tt_size: int = DEFAULT_TT_SIZE,
    aspiration: float = ASPIRATION,
    solve: bool = False,
    solve_lead: int = 0,
    plugins: Plugins[PositionT] = NO_PLUGINS,
    selective: Selectivity | None = None,
) -> SearchResult:
    """Iterative-deepening alpha-beta from ``position`` for the seat to move (see the module docstring).

    ``limits``: ``max_depth`` (plies, one per move, extra turns included), ``max_nodes``, ``max_time_ms``;
    with none of them the search runs until the game is solved. ``stop`` is polled through a Deadline.
    ``top_n`` > 1 scores that many root moves exactly (multi-PV, full windows) into ``alternatives``.
    ``rng`` is accepted for symmetry with the other searches: alpha-beta needs no randomness and its answer
    depends only on the position, the limits and ``evaluate`` (unless a time limit or ``stop`` fires).
    ``evaluate(position, seat)`` replaces ``position.evaluate(seat)`` at the leaves. ``tt_size`` caps the
    table (0 disables it); ``aspiration`` is the first root window half-width (0 disables aspiration).
    ``solve`` turns on the solve mode: ``solve_lead`` iterations, then one to the end of the game.
    ``selective``: multi-ProbCut's model (``service/core/selectivity.py``), never used in solve mode or in a
    node searched to the end of the game; None searches every node in full.
    """
    del rng  # deterministic by construction
    root_seat = position.to_move
    if root_seat == 0:
        raise GameOverError("the game is over: there is no move to search", "position")
    limits = limits or Limits()
    deadline = Deadline(limits, stop)
    if deadline.on_iteration is not None and not position.search_moves_complete():
        deadline.on_iteration = _unproved(deadline.on_iteration)  # as the answer below: capped moves prove nothing
    max_depth = given_limit(limits.max_depth)
    moves = list(position.search_moves())
    if not moves:
        raise GameOverError("the position has no moves to search", "position")
    root: Root[PositionT] = [(m, position.play(m)) for m in moves]
    tree: Tree[PositionT] = Tree(deadline, evaluate, tt_size, solve, plugins, selective)
    first = root[0][0]
    value = static_value(position, first, root_seat, evaluate)
    answer = _Answer(first, value, [ScoredMove(first, value + 0.0, root[0][1].to_move == 0, (first,))], [first])
    solve_depth = _solve_depth(position, max_depth) if solve else 0
    unbounded = solve_depth == _SOLVE_DEPTH and position.plies_left() is None  # the leap is the sentinel's
    reason = _deepen(
        tree, root, root_seat, answer, max(1, top_n), aspiration, max_depth, solve_lead, solve_depth, unbounded
    )
    if answer.exact and not position.search_moves_complete():
        # The root's moves were capped, so a search that reached only finished games proved nothing.
        answer.exact = False
        reason = "depth" if reason == "solved" else reason
        answer.alternatives = [replace(m, exact=False) for m in answer.alternatives]
    return SearchResult(
        move=answer.move,
        value=answer.value + 0.0,
        exact=answer.exact,
        depth=answer.depth,
        nodes=tree.nodes,
        stop_reason=reason,
        pv=answer.pv,
        alternatives=answer.alternatives,
    )


def _unproved(report: Callable[[SearchResult], None]) -> Callable[[SearchResult], None]:
    """``report`` told that nothing is proved (the iterations of a root whose moves were capped)."""

    def unproved(partial: SearchResult) -> None:
        partial.exact = False
        partial.alternatives = [replace(m, exact=False) for m in partial.alternatives]
        report(partial)

    return unproved


def _solve_depth(position: PositionT, max_depth: int | None) -> int:
    """The depth solve mode leaps to: the engine's ``plies_left()`` bound, capped by ``max_depth``."""
    bound = position.plies_left()
    if bound is None:
        bound = _SOLVE_DEPTH
    return bound if max_depth is None else min(bound, max_depth)


def _deepen(
    tree: Tree[PositionT],
    root: Root[PositionT],
    root_seat: int,
    answer: _Answer,
    top_n: int,
    aspiration: float,
    max_depth: int | None,
    solve_lead: int,
    solve_depth: int,
    unbounded: bool,
) -> str:
    """Iterative deepening: one iteration after another into ``answer`` until a limit, the deadline or a
    proof ends it; the stop reason. ``unbounded``: solve mode's leap is to ``_SOLVE_DEPTH`` (an engine without
    ``plies_left``), so a proof there answers its line's length as its depth (the module docstring)."""
    deadline = tree.deadline
    depth = 0
    iteration_began = time.monotonic()
    while True:
        depth += 1
        if solve_depth and solve_lead < depth < solve_depth:
            depth = solve_depth
        if max_depth is not None and depth > max_depth:
            return "depth"
        left = deadline.time_left()
        if left is not None and depth > 1:
            # An iteration takes longer than the one before it: when that cannot fit, stop now (the answer
            # would be this one anyway) and save the time, once the share of it to be spent is (``Limits.spend``).
            now = time.monotonic()
            if now - iteration_began > left and now >= deadline.spend_until:
                deadline.reason = "time"
                return "time"
            iteration_began = now
        tree.reach(depth)
        kept: Kept = {}
        try:
            if top_n == 1:
                scores, proved = _aspirated(tree, root, root_seat, depth, answer.value, aspiration)
            else:
                scores, proved = _root_multi(tree, root, root_seat, depth, top_n, kept)
        except Stopped:
            return deadline.reason
        root[:] = _completed(tree, root, root_seat, scores, proved, depth, answer, kept)
        if answer.exact and unbounded and depth == solve_depth:
            answer.depth = min(depth, len(answer.pv))  # the sentinel's leap: the proved line's plies
        if deadline.on_iteration is not None:  # streamed analysis: this iteration's answer, as it stands
            deadline.on_iteration(
                SearchResult(
                    move=answer.move,
                    value=answer.value + 0.0,
                    exact=answer.exact,
                    depth=answer.depth,
                    nodes=tree.nodes,
                    pv=list(answer.pv),
                    alternatives=list(answer.alternatives),
                )
            )
        if answer.exact:
            return "solved"


def _completed(
    tree: Tree[PositionT],
    root: Root[PositionT],
    root_seat: int,
    scores: Scores,
    proved: bool,
    depth: int,
    answer: _Answer,
    kept: Kept,
) -> Root[PositionT]:
    """Take a finished iteration into ``answer`` (its principal variation as long as the search knows it: the
    root pass's line, then the table's, to ``depth`` moves or, proved, to the end; each alternative's own line
    the same way from what the pass ``kept`` of it, the best one's the answer's); the root reordered with its
    best moves first."""
    value, best_i, _ = scores[0]
    best_move, best_child = root[best_i]
    answer.move, answer.value, answer.depth, answer.exact = best_move, value, depth, proved
    after = value if best_child.to_move == root_seat else -value  # for the seat to move after the best move
    answer.pv = tree.principal_variation(best_move, best_child, _PV_LIMIT if proved else depth, after, depth, proved)
    alternatives = [ScoredMove(best_move, value + 0.0, scores[0][2], tuple(answer.pv))]
    for v, i, p in scores[1:]:
        move, child = root[i]
        line = tree.principal_variation(
            move, child, _PV_LIMIT if p else depth, v if child.to_move == root_seat else -v, depth, p, kept.get(i, ())
        )
        alternatives.append(ScoredMove(move, v + 0.0, p, tuple(line)))
    answer.alternatives = alternatives
    front = [i for _, i, _ in scores]
    taken = set(front)
    return [root[i] for i in front] + [r for i, r in enumerate(root) if i not in taken]


def _aspirated(
    tree: Tree[PositionT], root: Root[PositionT], root_seat: int, depth: int, guess: float, aspiration: float
) -> tuple[Scores, bool]:
    """One iteration for a single best move, in a window around ``guess`` that widens on each failure (the
    move that failed high goes first in the next try)."""
    delta = aspiration
    if depth >= _ASPIRATION_FROM and aspiration > 0 and math.isfinite(guess):
        alpha, beta = guess - delta, guess + delta
    else:
        alpha, beta = -INF, INF
    while True:
        value, best_i, proved = _root_single(tree, root, root_seat, depth, alpha, beta)
        if value <= alpha:
            delta *= 2
            alpha = -INF if delta > 64 * aspiration else value - delta
        elif value >= beta:
            delta *= 2
            beta = INF if delta > 64 * aspiration else value + delta
            if best_i:
                root.insert(0, root.pop(best_i))
        else:
            return [(value, best_i, proved)], proved


def _root_single(
    tree: Tree[PositionT], root: Root[PositionT], root_seat: int, depth: int, alpha: float, beta: float
) -> tuple[float, int, bool]:
    """One root pass for a single best move: (value, index of the best move, proved). The pass keeps its
    principal variation in ``tree.line[0]`` (a move whose value lands inside the window, and its line)."""
    best = -INF
    best_i = 0
    all_proved = True
    line = tree.line
    line[0] = ()
    for i, (move, child) in enumerate(root):
        line[1] = ()
        v, proved = tree.child(child, root_seat, depth - 1, alpha, beta, i == 0, 1)
        if v > best:
            best = v
            best_i = i
            if v > alpha:
                if v >= beta:
                    return v, i, proved
                alpha = v
                line[0] = [move, *line[1]]
        if not proved:
            all_proved = False
    return best, best_i, all_proved


def _root_multi(
    tree: Tree[PositionT], root: Root[PositionT], root_seat: int, depth: int, top_n: int, kept: Kept
) -> tuple[Scores, bool]:
    """One root pass scoring the ``top_n`` best moves exactly (best first) and whether all were proved.
    Moves outside the top are only shown to be no better than the n-th best. A move that enters the top lands
    inside its window, so its child's search leaves its line in ``line[1]``: ``kept`` takes it, by index."""
    scored: Scores = []
    floor = -INF  # the n-th best exact value so far: a move must beat it to enter the top
    all_proved = True
    line = tree.line
    line[0] = ()
    for i, (move, child) in enumerate(root):
        line[1] = ()
        v, proved = tree.child(child, root_seat, depth - 1, floor, INF, i < top_n, 1)
        if not proved:
            all_proved = False
        if not scored or v > scored[0][0]:  # the best so far (the first of equals): its line
            line[0] = [move, *line[1]]
        if v > floor:
            kept[i] = [move, *line[1]]
            scored.append((v, i, proved))
            scored.sort(key=lambda s: (-s[0], s[1]))
            del scored[top_n:]
            if len(scored) == top_n:
                floor = scored[-1][0]
    return scored, all_proved
