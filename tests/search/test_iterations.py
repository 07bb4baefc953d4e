"""Streamed analysis at the search core: a stop signal's ``on_iteration`` hears every completed iteration of
``search`` (one per depth, the last one the answer) and of ``mcts`` (as its iterations double), through nested
Deadlines (``play_level``'s: ``tests/levels/test_driver.py``), and nothing changes in the answer for being
listened to."""

from __future__ import annotations

import random

from service.core import Limits, SearchResult, Stop
from service.search import Deadline, mcts, search
from tests.search.toys import Piles, TicTacToe


class Listening(Stop):
    """A stop signal that never fires and keeps what it hears."""

    def __init__(self) -> None:
        self.heard: list[SearchResult] = []

    def on_iteration(self, result: SearchResult) -> None:
        self.heard.append(result)

    def __call__(self) -> bool:
        return False


def test_search_reports_each_completed_depth():
    stop = Listening()
    position = Piles((3, 4, 2))
    result = search(position, Limits(max_depth=5), stop=stop, top_n=2)
    assert [r.depth for r in stop.heard] == [1, 2, 3, 4, 5]
    assert all(r.stop_reason == "" and r.pv[0] == r.move and len(r.alternatives) == 2 for r in stop.heard)
    assert [r.nodes for r in stop.heard] == sorted(r.nodes for r in stop.heard)
    last = stop.heard[-1]
    assert (last.move, last.value, last.pv, last.alternatives) == (result.move, result.value, result.pv,
                                                                  result.alternatives)  # fmt: skip
    assert result == search(position, Limits(max_depth=5), top_n=2)  # the same answer unheard


def test_a_proof_is_reported_exact():
    stop = Listening()
    result = search(TicTacToe(), stop=stop)
    assert result.exact and stop.heard[-1].exact and stop.heard[-1].value == result.value == 0.0


def test_mcts_reports_the_tree_as_its_iterations_double():
    stop = Listening()
    result = mcts(TicTacToe(), Limits(max_nodes=600), stop=stop, rng=random.Random(3))
    assert [r.nodes for r in stop.heard] == [64, 128, 256, 512]
    assert result == mcts(TicTacToe(), Limits(max_nodes=600), rng=random.Random(3))


def test_the_listener_reaches_searches_under_nested_deadlines():
    stop = Listening()
    assert Deadline(None, stop).on_iteration == stop.on_iteration
    assert Deadline(None, Deadline(None, stop)).on_iteration == stop.on_iteration
    search(Piles((3, 4, 2)), Limits(max_depth=2), stop=Deadline(None, Deadline(None, stop)))
    assert [r.depth for r in stop.heard] == [1, 2]
