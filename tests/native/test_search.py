"""The native search core's stops and threads: a stop flag or a deadline ends a long search with the answer
of its last finished iteration, a caller's stop() is heard, and two searches run at once in two threads (the
call releases the GIL). Reversi's kernel carries them (the opening: a search that never ends by itself); every
game's levels show that a search begun after its time still searches."""

from __future__ import annotations

import threading
import time

import pytest

from service.core import Limits, Stop
from service.games import GAMES, LEVELS
from service.native import engine as native
from service.native import mcts as native_mcts
from service.search import Deadline, search
from tests.levels.test_budget_contract import midgame
from tests.native.twins import needs

pytestmark = needs("reversi")
GAME = GAMES["reversi"]
JOIN = 60.0  # seconds a stopped search may take to answer before the test calls it hung (not a speed goal)


def in_thread(**kwargs: object) -> tuple[threading.Thread, list[object]]:
    out: list[object] = []
    position = GAME.new_position({}, "")
    thread = threading.Thread(target=lambda: out.append(native.search(position, **kwargs)))  # type: ignore[arg-type]
    thread.start()
    return thread, out


def test_the_stop_flag_ends_a_search_with_its_last_iteration() -> None:
    flag = native.StopFlag()
    iterations: list[native.Iteration] = []
    thread, out = in_thread(limits=Limits(), flag=flag, iterations=iterations)
    time.sleep(0.3)  # some iterations finish meanwhile (the list fills in when the call returns)
    flag.set()
    thread.join(JOIN)
    assert not thread.is_alive()
    result = out[0]
    assert result is not None
    assert result.stop_reason == "cancelled"  # type: ignore[attr-defined]
    assert result.depth >= 1  # type: ignore[attr-defined]
    assert iterations and iterations[-1].depth == result.depth  # type: ignore[attr-defined]
    assert iterations[-1].move == result.move  # type: ignore[attr-defined]
    assert result.move in GAME.new_position({}, "").legal_moves()  # type: ignore[attr-defined]


def test_a_deadline_ends_a_search_with_real_results() -> None:
    result = native.search(GAME.new_position({}, ""), Limits(max_time_ms=300))
    assert result is not None
    assert result.stop_reason == "time"
    assert result.depth >= 1 and result.nodes > 0
    assert len(result.pv) >= 1 and result.pv[0] == result.move


def test_a_callers_stop_signal_is_heard_with_its_reason() -> None:
    began = time.monotonic()
    result = native.search(
        GAME.new_position({}, ""), Limits(), stop=lambda: time.monotonic() - began > 0.3 and "deadline"
    )
    assert result is not None
    assert result.stop_reason == "deadline"
    assert result.depth >= 1


def test_deadlines_stop_a_search_on_their_clock_and_on_the_callers_stop() -> None:
    """A Deadline on the clock alone (no watcher: the C loop reads its end) and one over a caller's stop signal
    (the watcher asks it) each stop the search with their reason."""
    clock = Deadline(Limits(max_time_ms=200))
    result = native.search(GAME.new_position({}, ""), Limits(), stop=clock)
    assert result is not None and result.stop_reason == "time" and result.depth >= 1
    began = time.monotonic()
    callers = Deadline(Limits(max_time_ms=60_000), lambda: time.monotonic() - began > 0.2 and "deadline")
    result = native.search(GAME.new_position({}, ""), Limits(), stop=callers)
    assert result is not None and result.stop_reason == "deadline" and result.depth >= 1


def test_a_stop_already_fired_still_answers_a_legal_move() -> None:
    result = native.search(GAME.new_position({}, ""), Limits(), stop=lambda: True)
    assert result is not None
    assert result.depth == 0 and result.move in GAME.new_position({}, "").legal_moves()


def test_node_budgets_give_the_same_answer_every_time() -> None:
    position = GAME.new_position({}, "")
    first = native.search(position, Limits(max_nodes=50_000))
    second = native.search(position, Limits(max_nodes=50_000))
    assert first is not None and second is not None
    assert (first.move, first.value, first.depth, first.nodes) == (
        second.move,
        second.value,
        second.depth,
        second.nodes,
    )
    assert first.stop_reason == "nodes"


def test_two_searches_run_at_once_and_python_runs_meanwhile() -> None:
    flags = [native.StopFlag(), native.StopFlag()]
    threads = [in_thread(limits=Limits(), flag=flag) for flag in flags]
    # The main thread keeps the interpreter busy while both searches run: with the GIL held by a search,
    # this loop could not advance.
    ticks = 0
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        ticks += 1
    assert all(thread.is_alive() for thread, _ in threads)  # neither search ends by itself
    for flag in flags:
        flag.set()
    for thread, out in threads:
        thread.join(JOIN)
        assert not thread.is_alive()
        assert out[0] is not None and out[0].depth >= 1  # type: ignore[attr-defined]
    assert ticks > 1000


class _Reporting(Stop):
    """A stop signal that never fires and takes each iteration's report (streamed analysis), as the
    transport's does; ``stop_after`` iterations it raises ``flag``."""

    def __init__(self, flag: native.StopFlag | None = None, stop_after: int = 0) -> None:
        self.reports: list[object] = []
        self.flag, self.stop_after = flag, stop_after

    def __call__(self) -> bool:
        return False

    def on_iteration(self, partial: object) -> None:
        self.reports.append(partial)
        if self.flag is not None and len(self.reports) == self.stop_after:
            self.flag.set()


def test_each_iteration_is_reported_as_the_python_search_reports_it() -> None:
    position = GAME.new_position({}, "")
    native_stop, python_stop = _Reporting(), _Reporting()
    result = native.search(position, Limits(max_depth=5), stop=native_stop, top_n=3)
    python = search(position, Limits(max_depth=5), stop=python_stop, top_n=3)
    assert result is not None and result.depth == 5
    reports = native_stop.reports
    assert [r.depth for r in reports] == [1, 2, 3, 4, 5]  # type: ignore[attr-defined]
    assert [r.depth for r in python_stop.reports] == [1, 2, 3, 4, 5]  # type: ignore[attr-defined]
    for mine, theirs in zip(reports, python_stop.reports, strict=True):
        assert mine.stop_reason == ""  # type: ignore[attr-defined]
        assert mine.value == theirs.value  # type: ignore[attr-defined]
        assert [a.value for a in mine.alternatives] == [a.value for a in theirs.alternatives]  # type: ignore[attr-defined]
        assert mine.pv[0] == mine.move  # type: ignore[attr-defined]
    nodes = [r.nodes for r in reports]  # type: ignore[attr-defined]
    assert nodes == sorted(nodes) and nodes[0] > 0
    last = reports[-1]
    assert (last.move, last.value, last.pv, last.nodes) == (result.move, result.value, result.pv, result.nodes)  # type: ignore[attr-defined]
    assert python.value == result.value


def test_iterations_are_reported_while_the_search_runs() -> None:
    """The reports come from inside the call: a stop raised by the second report ends the search there (an
    endless search of the opening, which would otherwise never return)."""
    flag = native.StopFlag()
    stop = _Reporting(flag, stop_after=2)
    result = native.search(GAME.new_position({}, ""), Limits(), stop=stop, flag=flag)
    assert result is not None and result.stop_reason == "cancelled"
    assert [r.depth for r in stop.reports] == [1, 2] and result.depth == 2  # type: ignore[attr-defined]


def test_a_search_begun_after_its_time_still_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/api.md: a time given is searched with, never answered after no node, however late the search begins
    (a loaded machine): the kernels read their own time from their first node or iteration on. Each game's
    levels with a time of the caller's, the native searches' own end a second in the past."""
    real = native._ends

    def late(limits: Limits, stop: Stop | None, began: float) -> tuple[float, float]:
        return real(limits, stop, began - 1.0)

    monkeypatch.setattr(native, "_ends", late)
    monkeypatch.setattr(native_mcts, "_ends", late)
    for game_id, levels in LEVELS.items():
        if not native.available(game_id):
            continue
        position = midgame(game_id)
        for level in levels.levels:
            result = levels.best_move(position, level.name, Limits(max_time_ms=100), 1, 3)
            assert result.nodes > 0 or result.stop_reason == "rule", (game_id, level.name, result)
