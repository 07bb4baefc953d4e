"""The native Monte Carlo tree search (``service/native/search/mcts.c`` by way of ``service.native.mcts``): the
Python MCTS's semantics (iterations as nodes, a seed that makes a budgeted search reproducible, the answer when
nothing finished, streamed answers after 64, 128... iterations), its stops (flag, deadline, the caller's
stop()), its memory bound, two searches at once, a kernel without a playout hook, and the moves it finds against
proved values on small Strands boards."""

from __future__ import annotations

import random
import threading
import time

import pytest

from service import native as kernels
from service.core import Limits, SearchResult, Stop
from service.engines.strands import StrandsPosition
from service.games import GAMES, LEVELS
from service.native import engine
from service.native import mcts as native
from service.search import Deadline, mcts, search, static_value
from service.search.mcts import SETTLE_EVERY
from tests.native.twins import needs
from tests.search.test_no_garbage import garbage_after

STRANDS = GAMES["strands"]
pytestmark = needs("strands")
JOIN = 60.0  # seconds a stopped search may take to answer before the test calls it hung (not a speed goal)


def standard(plies: int, seed: int = 0) -> object:
    position = STRANDS.new_position({}, "")
    rng = random.Random(seed)
    for _ in range(plies):
        position = position.play(position.playout_move(rng))
    return position


def test_an_iteration_budget_is_reproducible_for_a_seed() -> None:
    position = standard(3)
    first = native.mcts(position, Limits(max_nodes=3000), rng=random.Random(7), top_n=3)
    second = native.mcts(position, Limits(max_nodes=3000), rng=random.Random(7), top_n=3)
    other = native.mcts(position, Limits(max_nodes=3000), rng=random.Random(8), top_n=3)
    assert first is not None and second is not None and other is not None
    assert (first.move, first.value, first.depth, first.pv, first.alternatives) == (
        second.move,
        second.value,
        second.depth,
        second.pv,
        second.alternatives,
    )
    assert first.nodes == 3000 and first.stop_reason == "nodes"
    assert [a.value for a in first.alternatives] != [a.value for a in other.alternatives]  # the seed drives it


def test_without_limits_it_runs_the_python_default_of_iterations() -> None:
    result = native.mcts(standard(2), None, rng=random.Random(1))
    assert result is not None and result.nodes == native.DEFAULT_ITERATIONS


def test_the_answer_is_the_most_visited_line_of_legal_moves() -> None:
    position = standard(4)
    result = native.mcts(position, Limits(max_nodes=2000), rng=random.Random(2), top_n=4)
    assert result is not None
    assert result.pv[0] == result.move == result.alternatives[0].move
    assert len(result.alternatives) == 4 and result.depth >= 2
    candidates = position.search_moves()
    assert all(a.move in candidates for a in result.alternatives)
    line = position
    for move in result.pv:  # every move of the line is legal where it is played
        line, _ = line.apply(move)
    assert not result.exact


def test_a_stop_already_fired_answers_the_first_move_valued_without_search() -> None:
    position = standard(2)
    result = native.mcts(position, Limits(max_time_ms=1000), stop=lambda: True)
    assert result is not None
    first = position.search_moves()[0]
    assert (result.move, result.nodes, result.depth) == (first, 0, 0)
    assert result.value == static_value(position, first, position.to_move)
    assert result.stop_reason == "cancelled"


def test_a_deadline_ends_the_search_with_the_tree_so_far() -> None:
    result = native.mcts(standard(2), Limits(max_time_ms=300), rng=random.Random(3))
    assert result is not None
    assert result.stop_reason == "time" and result.nodes > 0 and result.depth >= 1


def test_the_stop_flag_and_a_callers_stop_are_heard() -> None:
    flag = engine.StopFlag()
    out: list[SearchResult | None] = []
    thread = threading.Thread(
        target=lambda: out.append(native.mcts(standard(2), Limits(max_time_ms=600_000), flag=flag))
    )
    thread.start()
    time.sleep(0.3)
    flag.set()
    thread.join(JOIN)
    assert not thread.is_alive()
    assert out[0] is not None and out[0].stop_reason == "cancelled" and out[0].nodes > 0
    began = time.monotonic()
    result = native.mcts(
        standard(2), Limits(max_time_ms=600_000), stop=lambda: time.monotonic() - began > 0.3 and "deadline"
    )
    assert result is not None and result.stop_reason == "deadline" and result.nodes > 0


def test_a_deadline_as_stop_signal_streams_the_tree_as_it_grows() -> None:
    class Stream(Stop):
        def __init__(self) -> None:
            self.seen: list[SearchResult] = []

        def __call__(self) -> bool:
            return False

        def on_iteration(self, partial: SearchResult) -> None:
            self.seen.append(partial)

    stream = Stream()
    deadline = Deadline(Limits(max_nodes=1000), stream)
    result = native.mcts(standard(2), Limits(max_nodes=1000), stop=deadline, rng=random.Random(4))
    assert result is not None
    assert [p.nodes for p in stream.seen] == [64, 128, 256, 512]
    assert all(p.stop_reason == "" for p in stream.seen)


def test_a_full_tree_keeps_playing_out_from_its_leaves() -> None:
    """A tree bound of 1 MB fills quickly; the iterations go on to the budget (no error, no early stop)."""
    result = native.mcts(standard(2), Limits(max_nodes=20_000), rng=random.Random(5), tree_bytes=1 << 20)
    assert result is not None and result.nodes == 20_000 and result.stop_reason == "nodes"


def test_two_searches_run_at_once() -> None:
    out: list[SearchResult | None] = []
    threads = [
        threading.Thread(
            target=lambda seed=seed: out.append(
                native.mcts(standard(2), Limits(max_time_ms=400), rng=random.Random(seed))
            )
        )
        for seed in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN)
    assert len(out) == 2 and all(r is not None and r.nodes > 0 for r in out)


@needs("kalah")
def test_a_kernel_without_a_playout_hook_plays_out_uniformly() -> None:
    position = GAMES["kalah"].new_position({}, "")
    result = native.mcts(position, Limits(max_nodes=500), rng=random.Random(6))
    assert result is not None and result.move in position.legal_moves() and result.nodes == 500


@pytest.mark.parametrize("seed", range(6))
def test_on_small_boards_it_finds_a_move_of_the_proved_value(seed: int) -> None:
    """Side-2 and side-3 custom boards once every full cover is a candidate: alpha-beta proves each candidate's
    value; with enough iterations the tree search's most visited move is one of the best (win rates decide, so
    any winning move)."""
    rng = random.Random(seed)
    labels = ("22/232/22", "222/2332/22322/2332/222", "333/2442/22122/2442/333")[seed % 3]
    position = STRANDS.new_position({"layout": "custom", "labels": labels, "exact_count": seed % 2 == 1}, "")
    for _ in range(1 + seed % 3):
        position = position.play(position.playout_move(rng))
    while not position.search_moves_complete():  # until the candidates are every full cover: proofs hold
        position = position.play(position.playout_move(rng))
    assert position.to_move
    proved = search(position, Limits(), solve=True, top_n=len(position.search_moves()))
    assert proved.exact
    wins = {a.move for a in proved.alternatives if a.value > 0}
    result = native.mcts(position, Limits(max_nodes=20_000), rng=random.Random(seed))
    assert result is not None
    assert result.move in wins if wins else result.move in position.search_moves()


def test_hard_plays_the_native_search_when_built_and_the_python_one_otherwise() -> None:
    """The same seed and iteration budget: the level's answer is the native search's, and with the native engine
    turned off the Python search's (whose generator the native path left untouched)."""
    position = standard(3)
    limits = Limits(max_nodes=200, max_time_ms=600_000)  # the iterations decide, not the level's 1.5 s
    level = LEVELS["strands"].best_move(position, "hard", limits, seed=5)
    direct = native.mcts(position, limits, rng=random.Random(5))
    assert direct is not None and (level.move, level.value, level.nodes) == (direct.move, direct.value, 200)
    previous = kernels.use_native(False)
    try:
        assert native.mcts(position, limits, rng=random.Random(5)) is None
        level = LEVELS["strands"].best_move(position, "hard", limits, seed=5)
    finally:
        kernels.use_native(previous)
    python = mcts(position, limits, rng=random.Random(5), rollout=StrandsPosition.playout_move)
    assert (level.move, level.value, level.nodes) == (python.move, python.value, 200)


def test_a_native_tree_search_leaves_no_cycles() -> None:
    position = standard(2)
    assert garbage_after(lambda: native.mcts(position, Limits(max_nodes=300), rng=random.Random(1))) == 0
    deadline = Deadline(Limits(max_nodes=300))
    assert garbage_after(lambda: native.mcts(position, Limits(max_nodes=300), stop=deadline)) == 0


def test_an_exception_of_the_stream_stops_the_search_and_is_raised() -> None:
    class Broken(Stop):
        def __call__(self) -> bool:
            return False

        def on_iteration(self, partial: SearchResult) -> None:
            raise ConnectionError("the client went away")

    with pytest.raises(ConnectionError):
        native.mcts(standard(2), Limits(max_nodes=100_000), stop=Broken(), rng=random.Random(1))


def test_a_settled_budget_answers_the_whole_budgets_move() -> None:
    """``settle`` natively (``mcts.c``'s decided()): at a multiple of SETTLE_EVERY iterations (as in Python) once
    no other root move can overtake the most visited one, the whole budget's move with reason ``nodes``; below the
    first check the very answer of the whole budget; under a time limit alone no stop of its own."""
    settled_early = 0
    for plies in (2, 6, 12, 20):
        position = standard(plies, seed=plies)
        for seed in range(3):
            whole = native.mcts(position, Limits(max_nodes=4000), rng=random.Random(seed))
            settled = native.mcts(position, Limits(max_nodes=4000), rng=random.Random(seed), settle=True)
            assert whole is not None and settled is not None
            assert settled.move == whole.move and settled.stop_reason == "nodes"
            assert settled.nodes == 4000 or settled.nodes % SETTLE_EVERY == 0
            settled_early += settled.nodes < 4000
    assert settled_early
    position = standard(6)
    whole = native.mcts(position, Limits(max_nodes=SETTLE_EVERY - 1), rng=random.Random(1), top_n=3)
    settled = native.mcts(position, Limits(max_nodes=SETTLE_EVERY - 1), rng=random.Random(1), top_n=3, settle=True)
    assert whole is not None and settled is not None
    assert (settled.move, settled.value, settled.pv, settled.alternatives, settled.nodes) == (
        whole.move,
        whole.value,
        whole.pv,
        whole.alternatives,
        SETTLE_EVERY - 1,
    )
    timed = native.mcts(position, Limits(max_time_ms=50), rng=random.Random(1), settle=True)
    assert timed is not None and timed.stop_reason == "time"


def test_hard_settles_a_bots_move_and_searches_its_whole_budget_for_analysis() -> None:
    """hard's play (one move asked) stops once its move is decided, the move its whole budget would give;
    analysis and scored alternatives run every iteration. On both search paths."""
    levels = LEVELS["strands"]
    position = standard(8)
    played = levels.best_move(position, "hard", seed=3)
    whole = native.mcts(position, Limits(max_nodes=60_000), rng=random.Random(3))
    assert whole is not None and played.move == whole.move and played.nodes < 60_000
    assert levels.best_move(position, "hard", seed=3, purpose="analysis").nodes == 60_000
    assert levels.best_move(position, "hard", seed=3, top_n=2).nodes == 60_000
    position = standard(16)  # the Python search, at its own 2,000 iterations, settles here
    previous = kernels.use_native(False)
    try:
        played = levels.best_move(position, "hard", seed=3)
        analysed = levels.best_move(position, "hard", seed=3, purpose="analysis")
    finally:
        kernels.use_native(previous)
    python = mcts(position, Limits(max_nodes=2000), rng=random.Random(3), rollout=StrandsPosition.playout_move)
    assert played.move == python.move and played.nodes < 2000 and analysed.nodes == 2000
