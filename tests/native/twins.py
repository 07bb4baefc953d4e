"""Shared helpers of the native tests: random games over every option of a game, the kernel-against-engine
check of one position, and a plain negamax over the Python engine (the reference of the search's values)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from service.native import engine as native

INF = math.inf


def needs(game_id: str) -> pytest.MarkDecorator:
    """Skip unless the native engine with a kernel for ``game_id`` is built and turned on."""
    return pytest.mark.skipif(
        not native.available(game_id),
        reason=f"the native search engine is not built (`make install` builds {native.LIBRARY}.so with a C "
        f"compiler), GAMERULES_NO_NATIVE is set, or it has no kernel for {game_id}",
    )


def native_games(game_ids: Iterable[str]) -> list[Any]:
    """``game_ids`` as test parameters, each skipped (naming the game) unless its kernel is built: a game without a
    kernel skips only its own cases."""
    return [pytest.param(game_id, marks=needs(game_id), id=game_id) for game_id in game_ids]


def random_game(start: Any, rng: random.Random) -> Iterator[Any]:
    """Every position of one random game from ``start``, the finished one included."""
    position = start
    yield position
    while position.to_move:
        position = position.play(rng.choice(position.legal_moves()))
        yield position


def check_position(kernel: native.Kernel, position: Any) -> int:
    """The kernel against the engine on ``position``: seat to move, the search's moves in order (and as the
    set of legal moves), the position after each move, the evaluation for both seats, the end and the final
    value, the plies left. Returns how many positions it checked (children included)."""
    adapter = kernel.adapter
    state = kernel.pack(position)
    assert state is not None
    assert kernel.to_move(state) == position.to_move
    bound = position.plies_left()  # None: the engine knows no bound (Kalah), and the kernel gives a large one
    if bound is not None:
        assert kernel.plies_left(state) == bound
    for seat in (1, 2):
        assert kernel.evaluate(state, seat) == position.evaluate(seat), position.to_notation()
    if position.to_move == 0:
        assert kernel.moves(state) == []
        for seat in (1, 2):
            assert kernel.final_value(state, seat) == position.final_value(seat)
        return 1
    expected = [adapter.move_in(position, m) for m in position.search_moves()]
    assert kernel.moves(state) == expected, position.to_notation()
    assert sorted(kernel.moves(state, solving=True)) == sorted(expected)
    assert {adapter.move_out(position, m) for m in expected} == set(position.legal_moves())
    for move in position.search_moves():
        child = position.play(move)
        assert kernel.play(state, adapter.move_in(position, move)) == kernel.pack(child), (
            position.to_notation(),
            position.move_notation(move),
        )
    return 1 + len(expected)


def twin_games(
    game_id: str, start: Callable[[int], Any], games: int, first_seed: int, check: Callable[..., int] = check_position
) -> int:
    """``check`` (the kernel against the engine) on every position of ``games`` random games, each from
    ``start(seed)`` and played with ``random.Random(seed)``; returns how many positions it checked."""
    kernel = native.Kernel(game_id)
    checked = 0
    for seed in range(first_seed, first_seed + games):
        for position in random_game(start(seed), random.Random(seed)):
            checked += check(kernel, position)
    return checked


def negamax(position: Any, depth: int) -> float:
    """The value the search defines at a fixed depth, computed the plainest way: every move, no pruning, no
    table; a child's value changes sign only when the seat to move changes."""
    seat = position.to_move
    if depth <= 0:
        return float(position.evaluate(seat))
    best = -INF
    for move in position.search_moves():
        child = position.play(move)
        if child.to_move == 0:
            v = child.final_value(seat)
        elif child.to_move == seat:
            v = negamax(child, depth - 1)
        else:
            v = -negamax(child, depth - 1)
        best = max(best, v)
    return best
