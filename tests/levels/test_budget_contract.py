"""The budget contract and seeded variety of every game's levels, on the native path and on the Python path: a
level sets the skill, the caller's limits set the resources. What a game needs here its registration declares
(``checks``: ``quick_levels``, ``one_move_ahead_at_the_start``, ``past_the_opening``).

- What GetGame advertises for a level (its ``Level``) never promises more time than the server's cap on a
  search, and a level never stops on a depth it does not advertise (in its limits, or its description: Reversi
  ``expert`` on the Python search when the caller gives no resources).
- With the caller's ``max_time_ms`` the strongest level is not cut short by its own node budget or a depth of
  its own: it searches until the time is spent or the game is proved.
- Seeded variety: every level above the lowest picks among the moves within its margin of the best by its
  seed, so the start position gets several first moves over ten seeds (a start with one move far ahead of
  the rest aside: Kalah's, see ``test_kalah_varies_among_its_near_best_moves``); the strongest levels only in
  the opening, the game's first quarter (``variety.opening``), and past it they play their best move whatever
  the seed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from service.api.rpc.servicer import ServiceConfig
from service.core import STOP_REASONS, Level, Limits, SearchResult
from service.games import BY_ID, GAMES, LEVELS
from service.levels import GameLevels, variety
from service.levels.budget import SPEND, Budget
from tests.levels.conftest import on_path, small_limits, tree_search


def quick_levels(game_id: str) -> str:
    """``game_id``, after skipping unless its levels answer a midgame quickly (its ``checks.quick_levels``)."""
    if not BY_ID[game_id].checks.quick_levels:
        pytest.skip(
            f"{game_id}'s levels take seconds on a midgame (its checks.quick_levels): the contract below runs them"
        )
    return game_id


def varied_start(game_id: str) -> str:
    """``game_id``, after skipping when its start has one move far ahead (``checks.one_move_ahead_at_the_start``)."""
    if BY_ID[game_id].checks.one_move_ahead_at_the_start:
        pytest.skip(f"{game_id}'s start has one move far ahead of the rest: the seed cannot vary its first move")
    return game_id


# Seeded variety is chosen in Python over the search's scored moves (``variety.py``), whichever path searched:
# the fast suite runs it on the native path, ``pytest -m slow`` on the Python search too (some 50 s of it).
@pytest.fixture(params=[True, pytest.param(False, marks=pytest.mark.slow)], ids=["native", "python"])
def variety_path(request: pytest.FixtureRequest) -> Iterator[bool]:
    yield from on_path(request)


def midgame(game_id: str, plies: int = 8) -> object:
    """A position a few moves into a game (its first legal move each time: reproducible), a seat still to move
    (a short game stops a move before its end)."""
    position = GAMES[game_id].new_position({}, "contract")
    for _ in range(plies):
        after = position.play(position.legal_moves()[0])
        if after.to_move == 0:
            break
        position = after
    return position


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_no_level_promises_more_time_than_the_servers_cap(game_id: str) -> None:
    cap = ServiceConfig().max_think_ms
    for level in LEVELS[game_id].levels:
        assert level.limits.max_time_ms is None or level.limits.max_time_ms <= cap, level.name


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_a_level_stops_on_a_depth_only_when_it_advertises_one(game_id: str, path: bool) -> None:
    position = midgame(quick_levels(game_id))
    for level in LEVELS[game_id].levels:
        result = LEVELS[game_id].best_move(position, level.name, None, 0, 1)
        if result.stop_reason == "depth":  # a depth GetGame lists: in the level's limits or its description
            listed = level.limits.max_depth == result.depth or f"{result.depth} moves ahead" in level.description
            assert listed, level.name


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_the_callers_time_is_used_until_spent(game_id: str, path: bool) -> None:
    """200 ms of the caller's: the strongest level searches until they are spent (or the game is proved); its
    own node budget or a depth of its own would end it with "nodes" or "depth"."""
    position = midgame(game_id)
    level = LEVELS[game_id].strongest
    result = LEVELS[game_id].best_move(position, level, Limits(max_time_ms=200), 0, 1)
    assert result.stop_reason in ("time", "solved"), result


def first_moves(game_id: str, level: str) -> set[object]:
    position = GAMES[game_id].new_position({}, "")
    return {LEVELS[game_id].best_move(position, level, None, seed, 1).move for seed in range(10)}


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_every_level_above_the_lowest_varies_its_first_move_by_seed(game_id: str, variety_path: bool) -> None:
    varied_start(quick_levels(game_id))
    for level in LEVELS[game_id].levels[1:]:
        assert len(first_moves(game_id, level.name)) >= 3, level.name


def test_the_opening_is_the_first_quarter_of_the_game() -> None:
    assert variety.opening(0, 60) and variety.opening(14, 60)
    assert not variety.opening(15, 60) and not variety.opening(40, 60)


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_the_strongest_level_plays_its_best_move_past_the_opening(game_id: str, variety_path: bool) -> None:
    """Past the opening every seed gets the same move, and only the moves asked for are scored, although the
    position has near-best moves the opening's margin would pick among: the game's ``checks.past_the_opening``, a
    position just past the opening (a quarter of the game played, not yet in the solve mode) where the strongest
    level's top four moves, scored on either path, hold two or more within its margin of the best."""
    past = BY_ID[game_id].checks.past_the_opening
    if past is None:
        pytest.skip(f"{game_id} declares no position past the opening (its checks.past_the_opening)")
    position = GAMES[game_id].parse_position(past.position)
    level = LEVELS[game_id].strongest
    scored = LEVELS[game_id].best_move(position, level, None, 0, 4).alternatives
    assert len([m for m in scored if m.value >= scored[0].value - past.margin]) >= 2
    answers = [LEVELS[game_id].best_move(position, level, None, seed, 1) for seed in range(6)]
    assert len({answer.move for answer in answers}) == 1
    assert all(len(answer.alternatives) == 1 for answer in answers)


def test_kalah_varies_among_its_near_best_moves(variety_path: bool) -> None:
    """Kalah's start (6 pits, 4 seeds) has one or two moves within the margin and the rest seeds behind (a
    margin wide enough for three would give seeds away); medium, which counts only the stores, has three."""
    assert len(first_moves("kalah", "medium")) >= 3
    assert len(first_moves("kalah", "hard")) >= 2


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_the_same_seed_gives_the_same_answer(game_id: str, variety_path: bool) -> None:
    position = midgame(quick_levels(game_id), 4)
    for level in LEVELS[game_id].levels:
        first = LEVELS[game_id].best_move(position, level.name, None, 5, 2)
        again = LEVELS[game_id].best_move(position, level.name, None, 5, 2)
        assert (first.move, first.value, first.nodes, first.alternatives) == (
            again.move,
            again.value,
            again.nodes,
            again.alternatives,
        ), level.name


# --- the contract over the registry: every game, level and path, at the edges of the caller's limits --------
#
# ``docs/api.md`` ("The budget contract"): a caller's time is used until it is spent (at least ``USED`` of it) or
# the game is proved or over, unless the level declares a depth (its skill) or chooses by a rule; a level's own
# node budget never cuts a caller's time short; a node budget answers the same for a seed; ``stopReason`` says
# truthfully what stopped the search.

T = 100  # ms: a caller's time below every level's own
NODES = 3_000
DEPTH = 3
USED = 0.7  # the share of a caller's time the contract promises is used (``budget.SPEND`` is what the search keeps to)
EDGES: dict[str, tuple[Limits, int]] = {  # (the caller's limits, the server's cap)
    "none": (Limits(), 10_000),
    "time": (Limits(max_time_ms=T), 10_000),
    "time-equal-to-the-cap": (Limits(max_time_ms=T), T),
    "time-above-the-cap": (Limits(max_time_ms=4 * T), T),
    "nodes": (Limits(max_nodes=NODES), 10_000),
    "depth": (Limits(max_depth=DEPTH), 10_000),
    "time-and-nodes": (Limits(max_time_ms=T, max_nodes=NODES), 10_000),
}
LONG_MS = 500  # cases whose search runs longer than this go to ``pytest -m slow``


def _standing_for_the_ladder(levels: GameLevels) -> set[str]:
    """The rungs whose cases run in the fast suite: the lowest and the one below the strongest. Every rung below the
    strongest is ``ladder.rung_strategy`` with numbers of its own (depth, nodes, width, tolerance), so those two
    meet every kind of limit a rung has; ``pytest -m slow`` runs the rest."""
    return set(levels.ladder[:1] + levels.ladder[-2:-1])


def _cases() -> Iterator[object]:
    for game_id, levels in LEVELS.items():
        standing = _standing_for_the_ladder(levels)
        for level in levels.levels:
            edges = dict(EDGES)
            rung = level.name in levels.ladder[:-1]
            own = level.limits.max_time_ms
            if own:  # the level's own time: below it (``time``), equal to it and above it
                edges["time-equal-to-the-levels"] = (Limits(max_time_ms=own), 10_000)
                edges["time-above-the-levels"] = (Limits(max_time_ms=own + T), 10_000)
            for edge, (asked, cap) in edges.items():
                time_ms = Budget(level.limits, asked, cap).limits.max_time_ms or 0
                # A tree search on its own iterations (no time or nodes of the caller's): seconds a case on either
                # path; the ``nodes`` edge checks the same stop with a few hundred, and ``python -m
                # bench.level_cost`` measures what the level's own budget costs.
                own_iterations = tree_search(level) and not (asked.max_nodes or asked.max_time_ms)
                slow = time_ms > LONG_MS or (rung and level.name not in standing) or own_iterations
                marks = [pytest.mark.slow] if slow else []
                yield pytest.param(game_id, level.name, asked, cap, id=f"{game_id}-{level.name}-{edge}", marks=marks)


def _check_truthful(level: Level, limits: Limits, result: SearchResult) -> None:
    """``result.stop_reason`` names what stopped the search under ``limits`` (the budget's bounds)."""
    reason = result.stop_reason
    assert reason in STOP_REASONS and reason not in ("deadline", "cancelled"), result
    if reason == "nodes":  # a node budget of the budget's, or the Python search's one the level's description gives
        assert limits.max_nodes is not None, result
        assert result.nodes >= limits.max_nodes or f"{result.nodes:,} iterations without" in level.description, result
    elif reason == "time":
        assert limits.max_time_ms is not None and result.elapsed_ms >= USED * limits.max_time_ms, result
    elif reason == "depth":  # a depth of the budget's, or the one the level's description gives
        assert limits.max_depth == result.depth or f"{result.depth} moves ahead" in level.description, result
    elif reason == "solved":
        assert result.exact, result
    elif reason == "rule":  # the one-move levels, which declare no budget
        assert level.limits == Limits(), result


@pytest.mark.parametrize(("game_id", "level_name", "asked", "cap"), list(_cases()))
def test_the_budget_contract(game_id: str, level_name: str, asked: Limits, cap: int, path: bool) -> None:
    level = LEVELS[game_id].level(level_name)
    if asked.max_nodes and asked.max_time_ms is None and tree_search(level) and not path:
        # The caller's node budget alone, for a Python tree search: the small budget its iterations get elsewhere
        # (``small_limits``; NODES of them took seconds, run twice), the same contract.
        asked = replace(asked, max_nodes=small_limits(level, path).max_nodes)
    limits = Budget(level.limits, asked, cap).limits
    position = midgame(game_id)
    result = LEVELS[game_id].best_move(position, level_name, asked, 1, 3, cap_ms=cap)
    _check_truthful(level, limits, result)
    values = [scored.value for scored in result.alternatives]
    assert values == sorted(values, reverse=True) and result.move in [s.move for s in result.alternatives]
    if asked.max_time_ms is not None:
        assert limits.max_time_ms == min(asked.max_time_ms, cap)  # the caller's time, capped, replaces the level's
        if asked.max_nodes is None:
            assert limits.max_nodes is None and result.stop_reason != "nodes"  # no hidden node budget
        if result.stop_reason != "rule":
            assert result.nodes > 0, result  # a time given is searched with, never answered after no node
    if limits.max_time_ms is None:  # nodes and depth bound it: the same answer for the seed, every time
        again = LEVELS[game_id].best_move(position, level_name, asked, 1, 3, cap_ms=cap)
        assert (again.move, again.value, again.nodes, again.alternatives) == (
            result.move,
            result.value,
            result.nodes,
            result.alternatives,
        )


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_analysis_answers_the_best_move_whatever_the_seed(game_id: str, path: bool) -> None:
    """``purpose: analysis`` turns the seeded variety off: at the start, where every searching level above the
    lowest varies by its seed when playing, every seed gets a move valued best (ties aside, the same move), first
    among the alternatives (a Monte Carlo search: its most searched move, the same for every seed)."""
    position = GAMES[game_id].new_position({}, "analysis")
    for level in LEVELS[game_id].levels:
        if level.limits == Limits() or level.limits.max_time_ms:
            continue  # the one-move rules break ties by seed; Strands' timed levels answer what the clock allows
        # A small node budget of the caller's keeps it quick; the variety is the level's whatever its budget. A
        # few hundred iterations of a Python tree search still make its most searched move the same every seed.
        tree = tree_search(level)
        small = small_limits(level, path)
        answers = [
            LEVELS[game_id].best_move(position, level.name, small, seed, 3, purpose="analysis") for seed in range(4)
        ]
        for answer in answers:
            if tree:  # the most searched move, which a less searched one may outvalue
                assert answer.move in [s.move for s in answer.alternatives], (level.name, answer)
                continue
            assert answer.alternatives[0].move == answer.move, (level.name, answer)
            assert answer.value >= max(s.value for s in answer.alternatives), (level.name, answer)
        assert len({answer.value for answer in answers}) == 1, level.name  # equal moves may differ by seed


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_playing_the_start_at_the_analysis_budget_varies_by_seed(game_id: str, variety_path: bool) -> None:
    """The test above's premise: playing, at the same small budget, the seed varies the first move of every level
    it checks (Kalah's start aside). The variety is chosen in Python whichever path searched (``variety_path``): on
    the Python search, in ``pytest -m slow`` (eight tree searches a level: some 13 s for Strands)."""
    position = GAMES[game_id].new_position({}, "analysis")
    one_ahead = BY_ID[game_id].checks.one_move_ahead_at_the_start  # Kalah: see its test above
    for level in LEVELS[game_id].levels:
        if level.limits == Limits() or level.limits.max_time_ms:
            continue
        small = small_limits(level, variety_path)
        played = {LEVELS[game_id].best_move(position, level.name, small, seed, 1).move for seed in range(8)}
        assert len(played) > 1 or one_ahead, level.name


def test_the_server_cap_bounds_a_callers_time_without_losing_it() -> None:
    """A caller's time equal to the cap or above it is still the caller's: the level's node budget is lifted and
    the solve reach follows the time (the servicer once capped the time first, and the level took a time equal
    to its own default for no time at all)."""
    level = LEVELS["reversi"].level("expert")
    for asked in (9_999, 10_000, 30_000):
        budget = Budget(level.limits, Limits(max_time_ms=asked), 10_000)
        assert budget.limits == Limits(max_time_ms=min(asked, 10_000), spend=SPEND)
        assert budget.callers_time_ms == min(asked, 10_000)
