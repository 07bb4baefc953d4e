"""A finished search leaves nothing for the cycle collector: its table, the plug-ins' scratch (a native
kernel's 6 MB table) and everything else are freed by reference counting the moment the call returns, so a
server answering best moves all day keeps a flat memory without waiting for a collection."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from service.core import Limits
from service.engines.kalah import GAME as KALAH
from service.engines.reversi import GAME as REVERSI
from service.engines.strands import GAME as STRANDS
from service.games import GAMES, LEVELS
from service.native import engine
from service.search import Deadline, mcts, search
from tests.search.toys import Piles


@contextmanager
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def garbage_after(run: Callable[[], object]) -> int:
    """How many objects the cycle collector finds after ``run`` (run twice: the first call may fill caches).
    With the collector off, everything ``run`` makes stays in the youngest generation, so collecting that one
    finds every cycle of them; a full collection of a whole test session's heap would cost a second each."""
    with collector_off():
        return young_garbage(run)


def young_garbage(run: Callable[[], object]) -> int:
    """``garbage_after`` with the collector already off: one full collection for many checks."""
    run()
    gc.collect(0)
    run()
    return gc.collect(0)


def test_the_alpha_beta_search_leaves_no_cycles() -> None:
    assert garbage_after(lambda: search(Piles((3, 4, 2, 5)), Limits(max_depth=6), top_n=2)) == 0
    position = REVERSI.new_position()
    assert garbage_after(lambda: search(position, Limits(max_nodes=3000))) == 0


def test_a_stopped_search_leaves_no_cycles() -> None:
    position = REVERSI.new_position()
    assert garbage_after(lambda: search(position, Limits(max_nodes=500, max_depth=12))) == 0


def test_the_native_engine_and_mcts_leave_no_cycles() -> None:
    kalah = KALAH.new_position()
    assert garbage_after(lambda: engine.search(kalah, Limits(max_nodes=2000))) == 0
    reporting = Deadline(Limits(max_nodes=2000))
    reporting.on_iteration = lambda partial: None
    assert garbage_after(lambda: engine.search(kalah, Limits(max_nodes=2000), stop=reporting)) == 0
    strands = STRANDS.new_position({}, "garbage")
    assert garbage_after(lambda: mcts(strands, Limits(max_nodes=30))) == 0


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_every_level_of_every_game_leaves_no_cycles(game_id: str) -> None:
    position = GAMES[game_id].new_position({}, "garbage")
    limits = Limits(max_nodes=300)
    with collector_off():  # one full collection of the session's heap, not one a level
        for level in LEVELS[game_id].levels:
            found = young_garbage(lambda name=level.name: LEVELS[game_id].best_move(position, name, limits, 1, 2))
            assert found == 0, level.name


def test_the_check_finds_a_cycle_left_behind() -> None:
    class Node:
        pass

    def leave_a_cycle() -> None:
        node = Node()
        node.self = node  # type: ignore[attr-defined]

    assert garbage_after(leave_a_cycle) > 0 and garbage_after(lambda: None) == 0
