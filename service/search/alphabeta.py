"""Iterative-deepening negamax alpha-beta: the best-move search of every game with modest branching.

Game rules are in ``shared/spec/rules.md``; this module only knows the search hooks of ``base.Position``
(``to_move``, ``search_moves``, ``play``, ``evaluate``, ``final_value``).

What it does:

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
  "solved", ``value`` = the proved final margin. Proved table entries are used at any depth.
- Solve mode (``solve=True``): after ``solve_lead`` shallow iterations the next one goes straight to the
  end of the game (``plies_left()`` of the engine, capped by ``max_depth``) instead of deepening a ply at a
  time: when the game is short enough to prove, the shallow passes cost most of the nodes and buy little
  ordering. Enhanced transposition cutoffs are off there (they cost more than they save in a proof), and the
  engine's optional ``endgame_value(alpha, beta)`` hook may answer small endgames with its own exact solver.
- An engine may also search below a node itself, faster (a compiled kernel): its optional
  ``subtree_value(depth, alpha, beta, stop_at, max_nodes, poll, scratch)`` is asked first at every node when
  the leaves are the engine's own ``evaluate``. It must find the value this search would (the same depth
  rules, the same evaluation, fail-soft within (alpha, beta), the proved flag) and answer ``(value, nodes,
  proved, line)``: ``nodes`` in this search's node units, ``line`` its best moves from the node (for the
  principal variation), ``value`` None when it gave up, which stops the search: at ``stop_at``
  (``time.monotonic()``), after ``max_nodes`` (None: no cap), or when ``poll()`` (the Deadline's clock and
  caller's stop, to call every 10 ms or so) returned True; or None when it does not take the node.
  ``scratch`` is a dict private to one search, for what the engine keeps across its calls (a table).
- One Deadline polled at every node; when it fires the search unwinds at once (a private exception) and
  answers with the last completed iteration. Under a time limit, a new iteration is not started when the
  time left is shorter than the last iteration took (it could not finish, and would not change the answer).

Values are floats in the game's own units from the point of view of the seat to move at the root.
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from service.games.base import GameOverError, Limits, Move, ScoredMove, SearchResult, StopSignal
from service.search.levels import Deadline, never, static_value

INF = math.inf
_nextafter = math.nextafter

# Bound types of a table entry.
_EXACT = 0
_LOWER = 1  # the value is a lower bound (the search failed high)
_UPPER = 2  # the value is an upper bound (the search failed low)

DEFAULT_TT_SIZE = 250_000  # entries; about 100 MB with the positions they keep alive
ASPIRATION = 2.0  # first half-width of the root window, in the game's units (doubles on each failure)
_ASPIRATION_FROM = 3  # iterations below this depth use a full window
_ETC_DEPTH = 2  # enhanced transposition cutoffs only at nodes with at least this much depth left
_PV_LIMIT = 256  # longest principal variation reported


def _solve_depth(position: Any, max_depth: int | None) -> int:
    """The depth solve mode leaps to: the engine's ``plies_left()`` bound, capped by ``max_depth``."""
    hook = getattr(position, "plies_left", None)
    bound = hook() if hook is not None else _SOLVE_DEPTH
    return bound if max_depth is None else min(bound, max_depth)


_SOLVE_DEPTH = 1000  # solve mode's depth for an engine without ``plies_left`` (a game this long is not solved)


class _Stopped(Exception):
    """Raised inside the tree when the Deadline fires; caught at the root."""


def search(
    position: Any,
    limits: Limits | None = None,
    *,
    stop: StopSignal = never,
    top_n: int = 1,
    rng: random.Random | None = None,
    evaluate: Callable[[Any, int], float] | None = None,
    tt_size: int = DEFAULT_TT_SIZE,
    aspiration: float = ASPIRATION,
    solve: bool = False,
    solve_lead: int = 0,
) -> SearchResult:
    """Iterative-deepening alpha-beta from ``position`` for the seat to move (see the module docstring).

    ``limits``: ``max_depth`` (plies, one per move, extra turns included), ``max_nodes``, ``max_time_ms``;
    with none of them the search runs until the game is solved. ``stop`` is polled through a Deadline.
    ``top_n`` > 1 scores that many root moves exactly (multi-PV, full windows) into ``alternatives``.
    ``rng`` is accepted for symmetry with the other searches: alpha-beta needs no randomness and its answer
    depends only on the position, the limits and ``evaluate`` (unless a time limit or ``stop`` fires).
    ``evaluate(position, seat)`` replaces ``position.evaluate(seat)`` at the leaves. ``tt_size`` caps the
    table (0 disables it); ``aspiration`` is the first root window half-width (0 disables aspiration).
    ``solve`` turns on the solve mode (module docstring): ``solve_lead`` iterations, then one to the end.
    """
    del rng  # deterministic by construction
    root_seat = position.to_move
    if root_seat == 0:
        raise GameOverError("the game is over: there is no move to search", "position")
    limits = limits or Limits()
    deadline = Deadline(limits, stop)
    max_depth = limits.max_depth if limits.max_depth is not None and limits.max_depth > 0 else None
    top_n = max(1, top_n)
    ev = evaluate
    expired = deadline.expired

    # The engine's exact solver of small endgames, asked first at every node in solve mode.
    endgame = getattr(type(position), "endgame_value", None) if solve else None
    # The engine's own search below a node, when the leaves are its own evaluation.
    subtree = getattr(type(position), "subtree_value", None) if ev is None else None
    scratch: dict[str, Any] = {}
    lines: dict[Any, list[Move]] = {}  # the best line from each node the engine's search answered
    stop_at = deadline.end  # when the hooks must give up (they cannot be polled while they run)
    tt: dict[Any, tuple[int, float, int, Move, bool]] = {}
    tt_get = tt.get
    tt_cap = max(0, tt_size)
    history: tuple[defaultdict[Move, int], ...] = (defaultdict(int), defaultdict(int), defaultdict(int))
    killers: list[list[Move]] = []
    nodes = 0

    def budget(spent: int) -> int | None:
        """The nodes left under ``max_nodes``, None without a node limit."""
        return None if deadline.max_nodes is None else max(0, deadline.max_nodes - spent)

    def store(pos: Any, depth: int, value: float, flag: int, move: Move, proved: bool) -> None:
        if len(tt) < tt_cap or pos in tt:
            tt[pos] = (depth, value, flag, move, proved)

    def refute(
        pos: Any, seat: int, depth: int, beta: float, ordered: list[Move], children: list[Any], start: int
    ) -> tuple[float, bool] | None:
        """Enhanced transposition cutoff: a child (from ``start`` on) whose finished value or table entry
        already reaches ``beta`` refutes ``pos`` without a search."""
        child_depth = depth - 1
        for i in range(start, len(children)):
            child = children[i]
            cs = child.to_move
            if cs == 0:
                v = child.final_value(seat)
                if v >= beta:
                    store(pos, depth, v, _LOWER, ordered[i], True)
                    return v, True
                continue
            entry = tt_get(child)
            if entry is None:
                continue
            e_depth, e_value, e_flag, _, e_proved = entry
            if not (e_proved or e_depth >= child_depth):
                continue
            if cs == seat:
                if e_flag != _UPPER and e_value >= beta:
                    store(pos, depth, e_value, _LOWER, ordered[i], e_proved)
                    return e_value, e_proved
            elif e_flag != _LOWER and -e_value >= beta:
                store(pos, depth, -e_value, _LOWER, ordered[i], e_proved)
                return -e_value, e_proved
        return None

    def node(pos: Any, depth: int, alpha: float, beta: float, ply: int) -> tuple[float, bool]:
        """Value of ``pos`` for its seat to move, fail-soft within (alpha, beta), and whether it is proved."""
        nonlocal nodes
        if expired(nodes):
            raise _Stopped
        nodes += 1
        seat = pos.to_move
        if depth <= 0:
            return (pos.evaluate(seat) if ev is None else ev(pos, seat)), False
        if subtree is not None:
            found = subtree(pos, depth, alpha, beta, stop_at, budget(nodes), deadline.check, scratch)
            if found is not None:
                value, cost, proved, line = found
                nodes += cost
                if value is None:  # it gave up at the node budget or the deadline: so does the search
                    if not expired(nodes) and not deadline.check():
                        deadline.reason = "time"  # its clock passed stop_at a hair before ours did
                    raise _Stopped
                lines[pos] = line
                return value, proved
        if endgame is not None:
            small = endgame(pos, alpha, beta, stop_at)
            if small is not None:
                nodes += small[1]
                return small[0], True

        tt_move = None
        entry = tt_get(pos)
        if entry is not None:
            e_depth, e_value, e_flag, tt_move, e_proved = entry
            if (e_proved or e_depth >= depth) and (
                e_flag == _EXACT or (e_value >= beta if e_flag == _LOWER else e_value <= alpha)
            ):
                return e_value, e_proved

        moves = pos.search_moves()
        if not moves:  # an engine that lists no move for a live seat: treat as a heuristic leaf
            return (pos.evaluate(seat) if ev is None else ev(pos, seat)), False

        # Ordering: table move, killers, then the engine's order re-sorted by history (stable). The moves
        # are moved to the front in place: list scans run in C, a Python comprehension would not.
        hist = history[seat]
        ordered = sorted(moves, key=hist.__getitem__, reverse=True) if hist else list(moves)
        kill = killers[ply]
        if len(ordered) > 1:
            front = 0
            if tt_move is not None:
                if ordered[0] != tt_move:
                    try:
                        ordered.remove(tt_move)
                    except ValueError:  # an engine whose moves differ between equal positions
                        tt_move = None
                    else:
                        ordered.insert(0, tt_move)
                front = 1 if tt_move is not None else 0
            for k in kill:
                if k is not None and k != tt_move and k in ordered:
                    i = ordered.index(k)
                    if i != front:
                        del ordered[i]
                        ordered.insert(front, k)
                    front += 1

        child_depth = depth - 1
        next_ply = ply + 1
        children = None
        etc = depth >= _ETC_DEPTH and tt_cap and len(ordered) > 2 and not solve
        alpha0 = alpha
        best = -INF
        best_move = ordered[0]
        all_proved = True
        for i, m in enumerate(ordered):
            child = pos.play(m) if children is None else children[i]
            cs = child.to_move
            if cs == 0:
                if expired(nodes):
                    raise _Stopped
                nodes += 1
                v = child.final_value(seat)
                proved = True
            elif cs == seat:
                if i == 0:
                    v, proved = node(child, child_depth, alpha, beta, next_ply)
                else:
                    v, proved = node(child, child_depth, alpha, _nextafter(alpha, INF), next_ply)
                    if alpha < v < beta:
                        v, proved = node(child, child_depth, alpha, beta, next_ply)
            else:
                if i == 0:
                    v, proved = node(child, child_depth, -beta, -alpha, next_ply)
                else:
                    v, proved = node(child, child_depth, -_nextafter(alpha, INF), -alpha, next_ply)
                    if alpha < -v < beta:
                        v, proved = node(child, child_depth, -beta, -alpha, next_ply)
                v = -v
            if v > best:
                best = v
                best_move = m
                if v > alpha:
                    if v >= beta:
                        if kill[0] != m:
                            kill[1] = kill[0]
                            kill[0] = m
                        hist[m] += depth * depth
                        store(pos, depth, v, _LOWER, m, proved)
                        return v, proved
                    alpha = v
            if not proved:
                all_proved = False
            if etc and i == 0:
                # The first move did not refute this node (it usually does): before searching the others,
                # look for one whose finished value or table entry refutes it without a search.
                children = [child]
                children.extend(pos.play(x) for x in ordered[1:])
                cut = refute(pos, seat, depth, beta, ordered, children, 1)
                if cut is not None:
                    return cut

        if best <= alpha0:
            store(pos, depth, best, _UPPER, tt_move if tt_move is not None else best_move, all_proved)
        else:
            store(pos, depth, best, _EXACT, best_move, all_proved)
        return best, all_proved

    # --- the root ---------------------------------------------------------------------------------

    root_moves = list(position.search_moves())
    if not root_moves:
        raise GameOverError("the position has no moves to search", "position")
    root: list[tuple[Move, Any]] = [(m, position.play(m)) for m in root_moves]

    def child_value(child: Any, depth: int, alpha: float, beta: float, full: bool) -> tuple[float, bool]:
        """Value of a root child for the root seat, PVS-style (null window first unless ``full``)."""
        nonlocal nodes
        cs = child.to_move
        if cs == 0:
            if expired(nodes):
                raise _Stopped
            nodes += 1
            return child.final_value(root_seat), True
        if cs == root_seat:
            if not full:
                v, proved = node(child, depth, alpha, _nextafter(alpha, INF), 1)
                if not alpha < v < beta:
                    return v, proved
            return node(child, depth, alpha, beta, 1)
        if not full:
            v, proved = node(child, depth, -_nextafter(alpha, INF), -alpha, 1)
            if not alpha < -v < beta:
                return -v, proved
        v, proved = node(child, depth, -beta, -alpha, 1)
        return -v, proved

    def root_single(depth: int, alpha: float, beta: float) -> tuple[float, int, bool]:
        """One root pass for a single best move: (value, index of the best move, proved)."""
        best = -INF
        best_i = 0
        all_proved = True
        for i, (_, child) in enumerate(root):
            v, proved = child_value(child, depth - 1, alpha, beta, i == 0)
            if v > best:
                best = v
                best_i = i
                if v > alpha:
                    if v >= beta:
                        return v, i, proved
                    alpha = v
            if not proved:
                all_proved = False
        return best, best_i, all_proved

    def root_multi(depth: int) -> tuple[list[tuple[float, int, bool]], bool]:
        """One root pass scoring the ``top_n`` best moves exactly: ([(value, index, proved)] best first, all
        proved). Moves outside the top are only shown to be no better than the n-th best."""
        scored: list[tuple[float, int, bool]] = []
        floor = -INF  # the n-th best exact value so far: a move must beat it to enter the top
        all_proved = True
        for i, (_, child) in enumerate(root):
            v, proved = child_value(child, depth - 1, floor, INF, i < top_n)
            if not proved:
                all_proved = False
            if v > floor:
                scored.append((v, i, proved))
                scored.sort(key=lambda s: (-s[0], s[1]))
                del scored[top_n:]
                if len(scored) == top_n:
                    floor = scored[-1][0]
        return scored, all_proved

    def principal_variation(first: Move, after: Any, limit: int) -> list[Move]:
        """The best move and its continuation along the table's best moves."""
        line = [first]
        pos = after
        seen = {pos}
        while pos.to_move != 0 and len(line) < limit:
            entry = tt_get(pos)
            if entry is None or entry[2] == _UPPER:
                line.extend(lines.get(pos, ())[: limit - len(line)])  # the engine's own search took it on
                break
            pos = pos.play(entry[3])
            if pos in seen:
                break
            seen.add(pos)
            line.append(entry[3])
        return line

    # --- iterative deepening ----------------------------------------------------------------------

    best_move = root[0][0]
    best_value = static_value(position, best_move, root_seat, evaluate)
    alternatives = [ScoredMove(best_move, best_value + 0.0, root[0][1].to_move == 0)]
    pv = [best_move]
    exact = False
    completed = 0
    reason = ""
    depth = 0
    solve_depth = _solve_depth(position, max_depth) if solve else 0
    iteration_began = time.monotonic()
    while True:
        depth += 1
        if solve and solve_lead < depth < solve_depth:
            depth = solve_depth
        if max_depth is not None and depth > max_depth:
            reason = "depth"
            break
        left = deadline.time_left()
        if left is not None and depth > 1:
            # An iteration takes longer than the one before it: when that cannot fit, stop now (the answer
            # would be this one anyway) and save the time.
            now = time.monotonic()
            if now - iteration_began > left:
                deadline.reason = reason = "time"
                break
            iteration_began = now
        while len(killers) <= depth:
            killers.append([None, None])
        try:
            if top_n == 1:
                delta = aspiration
                if depth >= _ASPIRATION_FROM and aspiration > 0 and math.isfinite(best_value):
                    alpha, beta = best_value - delta, best_value + delta
                else:
                    alpha, beta = -INF, INF
                while True:
                    value, best_i, proved = root_single(depth, alpha, beta)
                    if value <= alpha:
                        delta *= 2
                        alpha = -INF if delta > 64 * aspiration else value - delta
                    elif value >= beta:
                        delta *= 2
                        beta = INF if delta > 64 * aspiration else value + delta
                        if best_i:  # the move that failed high is searched first next time
                            root.insert(0, root.pop(best_i))
                    else:
                        break
                scores = [(value, best_i, proved)]
            else:
                scores, proved = root_multi(depth)
        except _Stopped:
            reason = deadline.reason
            break
        completed = depth
        best_value, best_i, _ = scores[0]
        best_move, best_child = root[best_i]
        exact = proved
        pv = principal_variation(best_move, best_child, _PV_LIMIT if exact else depth)
        alternatives = [ScoredMove(root[i][0], v + 0.0, p) for v, i, p in scores]
        if deadline.on_iteration is not None:  # streamed analysis: this iteration's answer, as it stands
            deadline.on_iteration(
                SearchResult(
                    move=best_move,
                    value=best_value + 0.0,
                    exact=exact,
                    depth=completed,
                    nodes=nodes,
                    pv=list(pv),
                    alternatives=alternatives,
                )
            )
        # The next iteration starts with this one's best moves.
        front = [i for _, i, _ in scores]
        taken = set(front)
        root = [root[i] for i in front] + [r for i, r in enumerate(root) if i not in taken]
        if exact:
            reason = "solved"
            break

    return SearchResult(
        move=best_move,
        value=best_value + 0.0,
        exact=exact,
        depth=completed,
        nodes=nodes,
        stop_reason=reason,
        pv=pv,
        alternatives=alternatives,
    )
