"""Petak Sawah (docs/games/petak-sawah.md): hand-checked games, the points property, seeded rocks, exact values
against an independent brute force, malformed input, and the generic contract."""

from __future__ import annotations

import contextlib
import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core import (
    GameOverError,
    IllegalMove,
    InvalidMove,
    InvalidOption,
    InvalidPosition,
    Limits,
    NotationError,
    RulesError,
    UnknownLevel,
)
from service.engines.petak_sawah import GAME, rocks_from_seed
from service.levels import petak_sawah as petak_levels
from service.levels.budget import Budget
from service.levels.petak_sawah import HARD_LIMITS, HARD_SOLVE_EMPTIES, LEVELS, MEDIUM_DEPTH
from service.native import engine, use_native
from service.search import search
from tests.games.contract import check_random_games


def solve_empties(position, limits=None) -> int:
    """How far from the end the level proves ``position`` with the caller's ``limits`` (``Budget.solve_reach``)."""
    return Budget(HARD_LIMITS, limits or Limits()).solve_reach(petak_levels.reach(position))


def never() -> bool:
    return False


def play_line(notation: str, moves: str) -> tuple[object, list]:
    """Apply space-separated moves; return the last position and every event."""
    position = GAME.parse_position(notation)
    events = []
    for text in moves.split():
        position, happened = position.apply(position.parse_move(text))
        events.extend(happened)
    return position, events


# --------------------------------------------------------------------------------------------------
# Hand-checked games, one per deciding rule.


def test_hand_checked_game_decided_by_non_opener() -> None:
    # 2x3, no rocks. a1 0, c1 0, b1 1 (a1), c2 1 (c1), a2 1 (a1), b2 1 (c2; b1 and a2 are seat 1's).
    position, events = play_line(".../... 1 opener=1", "a1 c1 b1 c2 a2 b2")
    points = [(e.seat, e.cells[0], e.count) for e in events if e.type == "points"]
    assert points == [(1, "a1", 0), (2, "c1", 0), (1, "b1", 1), (2, "c2", 1), (1, "a2", 1), (2, "b2", 1)]
    assert position.to_notation() == "112/122 - opener=1"
    assert position.scores() == (2, 2)
    outcome = position.outcome()
    assert (outcome.winner, outcome.reason) == (2, "non_opener")
    assert events[-1].type == "game_over" and events[-1].seat == 2
    assert position.final_value(2) == 0.5 and position.final_value(1) == -0.5
    # The same board opened by seat 2 goes the other way.
    assert GAME.parse_position("112/122 - opener=2").outcome().winner == 1


def test_hand_checked_game_decided_by_largest_group() -> None:
    # Seat 1: a1 b1 c1 (a line: 2 points, group of 3) and d2 (alone between rocks and e2).
    # Seat 2: e1 e2 and a2 b2 (two dominoes: 2 points, groups of 2).
    position = GAME.parse_position("111#2/22#12 - opener=1")
    assert position.scores() == (2, 2)
    assert position.group_sizes(1) == [3, 1] and position.group_sizes(2) == [2, 2]
    outcome = position.outcome()
    assert (outcome.winner, outcome.reason) == (1, "largest_group")
    assert position.final_value(1) == 0.5 and position.final_value(2) == -0.5


def test_hand_checked_game_decided_by_points() -> None:
    # Seat 1: a1 b1 a2 a3 (pairs a1-b1, a1-a2, a2-a3: 3). Seat 2: the square b2 c2 b3 c3 (4).
    position, events = play_line("..#/.../... 2 opener=2", "b2 a1 c2 b1 b3 a2 c3 a3")
    assert position.to_notation() == "11#/122/122 - opener=2"
    assert [e.count for e in events if e.type == "points"] == [0, 0, 1, 1, 1, 1, 2, 1]
    assert position.scores() == (3, 4)
    outcome = position.outcome()
    assert (outcome.winner, outcome.reason) == (2, "points")
    assert position.final_value(2) == 1.0 and position.final_value(1) == -1.0


def test_points_event_names_the_scoring_neighbours() -> None:
    position = GAME.parse_position("1.1/21./2.# 2 opener=1")
    after, events = position.apply(position.parse_move("c2"))
    assert [e.type for e in events] == ["place", "points"]
    after, events = after.apply(after.parse_move("b1"))
    assert events[1].count == 3 and events[1].cells == ("b1", "a1", "c1", "b2")


# --------------------------------------------------------------------------------------------------
# Points are the adjacent own pairs, whatever the order of play.


def adjacent_pairs(notation: str, seat: str) -> int:
    rows = notation.split()[0].split("/")
    count = 0
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char != seat:
                continue
            if c + 1 < len(row) and row[c + 1] == seat:
                count += 1
            if r + 1 < len(rows) and rows[r + 1][c] == seat:
                count += 1
    return count


@pytest.mark.parametrize(
    "options",
    [{}, {"rows": 7, "cols": 4, "rocks": 4}, {"rows": 12, "cols": 12, "rocks": 0}, {"rows": 2, "cols": 3, "rocks": 0}],
)
def test_points_equal_adjacent_own_pairs(options: dict) -> None:
    rng = random.Random(7)
    for game in range(20):
        position = GAME.new_position(options, seed=f"pairs-{game}")
        totals = [0, 0, 0]
        while position.to_move:
            move = rng.choice(position.legal_moves())
            seat = position.to_move
            assert position.points_for(move) == position.play(move).scores()[seat - 1] - position.scores()[seat - 1]
            position, events = position.apply(move)
            for event in events:
                if event.type == "points":
                    totals[event.seat] += event.count
            text = position.to_notation()
            assert position.scores() == (adjacent_pairs(text, "1"), adjacent_pairs(text, "2"))
            assert position.evaluate(1) == -position.evaluate(2)
        assert tuple(totals[1:]) == position.scores()


# --------------------------------------------------------------------------------------------------
# Seeded rocks.


@pytest.mark.parametrize(
    ("seed", "rocks"),
    [
        ("", ["b1", "b3", "a4", "d5", "e5"]),
        ("0", ["b1", "e2", "a3", "d3", "e4"]),
        ("1", ["b2", "c2", "d2", "a3", "d3"]),
        ("hello", ["b2", "b3", "c5", "d5", "e5"]),
        ("abc", ["a2", "c2", "b3", "c4", "d5"]),
    ],
)
def test_rocks_are_pinned_to_their_seed(seed: str, rocks: list[str]) -> None:
    assert GAME.new_position({}, seed).to_fields()["rocks"] == rocks


def test_pinned_notation_of_a_start_position() -> None:
    assert GAME.new_position({}, "abc").to_notation() == "...../#.#../.#.../..#../...#. 1 opener=1"
    position = GAME.new_position({"rows": 3, "cols": 4, "rocks": 2, "opener": 2}, "petak")
    assert position.to_notation() == "..../.#../.#.. 2 opener=2"
    assert position.to_move == 2 and position.legal_move_count() == 10


def test_rocks_are_distinct_and_count_right() -> None:
    for size, count in [(4, 0), (4, 2), (25, 5), (144, 142), (144, 70)]:
        for seed in ("a", "b", "c"):
            cells = rocks_from_seed(seed, size, count)
            assert len(cells) == len(set(cells)) == count and all(0 <= c < size for c in cells)
            assert cells == sorted(cells)


def chi_square(counts: list[int], expected: float) -> float:
    return sum((c - expected) ** 2 / expected for c in counts)


def test_rocks_are_uniform_per_cell() -> None:
    seeds = 2000
    counts = [0] * 25
    for k in range(seeds):
        for cell in rocks_from_seed(f"chi-{k}", 25, 5):
            counts[cell] += 1
    # 24 degrees of freedom: the 0.1% critical value is 51.18.
    assert chi_square(counts, seeds * 5 / 25) < 51.18


def test_rock_sets_are_uniform() -> None:
    # 2 rocks among 4 cells: 6 possible sets, each as likely.
    seeds = 3000
    counts: dict[tuple[int, ...], int] = {}
    for k in range(seeds):
        key = tuple(rocks_from_seed(f"set-{k}", 4, 2))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 6
    # 5 degrees of freedom: the 0.1% critical value is 20.52.
    assert chi_square(list(counts.values()), seeds / 6) < 20.52


def test_explicit_rocks() -> None:
    position = GAME.new_position({"rock_cells": ["e5", "a1", "c3", "b4", "d2"]}, "ignored")
    assert position.to_fields()["rocks"] == ["a1", "d2", "c3", "b4", "e5"]
    assert (
        GAME.new_position({"rock_cells": ["a1", "c3"], "rocks": 2, "rows": 3, "cols": 4}, "").legal_move_count() == 10
    )
    assert GAME.new_position({"rocks": 0, "rows": 2, "cols": 2}, "x").to_notation() == "../.. 1 opener=1"
    # An explicit list wins over the default count (5): three rocks leave 22 cells.
    assert GAME.new_position({"rock_cells": ["a1", "b1", "c1"]}, "").legal_move_count() == 22
    assert GAME.new_position({"rock_cells": ["a1", "b1", "c1"], "rocks": 5}, "").legal_move_count() == 22
    # An empty list means random rocks.
    assert GAME.new_position({"rock_cells": []}, "abc") == GAME.new_position({}, "abc")


# --------------------------------------------------------------------------------------------------
# Notation and fields.


def test_round_trips_and_fields() -> None:
    text = "11#/122/.2. 2 opener=2"
    position = GAME.parse_position(text)
    assert position.to_notation() == text and position.to_move == 2
    fields = position.to_fields()
    assert fields == {
        "rows": 3,
        "cols": 3,
        "rocks": ["c1"],
        "seat1_cells": ["a1", "b1", "a2"],
        "seat2_cells": ["b2", "c2", "b3"],
        "opener": 2,
        "to_move": 2,
    }
    shuffled = dict(fields, seat1_cells=["a2", "b1", "a1"])
    assert GAME.position_from_fields(shuffled) == position
    move = position.parse_move("c3")
    assert position.move_notation(move) == "c3" and position.move_to_fields(move) == {"cell": "c3"}
    assert position.move_from_fields({"cell": "a3"}) == position.parse_move("a3")
    assert position.legal_moves() == [position.parse_move("a3"), move]
    big = GAME.new_position({"rows": 12, "cols": 12, "rocks": 0}, "")
    assert big.parse_move("l12") == 143 and big.move_notation(143) == "l12"


# --------------------------------------------------------------------------------------------------
# Malformed input: every error is a RulesError of the right class, naming the field.


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", NotationError),
        ("x" * 1000, NotationError),
        (".../... 1", NotationError),
        (".../... 1 opener=3", NotationError),
        (".../... 3 opener=1", NotationError),
        (".../.. 1 opener=1", NotationError),
        ("... 1 opener=1", NotationError),
        (".../.x. 1 opener=1", NotationError),
        ("/".join(["." * 13] * 2) + " 1 opener=1", NotationError),
        (".../... 1 seeds=1", NotationError),
        ("#../... 1 opener=1", InvalidPosition),  # five cultivable cells: odd
        ("###/##. 1 opener=1", InvalidPosition),  # one cultivable cell
        ("11./... 2 opener=1", InvalidPosition),  # the opener two cells ahead
        ("2../... 1 opener=1", InvalidPosition),  # the non-opener ahead
        ("1../... 1 opener=1", InvalidPosition),  # seat 2 to move, not 1
        ("1../... 2 opener=2", InvalidPosition),  # seat 1 took a cell though seat 2 opens
        ("112/122 1 opener=1", InvalidPosition),  # over: no seat to move
        ("112/12. - opener=1", InvalidPosition),  # not over
    ],
)
def test_bad_notation(text: str, error: type) -> None:
    with pytest.raises(error) as caught:
        GAME.parse_position(text)
    assert caught.value.field == "" and caught.value.message


def good_fields(**changes: object) -> dict:
    fields = {
        "rows": 3,
        "cols": 3,
        "rocks": ["c1"],
        "seat1_cells": ["a1"],
        "seat2_cells": [],
        "opener": 1,
        "to_move": 2,
    }
    fields.update(changes)
    return fields


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"rows": 0}, "rows"),
        ({"rows": 13}, "rows"),
        ({"cols": "3"}, "cols"),
        ({"rows": True}, "rows"),
        ({"opener": 0}, "opener"),
        ({"to_move": 3}, "to_move"),
        ({"to_move": 1}, "to_move"),
        ({"rocks": ["d1"]}, "rocks[0]"),
        ({"rocks": ["c4"]}, "rocks[0]"),
        ({"rocks": ["c1", "c1"]}, "rocks[1]"),
        ({"rocks": ["c1", 5]}, "rocks[1]"),
        ({"rocks": "c1"}, "rocks"),
        ({"rocks": []}, "rocks"),  # nine cultivable cells
        ({"rocks": ["c1"] * 1000}, "rocks"),
        ({"seat1_cells": ["c1"]}, "seat1_cells[0]"),  # a rock taken
        ({"seat1_cells": ["a1", "a1"]}, "seat1_cells[1]"),  # taken twice by one seat
        ({"seat2_cells": ["a1"], "to_move": 1}, "seat2_cells[0]"),  # taken by both seats
        ({"seat1_cells": ["a1", "b1", "c2"]}, "seat1_cells"),
        ({"seat1_cells": [], "seat2_cells": ["a1"], "to_move": 1}, "seat2_cells"),
    ],
)
def test_bad_fields(changes: dict, field: str) -> None:
    with pytest.raises(InvalidPosition) as caught:
        GAME.position_from_fields(good_fields(**changes))
    assert caught.value.field == field


def test_proto_defaults_are_rejected_cleanly() -> None:
    with pytest.raises(InvalidPosition):
        GAME.position_from_fields(
            {"rows": 0, "cols": 0, "rocks": [], "seat1_cells": [], "seat2_cells": [], "opener": 0, "to_move": 0}
        )
    with pytest.raises(InvalidPosition):
        GAME.position_from_fields("not a dict")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"rocks": 4}, "rocks"),  # 21 cultivable cells
        ({"rocks": 24}, "rocks"),
        ({"rocks": -1}, "rocks"),
        ({"rows": 1}, "rows"),
        ({"cols": 13}, "cols"),
        ({"opener": 3}, "opener"),
        ({"rows": 2, "cols": 2}, "rocks"),  # 5 rocks do not fit
        ({"rock_cells": ["a1", "z9"]}, "rock_cells[1]"),
        ({"rock_cells": ["a1", "f1"]}, "rock_cells[1]"),
        ({"rock_cells": ["a1", "a1"]}, "rock_cells[1]"),
        ({"rock_cells": ["a1", "b1"], "rocks": 3}, "rocks"),
        ({"rock_cells": ["a1", "b1", "c1", "d1"]}, "rock_cells"),  # 21 cultivable cells
        ({"rock_cells": "a1"}, "rock_cells"),
    ],
)
def test_bad_options(options: dict, field: str) -> None:
    with pytest.raises(InvalidOption) as caught:
        GAME.new_position(options, "s")
    assert caught.value.field == field


def test_bad_moves() -> None:
    position = GAME.parse_position("1.#/#.. 2 opener=1")
    for text in ("", "d1", "a3", "A1", "a01", "c", "1a", "a1 ", "x" * 100):
        with pytest.raises(InvalidMove):
            position.parse_move(text)
    for fields, field in (({"cell": ""}, "cell"), ({"cell": "z1"}, "cell"), ({"cell": 3}, "cell"), ({}, "cell")):
        with pytest.raises(InvalidMove) as caught:
            position.move_from_fields(fields)
        assert caught.value.field == field
    with pytest.raises(IllegalMove, match="rock"):
        position.apply(position.parse_move("c1"))
    with pytest.raises(IllegalMove, match="taken by seat 1"):
        position.apply(position.parse_move("a1"))
    with pytest.raises(InvalidMove):
        position.apply(99)
    with pytest.raises(InvalidMove):
        position.apply("a2")
    over = GAME.parse_position("112/122 - opener=1")
    with pytest.raises(GameOverError):
        over.apply(0)
    assert over.legal_moves() == [] and over.legal_moves_page(0, 5) == []


def test_errors_are_rules_errors() -> None:
    rng = random.Random(3)
    alphabet = ".#12/ -=opener0123456789abc"
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(40)))
        with contextlib.suppress(RulesError):
            GAME.parse_position(text)


# --------------------------------------------------------------------------------------------------
# The generic contract.


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"opener": 2},
        {"rows": 2, "cols": 2, "rocks": 0},
        {"rows": 12, "cols": 12, "rocks": 2},
        {"rows": 3, "cols": 7, "rocks": 3},
    ],
)
def test_contract(options: dict) -> None:
    check_random_games(GAME, options, games=3, seed=11)


# --------------------------------------------------------------------------------------------------
# Best move. Exact values are checked against a brute force written here from the rules alone: plain
# strings, no bitboards, no alpha-beta.


def final_value_brute(rows: tuple[str, ...], seat: str, opener: str) -> float:
    other = "2" if seat == "1" else "1"
    margin = adjacent_pairs("/".join(rows), seat) - adjacent_pairs("/".join(rows), other)
    if margin:
        return float(margin)
    mine, theirs = largest_group_brute(rows, seat), largest_group_brute(rows, other)
    if mine != theirs:
        return 0.5 if mine > theirs else -0.5
    return 0.5 if seat != opener else -0.5


def largest_group_brute(rows: tuple[str, ...], seat: str) -> int:
    seen: set[tuple[int, int]] = set()
    best = 0
    for r0, row in enumerate(rows):
        for c0, char in enumerate(row):
            if char != seat or (r0, c0) in seen:
                continue
            stack, size = [(r0, c0)], 0
            seen.add((r0, c0))
            while stack:
                r, c = stack.pop()
                size += 1
                for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= nr < len(rows) and 0 <= nc < len(row) and rows[nr][nc] == seat and (nr, nc) not in seen:
                        seen.add((nr, nc))
                        stack.append((nr, nc))
            best = max(best, size)
    return best


@cache
def brute_value(rows: tuple[str, ...], mover: str, opener: str) -> float:
    """The exact value for ``mover`` (final margin, ± ½ on a tie-break) by trying every line of play."""
    other = "2" if mover == "1" else "1"
    best = None
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char != ".":
                continue
            after = (*rows[:r], row[:c] + mover + row[c + 1 :], *rows[r + 1 :])
            if any("." in line for line in after):
                value = -brute_value(after, other, opener)
            else:
                value = final_value_brute(after, mover, opener)
            best = value if best is None else max(best, value)
    assert best is not None
    return best


def brute_move_values(notation: str) -> dict[str, float]:
    board, mover, opener_field = notation.split()
    rows = tuple(board.split("/"))
    opener = opener_field[-1]
    other = "2" if mover == "1" else "1"
    values = {}
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char == ".":
                after = (*rows[:r], row[:c] + mover + row[c + 1 :], *rows[r + 1 :])
                name = f"{chr(97 + c)}{r + 1}"
                if any("." in line for line in after):
                    values[name] = -brute_value(after, other, opener)
                else:
                    values[name] = final_value_brute(after, mover, opener)
    return values


def small_positions() -> list[str]:
    """Start positions of small boards and positions of the 5x5 game with 8 to 10 cells left."""
    texts = [
        GAME.new_position({"rows": 2, "cols": 3, "rocks": 0}, "").to_notation(),
        GAME.new_position({"rows": 3, "cols": 3, "rocks": 1, "opener": 2}, "tiny").to_notation(),
        GAME.new_position({"rows": 2, "cols": 5, "rocks": 0}, "").to_notation(),
        GAME.new_position({"rows": 3, "cols": 4, "rocks": 2}, "exact").to_notation(),
    ]
    rng = random.Random(2024)
    for k, left in enumerate((8, 9, 10, 10)):
        position = GAME.new_position({"opener": 1 + k % 2}, f"exact-{k}")
        while position.legal_move_count() > left:
            position = position.play(rng.choice(position.legal_moves()))
        texts.append(position.to_notation())
    return texts


@pytest.mark.parametrize("notation", small_positions())
def test_hard_is_exact_on_small_boards(notation: str) -> None:
    position = GAME.parse_position(notation)
    values = brute_move_values(notation)
    result = LEVELS.best_move(position, "hard", None, 0, 1, never)
    assert result.exact and result.stop_reason == "solved"
    assert result.value == max(values.values())
    assert values[position.move_notation(result.move)] == result.value
    # The principal variation is a legal line whose end is worth the value.
    line = position
    for move in result.pv:
        line, _ = line.apply(move)
    if line.to_move == 0:
        assert line.final_value(position.to_move) == result.value


@pytest.mark.parametrize("notation", small_positions()[:6:2])
def test_top_n_scores_every_move_exactly(notation: str) -> None:
    position = GAME.parse_position(notation)
    values = brute_move_values(notation)
    result = LEVELS.best_move(position, "hard", None, 0, len(values), never)
    assert result.exact
    scored = {position.move_notation(a.move): a.value for a in result.alternatives}
    assert scored == values
    assert [a.value for a in result.alternatives] == sorted(values.values(), reverse=True)


@pytest.mark.parametrize("seed", range(3))
def test_hard_solve_mode_agrees_with_plain_iterative_deepening(seed: int) -> None:
    # 10 empty cells on the default board: hard leaps straight to the end (solve mode); the plain search
    # deepens one ply at a time. Same proved values for the three best moves.

    rng = random.Random(seed)
    position = GAME.new_position({}, f"solve-{seed}")
    while position.legal_move_count() > 10:
        position = position.play(rng.choice(position.legal_moves()))
    assert position.legal_move_count() <= HARD_SOLVE_EMPTIES
    plain = search(position, Limits(), top_n=3)
    hard = LEVELS.best_move(position, "hard", None, 0, 3, never)
    assert plain.exact and hard.exact and hard.stop_reason == "solved"
    assert hard.depth == position.legal_move_count()
    assert [a.value for a in hard.alternatives] == [a.value for a in plain.alternatives]
    assert hard.value == plain.value


@pytest.mark.skipif(not engine.available("petak-sawah"), reason="the native search engine is not built or turned off")
def test_a_callers_time_starts_the_native_solve_earlier() -> None:
    """With a time of the caller's and no node budget, hard proves from as many empty cells as the time allows on
    the native engine (``SOLVE_AT_MS`` at ``SOLVE_AT``, ``SOLVE_GROWTH`` times more per cell); a node budget, no
    time, the Python search or a board the kernel does not hold keeps ``HARD_SOLVE_EMPTIES``."""
    rng = random.Random(7)
    position = GAME.new_position({}, "reach")
    while position.legal_move_count() > petak_levels.SOLVE_AT:
        position = position.play(rng.choice(position.legal_moves()))
    assert solve_empties(position, Limits(max_time_ms=100)) == petak_levels.SOLVE_AT - 1
    assert solve_empties(position, Limits(max_time_ms=1000)) == petak_levels.SOLVE_AT + 2
    assert solve_empties(position, Limits(max_time_ms=0)) == HARD_SOLVE_EMPTIES  # proto3's unset: no time given
    assert solve_empties(position, Limits(max_time_ms=1000, max_nodes=10**6)) == HARD_SOLVE_EMPTIES
    large = GAME.new_position({"rows": 9, "cols": 8, "rocks": 4}, "large")  # 72 cells: past the kernel's 64
    assert solve_empties(large, Limits(max_time_ms=1000)) == HARD_SOLVE_EMPTIES
    result = LEVELS.best_move(position, "hard", Limits(max_time_ms=5000), 0, 1, never)
    proof = engine.search(position, Limits(), solve=True)
    assert proof is not None and proof.exact
    assert result.exact and result.stop_reason == "solved" and result.value == proof.value
    previous = use_native(False)
    try:
        assert solve_empties(position, Limits(max_time_ms=1000)) == HARD_SOLVE_EMPTIES
    finally:
        use_native(previous)


def test_the_2x2_game_is_lost_by_the_opener_on_the_tie_break() -> None:
    # By hand: after the opener's first cell, the other seat answers so that both end with one pair (or
    # both with none) and equal groups; the seat that did not open then wins. Value -1/2 for the opener.
    for notation in ("../.. 1 opener=1", "../.. 2 opener=2"):
        result = LEVELS.best_move(GAME.parse_position(notation), "hard", None, 0, 4, never)
        assert result.exact and result.value == -0.5
        assert [a.value for a in result.alternatives] == [-0.5] * 4


def test_levels_choose_as_described() -> None:
    # Seat 1 to move: b2 scores 2 now (a2, b1); anything else scores at most 1.
    position = GAME.parse_position("11../1.../..../222. 1 opener=1")
    assert position.points_for(position.parse_move("b2")) == 2
    easy = LEVELS.best_move(position, "easy", None, 5, 1, never)
    assert position.move_notation(easy.move) == "b2" and easy.stop_reason == "rule"
    medium = LEVELS.best_move(position, "medium", None, 5, 1, never)
    assert medium.depth == MEDIUM_DEPTH == 1 and not medium.exact
    # Easy picks at random among equals, the same for the same seed.
    start = GAME.new_position({}, "levels")
    picks = {LEVELS.best_move(start, "easy", None, seed, 1, never).move for seed in range(12)}
    assert len(picks) > 1
    again = [LEVELS.best_move(start, "easy", None, 3, 2, never) for _ in range(2)]
    assert again[0].move == again[1].move and again[0].alternatives == again[1].alternatives
    # Explicit limits override the level's own.
    shallow = LEVELS.best_move(start, "hard", Limits(max_depth=2), 0, 1, never)
    assert shallow.depth == 2 and not shallow.exact and shallow.stop_reason == "depth"
    # Hard within a node budget: not proved on an open board, the same answer every time.
    budget = [LEVELS.best_move(start, "hard", Limits(max_nodes=3000), 0, 2, never) for _ in range(2)]
    assert budget[0].stop_reason == "nodes" and not budget[0].exact
    assert budget[0].move == budget[1].move and budget[0].value == budget[1].value
    assert budget[0].move in start.legal_moves()


def test_best_move_refuses_bad_requests() -> None:
    with pytest.raises(UnknownLevel):
        LEVELS.best_move(GAME.new_position({}, ""), "grandmaster", None, 0, 1, never)
    with pytest.raises(GameOverError):
        LEVELS.best_move(GAME.parse_position("112/122 - opener=1"), "hard", None, 0, 1, never)


def test_unknown_options_are_named() -> None:
    with pytest.raises(InvalidOption) as caught:
        GAME.new_position({"seeds": 4}, "")
    assert caught.value.field == "seeds"


_values = st.one_of(
    st.integers(-3, 15),
    st.booleans(),
    st.text(alphabet="abcl0123456789#.", max_size=4),
    st.lists(st.text(alphabet="abcdl12345", max_size=3), max_size=12),
    st.none(),
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.dictionaries(
        st.sampled_from(["rows", "cols", "rocks", "seat1_cells", "seat2_cells", "opener", "to_move"]), _values
    )
)
def test_any_fields_give_a_position_or_a_rules_error(changes: dict) -> None:
    fields = dict(good_fields(), **changes)
    try:
        position = GAME.position_from_fields(fields)
    except RulesError:
        return
    assert GAME.parse_position(position.to_notation()) == position


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.dictionaries(st.sampled_from(["rows", "cols", "rocks", "rock_cells", "opener", "colour"]), _values),
    st.text(max_size=5),
)
def test_any_options_give_a_start_or_a_rules_error(options: dict, seed: str) -> None:
    try:
        position = GAME.new_position(options, seed)
    except RulesError:
        return
    assert position.to_move == options.get("opener", 1) and position.scores() == (0, 0)
