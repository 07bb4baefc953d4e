"""The node search of the alpha-beta core: negamax below the root with a transposition table, move ordering,
proofs and the engines' plug-ins (``service/search/alphabeta.py`` drives it from the root).

A ``Tree`` holds one search's data (table, killers, history, node count) as plain attributes and refers to
nothing that refers back to it, so it is freed the moment its search returns: the per-call garbage cycles of
nested closures were what kept each search's table alive until the cycle collector ran.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Generic, Never

from service.core.contract import PositionT
from service.core.selectivity import Selectivity
from service.core.values import Move
from service.search.deadline import Deadline
from service.search.plugins import Plugins

INF = math.inf
_nextafter = math.nextafter

# Bound types of a table entry.
EXACT = 0
LOWER = 1  # the value is a lower bound (the search failed high)
UPPER = 2  # the value is an upper bound (the search failed low)

_ETC_DEPTH = 2  # enhanced transposition cutoffs only at nodes with at least this much depth left

Entry = tuple[int, float, int, Move, bool]  # (depth, value, bound, best move, proved)
Path = tuple[int, float, "Sequence[Move]"]  # an exact entry's line below its node, with the entry's depth and value

_NO_LINE: tuple[Never, ...] = ()


class Stopped(Exception):
    """Raised inside the tree when the Deadline fires; caught at the root."""


class Tree(Generic[PositionT]):
    """One search's node search over one game's positions. ``node`` is the whole algorithm; the rest are its
    parts."""

    __slots__ = (
        "deadline",
        "evaluate",
        "expired",
        "history",
        "killers",
        "line",
        "lines",
        "nodes",
        "paths",
        "plugins",
        "scratch",
        "selective",
        "solve",
        "stop_at",
        "tt",
        "tt_cap",
    )

    def __init__(
        self,
        deadline: Deadline,
        evaluate: Callable[[PositionT, int], float] | None,
        tt_size: int,
        solve: bool,
        plugins: Plugins[PositionT],
        selective: Selectivity | None = None,
    ) -> None:
        self.deadline = deadline
        self.expired = deadline.expired
        self.evaluate = evaluate
        self.solve = solve
        self.selective = None if solve else selective  # a proof never prunes selectively
        # A search below a node answers only where the leaves are the engine's own evaluation, an endgame
        # solver only in solve mode.
        self.plugins = Plugins(
            subtree=plugins.subtree if evaluate is None else None, endgame=plugins.endgame if solve else None
        )
        self.scratch: dict[str, object] = {}  # the plug-ins' own data for this search (a native table)
        self.lines: dict[PositionT, list[Move]] = {}  # the best line from each node a plug-in answered
        self.stop_at = deadline.end  # when the plug-ins must give up (they cannot be polled while they run)
        self.tt: dict[PositionT, Entry] = {}
        self.tt_cap = max(0, tt_size)
        self.history: tuple[defaultdict[Move, int], ...] = (defaultdict(int), defaultdict(int), defaultdict(int))
        self.killers: list[list[Move | None]] = []
        # The principal variation below each ply of the current root pass (the triangular table): a node whose
        # move lands inside its window keeps that move and the line below it; a node the table (or a plug-in)
        # answers inside its window takes the line kept with that answer (``paths``, ``lines``). Nothing of it
        # changes what the search does. ``line[0]`` is the root's, set by the root's passes (alphabeta.py).
        self.line: list[Sequence[Move]] = []
        self.paths: dict[PositionT, Path] = {}  # the line below each node whose exact value went into the table
        self.nodes = 0

    def reach(self, depth: int) -> None:
        """Room for an iteration of ``depth`` plies: killers and a line at every ply (the root's ply 0 too)."""
        while len(self.killers) <= depth:
            self.killers.append([None, None])
        while len(self.line) <= depth:
            self.line.append(_NO_LINE)

    def leaf(self, pos: PositionT, seat: int) -> float:
        return pos.evaluate(seat) if self.evaluate is None else self.evaluate(pos, seat)

    def budget(self) -> int | None:
        """The nodes left under ``max_nodes``, None without a node limit."""
        cap = self.deadline.max_nodes
        return None if cap is None else max(0, cap - self.nodes)

    def store(self, pos: PositionT, depth: int, value: float, flag: int, move: Move, proved: bool) -> None:
        tt = self.tt
        if len(tt) < self.tt_cap or pos in tt:
            tt[pos] = (depth, value, flag, move, proved)

    def finished(self, child: PositionT, seat: int) -> float:
        """A finished child's value for ``seat``, counted as a node."""
        if self.expired(self.nodes):
            raise Stopped
        self.nodes += 1
        return child.final_value(seat)

    def ask_plugins(self, pos: PositionT, depth: int, alpha: float, beta: float, ply: int) -> tuple[float, bool] | None:
        """The value of ``pos`` from a plug-in that takes the node, or None to search it here (a subtree's
        value inside the window brings its line along, as the node's at ``ply``)."""
        subtree = self.plugins.subtree
        if subtree is not None:
            found = subtree(pos, depth, alpha, beta, self.stop_at, self.budget(), self.deadline.check, self.scratch)
            if found is not None:
                value, cost, proved, line = found
                self.nodes += cost
                if value is None:  # it gave up at the node budget or the deadline: so does the search
                    if not self.expired(self.nodes) and not self.deadline.check():
                        self.deadline.reason = "time"  # its clock passed stop_at a hair before ours did
                    raise Stopped
                self.lines[pos] = line
                if alpha < value < beta:
                    self.line[ply] = line
                return value, proved
        endgame = self.plugins.endgame
        if endgame is not None:
            small = endgame(pos, alpha, beta, self.stop_at)
            if small is not None:
                self.nodes += small[1]
                return small[0], True
        return None

    def probe(
        self, pos: PositionT, depth: int, alpha: float, beta: float
    ) -> tuple[Move | None, tuple[float, bool] | None]:
        """The table's move for ``pos``, and its value when the entry already answers the window."""
        entry = self.tt.get(pos)
        if entry is None:
            return None, None
        e_depth, e_value, e_flag, tt_move, e_proved = entry
        if (e_proved or e_depth >= depth) and (
            e_flag == EXACT or (e_value >= beta if e_flag == LOWER else e_value <= alpha)
        ):
            return tt_move, (e_value, e_proved)
        return tt_move, None

    def ordered(
        self, moves: Sequence[Move], seat: int, tt_move: Move | None, ply: int
    ) -> tuple[list[Move], Move | None]:
        """Table move, killers, then the engine's order re-sorted by history (stable); the table move is
        dropped (None) when the engine did not list it. The moves go to the front in place: list scans run in
        C, a Python comprehension would not."""
        hist = self.history[seat]
        ordered = sorted(moves, key=hist.__getitem__, reverse=True) if hist else list(moves)
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
            for k in self.killers[ply]:
                if k is not None and k != tt_move and k in ordered:
                    i = ordered.index(k)
                    if i != front:
                        del ordered[i]
                        ordered.insert(front, k)
                    front += 1
        return ordered, tt_move

    def refute(
        self, pos: PositionT, seat: int, depth: int, beta: float, ordered: list[Move], children: list[PositionT]
    ) -> tuple[float, bool] | None:
        """Enhanced transposition cutoff: a child after the first whose finished value or table entry already
        reaches ``beta`` refutes ``pos`` without a search."""
        child_depth = depth - 1
        tt_get = self.tt.get
        for i in range(1, len(children)):
            child = children[i]
            cs = child.to_move
            if cs == 0:
                v = child.final_value(seat)
                if v >= beta:
                    self.store(pos, depth, v, LOWER, ordered[i], True)
                    return v, True
                continue
            entry = tt_get(child)
            if entry is None:
                continue
            e_depth, e_value, e_flag, _, e_proved = entry
            if not (e_proved or e_depth >= child_depth):
                continue
            if cs == seat:
                if e_flag != UPPER and e_value >= beta:
                    self.store(pos, depth, e_value, LOWER, ordered[i], e_proved)
                    return e_value, e_proved
            elif e_flag != LOWER and -e_value >= beta:
                self.store(pos, depth, -e_value, LOWER, ordered[i], e_proved)
                return -e_value, e_proved
        return None

    def child(
        self, child: PositionT, seat: int, depth: int, alpha: float, beta: float, full: bool, ply: int
    ) -> tuple[float, bool]:
        """A child's value for ``seat`` (the parent's), PVS-style: a null window first unless ``full``. The
        sign flips only when the seat to move changes (extra turns, passes)."""
        cs = child.to_move
        if cs == 0:
            return self.finished(child, seat), True
        if cs == seat:
            if not full:
                v, proved = self.node(child, depth, alpha, _nextafter(alpha, INF), ply)
                if not alpha < v < beta:
                    return v, proved
            return self.node(child, depth, alpha, beta, ply)
        if not full:
            v, proved = self.node(child, depth, -_nextafter(alpha, INF), -alpha, ply)
            if not alpha < -v < beta:
                return -v, proved
        v, proved = self.node(child, depth, -beta, -alpha, ply)
        return -v, proved

    def node(self, pos: PositionT, depth: int, alpha: float, beta: float, ply: int) -> tuple[float, bool]:
        """Value of ``pos`` for its seat to move, fail-soft within (alpha, beta), and whether it is proved."""
        if self.expired(self.nodes):
            raise Stopped
        self.nodes += 1
        seat = pos.to_move
        if depth <= 0:
            return self.leaf(pos, seat), False
        if self.plugins.subtree is not None or self.plugins.endgame is not None:
            answered = self.ask_plugins(pos, depth, alpha, beta, ply)
            if answered is not None:
                return answered
        tt_move, known = self.probe(pos, depth, alpha, beta)
        if known is not None:
            if alpha < known[0] < beta:  # an exact entry: the line kept with it, when it is its own
                path = self.paths.get(pos)
                entry = self.tt[pos]
                if path is not None and path[0] == entry[0] and path[1] == entry[1]:
                    self.line[ply] = path[2]
            return known
        if self.selective is not None:
            left = pos.plies_left()  # None: the engine has no bound, and no node is searched to the end
            cut = 0 if left is not None and depth >= left else self.probcut(pos, left or 0, depth, alpha, beta, ply)
            if cut:
                return (alpha if cut < 0 else beta), False
        moves = pos.search_moves()
        if not moves:  # an engine that lists no move for a live seat: treat as a heuristic leaf
            return self.leaf(pos, seat), False
        ordered, tt_move = self.ordered(moves, seat, tt_move, ply)
        return self.moves(pos, seat, depth, alpha, beta, ply, ordered, tt_move)

    def probcut(self, pos: PositionT, stage: int, depth: int, alpha: float, beta: float, ply: int) -> int:
        """Multi-ProbCut (``service/core/selectivity.py``): 1 when a shallow search shows the value so far above
        beta that the deep one cannot come back inside the window, -1 so far below alpha, 0 to search the node
        (core.c's probcut, its twin). ``stage``: the position's ``plies_left()``."""
        assert self.selective is not None
        found = self.selective.check(stage, depth)
        if found is None:
            return 0
        shallow, a, b, margin = found
        if beta < INF:
            bound = (beta + margin - b) / a
            if self.node(pos, shallow, _nextafter(bound, -INF), bound, ply)[0] >= bound:
                return 1
        if alpha > -INF:
            bound = (alpha - margin - b) / a
            if self.node(pos, shallow, bound, _nextafter(bound, INF), ply)[0] <= bound:
                return -1
        self.line[ply] = _NO_LINE
        return 0

    def moves(
        self,
        pos: PositionT,
        seat: int,
        depth: int,
        alpha: float,
        beta: float,
        ply: int,
        ordered: list[Move],
        tt_move: Move | None,
    ) -> tuple[float, bool]:
        """``node``'s loop over its ordered moves: the best value, killers and history on a cutoff, the table."""
        child_depth = depth - 1
        next_ply = ply + 1
        children = None
        etc = depth >= _ETC_DEPTH and self.tt_cap and len(ordered) > 2 and not self.solve
        alpha0 = alpha
        best = -INF
        best_move = ordered[0]
        all_proved = True
        line = self.line
        for i, m in enumerate(ordered):
            child = pos.play(m) if children is None else children[i]
            line[next_ply] = _NO_LINE  # the child's search keeps its line there
            v, proved = self.child(child, seat, child_depth, alpha, beta, i == 0, next_ply)
            if v > best:
                best = v
                best_move = m
                if v > alpha:
                    if v >= beta:
                        kill = self.killers[ply]
                        if kill[0] != m:
                            kill[1] = kill[0]
                            kill[0] = m
                        self.history[seat][m] += depth * depth
                        self.store(pos, depth, v, LOWER, m, proved)
                        return v, proved
                    alpha = v
                    line[ply] = [m, *line[next_ply]]
            if not proved:
                all_proved = False
            if etc and i == 0:
                # The first move did not refute this node (it usually does): before searching the others,
                # look for one whose finished value or table entry refutes it without a search.
                children = [child]
                children.extend(pos.play(x) for x in ordered[1:])
                cut = self.refute(pos, seat, depth, beta, ordered, children)
                if cut is not None:
                    return cut
        if best <= alpha0:
            self.store(pos, depth, best, UPPER, tt_move if tt_move is not None else best_move, all_proved)
        else:
            self.store(pos, depth, best, EXACT, best_move, all_proved)
            if pos in self.tt:  # the line of best_move (the last move that raised alpha) goes with the entry
                self.paths[pos] = (depth, best, line[ply])
        return best, all_proved

    def principal_variation(
        self,
        first: Move,
        after: PositionT,
        limit: int,
        value: float,
        depth: int,
        proved: bool,
        kept: Sequence[Move] | None = None,
    ) -> list[Move]:
        """A root move's line: the move, then the line the root's last pass kept below it (``kept``, starting
        with ``first``; None: the pass's best line, ``line[0]``, from the triangular table with the lines of the
        table's and the plug-ins' exact answers), then the table's: an exact entry's line or move, else a move
        the table shows best for the value known there, else a bound's move (a plug-in's own line where the
        plug-in took a node on). ``value``: that of ``after`` for its seat to move, at ``depth`` plies below the
        root (``proved``: a final margin). Every move is checked to be one of its position's ``search_moves``
        before it goes in (``_Walk``)."""
        walk: _Walk[PositionT] = _Walk(first, after, limit, value)
        if kept is None:
            kept = self.line[0] if self.line else _NO_LINE
        if kept and kept[0] == first:
            walk.follow(kept[1:])
        while walk.pos.to_move != 0 and len(walk.line) < limit:
            pos = walk.pos
            left = depth - len(walk.line)  # plies below pos in the iteration
            entry = self.tt.get(pos)
            if entry is not None and proved and not entry[4]:
                entry = None  # an earlier iteration's: not the proof's
            if entry is not None and entry[2] == EXACT:
                if not entry[4] and entry[0] != left:
                    walk.value = None  # another depth's value
                path = self.paths.get(pos)
                if (
                    path is not None
                    and path[0] == entry[0]
                    and path[1] == entry[1]
                    and len(path[2]) > 0
                    and path[2][0] == entry[3]
                ):
                    taken = walk.follow(path[2])
                else:
                    taken = walk.follow((entry[3],))
                if taken == 0:
                    break
                continue
            if walk.value is not None:
                move = self.known_best(pos, walk.value, left - 1, proved)
                if move is not None and walk.follow((move,)):
                    continue
            if entry is None or entry[2] == UPPER:
                if walk.follow(self.lines.get(pos, _NO_LINE)) == 0:
                    break
                continue
            walk.value = None  # a bound's move: the value below it is not known
            if walk.follow((entry[3],)) == 0:
                break
        return walk.line

    def known_best(self, pos: PositionT, value: float, left: int, proved: bool) -> Move | None:
        """A move of ``pos`` whose child is shown worth at least ``value`` (the value of ``pos`` for its seat to
        move), which makes it a best move: the only move, or one whose end or table entry at ``left`` plies
        (or proved; in a proof only proved) shows it; None when none is shown. (Not the endgame plug-in: a node
        it answered keeps no line, and the Python solver would take about half the proof's time again to show
        one; the native core, whose kernel endgame is a millisecond at most, asks it.)"""
        moves: Sequence[Move] = pos.search_moves()
        if len(moves) == 1:
            return moves[0]
        seat = pos.to_move
        for move in moves:
            child = pos.play(move)
            cs = child.to_move
            if cs == 0:
                if child.final_value(seat) >= value:
                    return move
                continue
            entry = self.tt.get(child)
            if entry is None or not (entry[4] or (not proved and entry[0] == left)):
                continue
            _, e_value, e_flag, _, _ = entry
            if (e_flag != UPPER and e_value >= value) if cs == seat else (e_flag != LOWER and -e_value >= value):
                return move
        return None


class _Walk(Generic[PositionT]):
    """A principal variation as it is walked from the position after its first move: the moves so far, the
    position reached, the positions before it (a line never goes through one twice), and the value of the
    position for its seat to move at the depth left there, while it is known (None otherwise): the root's is
    (an iteration ends with it inside its window), and so are those along the line the search kept."""

    __slots__ = ("limit", "line", "pos", "seen", "value")

    def __init__(self, first: Move, after: PositionT, limit: int, value: float | None) -> None:
        self.line = [first]
        self.pos = after
        self.seen = {after}
        self.limit = limit
        self.value = value

    def follow(self, moves: Sequence[Move]) -> int:
        """Play ``moves`` on into the line while they hold (room in the line, the game goes on, the move is one
        of the position's ``search_moves``, the position after it is new); how many went in."""
        taken = 0
        for move in moves:
            pos = self.pos
            if len(self.line) >= self.limit or pos.to_move == 0 or move not in pos.search_moves():
                break
            after = pos.play(move)
            if after in self.seen:
                break
            self.seen.add(after)
            self.line.append(move)
            if self.value is not None and after.to_move != pos.to_move:
                self.value = -self.value
            self.pos = after
            taken += 1
        return taken
