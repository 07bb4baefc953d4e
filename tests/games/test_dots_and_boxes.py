"""Dots and Boxes engine tests (docs/games/dots-and-boxes.md): perft figures, hand-checked boxes and turns, the pie
rule's phases, notation and structured round trips, every kind of malformed input, and the generic contract."""

from __future__ import annotations

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
from service.engines.dots_and_boxes import GAME, KEEP, STOP, SWAP, DotsAndBoxesPosition
from tests.games.contract import check_random_games

START_2X2 = "+.+.+/...../+.+.+/...../+.+.+ 1"


def perft(position: DotsAndBoxesPosition, depth: int) -> int:
    if depth == 1:
        return position.legal_move_count()
    return sum(perft(position.play(move), depth - 1) for move in position.legal_moves())


def new(**options: object) -> DotsAndBoxesPosition:
    return GAME.new_position(options, "")


def play(position: DotsAndBoxesPosition, moves: str) -> tuple[DotsAndBoxesPosition, list]:
    events: list = []
    for move in moves.split():
        position, events = position.apply(position.parse_move(move))
    return position, events


def types(events: list) -> list[str]:
    return [e.type for e in events]


# --- perft (the rules page's reference figures) --------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "figures"),
    [(2, [12, 132, 1320, 11880, 95040]), (3, [24, 552, 12144, 255024, 5100480])],
)
def test_perft_matches_rules(size: int, figures: list[int]) -> None:
    start = new(rows=size, cols=size)
    assert [perft(start, depth) for depth in range(1, 6)] == figures


# --- the start and the geometry -----------------------------------------------------------------------


def test_default_start_is_five_by_five() -> None:
    start = new()
    assert (start.rows, start.cols, start.to_move, start.phase) == (5, 5, 1, "play")
    text = start.to_notation()
    assert text == "/".join(["+.+.+.+.+.+", "..........."] * 5 + ["+.+.+.+.+.+"]) + " 1"
    assert start.legal_move_count() == 60
    assert start.move_notation(start.legal_moves()[0]) == "a1-b1"
    assert start.move_notation(start.legal_moves()[-1]) == "f5-f6"
    assert start.scores() == (0, 0) and start.outcome() is None


def test_lines_by_their_dots_either_order() -> None:
    start = new(rows=2, cols=3)
    for text, canonical in (("a1-b1", "a1-b1"), ("b1-a1", "a1-b1"), ("a1-a2", "a1-a2"), ("d3-d2", "d2-d3")):
        move = start.parse_move(text)
        assert start.move_notation(move) == canonical
        assert start.move_from_fields({"line": text, "pie": ""}) == move
        assert start.move_to_fields(move) == {"line": canonical, "pie": ""}
    # 3 rows of 3 horizontal lines, then 2 rows of 4 vertical lines.
    assert [start.move_notation(m) for m in (0, 8, 9, 16)] == ["a1-b1", "c3-d3", "a1-a2", "d2-d3"]


def test_a_box_keeps_the_turn_and_two_boxes_with_one_line() -> None:
    start = new(rows=1, cols=2)  # 7 lines: a1-b1 b1-c1 a2-b2 b2-c2 | a1-a2 b1-b2 c1-c2
    position, events = play(start, "a1-b1 a2-b2 a1-a2")
    assert position.to_move == 2 and types(events) == ["line"]
    position, events = play(position, "b2-b1")
    assert types(events) == ["line", "box", "extra_turn"]
    assert events[1].cells == ("a1",) and events[1].seat == 2 and events[1].count == 1
    assert position.to_move == 2 and position.scores() == (0, 1)
    assert position.to_notation() == "+-+.+/|B|../+-+.+ 2"
    position, events = play(position, "b1-c1 b2-c2")  # seat 2 passes the turn with b1-c1; seat 1 draws b2-c2
    assert position.to_move == 2
    position, events = play(position, "c1-c2")
    assert types(events) == ["line", "box", "game_over"]
    assert position.to_move == 0 and position.scores() == (0, 2)
    outcome = position.outcome()
    assert outcome is not None and (outcome.winner, outcome.reason) == (2, "boxes")
    assert outcome.detail == "Seat 1 (A) 0 boxes, seat 2 (B) 2"
    assert position.to_notation() == "+-+-+/|B|B|/+-+-+ -"
    assert position.legal_moves() == [] and position.final_value(2) == 2 and position.final_value(1) == -2
    with pytest.raises(GameOverError):
        position.apply(0)

    # One line completing two boxes at once.
    position, _ = play(start, "a1-b1 a2-b2 a1-a2 b1-c1 b2-c2 c1-c2")
    assert position.to_move == 1  # six lines, no box: A again
    position, events = play(position, "b1-b2")
    assert types(events) == ["line", "box", "game_over"] and events[1].count == 2
    assert events[1].cells == ("a1", "b1") and position.scores() == (2, 0)


def test_even_board_draw() -> None:
    position, _ = play(new(rows=1, cols=2), "a1-b1 a2-b2 a1-a2 b1-c1 b1-b2 c1-c2 b2-c2")
    # A, B, A, B; then A's b1-b2 takes a1 and A draws again: c1-c2 hands b1 to B.
    assert position.to_move == 0 and position.scores() == (1, 1)
    outcome = position.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "draw"


# --- the pie rule -----------------------------------------------------------------------------------------


def test_pie_stop_after_one_line_then_keep_or_swap() -> None:
    start = new(rows=2, cols=2, pie_rule=True)
    assert start.to_notation() == "+.+.+/...../+.+.+/...../+.+.+ 1 pie=5 phase=setup colour=A seat1=-"
    assert STOP not in start.legal_moves()  # nothing drawn yet
    with pytest.raises(IllegalMove):
        start.apply(STOP)
    after_one, events = play(start, "a1-b1")
    assert types(events) == ["line"] and events[0].detail == "Seat 1 draws a1-b1 for A."
    assert after_one.to_move == 1 and after_one.phase == "setup" and after_one.legal_moves()[-1] == STOP
    choice, events = play(after_one, "stop")
    assert types(events) == ["phase"] and events[0].count == 1
    assert choice.phase == "choice" and choice.to_move == 2 and choice.legal_moves() == [KEEP, SWAP]
    assert choice.to_notation() == "+-+.+/...../+.+.+/...../+.+.+ 2 pie=5 phase=choice colour=B seat1=-"
    kept, events = play(choice, "keep")  # seat 1 holds A, seat 2 holds B; B draws next: seat 2
    assert types(events) == ["phase"] and kept.phase == "play" and kept.to_move == 2
    assert kept.to_notation().endswith(" 2 pie=5 phase=play colour=B seat1=A")
    swapped, _ = play(choice, "swap")  # seat 1 holds B, which draws next: seat 1
    assert swapped.to_move == 1 and swapped.seat_colour(1) == "B"
    assert swapped.to_notation().endswith(" 1 pie=5 phase=play colour=B seat1=B")
    # From then on seats alternate as usual.
    assert play(swapped, "a1-a2")[0].to_move == 2 and play(kept, "a1-a2")[0].to_move == 1


def test_pie_setup_ends_by_itself_after_n_lines() -> None:
    position = new(rows=2, cols=2, pie_rule=True, pie_lines=3)
    position, events = play(position, "a1-b1 c3-c2")
    assert position.phase == "setup" and types(events) == ["line"]
    position, events = play(position, "a2-b2")
    assert types(events) == ["line", "phase"] and events[1].count == 3
    assert position.phase == "choice" and position.to_move == 2 and position.colour_to_move == "B"
    for word in ("stop", "a1-a2"):
        with pytest.raises(IllegalMove):
            position.apply(position.parse_move(word))


def test_pie_box_completed_during_setup() -> None:
    position = new(rows=2, cols=2, pie_rule=True)
    position, _ = play(position, "a1-b1 a1-a2 b1-b2")  # A, B, A
    position, events = play(position, "a2-b2")  # B completes a1 and draws again
    assert types(events) == ["line", "box", "extra_turn"]
    assert events[1].seat == 0 and events[1].detail == "B completes box a1."
    assert position.phase == "setup" and position.colour_to_move == "B" and position.to_move == 1
    position, events = play(position, "c1-c2")  # the fifth line, B's: the setup ends
    assert types(events) == ["line", "phase"] and position.colour_to_move == "A"
    assert position.scores() == (0, 1)  # before the choice seat 1 reads as A
    swapped, _ = play(position, "swap")  # seat 2 takes A (to move), seat 1 holds B and its box
    assert swapped.to_move == 2 and swapped.scores() == (1, 0)
    kept, _ = play(position, "keep")
    assert kept.to_move == 1 and kept.scores() == (0, 1)
    assert kept.to_notation() == "+-+.+/|B|.|/+-+.+/...../+.+.+ 1 pie=5 phase=play colour=A seat1=A"


def test_pie_setup_may_draw_every_line_and_the_choice_decides() -> None:
    position = new(rows=1, cols=1, pie_rule=True, pie_lines=4)
    position, events = play(position, "a1-b1 a2-b2 a1-a2 b1-b2")  # A B A B: B completes the box
    assert types(events) == ["line", "box", "phase"]
    assert position.phase == "choice" and position.to_move == 2 and position.colour_to_move == ""
    assert position.to_notation() == "+-+/|B|/+-+ 2 pie=4 phase=choice colour=- seat1=-"
    kept, events = play(position, "keep")
    assert types(events) == ["phase", "game_over"] and kept.to_move == 0
    outcome = kept.outcome()
    assert outcome is not None and outcome.winner == 2
    swapped, _ = play(position, "swap")
    outcome = swapped.outcome()
    assert outcome is not None and outcome.winner == 1


def test_pie_words_out_of_place() -> None:
    plain = new(rows=2, cols=2)
    for word in ("stop", "keep", "swap"):
        with pytest.raises(IllegalMove) as error:
            plain.apply(plain.parse_move(word))
        assert error.value.field == "pie"
    setup, _ = play(new(rows=2, cols=2, pie_rule=True), "a1-b1")
    for word in ("keep", "swap"):
        with pytest.raises(IllegalMove):
            setup.apply(setup.parse_move(word))
    playing, _ = play(setup, "stop keep")
    for word in ("stop", "keep", "swap"):
        with pytest.raises(IllegalMove):
            playing.apply(playing.parse_move(word))


# --- notation and structured form ---------------------------------------------------------------------


def test_round_trips_through_a_pie_game() -> None:
    position = new(rows=2, cols=3, pie_rule=True, pie_lines=4)
    for moves in ("a1-b1", "a1-a2", "b1-b2", "a2-b2 swap", "c1-c2 c2-d2 d1-d2 b2-c2"):
        position, _ = play(position, moves)
        text = position.to_notation()
        assert GAME.parse_position(text) == position and GAME.parse_position(text).to_notation() == text
        assert GAME.position_from_fields(position.to_fields()) == position
    fields = position.to_fields()
    assert fields["boxes_b"] == ["a1"] and fields["seat1_colour"] == "B" and fields["setup_lines"] == 0
    assert repr(position) == f"GAME.parse_position({position.to_notation()!r})"


def test_fields_accept_any_order_and_defaults() -> None:
    fields = {
        "rows": 2,
        "cols": 2,
        "lines": ["b2-a2", "a1-b1", "a2-a1", "b1-b2"],  # box a1, either dot order, any order
        "boxes_a": [],
        "boxes_b": ["a1"],
        "to_move": 2,
        "colour_to_move": "B",
        "seat1_colour": "",  # without the pie rule "" reads as A
        "pie_rule": False,
        "pie_lines": 0,
        "phase": "",
        "setup_lines": 0,
    }
    position = GAME.position_from_fields(fields)
    assert position.to_notation() == "+-+.+/|B|../+-+.+/...../+.+.+ 2"
    assert position.to_fields()["lines"] == ["a1-b1", "a2-b2", "a1-a2", "b1-b2"]


# --- malformed input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["a1-a9", "a1-d1", "a1-b2", "a1-a1", "a1-c1", "a1b1", "A1-B1", "a01-b1", "", "pass", "a1-b1 ", "x" * 1000],
)
def test_malformed_lines(text: str) -> None:
    with pytest.raises(InvalidMove):
        new(rows=2, cols=2).parse_move(text)


def test_malformed_move_fields() -> None:
    start = new(rows=2, cols=2)
    for fields, field in (
        ({"line": "a1-b2", "pie": ""}, "line"),
        ({"line": "a1-b1", "pie": "keep"}, "pie"),
        ({"line": "", "pie": "pass"}, "pie"),
        ({"line": "", "pie": ""}, "line"),
        ({"line": 3, "pie": ""}, "line"),
        ({"square": "a1"}, "square"),
    ):
        with pytest.raises(InvalidMove) as error:
            start.move_from_fields(fields)
        assert error.value.field == field
    for bad in (None, 1.5, True, 99, -4, "a1-b1"):
        with pytest.raises(RulesError):
            start.apply(bad)


def test_a_line_drawn_twice_is_illegal() -> None:
    position, _ = play(new(rows=2, cols=2), "a1-b1")
    with pytest.raises(IllegalMove) as error:
        position.apply(position.parse_move("b1-a1"))
    assert "already drawn" in error.value.message


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("+.+.+/...../+.+.+/...../+.+.+", NotationError),  # no seat
        ("+.+.+/...../+.+.+/...../+.+.+  1", NotationError),  # two spaces
        ("+.+.+/...../+.+.+/...../+.+.+ 3", NotationError),
        ("+.+.+/...../+.+.+/....../+.+.+ 1", NotationError),  # a row too long
        (
            "+.+.+/...../+.+.+/...../+.+.+/...../+.+.+/...../+.+.+/...../+.+.+/...../+.+.+/...../+.+.+/.....",
            NotationError,
        ),
        ("+.+.+/..A../+.+.+/...../+.+.+ 1", NotationError),  # an owner where a line goes
        ("+|+.+/...../+.+.+/...../+.+.+ 1", NotationError),
        ("+.+.+/.A.../+.+.+/...../+.+.+ 1", InvalidPosition),  # an owner on an incomplete box
        ("+-+.+/|.|../+-+.+/...../+.+.+ 1", InvalidPosition),  # a complete box without an owner
        ("+.+.+/...../+.+.+/...../+.+.+ 2", InvalidPosition),  # A draws first
        ("+-+.+/...../+.+.+/...../+.+.+ 1", InvalidPosition),  # after one line B draws
        ("+-+.+/|B|../+-+.+/...../+.+.+ 1", InvalidPosition),  # 4 lines, 1 box: three turn changes: B
        ("+.+.+/...../+.+.+/...../+.+.+ -", InvalidPosition),  # over with lines left
        ("+-+-+/|A|B|/+-+-+ 1", InvalidPosition),  # every line drawn: nobody to move
        ("+.+.+/...../+.+.+/...../+.+.+ 1 pie=5 phase=setup colour=A", NotationError),
        ("+.+.+/...../+.+.+/...../+.+.+ 1 pie=13 phase=setup colour=A seat1=-", InvalidPosition),
        ("+.+.+/...../+.+.+/...../+.+.+ 1 pie=5 phase=setup colour=A seat1=A", InvalidPosition),
        ("+.+.+/...../+.+.+/...../+.+.+ 2 pie=5 phase=choice colour=A seat1=-", InvalidPosition),
        ("+-+.+/...../+.+.+/...../+.+.+ 1 pie=5 phase=choice colour=B seat1=-", InvalidPosition),
        ("+-+.+/...../+.+.+/...../+.+.+ 1 pie=5 phase=play colour=B seat1=A", InvalidPosition),
        ("+-+-+/|.|.|/+-+-+ 2 pie=3 phase=choice colour=A seat1=-", InvalidPosition),  # 7 lines > n
        ("x" * 5000, NotationError),
    ],
)
def test_malformed_positions(text: str, error: type) -> None:
    with pytest.raises(error):
        GAME.parse_position(text)


def fields_of(text: str) -> dict:
    return GAME.parse_position(text).to_fields()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"rows": 0}, "rows"),
        ({"cols": 13}, "cols"),
        ({"rows": "2"}, "rows"),
        ({"lines": ["a1-b1", "b1-a1"]}, "lines[1]"),
        ({"lines": ["a1-b2"]}, "lines[0]"),
        ({"lines": ["a1-a9"]}, "lines[0]"),
        ({"lines": "a1-b1"}, "lines"),
        ({"lines": ["a1-b1"] * 20}, "lines"),
        ({"boxes_a": ["b1"]}, "boxes_a"),  # incomplete box with an owner
        ({"boxes_b": ["a1"], "boxes_a": ["a1"]}, "boxes_b"),
        ({"boxes_b": []}, "boxes_a"),  # the complete box a1 lost its owner
        ({"boxes_b": ["z9"]}, "boxes_b[0]"),
        ({"boxes_b": ["a1", "a1"]}, "boxes_b[1]"),
        ({"to_move": 1}, "to_move"),
        ({"colour_to_move": "A"}, "colour_to_move"),
        ({"colour_to_move": "C"}, "colour_to_move"),
        ({"seat1_colour": "B"}, "seat1_colour"),
        ({"pie_lines": 5}, "pie_lines"),
        ({"pie_rule": 1}, "pie_rule"),
        ({"phase": "setup"}, "phase"),
        ({"setup_lines": 4}, "setup_lines"),
        ({"colour": "A"}, "colour"),
    ],
)
def test_malformed_fields(change: dict, field: str) -> None:
    fields = fields_of("+-+.+/|B|../+-+.+/...../+.+.+ 2")
    fields.update(change)
    with pytest.raises(InvalidPosition) as error:
        GAME.position_from_fields(fields)
    assert error.value.field == field


def test_malformed_pie_fields() -> None:
    fields = fields_of("+-+.+/...../+.+.+/...../+.+.+ 2 pie=5 phase=choice colour=B seat1=-")
    for change, field in (
        ({"setup_lines": 0}, "setup_lines"),
        ({"seat1_colour": "A"}, "seat1_colour"),
        ({"pie_lines": 0}, "pie_lines"),
        ({"pie_lines": 13}, "pie_lines"),
        ({"phase": ""}, "phase"),
        ({"to_move": 1}, "to_move"),
    ):
        with pytest.raises(InvalidPosition) as error:
            GAME.position_from_fields({**fields, **change})
        assert error.value.field == field
    for bad in (None, [], "rows=2"):
        with pytest.raises(InvalidPosition):
            GAME.position_from_fields(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"rows": 0}, "rows"),
        ({"cols": 13}, "cols"),
        ({"rows": 2.5}, "rows"),
        ({"pie_rule": "yes"}, "pie_rule"),
        ({"pie_lines": 0}, "pie_lines"),
        ({"rows": 1, "cols": 1, "pie_rule": True}, "pie_lines"),  # the default 5 > the 4 lines of 1x1
        ({"seeds": 4}, "seeds"),
    ],
)
def test_bad_options(options: dict, name: str) -> None:
    with pytest.raises(InvalidOption) as error:
        GAME.new_position(options, "")
    assert error.value.field == name


def test_pie_lines_ignored_without_the_pie_rule() -> None:
    assert new(rows=1, cols=1, pie_lines=200).pie_lines == 0


# --- the generic contract --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "games"),
    [
        ({"rows": 2, "cols": 3}, 20),
        ({"rows": 1, "cols": 1}, 10),
        ({"rows": 3, "cols": 3, "pie_rule": True, "pie_lines": 6}, 20),
        ({"rows": 1, "cols": 1, "pie_rule": True, "pie_lines": 4}, 10),
        ({"rows": 1, "cols": 12, "pie_rule": True, "pie_lines": 1}, 3),
        ({}, 3),
        ({"rows": 12, "cols": 12}, 1),
    ],
)
def test_contract(options: dict, games: int) -> None:
    check_random_games(GAME, options, games, seed=7)
