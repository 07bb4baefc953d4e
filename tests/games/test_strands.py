"""Strands rules (docs/games/strands.md): layouts, cell names, notation, move counting and paging, the result, and
malformed input. Search and levels are in ``test_strands_search.py``."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from math import comb

import pytest

from service.core.errors import (
    GameOverError,
    IllegalMove,
    InvalidMove,
    InvalidOption,
    InvalidPosition,
    NotationError,
    RulesError,
)
from service.core.values import MoveGroup
from service.engines.strands import GAME, StrandsPosition, compare_group_sizes
from tests.games.contract import check_random_games

STANDARD_DRAWING = """
     6 5 5 5 5 6
    5 3 3 3 3 3 5
   5 3 2 2 2 2 3 5
  5 3 2 2 2 2 2 3 5
 5 3 2 2 2 2 2 2 3 5
6 3 2 2 2 1 2 2 2 3 6
 5 3 2 2 2 2 2 2 3 5
  5 3 2 2 2 2 2 3 5
   5 3 2 2 2 2 3 5
    5 3 3 3 3 3 5
     6 5 5 5 5 6
"""
STANDARD_ROWS = "/".join(line.replace(" ", "") for line in STANDARD_DRAWING.strip("\n").splitlines())
EMPTY_STONES = "/".join("." * len(row) for row in STANDARD_ROWS.split("/"))
START = f"{STANDARD_ROWS} {EMPTY_STONES} 1 exact=0"
SIDE7_ROWS = (
    "6655566/64333346/533222335/5322222235/53222222235/632222122246/6432211122346/"
    "642221222236/53222222235/5322222235/533222335/64333346/6655566"
)
TINY = "22/222/22"  # side 2, all 2s: small enough to reason about by hand


def new(layout: str = "standard", exact: bool = False, seed: str = "", labels: str = "") -> StrandsPosition:
    options: dict[str, object] = {"layout": layout, "exact_count": exact}
    if labels:
        options["labels"] = labels
    return GAME.new_position(options, seed)


def play(position: StrandsPosition, *moves: str) -> StrandsPosition:
    for text in moves:
        position, _ = position.apply(position.parse_move(text))
    return position


def label_counts(position: StrandsPosition) -> dict[int, int]:
    return dict(Counter(int(ch) for ch in position.to_fields()["labels"] if ch != "/"))


# --------------------------------------------------------------------------------------------------
# Layouts.


@pytest.mark.parametrize(
    ("layout", "cells", "counts"),
    [
        ("standard", 91, {1: 1, 2: 36, 3: 24, 5: 24, 6: 6}),
        ("side6-fours", 91, {1: 1, 2: 36, 3: 24, 4: 24, 6: 6}),
        ("side6-low", 91, {1: 1, 2: 60, 3: 30}),
        ("side5", 61, {1: 1, 2: 18, 3: 18, 4: 18, 6: 6}),
        ("side4", 37, {1: 1, 2: 18, 3: 12, 4: 6}),
        ("side7", 127, {1: 5, 2: 50, 3: 28, 4: 8, 5: 18, 6: 18}),
        ("random6", 91, {1: 3, 2: 27, 3: 29, 4: 12, 5: 20}),
        ("random7", 127, {1: 10, 2: 42, 3: 37, 4: 10, 5: 28}),
    ],
)
def test_layout_cell_and_label_counts(layout: str, cells: int, counts: dict[int, int]) -> None:
    position = new(layout, seed="any seed")
    assert label_counts(position) == counts
    assert sum(counts.values()) == cells == position.layout.size


def test_standard_is_the_rule_book_drawing() -> None:
    assert new().to_notation() == START
    assert new().layout.rows == STANDARD_ROWS


def test_side7_is_the_rule_book_rows() -> None:
    assert new("side7").layout.rows == SIDE7_ROWS


def _axial(side: int) -> list[tuple[int, int]]:
    """(q, r) of each cell in board order, written out here independently of the engine."""
    cells = []
    for r in range(1 - side, side):
        cells.extend((q, r) for q in range(max(1 - side, 1 - side - r), min(side - 1, side - 1 - r) + 1))
    return cells


def _rings(rows: str) -> dict[int, list[tuple[int, bool]]]:
    """Ring number -> [(label, is corner)] of a layout."""
    labels = [int(ch) for ch in rows.replace("/", "")]
    side = (rows.count("/") + 2) // 2
    rings: dict[int, list[tuple[int, bool]]] = {}
    for (q, r), label in zip(_axial(side), labels, strict=True):
        ring = max(abs(q), abs(r), abs(q + r))
        corner = ring > 0 and sorted((abs(q), abs(r), abs(q + r))) == [0, ring, ring]
        rings.setdefault(ring, []).append((label, corner))
    return rings


@pytest.mark.parametrize(
    ("layout", "per_ring"),
    [
        ("random6", [[1, 0, 0, 0, 0, 0], [2, 4, 0, 0, 0, 0], [0, 11, 1, 0, 0, 0], [0, 12, 6, 0, 0, 0],
                     [0, 0, 22, 2, 0, 0], [0, 0, 0, 10, 20, 0]]),
        ("random7", [[1, 0, 0, 0, 0, 0], [3, 3, 0, 0, 0, 0], [5, 7, 0, 0, 0, 0], [1, 17, 0, 0, 0, 0],
                     [0, 15, 9, 0, 0, 0], [0, 0, 28, 2, 0, 0], [0, 0, 0, 8, 28, 0]]),
    ],
)  # fmt: skip
def test_random_layouts_deal_ring_by_ring(layout: str, per_ring: list[list[int]]) -> None:
    seen = set()
    for seed in ("", "a", "b", "portal-game-17"):
        rows = new(layout, seed=seed).layout.rows
        seen.add(rows)
        assert new(layout, seed=seed).layout.rows == rows  # deterministic per seed
        for ring, cells in _rings(rows).items():
            counts = Counter(label for label, _ in cells)
            assert [counts[label] for label in range(1, 7)] == per_ring[ring]
            # Highest labels first, onto the corners first: no corner holds less than any other cell.
            corners = [label for label, corner in cells if corner]
            others = [label for label, corner in cells if not corner]
            if corners and others:
                assert min(corners) >= max(others)
    assert len(seen) == 4  # different seeds, different boards


def test_random_layout_is_pinned_across_machines() -> None:
    # SHA-256 driven, so these exact boards must never change (a portal may store just the seed).
    assert new("random6", seed="seed-1").layout.rows == (
        "554455/5333335/53322335/532222235/5322222235/53322112345/4322212234/532223234/53322335/4333344/554445"
    )
    assert new("random7", seed="seed-1").layout.rows == (
        "5554555/54333335/533232335/5322222235/53222122235/532212112235/5332211222345/532221212334/"
        "53222122234/4322212235/433223335/53333334/5455455"
    )


def test_custom_layout() -> None:
    position = new("custom", labels="23/216/45")
    assert position.layout.rows == "23/216/45" and position.layout.size == 7
    assert position.move_space() == [MoveGroup(2, ("a1", "b1"), 1, 1)]
    big = "/".join("2" * n for n in [*range(9, 18), *range(16, 8, -1)])  # side 9, 217 cells
    assert new("custom", labels=big).layout.size == 217


@pytest.mark.parametrize(
    ("labels", "words"),
    [
        ("22/272/22", "1..6"),
        ("22/202/22", "1..6"),
        ("33/313/33", "labelled 2"),
        ("22/2222/22", "not a hexhex"),
        ("222/222/222", "not a hexhex"),
        ("22/222", "odd number of rows"),
        ("2", "side must be 2..9"),
        ("/".join("2" * n for n in [*range(10, 20), *range(18, 9, -1)]), "side"),  # side 10
        ("22/2a2/22", "digits"),
        ("22//22", "digits"),
        ("2" * 5000, "characters"),
    ],
)
def test_bad_custom_layouts(labels: str, words: str) -> None:
    with pytest.raises(InvalidOption, match=words) as caught:
        new("custom", labels=labels)
    assert caught.value.field == "labels"


def test_layout_options() -> None:
    with pytest.raises(InvalidOption) as caught:
        new("standard", labels="22/222/22")
    assert caught.value.field == "labels"
    with pytest.raises(InvalidOption) as caught:
        new("custom")
    assert caught.value.field == "labels"
    with pytest.raises(InvalidOption) as caught:
        GAME.new_position({"layout": "side3"}, "")
    assert caught.value.field == "layout"
    with pytest.raises(InvalidOption) as caught:
        GAME.new_position({"exact_count": "yes"}, "")
    assert caught.value.field == "exact_count"
    assert GAME.new_position({}, "") == new()  # defaults: standard, up to X
    assert [o.name for o in GAME.options] == ["layout", "labels", "exact_count"]


# --------------------------------------------------------------------------------------------------
# Cells and moves.


def test_cell_names_and_adjacency() -> None:
    position = new()
    names = list(position.layout.index)
    assert names[:6] == ["a1", "a2", "a3", "a4", "a5", "a6"] and names[-1] == "k6"
    assert [n for n in names if n.startswith("f")] == [f"f{i}" for i in range(1, 12)]
    f6 = position.layout.index["f6"]
    assert position.layout.cell_label[f6] == 1
    assert sorted(position.layout.cell_names(position.layout.neighbours[f6])) == ["e5", "e6", "f5", "f7", "g5", "g6"]
    a1 = position.layout.index["a1"]
    assert position.layout.cell_names(position.layout.neighbours[a1]) == ["a2", "b1", "b2"]
    f11 = position.layout.index["f11"]
    assert position.layout.cell_names(position.layout.neighbours[f11]) == ["e10", "f10", "g10"]


def test_moves_read_in_any_order_and_answer_in_board_order() -> None:
    position = play(new(), "e5")
    move = position.parse_move("f4, e4")
    assert position.move_notation(move) == "e4,f4"
    assert position.move_to_fields(move) == {"cells": ["e4", "f4"]}
    assert position.move_from_fields({"cells": ["f4", "e4"]}) == move


def test_opening_and_turns() -> None:
    start = new()
    assert start.to_move == 1 and start.legal_move_count() == 36
    after, events = start.apply(start.parse_move("e5"))
    assert after.to_move == 2
    assert [(e.type, e.seat, e.cells, e.count) for e in events] == [("place", 1, ("e5",), 1)]
    after, events = after.apply(after.parse_move("a2,a3,a4,a5,b1"))
    assert after.to_move == 1 and events[0].count == 5 and events[0].detail.startswith("White covers 5 cells")
    assert after.to_fields() == {
        "labels": STANDARD_ROWS,
        "black": ["e5"],
        "white": ["a2", "a3", "a4", "a5", "b1"],
        "to_move": 1,
        "exact_count": False,
    }


def _independent_count(position: StrandsPosition, exact: bool) -> int:
    """Enumerate the legal moves with itertools straight from the structured form (not the engine's counts)."""
    fields = position.to_fields()
    labels = fields["labels"].split("/")
    taken = set(fields["black"]) | set(fields["white"])
    empties: dict[int, list[str]] = {}
    for row, digits in enumerate(labels):
        for place, digit in enumerate(digits, start=1):
            name = f"{'abcdefghijklmnopq'[row]}{place}"
            if name not in taken:
                empties.setdefault(int(digit), []).append(name)
    total = 0
    for label, cells in empties.items():
        most = min(label, len(cells))
        for k in range(most if exact else 1, most + 1):
            total += sum(1 for _ in itertools.combinations(cells, k))
    return total


@pytest.mark.parametrize(("exact", "expected"), [(False, 58472), (True, 45125)])
def test_move_count_after_opening(exact: bool, expected: int) -> None:
    # Up to X: 1 + (35 + 595) + (24 + 276 + 2024) + (24 + 276 + 2024 + 10626 + 42504) + 63 = 58472.
    # Exact: 1 + C(35,2) + C(24,3) + C(24,5) + C(6,6) = 1 + 595 + 2024 + 42504 + 1 = 45125.
    position = play(new(exact=exact), "f5")
    assert position.legal_move_count() == expected == _independent_count(position, exact)
    pages = []
    for start in range(0, expected, 4999):
        pages.extend(position.legal_moves_page(start, 4999))
    assert len(pages) == expected == len(set(pages))
    assert pages == position.legal_moves()
    assert position.legal_moves_page(expected - 2, 10) == pages[-2:]
    assert position.legal_moves_page(expected, 10) == []
    # Every listed move passes apply's own check, and the order is label, then size, then board order.
    rng = random.Random(1)
    for move in rng.sample(pages, 300):
        position.apply(move)
    labels = [position.layout.cell_label[m[0]] for m in pages]
    assert labels == sorted(labels)
    first = ("f6", "c3,c4", "c3,c5") if exact else ("f6", "c3", "c4")
    assert pages[:3] == [position.parse_move(t) for t in first]


def test_move_count_midgame_matches_enumeration() -> None:
    rng = random.Random(7)
    for exact in (False, True):
        position = new("side5", exact=exact)
        for _ in range(6):
            position = position.play(position.legal_moves_page(rng.randrange(position.legal_move_count()), 1)[0])
            assert position.legal_move_count() == _independent_count(position, exact)


def test_paging_unranks_without_listing() -> None:
    position = play(new(), "f5")
    everything = position.legal_moves()
    for start in (0, 1, 629, 630, 631, 2953, 20000, 58400):
        assert position.legal_moves_page(start, 37) == everything[start : start + 37]


def test_move_space() -> None:
    assert play(new(), "f5").move_space()[:2] == [
        MoveGroup(1, ("f6",), 1, 1),
        MoveGroup(2, tuple(n for n in new().move_space()[0].cells if n != "f5"), 1, 2),
    ]
    space = play(new(exact=True), "f5").move_space()
    assert [(g.label, len(g.cells), g.min_count, g.max_count) for g in space] == [
        (1, 1, 1, 1),
        (2, 35, 2, 2),
        (3, 24, 3, 3),
        (5, 24, 5, 5),
        (6, 6, 6, 6),
    ]
    assert sum(comb(len(g.cells), g.max_count) for g in space) == 45125


def test_exact_count_games_take_34_turns() -> None:
    # Turns under exact_count on standard: Black's opening (one 2), then the 1 (1 turn), the other 35 twos
    # (17 turns of 2 and one of 1), 24 threes (8), 24 fives (4 of 5 and one of 4), 6 sixes (1):
    # 1 + 1 + 18 + 8 + 5 + 1 = 34 turns, Black's opening included.
    rng = random.Random(3)
    for _ in range(4):
        position, turns = new(exact=True), 0
        while position.to_move:
            position, _ = position.apply(position.legal_moves_page(rng.randrange(position.legal_move_count()), 1)[0])
            turns += 1
        assert turns == 34


# --------------------------------------------------------------------------------------------------
# The result.


@pytest.mark.parametrize(
    ("black", "white", "expected"),
    [
        ([9, 2], [8, 5], (1, 0, 1)),
        ([7, 5, 1], [7, 6], (2, 1, 1)),
        ([7, 5, 3, 1], [7, 5, 3], (1, 3, 1)),  # prefix: the longer list wins
        ([4], [4, 2, 2], (2, 1, 2)),
        ([3, 3], [3, 3], (0, 2, 0)),
    ],
)
def test_group_size_comparison(black: list[int], white: list[int], expected: tuple[int, int, int]) -> None:
    assert compare_group_sizes(black, white) == expected


def test_largest_group_decides() -> None:
    # a1 a2 / b1 b2 b3 / c1 c2: White's b2 touches every cell, so White has one group of 4.
    end = GAME.parse_position(f"{TINY} BB/BWW/WW - exact=0")
    assert end.group_sizes(1) == [3] and end.group_sizes(2) == [4]
    assert end.scores() == (3, 4)
    outcome = end.outcome()
    assert outcome is not None and (outcome.winner, outcome.reason) == (2, "group_sizes")
    assert outcome.detail == "White's largest group has 4 stones, Black's 3"
    assert end.final_value(2) == 1.0 and end.final_value(1) == -1.0
    assert end.legal_move_count() == 0 and end.legal_moves() == [] and end.move_space() == []
    with pytest.raises(GameOverError):
        end.apply(end.parse_move("a1"))


def test_prefix_rule_decides() -> None:
    # Black b2 with a1 and b3 (one group of 3); White's ring cells are cut into c1-c2-b1 (3) and a2 (1).
    end = GAME.parse_position(f"{TINY} BW/WBB/WW - exact=0")
    assert end.group_sizes(1) == [3] and end.group_sizes(2) == [3, 1]
    outcome = end.outcome()
    assert outcome is not None and outcome.winner == 2
    assert "prefix" in outcome.detail
    assert end.final_value(2) == 0.5 and end.final_value(1) == -0.5


def test_a_later_entry_decides() -> None:
    # Side 3; White fills b1, the last empty cell:
    #     W W B          White: a1 a2 b1 b2 b3 c2 d1 d2 (8) and d4 e3 (2)
    #    W W W B         Black: a3 b4 c3 c4 c5 d3 e2 e1 (8) and c1 (1), cut off by b1 c2 d1
    #   B W B B B
    #    W W B W
    #     B B W
    position = GAME.parse_position("222/2222/22222/2222/222 WWB/.WWB/BWBBB/WWBW/BBW 2 exact=0")
    assert position.legal_moves() == [position.parse_move("b1")]
    end, events = position.apply(position.parse_move("b1"))
    assert end.group_sizes(1) == [8, 1] and end.group_sizes(2) == [8, 2] and end.scores() == (8, 8)
    outcome = end.outcome()
    assert outcome is not None and outcome.winner == 2
    assert outcome.detail == "White's 2nd largest group has 2 stones, Black's 1 (the largest groups are equal)"
    assert [e.type for e in events] == ["place", "game_over"] and events[-1].detail == outcome.detail
    assert events[-1].seat == 2
    assert end.final_value(2) == 0.5


# --------------------------------------------------------------------------------------------------
# Notation and structured form.


def test_round_trips() -> None:
    rng = random.Random(5)
    for layout, exact in (("standard", False), ("side4", True), ("random7", False)):
        position = new(layout, exact, seed="round trip")
        while position.to_move:
            text = position.to_notation()
            assert GAME.parse_position(text) == position and GAME.parse_position(text).to_notation() == text
            assert GAME.position_from_fields(position.to_fields()) == position
            position = position.play(position.legal_moves_page(rng.randrange(position.legal_move_count()), 1)[0])
        assert position.to_notation().split(" ")[2:] == ["-", f"exact={int(exact)}"]
        assert GAME.parse_position(position.to_notation()) == position
        assert GAME.position_from_fields(position.to_fields()) == position


@pytest.mark.parametrize(
    "text",
    [
        "",
        START.replace(" 1 ", "  1 "),
        START.replace(" exact=0", ""),
        START.replace(" 1 ", " 3 "),
        START.replace("exact=0", "exact=yes"),
        START.replace("......", "....x.", 1),
        START.replace("......", ".....", 1),
        START.replace("655556", "65a556", 1),
        START + " extra",
        "x" * 100_000,
    ],
)
def test_bad_notation(text: str) -> None:
    with pytest.raises(NotationError):
        GAME.parse_position(text)


@pytest.mark.parametrize(
    ("text", "field_words"),
    [
        (START.replace(" 1 ", " 2 "), "empty board"),  # empty board: Black to move
        (START.replace(STANDARD_ROWS, STANDARD_ROWS.replace("1", "7")), "1..6"),
        (f"{TINY} BB/BBB/BB 1 exact=0", "full"),
        (f"{TINY} B./.../.. 1 exact=0", "seat 2"),  # after Black's opening White moves
        (f"{TINY} W./.../.. 1 exact=0", "no stone on a 2"),
        ("23/212/32 .B/.../.. 2 exact=0", "no stone on a 2"),
        (f"{TINY} BB/.../.. 2 exact=0", "alternating"),  # Black has two stones, White none
        (f"{TINY} BB/W../.. 1 exact=0", "seat 2"),  # Black: opening + one more turn, so White is to move
        (f"{TINY} BB/WW./.. 1 exact=1", "exact_count"),  # Black's second turn covered 1 of 2 twos
    ],
)
def test_impossible_positions(text: str, field_words: str) -> None:
    with pytest.raises(InvalidPosition, match=field_words):
        GAME.parse_position(text)


def test_reachable_small_positions_parse() -> None:
    assert GAME.parse_position(f"{TINY} BB/WW./.. 2 exact=0").to_move == 2  # B1, W2, B1
    assert GAME.parse_position(f"{TINY} BB/BWW/.. 2 exact=1").to_move == 2  # B1, W2, B2
    with pytest.raises(InvalidPosition):
        GAME.parse_position(f"{TINY} BB/BWW/.. 1 exact=1")


def test_structured_form_errors() -> None:
    good = play(new(), "f5", "a2").to_fields()
    assert GAME.position_from_fields(good) == play(new(), "f5", "a2")
    cases = [
        ({"labels": "", "black": [], "white": [], "to_move": 0, "exact_count": False}, "labels"),
        ({**good, "labels": 7}, "labels"),
        ({**good, "black": "f5"}, "black"),
        ({**good, "black": ["f5", "z9"]}, "black[1]"),
        ({**good, "black": ["f5", "f5"]}, "black[1]"),
        ({**good, "white": ["a2", "f5"]}, "white"),
        ({**good, "black": [7]}, "black[0]"),
        ({**good, "to_move": "1"}, "to_move"),
        ({**good, "to_move": True}, "to_move"),
        ({**good, "to_move": 2}, "to_move"),
        ({**good, "exact_count": 1}, "exact_count"),
        ({**good, "board": "x"}, "board"),
        ({**good, "white": ["a1"] * 500}, "white"),
    ]
    for fields, field in cases:
        with pytest.raises(InvalidPosition) as caught:
            GAME.position_from_fields(fields)
        assert caught.value.field == field, (fields, caught.value)


# --------------------------------------------------------------------------------------------------
# Malformed and illegal moves.


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("", InvalidMove, "empty"),
        ("l1", InvalidMove, "not a cell"),
        ("a7", InvalidMove, "not a cell"),
        ("f12", InvalidMove, "not a cell"),
        ("f0", InvalidMove, "not a cell"),
        ("F6", InvalidMove, "not a cell"),
        ("e4,e4", InvalidMove, "twice"),
        ("a2,a3,a4,a5,b1,b7,c1", InvalidMove, "at most 6"),
        ("a2," * 40, InvalidMove, "characters"),
        ("e5,a1", IllegalMove, "one label"),
        ("f5", IllegalMove, "already covered"),
        ("a2,a3,a4,a5,b1,b7", IllegalMove, "at most 5"),
    ],
)
def test_bad_moves(text: str, error: type[RulesError], words: str) -> None:
    position = play(new(), "f5")
    with pytest.raises(error, match=words):
        position.apply(position.parse_move(text))


def test_bad_openings() -> None:
    start = new()
    for text in ("f6", "a1", "e4,e5"):
        with pytest.raises(IllegalMove, match="exactly one cell labelled 2"):
            start.apply(start.parse_move(text))


def test_exact_count_moves() -> None:
    position = play(new(exact=True), "f5")
    with pytest.raises(IllegalMove, match="exactly 5"):
        position.apply(position.parse_move("a2,a3"))
    position = play(position, "a2,a3,a4,a5,b1", "e4,e5", "a1,a6,f1,f11,k1,k6")
    assert position.to_move == 1
    with pytest.raises(IllegalMove, match="exactly 2"):
        position.apply(position.parse_move("e6"))


def test_bad_move_values() -> None:
    position = play(new(), "f5")
    for move in (None, (), (10_000,), ("f6",), (1.5,), [position.layout.index["f6"]]):
        with pytest.raises(InvalidMove):
            position.apply(move)  # type: ignore[arg-type]
    for fields, field in (
        ({"cells": "f6"}, "cells"),
        ({"cells": []}, "cells"),
        ({"cells": ["f6", 3]}, "cells[1]"),
        ({"cells": ["q1"]}, "cells[0]"),
        ({"cells": ["f6"], "label": 1}, "label"),
        ({"cells": ["a1"] * 1000}, "cells"),
    ):
        with pytest.raises(InvalidMove) as caught:
            position.move_from_fields(fields)
        assert caught.value.field == field


# --------------------------------------------------------------------------------------------------
# The generic promises.


@pytest.mark.parametrize(
    ("options", "games"),
    [
        ({}, 2),
        ({"exact_count": True}, 2),
        ({"layout": "side4"}, 3),
        ({"layout": "random6", "exact_count": True}, 1),
        ({"layout": "custom", "labels": "23/216/45"}, 5),
    ],
)
def test_contract(options: dict[str, object], games: int) -> None:
    check_random_games(GAME, options, games, seed=11)
