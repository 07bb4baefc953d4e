"""The one-ply chooser (``greedy``) and the value of a move without search (``static_value``)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from service.core.contract import MoveT, PositionT
from service.core.errors import GameOverError
from service.core.values import Move, ScoredMove, SearchResult


def static_value(
    position: PositionT, move: Move, seat: int, evaluate: Callable[[PositionT, int], float] | None = None
) -> float:
    """The value of ``move`` for ``seat`` without search: the final margin if it ends the game, else the
    evaluation of the position after it (used when a search is stopped before it finished anything)."""
    child = position.play(move)
    if child.to_move == 0:
        return float(child.final_value(seat))
    return float(child.evaluate(seat) if evaluate is None else evaluate(child, seat))


def greedy(
    position: PositionT,
    key: Callable[[PositionT, MoveT], float],
    rng: random.Random,
    top_n: int = 1,
    *,
    moves: Sequence[MoveT] | None = None,
) -> SearchResult:
    """One-ply choice: the move with the largest ``key(position, move)``; ties broken by ``rng`` (one
    ``rng.random()`` per move, in move order, so the same seed gives the same choice).

    ``moves`` defaults to ``position.search_moves()`` (pass ``position.legal_moves()`` for a level that must
    consider every legal move). The value of a move is its key; ``alternatives`` lists the ``top_n`` best.
    """
    if position.to_move == 0:
        raise GameOverError("the game is over: there is no move to choose", "position")
    candidates: list[MoveT] = list(position.search_moves() if moves is None else moves)
    if not candidates:
        raise GameOverError("the position has no moves to choose from", "position")
    scored = [(key(position, m), rng.random(), i) for i, m in enumerate(candidates)]
    scored.sort(reverse=True)
    top = scored[: max(1, top_n)]
    best_key, _, best_i = top[0]
    return SearchResult(
        move=candidates[best_i],
        value=float(best_key) + 0.0,
        exact=False,
        depth=1,
        nodes=len(candidates),
        stop_reason="rule",
        pv=[candidates[best_i]],
        alternatives=[ScoredMove(candidates[i], float(k) + 0.0, False) for k, _, i in top],
    )
