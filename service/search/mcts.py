"""UCT Monte Carlo tree search, for games whose branching defeats alpha-beta (Strands).

It knows only the engine contract's search members (``service/core/contract.py``).

- Selection by UCB1 on win rates (win 1, draw ½, loss 0, judged by the sign of ``final_value``), from the
  point of view of the seat that made the move into each node, so seats that move twice in a row need no
  special case.
- Progressive widening: a node with ``n`` visits considers only the first ``ceil(2·√n)`` moves of the
  engine's ``search_moves()`` order (best first by the engine's hints), so huge move lists are opened
  gradually instead of one visit each.
- Playouts pick moves with ``rollout(position, rng)`` (default: uniform over ``search_moves()``) to the end
  of the game; the final margin (``final_value``) is averaged for the reported values.
- Budget: one Deadline (``max_nodes`` = iterations, ``max_time_ms``, ``stop()``); with neither a node nor
  a time limit the search runs ``DEFAULT_ITERATIONS`` iterations. ``max_depth`` is not used. ``settle``: under
  a node budget, stop (reason ``nodes``) once the move is decided: the most visited root move leads every other
  by more visits than the iterations left (checked every ``SETTLE_EVERY``), so no other could overtake it and
  the answer's move is the one the whole budget would give; its value and line are those of the tree so far.

Answer: the most visited root move (ties: better mean, then the engine's order), its mean final margin
from the mover's view, the principal variation along the most visited children, ``alternatives`` the
``top_n`` most visited moves, each with its own line the same way (the best one's is the principal variation).
Values are exact only for a move that ends the game at once.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Generic

from service.core.contract import PositionT
from service.core.errors import GameOverError
from service.core.values import Limits, Move, ScoredMove, SearchResult, StopSignal
from service.search.deadline import Deadline, never
from service.search.greedy import static_value

DEFAULT_ITERATIONS = 1000
EXPLORATION = 0.7  # UCB1 constant for rewards in [0, 1]
WIDENING = 2.0  # a node with n visits considers ceil(WIDENING * sqrt(n)) moves
_FIRST_REPORT = 64  # streamed analysis: the tree is reported after 64, 128, 256... iterations
SETTLE_EVERY = 256  # iterations between settle's checks (service/native/search/mcts.c checks as often)


class _Node(Generic[PositionT]):
    """One position in the tree; statistics are from the point of view of ``mover``."""

    __slots__ = ("children", "margin", "move", "mover", "moves", "position", "visits", "wins")

    def __init__(self, position: PositionT, move: Move, mover: int) -> None:
        self.position = position
        self.move = move
        self.mover = mover  # the seat that played ``move`` (0 at the root)
        self.moves: Sequence[Move] | None = None  # search_moves(), fetched on the first visit
        self.children: list[_Node[PositionT]] = []
        self.visits = 0
        self.wins = 0.0  # sum of rewards for ``mover``
        self.margin = 0.0  # sum of final margins for ``mover``


def _rank(node: _Node[PositionT]) -> tuple[int, float]:
    return (node.visits, node.margin / node.visits if node.visits else -math.inf)


def mcts(
    position: PositionT,
    limits: Limits | None = None,
    *,
    stop: StopSignal = never,
    top_n: int = 1,
    rng: random.Random | None = None,
    rollout: Callable[[PositionT, random.Random], Move] | None = None,
    exploration: float = EXPLORATION,
    widening: float | None = WIDENING,
    settle: bool = False,
) -> SearchResult:
    """UCT from ``position`` for the seat to move (see the module docstring). ``rng`` drives expansion
    order ties, playouts and nothing else: same seed, same limits without time => same answer.
    ``exploration`` is the UCB1 constant; ``widening`` None opens every move of a node at once; ``settle``
    stops a node budget once its move is decided."""
    seat = position.to_move
    if seat == 0:
        raise GameOverError("the game is over: there is no move to search", "position")
    limits = limits or Limits()
    if limits.max_nodes is None and limits.max_time_ms is None:
        limits = Limits(max_nodes=DEFAULT_ITERATIONS)
    rng = rng or random.Random(0)
    deadline = Deadline(limits, stop)
    root: _Node[PositionT] = _Node(position, None, 0)
    root.moves = position.search_moves()
    if not root.moves:
        raise GameOverError("the position has no moves to search", "position")
    iterations = 0
    max_depth = 0
    next_report = _FIRST_REPORT
    budget = limits.max_nodes if settle else None
    reason = ""
    while not deadline.expired(iterations):
        path = _select(root, exploration, widening)
        max_depth = max(max_depth, len(path) - 1)
        end = _playout(path[-1].position, deadline, iterations, rng, rollout)
        if end is None:  # the deadline fired during the playout: the iteration does not count
            break
        _back_up(root, path, end)
        iterations += 1
        if budget and iterations % SETTLE_EVERY == 0 and _decided(root, budget - iterations):
            reason = "nodes"  # the rest of the budget could not change the move
            break
        if deadline.on_iteration is not None and iterations == next_report:  # streamed analysis: the tree so far
            deadline.on_iteration(_answer(position, root, seat, top_n, iterations, max_depth, ""))
            next_report *= 2
    return _answer(position, root, seat, top_n, iterations, max_depth, reason or deadline.reason)


def _select(root: _Node[PositionT], exploration: float, widening: float | None) -> list[_Node[PositionT]]:
    """Selection and expansion: the path from the root down the UCB1 choices to a new node (or an end)."""
    node = root
    path = [root]
    sqrt = math.sqrt
    while node.position.to_move != 0:
        moves = node.moves
        if moves is None:
            moves = node.moves = node.position.search_moves()
        children = node.children
        opened = len(children)
        allowed = len(moves)
        if widening is not None:
            allowed = min(allowed, max(1, math.ceil(widening * sqrt(node.visits))))
        if opened < allowed:
            move = moves[opened]
            child = _Node(node.position.play(move), move, node.position.to_move)
            children.append(child)
            path.append(child)
            return path
        scale = exploration * sqrt(math.log(node.visits))
        best = children[0]
        best_u = -math.inf
        for c in children:
            u = c.wins / c.visits + scale / sqrt(c.visits)
            if u > best_u:
                best_u = u
                best = c
        node = best
        path.append(node)
    return path


def _playout(
    p: PositionT,
    deadline: Deadline,
    iterations: int,
    rng: random.Random,
    rollout: Callable[[PositionT, random.Random], Move] | None,
) -> PositionT | None:
    """The finished position a playout from ``p`` reaches, or None once the deadline fires."""
    rand = rng.random
    expired = deadline.expired
    while p.to_move != 0:
        if expired(iterations):
            return None
        if rollout is None:
            ms = p.search_moves()
            p = p.play(ms[int(rand() * len(ms))])
        else:
            p = p.play(rollout(p, rng))
    return p


def _back_up(root: _Node[PositionT], path: list[_Node[PositionT]], end: PositionT) -> None:
    """Add the playout's result to every node of the path, from each mover's point of view."""
    f1 = float(end.final_value(1))
    f2 = float(end.final_value(2))
    margins = (0.0, f1, f2)
    rewards = (0.0, 1.0 if f1 > 0 else 0.0 if f1 < 0 else 0.5, 1.0 if f2 > 0 else 0.0 if f2 < 0 else 0.5)
    root.visits += 1
    for n in path[1:]:
        n.visits += 1
        n.wins += rewards[n.mover]
        n.margin += margins[n.mover]


def _decided(root: _Node[PositionT], left: int) -> bool:
    """Whether no root child can overtake the most visited one in ``left`` more iterations (a child opened
    later starts at none)."""
    first = second = 0
    for child in root.children:
        if child.visits > first:
            first, second = child.visits, first
        elif child.visits > second:
            second = child.visits
    return first - second > left


def _line(node: _Node[PositionT]) -> list[Move]:
    """A root move's line: its move, then the most visited child's, and so on (ties: the better mean, then the
    engine's order) while the child was visited."""
    line = [node.move]
    while node.children:
        node = max(node.children, key=_rank)
        if node.visits == 0:
            break
        line.append(node.move)
    return line


def _answer(
    position: PositionT, root: _Node[PositionT], seat: int, top_n: int, iterations: int, max_depth: int, reason: str
) -> SearchResult:
    """The most visited root move, its mean margin, the line along the most visited children."""
    ranked = sorted(root.children, key=_rank, reverse=True)  # stable: the engine's order breaks full ties
    if not ranked or ranked[0].visits == 0:
        assert root.moves is not None
        move = root.moves[0]
        value = static_value(position, move, seat)
        ended = position.play(move).to_move == 0
        return SearchResult(
            move=move,
            value=value + 0.0,
            exact=False,
            depth=0,
            nodes=iterations,
            stop_reason=reason,
            pv=[move],
            alternatives=[ScoredMove(move, value + 0.0, ended, (move,))],
        )
    best = ranked[0]
    pv = _line(best)
    alternatives = [
        ScoredMove(c.move, c.margin / c.visits + 0.0, c.position.to_move == 0, tuple(pv if c is best else _line(c)))
        for c in ranked[:top_n]
        if c.visits
    ]
    return SearchResult(
        move=best.move,
        value=best.margin / best.visits + 0.0,
        exact=False,
        depth=max_depth,
        nodes=iterations,
        stop_reason=reason,
        pv=pv,
        alternatives=alternatives,
    )
