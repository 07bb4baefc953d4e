"""Dots and Boxes search: the chain reductions against a brute-force solver, the loony-endgame values, and the
best-move levels (docs/games/dots-and-boxes.md: never give a box away needlessly, count long chains, double-deal,
play the end perfectly)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from service.core.errors import GameOverError, UnknownLevel
from service.core.values import Limits
from service.engines.dots_and_boxes import (
    GAME,
    KEEP,
    PLAY,
    STOP,
    SWAP,
    DotsAndBoxesPosition,
    Geometry,
    estimate_rest,
    geometry,
    loony_value,
)
from service.levels.dots_and_boxes import LEVELS
from service.native import engine as native_engine
from service.native import use_native


def never() -> bool:
    return False


def solver(
    geo: Geometry, moves: Callable[[int], list[int]], memo: dict[int, int] | None = None
) -> Callable[[int], int]:
    """The exact margin of the boxes still open, for the side to move, by plain minimax over ``moves``
    (``memo`` collects every state solved)."""
    table: dict[int, int] = {} if memo is None else memo

    def value(lines: int) -> int:
        known = table.get(lines)
        if known is not None:
            return known
        best = 0 if lines == geo.full else -99
        for line in moves(lines):
            after = lines | 1 << line
            gained = sum(after & geo.box_lines[box] == geo.box_lines[box] for box in geo.line_boxes[line])
            best = max(best, gained + value(after) if gained else -value(after))
        table[lines] = best
        return best

    return value


def all_lines(geo: Geometry) -> Callable[[int], list[int]]:
    return lambda lines: [line for line in range(geo.line_count) if not lines >> line & 1]


def position_of(geo: Geometry, lines: int) -> DotsAndBoxesPosition:
    """The regular-play position with these lines, which complete no box (so the colour to move follows
    from the line count)."""
    assert all(lines & mask != mask for mask in geo.box_lines)
    return DotsAndBoxesPosition(geo, lines, 0, 0, lines.bit_count() & 1, 1, PLAY, 0)


def random_lines(geo: Geometry, rng: random.Random, free: int) -> int:
    lines = geo.full
    for line in rng.sample(range(geo.line_count), free):
        lines ^= 1 << line
    return lines


def no_box_lines(geo: Geometry, rng: random.Random, drawn: int) -> int:
    """``drawn`` random lines completing no box (and leaving none takeable)."""
    while True:
        lines = 0
        order = list(range(geo.line_count))
        rng.shuffle(order)
        for line in order:
            after = lines | 1 << line
            if all((after & mask).bit_count() <= 2 for mask in geo.box_lines):
                lines = after
                if lines.bit_count() == drawn:
                    return lines


# --- the reductions are sound -----------------------------------------------------------------------------


@pytest.mark.parametrize(("rows", "cols", "free", "samples"), [(2, 2, 12, 1), (2, 3, 12, 20), (3, 3, 11, 30)])
def test_search_moves_keep_the_exact_value(rows: int, cols: int, free: int, samples: int) -> None:
    geo = geometry(rows, cols)
    full = solver(geo, all_lines(geo))
    visited: dict[int, int] = {}
    reduced = solver(geo, lambda lines: list(position_of_any(geo, lines).search_moves()), visited)
    rng = random.Random(rows * 100 + cols)
    for _ in range(samples):
        reduced(random_lines(geo, rng, free))
    # Every state the reduced search visited has its true value, not only the roots.
    assert len(visited) > 1000
    for lines, value in visited.items():
        assert value == full(lines)


def position_of_any(geo: Geometry, lines: int) -> DotsAndBoxesPosition:
    """``search_moves`` depends on the lines only: any owners will do (all of A's)."""
    complete = 0
    for box, mask in enumerate(geo.box_lines):
        if lines & mask == mask:
            complete |= 1 << box
    return DotsAndBoxesPosition(geo, lines, complete, 0, 0, 1, PLAY, 0)


def test_reductions_on_an_opened_chain() -> None:
    # Box c1 is takeable and leads into b1 (two sides), which ends at b2 (one side): two boxes offered.
    position = GAME.parse_position("+-+-+-+/..|...|/+.+.+-+/|.....|/+-+-+.+/|.....|/+.+-+-+ 1")
    assert [position.move_notation(m) for m in position.search_moves()] == ["c1-c2", "b2-c2"]
    assert position.legal_move_count() == 10
    # A box whose capture opens nothing is taken at once.
    position = GAME.parse_position("+-+.+/|..../+-+.+/...../+.+.+ 2")
    assert [position.move_notation(m) for m in position.search_moves()] == ["b1-b2"]
    assert position.legal_move_count() == 9
    # No safe line left: an isolated 3-chain (row 1) and a 6-loop (rows 2-3) are each opened one way only.
    position = GAME.parse_position("+-+-+-+/......./+-+-+-+/|.....|/+.+-+.+/|.....|/+-+-+-+ 1")
    assert [position.move_notation(m) for m in position.search_moves()] == ["a1-a2", "a3-b3"]
    assert position.legal_move_count() == 10
    # Opening the loop first loses 3 (6 given, then 3 taken back); the chain first loses 5.
    assert loony_value((3,), (6,)) == -3 == estimate_rest(position.geometry, position.lines)
    result = LEVELS.best_move(position, "hard", None, 0, 1, never)
    assert position.move_notation(result.move) == "a3-b3" and result.exact and result.value == -3


# --- loony endgames ------------------------------------------------------------------------------------------


def test_loony_values() -> None:
    assert loony_value((), ()) == 0
    assert loony_value((1,), ()) == -1
    assert loony_value((3,), ()) == -3
    # Two 3-chains: the controller takes one box of the first, hands over two, then takes all three.
    assert loony_value((3, 3), ()) == -2
    assert loony_value((), (4,)) == -4
    # A 4-loop and a 3-chain: open the loop first (-4 + 3) rather than the chain (-3 - 4 + 4 ... = -3).
    assert loony_value((3,), (4,)) == -1
    # Short chains first change who must open the long ones: 1-chain then 3-chain gives the opener +2.
    assert loony_value((1, 3), ()) == 2
    # 3, 4, 5: the controller keeps 1 of the 3 and 2 of the 4 (handing over 2 + 2), then all 5: 8 to 4.
    assert loony_value((3, 4, 5), ()) == -4


@pytest.mark.parametrize(("rows", "cols", "tries"), [(2, 3, 300), (1, 4, 100), (3, 3, 120)])
def test_estimate_is_exact_in_simple_loony_endgames(rows: int, cols: int, tries: int) -> None:
    geo = geometry(rows, cols)
    exact = solver(geo, all_lines(geo))
    rng = random.Random(11)
    seen = set()
    for _ in range(tries):
        lines = 0
        sides = [0] * geo.box_count
        while True:  # draw random safe lines until none is left
            safe = [
                line
                for line in range(geo.line_count)
                if not lines >> line & 1 and all(sides[box] <= 1 for box in geo.line_boxes[line])
            ]
            if not safe:
                break
            line = rng.choice(safe)
            lines |= 1 << line
            for box in geo.line_boxes[line]:
                sides[box] += 1
        if all(count == 2 for count in sides) and (lines ^ geo.full).bit_count() <= 14:
            seen.add(lines)
            assert estimate_rest(geo, lines) == exact(lines)
    assert len(seen) >= 10


# --- levels ----------------------------------------------------------------------------------------------------


def test_hard_double_deals() -> None:
    # Two boxes offered (c1, b1); taking them both would hand over control. Hard declines the last two.
    position = GAME.parse_position("+-+-+-+/..|...|/+.+.+-+/|.....|/+-+-+.+/|.....|/+.+-+-+ 1")
    result = LEVELS.best_move(position, "hard", None, 1, 2, never)
    assert position.move_notation(result.move) == "b2-c2" and result.exact and result.value == 5
    assert [(position.move_notation(a.move), a.value) for a in result.alternatives] == [("b2-c2", 5), ("c1-c2", -5)]


def test_hard_plays_the_end_perfectly() -> None:
    geo = geometry(3, 3)
    exact = solver(geo, all_lines(geo))
    rng = random.Random(3)
    for _ in range(12):
        lines = no_box_lines(geo, rng, 12)
        position = position_of(geo, lines)
        result = LEVELS.best_move(position, "hard", None, 0, 1, never)
        assert result.exact and result.value == exact(lines)
        after = lines | 1 << result.move
        gained = sum(after & geo.box_lines[b] == geo.box_lines[b] for b in geo.line_boxes[result.move])
        assert (gained + exact(after) if gained else -exact(after)) == result.value


def test_hard_gives_no_box_away_needlessly() -> None:
    geo = geometry(3, 3)
    rng = random.Random(5)
    for _ in range(5):
        position = position_of(geo, no_box_lines(geo, rng, 6))
        result = LEVELS.best_move(position, "hard", Limits(max_nodes=3000), 0, 1, never)
        after = position.lines | 1 << result.move
        assert all((after & geo.box_lines[box]).bit_count() <= 2 for box in geo.line_boxes[result.move])


def test_easy_takes_boxes_and_medium_guards_them() -> None:
    position = GAME.parse_position("+-+.+/|.|../+.+.+/...../+.+.+ 2")  # box a1 has three sides
    for level in ("easy", "medium", "hard"):
        result = LEVELS.best_move(position, level, None, 4, 1, never)
        assert position.move_notation(result.move) == "a2-b2", level
    # No box to take: easy and medium avoid making a third side when they can.
    position = GAME.parse_position("+-+.+/|..../+.+.+/...../+.+.+ 1")
    for level in ("easy", "medium"):
        for seed in range(5):
            move = LEVELS.best_move(position, level, None, seed, 1, never).move
            after = position.lines | 1 << move
            assert all((after & mask).bit_count() <= 2 for mask in position.geometry.box_lines), (level, seed)


def test_levels_in_the_pie_phases() -> None:
    start = GAME.new_position({"rows": 3, "cols": 3, "pie_rule": True, "pie_lines": 4}, "")
    for level in ("easy", "medium", "hard"):
        result = LEVELS.best_move(start, level, None, 1, 3, never)
        assert result.move >= 0 and result.stop_reason == "rule"  # a first line (stop is not allowed yet)
        after = start.play(result.move)
        result = LEVELS.best_move(after, level, None, 1, 1, never)
        assert result.move == STOP or result.move >= 0
    # 1x1 with n = 4: the setup draws the box for B; seat 2 must end up holding B.
    position = GAME.new_position({"rows": 1, "cols": 1, "pie_rule": True, "pie_lines": 4}, "")
    for line in ("a1-b1", "a2-b2", "a1-a2", "b1-b2"):
        position = position.play(position.parse_move(line))
    assert position.phase == "choice"
    for level in ("easy", "medium", "hard"):
        assert LEVELS.best_move(position, level, None, 0, 1, never).move == KEEP, level
    # Both boxes for A (b1-b2, the last line, completed two at once): seat 2 swaps to hold A.
    position = GAME.new_position({"rows": 1, "cols": 2, "pie_rule": True, "pie_lines": 7}, "")
    for line in ("a1-b1", "b1-c1", "a2-b2", "b2-c2", "a1-a2", "c1-c2", "b1-b2"):
        position = position.play(position.parse_move(line))
    assert position.to_notation() == "+-+-+/|A|A|/+-+-+ 2 pie=7 phase=choice colour=- seat1=-"
    for level in ("easy", "medium", "hard"):
        result = LEVELS.best_move(position, level, None, 0, 2, never)
        assert result.move == SWAP and [a.move for a in result.alternatives] == [SWAP, KEEP], level


def test_best_move_errors_and_determinism() -> None:
    start = GAME.new_position({"rows": 3, "cols": 3}, "")
    with pytest.raises(UnknownLevel):
        LEVELS.best_move(start, "grandmaster", None, 0, 1, never)
    finished = start
    while finished.to_move:
        finished = finished.play(finished.legal_moves()[0])
    with pytest.raises(GameOverError):
        LEVELS.best_move(finished, "hard", None, 0, 1, never)
    for level in ("easy", "medium", "hard"):
        first = LEVELS.best_move(start, level, Limits(max_nodes=500), 9, 3, never)
        again = LEVELS.best_move(start, level, Limits(max_nodes=500), 9, 3, never)
        assert first.move == again.move and first.alternatives == again.alternatives
    moves = {LEVELS.best_move(start, "medium", None, seed, 1, never).move for seed in range(8)}
    assert len(moves) > 1  # the seed varies medium's choice among equal lines


def play_match(first: str, second: str, seed: int) -> tuple[int, int]:
    position = GAME.new_position({"rows": 3, "cols": 3}, "")
    turn = 0
    while position.to_move:
        level = first if position.to_move == 1 else second
        position = position.play(LEVELS.best_move(position, level, None, seed * 1000 + turn, 1, never).move)
        turn += 1
    return position.scores()


def test_hard_beats_medium_as_second_player() -> None:
    # The lead's check is twenty seeded games (below, marked slow: about a minute); four run always.
    for seed in range(4):
        one, two = play_match("medium", "hard", seed)
        assert two > one, seed


@pytest.mark.slow
def test_hard_beats_medium_as_second_player_in_twenty_games() -> None:
    for seed in range(20):
        one, two = play_match("medium", "hard", seed)
        assert two > one, seed


# --- both searches: no fixed opening, the caller's time used ---------------------------------------------------


def on_path(native_on: bool) -> None:
    """Turn the native engine on or off for one test (skip when it is wanted but not built)."""
    if native_on and not native_engine.available("dots-and-boxes"):
        pytest.skip("the native search engine is not built (make install) or GAMERULES_NO_NATIVE is set")


@pytest.fixture(params=[True, False], ids=["native", "python"])
def path(request: pytest.FixtureRequest) -> Iterator[bool]:
    on_path(request.param)
    previous = use_native(request.param)
    try:
        yield request.param
    finally:
        use_native(previous)


@pytest.mark.parametrize("size", [(5, 5), (3, 3)])
def test_no_fixed_opening_above_the_lowest_level(path: bool, size: tuple[int, int]) -> None:
    """Every level above ``easy`` opens with at least 3 different lines over 10 seeds, each as good as the best
    by its own search (a seeded choice among moves within a small margin of the best)."""
    start = GAME.new_position({"rows": size[0], "cols": size[1]}, "")
    for level in [lv.name for lv in LEVELS.levels][1:]:
        firsts = {LEVELS.best_move(start, level, None, seed, 1, never).move for seed in range(10)}
        assert len(firsts) >= 3, (level, firsts)
    # The same seed, the same answer.
    one, two = (LEVELS.best_move(start, "hard", None, 3, 1, never) for _ in range(2))
    assert (one.move, one.value) == (two.move, two.value)


def test_hard_uses_the_time_it_is_given(path: bool) -> None:
    """With a time limit and no node limit of the caller's, hard searches until the time is up (its own node
    budget does not stop it): on the 5x5 start, where no proof is in reach, it stops for the time."""
    start = GAME.new_position({}, "")
    result = LEVELS.best_move(start, "hard", Limits(max_time_ms=300), 0, 1, never)
    assert result.stop_reason == "time" and not result.exact
    budget = LEVELS.best_move(start, "hard", None, 0, 1, never)
    assert budget.stop_reason == "nodes"
