"""Dots and Boxes: the exact solver ``hard`` uses on small boards, against plain minimax over every line
(docs/games/dots-and-boxes.md: ``hard`` plays the end of the game perfectly). The 3x3 value from the empty board
(-3 for the first player) takes minutes here, so it is a benchmark, not a test; a 3x3 position with 14 lines drawn
is."""

from __future__ import annotations

import random

import pytest

from service.core.values import Limits
from service.engines.dots_and_boxes import GAME, canonical_lines, geometry, line_symmetries
from service.levels.dots_and_boxes import LEVELS
from service.levels.dots_and_boxes_exact import ExactSolver, SolveAborted
from service.search import Deadline
from tests.games.test_dots_and_boxes_levels import all_lines, never, no_box_lines, position_of, solver

# --- symmetries ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("rows", "cols", "count"), [(1, 1, 8), (3, 3, 8), (2, 3, 4), (1, 4, 4), (5, 5, 8)])
def test_symmetries_map_boxes_to_boxes(rows: int, cols: int, count: int) -> None:
    geo = geometry(rows, cols)
    perms = line_symmetries(geo)
    assert len(perms) == count == len(set(perms))
    assert perms[0] == tuple(range(geo.line_count))
    boxes = {frozenset(sides) for sides in geo.box_sides}
    for perm in perms:
        assert sorted(perm) == list(range(geo.line_count))
        assert {frozenset(perm[line] for line in sides) for sides in geo.box_sides} == boxes


def test_canonical_lines_is_one_key_per_class() -> None:
    geo = geometry(3, 3)
    rng = random.Random(1)
    for _ in range(200):
        lines = rng.getrandbits(geo.line_count)
        key = canonical_lines(geo, lines)
        assert key <= lines
        for perm in line_symmetries(geo):
            image = sum(1 << perm[line] for line in range(geo.line_count) if lines >> line & 1)
            assert canonical_lines(geo, image) == key
    # The four corner lines of the top-left box: its top line and its left line are one class.
    assert canonical_lines(geo, 1 << 0) == canonical_lines(geo, 1 << geo.box_sides[0][2])


# --- exact values against plain minimax ---------------------------------------------------------------------


@pytest.mark.parametrize(("rows", "cols", "start"), [(1, 1, -1), (1, 2, 0), (2, 2, 2), (1, 3, -1)])
def test_every_position_of_small_boards(rows: int, cols: int, start: int) -> None:
    # Every set of lines, completed boxes or not, with one solver (its table shared by all) and with fresh ones.
    geo = geometry(rows, cols)
    brute = solver(geo, all_lines(geo))
    shared = ExactSolver(geo)
    assert shared.value(0) == brute(0) == start
    for lines in range(geo.full + 1):
        assert shared.value(lines) == brute(lines), geo.line_count
    rng = random.Random(rows * 10 + cols)
    for lines in rng.sample(range(geo.full + 1), min(50, geo.full + 1)):
        assert ExactSolver(geo).value(lines) == ExactSolver(geo, loony=False).value(lines) == brute(lines)


@pytest.mark.parametrize(("rows", "cols", "free", "samples"), [(2, 3, 13, 12), (3, 3, 12, 10), (2, 4, 12, 8)])
def test_random_positions_of_larger_boards(rows: int, cols: int, free: int, samples: int) -> None:
    geo = geometry(rows, cols)
    brute = solver(geo, all_lines(geo))
    rng = random.Random(free)
    for _ in range(samples):
        lines = geo.full
        for line in rng.sample(range(geo.line_count), free):
            lines ^= 1 << line
        exact = ExactSolver(geo)
        assert exact.value(lines) == brute(lines)
        for line in range(geo.line_count):
            if not lines >> line & 1:
                after = lines | 1 << line
                gained = sum(after & geo.box_lines[b] == geo.box_lines[b] for b in geo.line_boxes[line])
                assert exact.move_value(lines, line) == (gained + brute(after) if gained else -brute(after))


def test_windows_give_sound_bounds_with_a_shared_table() -> None:
    # Fail-soft alpha-beta: a value at or below the window bounds the true one from above, at or above it from
    # below, and inside it is exact; one table across all the windows and positions (bounds must not leak).
    geo = geometry(2, 3)
    brute = solver(geo, all_lines(geo))
    exact = ExactSolver(geo)
    rng = random.Random(4)
    for _ in range(400):
        lines = geo.full
        for line in rng.sample(range(geo.line_count), rng.randint(1, 17)):
            lines ^= 1 << line
        alpha = rng.randint(-8, 7)
        beta = alpha + rng.choice((1, 1, 2, 4))
        value, true = exact._search(lines, alpha, beta), brute(lines)
        assert true <= value if value <= alpha else true >= value if value >= beta else true == value


def test_a_3x3_position_with_14_lines_drawn() -> None:
    geo = geometry(3, 3)
    brute = solver(geo, all_lines(geo))
    rng = random.Random(14)
    values = []
    for _ in range(3):
        lines = no_box_lines(geo, rng, 14)
        exact = ExactSolver(geo)
        values.append(exact.value(lines))
        assert values[-1] == brute(lines)
    assert len(set(values)) > 1  # not one value by luck


# --- hard uses it ---------------------------------------------------------------------------------------------


def test_hard_proves_the_value_and_plays_a_move_that_keeps_it() -> None:
    geo = geometry(3, 3)
    brute = solver(geo, all_lines(geo))
    rng = random.Random(7)
    for drawn in (10, 12, 14):
        lines = no_box_lines(geo, rng, drawn)
        position = position_of(geo, lines)
        result = LEVELS.best_move(position, "hard", None, 0, 3, never)
        assert result.exact and result.stop_reason == "solved" and result.value == brute(lines)
        assert result.move == result.alternatives[0].move and result.alternatives[0].value == result.value
        for scored in result.alternatives:
            after = lines | 1 << scored.move
            gained = sum(after & geo.box_lines[b] == geo.box_lines[b] for b in geo.line_boxes[scored.move])
            assert scored.exact and scored.value == (gained + brute(after) if gained else -brute(after))
        assert [a.value for a in result.alternatives] == sorted((a.value for a in result.alternatives), reverse=True)
        # With one answer wanted, the same move (the first best in search order) and value.
        single = LEVELS.best_move(position, "hard", None, 0, 1, never)
        assert (single.move, single.value, single.exact) == (result.move, result.value, True)


def test_hard_counts_the_boxes_already_owned() -> None:
    # Random games played down to 11 undrawn lines, boxes taken on the way by either colour.
    geo = geometry(3, 3)
    brute = solver(geo, all_lines(geo))
    rng = random.Random(9)
    margins = set()
    for _ in range(8):
        position = GAME.new_position({"rows": 3, "cols": 3}, "")
        while (position.lines ^ geo.full).bit_count() > 11:
            position = position.play(rng.choice(position.legal_moves()))
        owned = position.box_margin(position.to_move)
        margins.add(owned)
        result = LEVELS.best_move(position, "hard", None, 0, 1, never)
        assert result.exact and result.value == owned + brute(position.lines)
    assert len(margins) > 1


def test_the_solver_gives_up_when_told_and_hard_falls_back() -> None:
    geo = geometry(3, 3)
    with pytest.raises(SolveAborted):
        ExactSolver(geo, Deadline(Limits(max_nodes=50))).value(0)
    start = GAME.new_position({"rows": 3, "cols": 3}, "")
    # 24 lines: a solve is not affordable within 20 000 nodes, so the chain search answers (unproved).
    result = LEVELS.best_move(start, "hard", Limits(max_nodes=2_000), 0, 1, never)
    assert not result.exact and result.stop_reason != "solved"
    # 18 lines with a budget too small for the solve: it gives up, the search still answers.
    position = position_of(geo, no_box_lines(geo, random.Random(2), 6))
    result = LEVELS.best_move(position, "hard", Limits(max_nodes=100), 0, 1, never)
    assert result.stop_reason != "solved" and result.move in position.legal_moves()
