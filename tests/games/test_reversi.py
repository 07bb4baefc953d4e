"""Reversi engine tests (docs/games/reversi.md): perft, notation, validation, events, outcome, levels.

Known numbers come from the rule book (8×8 perft, ``docs/games/reversi.md``) or from ``Reference`` below: a
deliberately naive, independent implementation of the rules (lists of strings, walking the 8 directions) used to
cross-check the bitboard engine on 4×4 and 6×6 and to solve small endgames by plain minimax.
"""

from __future__ import annotations

import contextlib
import math
import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import core
from service.engines.reversi import GAME, PASS, ReversiPosition, perft
from service.levels.reversi import EXACT_EMPTIES, LEVELS
from service.levels.reversi_endgame import ENDGAME_EMPTIES, endgame_value
from service.native import use_native
from tests.games.contract import check_random_games

START_8 = "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"
START_6 = "....../....../..WB../..BW../....../...... 1 black=1"
START_4 = "..../.WB./.BW./.... 1 black=1"


# --------------------------------------------------------------------------------------------------
# An independent, naive reference implementation.

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
Grid = tuple[str, ...]


def ref_flips(grid: Grid, r: int, c: int, colour: str) -> list[tuple[int, int]]:
    n = len(grid)
    if grid[r][c] != ".":
        return []
    other = "W" if colour == "B" else "B"
    out: list[tuple[int, int]] = []
    for dr, dc in DIRECTIONS:
        line = []
        rr, cc = r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n and grid[rr][cc] == other:
            line.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if line and 0 <= rr < n and 0 <= cc < n and grid[rr][cc] == colour:
            out += line
    return out


def ref_moves(grid: Grid, colour: str) -> list[tuple[int, int]]:
    n = len(grid)
    return [(r, c) for r in range(n) for c in range(n) if ref_flips(grid, r, c, colour)]


def ref_play(grid: Grid, r: int, c: int, colour: str) -> Grid:
    rows = [list(row) for row in grid]
    for rr, cc in [(r, c), *ref_flips(grid, r, c, colour)]:
        rows[rr][cc] = colour
    return tuple("".join(row) for row in rows)


def ref_perft(grid: Grid, colour: str, depth: int) -> int:
    if depth == 0:
        return 1
    other = "W" if colour == "B" else "B"
    moves = ref_moves(grid, colour)
    if not moves:
        return ref_perft(grid, other, depth - 1) if ref_moves(grid, other) else 0
    return sum(ref_perft(ref_play(grid, r, c, colour), other, depth - 1) for r, c in moves)


@cache
def ref_value(grid: Grid, colour: str) -> int:
    """Plain minimax: the final disc margin for ``colour`` to move, both sides perfect."""
    other = "W" if colour == "B" else "B"
    moves = ref_moves(grid, colour)
    if not moves:
        if ref_moves(grid, other):
            return -ref_value(grid, other)
        text = "".join(grid)
        return text.count(colour) - text.count(other)
    return max(-ref_value(ref_play(grid, r, c, colour), other) for r, c in moves)


def grid_and_colour(position: ReversiPosition) -> tuple[Grid, str]:
    colour = "B" if position.to_move == position.black_seat else "W"
    return tuple(position.board_rows()), colour


def name(r: int, c: int) -> str:
    return f"{'abcdefghijklmnop'[c]}{r + 1}"


def random_position(size: int, plies: int, seed: int, black_seat: int = 1) -> ReversiPosition:
    rng = random.Random(seed)
    position = GAME.new_position({"size": size, "black_seat": black_seat}, "")
    for _ in range(plies):
        if position.to_move == 0:
            break
        position = position.play(rng.choice(position.legal_moves()))
    return position


# --------------------------------------------------------------------------------------------------
# Perft.


@pytest.mark.parametrize(("depth", "expected"), list(enumerate([4, 12, 56, 244, 1396, 8200, 55092, 390216], start=1)))
def test_perft_8x8_matches_the_reference_figures(depth: int, expected: int) -> None:
    assert perft(GAME.new_position({}, ""), depth) == expected


def test_perft_is_seat_independent() -> None:
    assert perft(GAME.new_position({"black_seat": 2}, ""), 6) == 8200


# Computed by the engine and cross-checked offline against the reference implementation above: 4×4 to the
# end of every game (they last up to 17 plies: 12 placements and 5 forced passes), 6×6 to depth 7.
PERFT_4 = [4, 12, 44, 128, 424, 1256, 3624, 9112, 20032, 36412, 50268, 55112, 31396, 12920, 3416, 612, 48, 0]
PERFT_6 = [4, 12, 56, 244, 1364, 7604, 47740]


def test_perft_4x4_and_6x6_known_numbers() -> None:
    four = GAME.new_position({"size": 4}, "")
    assert [perft(four, d) for d in range(1, 12)] == PERFT_4[:11]
    six = GAME.new_position({"size": 6}, "")
    assert [perft(six, d) for d in range(1, 8)] == PERFT_6


@pytest.mark.slow
def test_perft_4x4_to_the_end_of_every_game() -> None:
    four = GAME.new_position({"size": 4}, "")
    assert [perft(four, d) for d in range(1, 19)] == PERFT_4


def test_perft_4x4_and_6x6_against_reference() -> None:
    four = GAME.new_position({"size": 4}, "")
    assert [ref_perft(tuple(four.board_rows()), "B", d) for d in range(1, 8)] == PERFT_4[:7]
    six = GAME.new_position({"size": 6}, "")
    assert [ref_perft(tuple(six.board_rows()), "B", d) for d in range(1, 6)] == PERFT_6[:5]


def test_perft_counts_a_forced_pass_as_a_ply_and_a_finished_game_as_nothing() -> None:
    # Black has no placement, White has: the pass is the one move at depth 1.
    must_pass = GAME.parse_position("WWWWWW/WWWWBW/WWWBBW/WWBWWW/.BBBBW/.WWWWW 1 black=1")
    assert must_pass.legal_moves() == [PASS]
    assert perft(must_pass, 1) == 1
    assert perft(must_pass, 2) == len(must_pass.play(PASS).legal_moves())
    over = GAME.parse_position(".WWW/BBBW/BBBW/BBBB - black=1")
    assert perft(over, 0) == 1 and perft(over, 1) == 0 and perft(over, 3) == 0


# --------------------------------------------------------------------------------------------------
# Start positions, notation, fields.


def test_start_positions() -> None:
    start = GAME.new_position({}, "")
    assert start.to_notation() == START_8
    assert start.to_move == 1 and start.scores() == (2, 2) and start.outcome() is None
    assert [start.move_notation(m) for m in start.legal_moves()] == ["d3", "c4", "f5", "e6"]
    assert GAME.new_position({"size": 6}, "").to_notation() == START_6
    assert GAME.new_position({"size": 4}, "").to_notation() == START_4
    swapped = GAME.new_position({"black_seat": 2}, "")
    assert swapped.to_notation() == START_8.replace(" 1 black=1", " 2 black=2")
    assert swapped.to_move == 2
    big = GAME.new_position({"size": 16}, "")
    assert big.board_rows()[7] == "." * 7 + "WB" + "." * 7
    assert [big.move_notation(m) for m in big.legal_moves()] == ["h7", "g8", "j9", "i10"]


def test_fields_of_the_start() -> None:
    start = GAME.new_position({}, "")
    fields = start.to_fields()
    assert fields == {"board": START_8.split(" ")[0].split("/"), "to_move": 1, "black_seat": 1}
    assert GAME.position_from_fields(fields) == start
    # black_seat 0 is proto3's unset value: read as the default, seat 1.
    assert GAME.position_from_fields({**fields, "black_seat": 0}) == start


def test_repr_is_a_constructor_expression() -> None:
    start = GAME.new_position({}, "")
    assert repr(start) == f"GAME.parse_position({START_8!r})"


@st.composite
def reachable_positions(draw: st.DrawFn) -> ReversiPosition:
    size = draw(st.sampled_from([4, 6, 8, 10, 16]))
    position = GAME.new_position({"size": size, "black_seat": draw(st.sampled_from([1, 2]))}, "")
    for choice in draw(st.lists(st.integers(0, 10**6), max_size=70)):
        if position.to_move == 0:
            break
        moves = position.legal_moves()
        position = position.play(moves[choice % len(moves)])
    return position


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reachable_positions())
def test_notation_and_fields_round_trip(position: ReversiPosition) -> None:
    text = position.to_notation()
    again = GAME.parse_position(text)
    assert again == position and hash(again) == hash(position) and again.to_notation() == text
    assert GAME.position_from_fields(position.to_fields()) == position
    for move in position.legal_moves():
        assert position.parse_move(position.move_notation(move)) == move
        assert position.move_from_fields(position.move_to_fields(move)) == move


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.sampled_from([4, 4, 6]), st.integers(2, 18)).flatmap(
        lambda size: st.tuples(
            st.lists(st.text("BW.", min_size=size, max_size=size), min_size=size, max_size=size),
            st.sampled_from(["1", "2", "-"]),
            st.sampled_from(["black=1", "black=2"]),
        )
    )
)
def test_random_boards_parse_or_fail_cleanly(parts: tuple[list[str], str, str]) -> None:
    rows, to_move, black = parts
    text = f"{'/'.join(rows)} {to_move} {black}"
    try:
        position = GAME.parse_position(text)
    except (core.NotationError, core.InvalidPosition):
        return
    assert position.to_notation() == text
    assert GAME.position_from_fields(position.to_fields()) == position
    # Accepted positions agree with the reference about who can move.
    grid = tuple(rows)
    can_move = bool(ref_moves(grid, "B") or ref_moves(grid, "W"))
    assert (position.to_move != 0) == can_move


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_text_never_crashes(text: str) -> None:
    with contextlib.suppress(core.RulesError):
        GAME.parse_position(text)
    with contextlib.suppress(core.RulesError):
        GAME.new_position({}, "").parse_move(text)


# --------------------------------------------------------------------------------------------------
# Malformed input: the error class and the field it names.

ROWS_8 = START_8.split(" ")[0].split("/")


@pytest.mark.parametrize(
    ("text", "error", "field"),
    [
        ("", core.NotationError, ""),
        ("." * 100_000, core.NotationError, ""),  # huge input: rejected on its length
        (START_8.replace(" black=1", ""), core.NotationError, ""),
        (START_8.replace(" 1 ", "  1 "), core.NotationError, ""),
        (START_8 + " ", core.NotationError, ""),
        (".../.../... 1 black=1", core.NotationError, "board"),  # size 3
        ("...../...../...../...../..... 1 black=1", core.NotationError, "board"),  # odd size
        ("/".join(["." * 18] * 18) + " 1 black=1", core.NotationError, ""),  # too long for any board
        ("/".join(["."] * 18) + " 1 black=1", core.NotationError, "board"),  # 18 rows
        (START_8.replace("......../", "......./", 1), core.NotationError, "board"),  # a short row
        (START_8.replace("...WB...", "...WB....", 1), core.NotationError, "board"),  # a long row
        (START_8.replace("...WB...", "...Wx..."), core.NotationError, "board"),
        (START_8.replace("...WB...", "...wb..."), core.NotationError, "board"),
        (START_8.replace("...WB...", "...W0..."), core.NotationError, "board"),
        (START_8.replace(" 1 ", " 3 "), core.NotationError, "to_move"),
        (START_8.replace(" 1 ", " 0 "), core.NotationError, "to_move"),
        (START_8.replace(" 1 ", " x "), core.NotationError, "to_move"),
        (START_8.replace("black=1", "black=3"), core.NotationError, "black_seat"),
        (START_8.replace("black=1", "white=2"), core.NotationError, "black_seat"),
        (START_8.replace("black=1", "black=01"), core.NotationError, "black_seat"),
        (START_8.replace(" 1 ", " - "), core.InvalidPosition, "to_move"),  # not over: someone must move
        (".WWW/BBBW/BBBW/BBBB 1 black=1", core.InvalidPosition, "to_move"),  # nobody can move: over
        (".WWW/BBBW/BBBW/BBBB 2 black=2", core.InvalidPosition, "to_move"),
        (START_8.replace("...WB...", "....B..."), core.InvalidPosition, "board"),  # empty centre square
        (START_8.replace("........ 1", ".......B 1"), core.InvalidPosition, "board"),  # disc cut off
        ("..../..../..../.... - black=1", core.InvalidPosition, "board"),
    ],
)
def test_malformed_notation(text: str, error: type[core.RulesError], field: str) -> None:
    with pytest.raises(error) as info:
        GAME.parse_position(text)
    assert info.value.field == field and info.value.message


def test_non_string_notation() -> None:
    with pytest.raises(core.NotationError):
        GAME.parse_position(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"board": [], "to_move": 0, "black_seat": 0}, "board"),  # every field at its proto default
        ({"board": "".join(ROWS_8), "to_move": 1, "black_seat": 1}, "board"),
        ({"board": ["." * 8] * 1_000_000, "to_move": 1, "black_seat": 1}, "board"),  # huge: on its length
        ({"board": [*ROWS_8[:7], "." * 1_000_000], "to_move": 1, "black_seat": 1}, "board"),
        ({"board": [*ROWS_8[:7], 8], "to_move": 1, "black_seat": 1}, "board"),
        ({"board": [*ROWS_8[:7], "....?..."], "to_move": 1, "black_seat": 1}, "board"),
        ({"board": ROWS_8, "to_move": "1", "black_seat": 1}, "to_move"),
        ({"board": ROWS_8, "to_move": True, "black_seat": 1}, "to_move"),
        ({"board": ROWS_8, "to_move": 3, "black_seat": 1}, "to_move"),
        ({"board": ROWS_8, "to_move": 0, "black_seat": 1}, "to_move"),
        ({"board": ROWS_8, "to_move": 1, "black_seat": 3}, "black_seat"),
        ({"board": ROWS_8, "to_move": 1, "black_seat": 1.0}, "black_seat"),
        ({"board": ROWS_8, "to_move": 1, "black_seat": 1, "size": 8}, ""),
        ("board", ""),
    ],
)
def test_malformed_fields(fields: object, field: str) -> None:
    with pytest.raises(core.InvalidPosition) as info:
        GAME.position_from_fields(fields)  # type: ignore[arg-type]
    assert info.value.field == field and info.value.message


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"size": 5}, "size"),
        ({"size": 2}, "size"),
        ({"size": 18}, "size"),
        ({"size": "8"}, "size"),
        ({"size": True}, "size"),
        ({"black_seat": 0}, "black_seat"),
        ({"black_seat": 3}, "black_seat"),
        ({"black_seat": 1.5}, "black_seat"),  # JSON numbers: 1.0 is the whole number 1, as over the API
        ({"seeds": 4}, "seeds"),
    ],
)
def test_malformed_options(options: dict[str, object], field: str) -> None:
    with pytest.raises(core.InvalidOption) as info:
        GAME.new_position(options, "")
    assert info.value.field == field


@pytest.mark.parametrize(
    "text", ["", "z1", "i1", "a9", "a0", "a01", "d", "dd", "1a", "d3x", "pass ", "a" * 10_000, "a\u0663", "d-3"]
)
def test_malformed_move_text(text: str) -> None:
    with pytest.raises(core.InvalidMove) as info:
        GAME.new_position({}, "").parse_move(text)
    assert info.value.field == ""


def test_move_text_accepts_either_case_and_answers_lower_case() -> None:
    start = GAME.new_position({}, "")
    assert start.parse_move("D3") == start.parse_move("d3") == 19
    assert start.parse_move("PASS") == PASS
    assert start.move_notation(19) == "d3" and start.move_notation(PASS) == "pass"
    big = GAME.new_position({"size": 16}, "")
    assert big.move_notation(big.parse_move("p16")) == "p16"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"square": "", "is_pass": False}, "square"),
        ({}, "square"),
        ({"square": "d3", "is_pass": True}, "square"),
        ({"square": 19, "is_pass": False}, "square"),
        ({"square": "d3", "is_pass": "no"}, "is_pass"),
        ({"square": "z9", "is_pass": False}, "square"),
        ({"square": "d" + "3" * 1000, "is_pass": False}, "square"),
        ({"square": "d3", "move": 1}, ""),
        (["d3"], ""),
    ],
)
def test_malformed_move_fields(fields: object, field: str) -> None:
    with pytest.raises(core.InvalidMove) as info:
        GAME.new_position({}, "").move_from_fields(fields)  # type: ignore[arg-type]
    assert info.value.field == field


def test_move_fields() -> None:
    start = GAME.new_position({}, "")
    assert start.move_to_fields(19) == {"square": "d3", "is_pass": False}
    assert start.move_to_fields(PASS) == {"square": "", "is_pass": True}
    assert start.move_from_fields({"square": "d3", "is_pass": False}) == 19
    assert start.move_from_fields({"square": "", "is_pass": True}) == PASS


@pytest.mark.parametrize(
    ("notation", "move", "error"),
    [
        (START_8, "d4", core.IllegalMove),  # occupied
        (START_8, "a1", core.IllegalMove),  # brackets nothing
        (START_8, "pass", core.IllegalMove),  # passing while a placement exists
        ("WWWWWW/WWWWBW/WWWBBW/WWBWWW/.BBBBW/.WWWWW 1 black=1", "a5", core.IllegalMove),  # must pass
        (".WWW/BBBW/BBBW/BBBB - black=1", "a1", core.GameOverError),
        (".WWW/BBBW/BBBW/BBBB - black=1", "pass", core.GameOverError),
    ],
)
def test_illegal_moves(notation: str, move: str, error: type[core.RulesError]) -> None:
    position = GAME.parse_position(notation)
    with pytest.raises(error) as info:
        position.apply(position.parse_move(move))
    assert info.value.message


@pytest.mark.parametrize("move", ["d3", None, True, 64, -2, 2.0])
def test_apply_rejects_values_that_are_not_moves(move: object) -> None:
    with pytest.raises(core.InvalidMove):
        GAME.new_position({}, "").apply(move)


def test_a_finished_game_refuses_even_garbage_as_game_over() -> None:
    with pytest.raises(core.GameOverError):
        GAME.parse_position(".WWW/BBBW/BBBW/BBBB - black=1").apply(None)


# --------------------------------------------------------------------------------------------------
# Applying moves: events, passes, the end.


def test_first_move_events() -> None:
    start = GAME.new_position({}, "")
    after, events = start.apply(start.parse_move("d3"))
    assert after.to_notation() == "......../......../...B..../...BB.../...BW.../......../......../........ 2 black=1"
    assert [(e.type, e.seat, e.cells, e.count) for e in events] == [
        ("place", 1, ("d3",), 1),
        ("flip", 1, ("d4",), 1),
    ]
    assert all(e.detail.endswith(".") for e in events)


def test_every_bracketed_line_flips() -> None:
    # Black on b4 brackets c4, d4 against e4 (east) and c5 against d6 (south-east) at once.
    position = GAME.parse_position("......../......../......../..WWB.../..WWW.../...B..../......../........ 1 black=1")
    after, events = position.apply(position.parse_move("b4"))
    flip = next(e for e in events if e.type == "flip")
    assert flip.cells == ("c4", "d4", "c5") and flip.count == 3
    grid, colour = grid_and_colour(position)
    assert set(flip.cells) == {name(r, c) for r, c in ref_flips(grid, 3, 1, colour)}
    assert after.board_rows()[3:6] == [".BBBB...", "..BWW...", "...B...."]


def test_forced_pass_is_played_and_reported() -> None:
    before = GAME.parse_position("WWWWB./WWWWBB/WWWBBW/WWBWWW/.BBBBW/.WWWWW 2 black=1")
    after, events = before.apply(before.parse_move("f1"))
    assert after.to_notation() == "WWWWWW/WWWWBW/WWWBBW/WWBWWW/.BBBBW/.WWWWW 2 black=1"
    assert [(e.type, e.seat) for e in events] == [("place", 2), ("flip", 2), ("pass", 1)]
    assert before.play(before.parse_move("f1")) == after
    # The reference agrees: Black has nothing, White has.
    grid = tuple(after.board_rows())
    assert not ref_moves(grid, "B") and ref_moves(grid, "W")


def test_explicit_pass_position() -> None:
    position = GAME.parse_position("WWWWWW/WWWWBW/WWWBBW/WWBWWW/.BBBBW/.WWWWW 1 black=1")
    assert position.legal_moves() == [PASS] and position.legal_move_count() == 1
    assert position.search_moves() == [PASS]
    after, events = position.apply(PASS)
    assert after.to_notation() == "WWWWWW/WWWWBW/WWWBBW/WWBWWW/.BBBBW/.WWWWW 2 black=1"
    assert [(e.type, e.seat) for e in events] == [("pass", 1)]
    assert position.play(PASS) == after


@pytest.mark.parametrize(
    ("before", "move", "after", "winner", "scores"),
    [
        # Empty squares remain that nobody can use.
        (".WWW/BBBW/BBBW/.WBB 1 black=1", "a4", ".WWW/BBBW/BBBW/BBBB - black=1", 1, (10, 5)),
        # Black is wiped out; seat 2 plays White here.
        ("WWWW/WWWW/WWWW/.BWW 2 black=1", "a4", "WWWW/WWWW/WWWW/WWWW - black=1", 2, (0, 16)),
        ("WWWW/WWWW/WWWW/.BWW 1 black=2", "a4", "WWWW/WWWW/WWWW/WWWW - black=2", 1, (16, 0)),
        # A full board, 18-18.
        (
            ".WWWWW/WWBBBW/BWBBWW/BBBWBW/BBBBWW/BWWWWW 1 black=1",
            "a1",
            "BWWWWW/BBBBBW/BWBBWW/BBBWBW/BBBBWW/BWWWWW - black=1",
            0,
            (18, 18),
        ),
    ],
)
def test_game_over(before: str, move: str, after: str, winner: int, scores: tuple[int, int]) -> None:
    position = GAME.parse_position(before)
    end, events = position.apply(position.parse_move(move))
    assert end.to_notation() == after
    assert end.to_move == 0 and end.legal_moves() == [] and end.legal_move_count() == 0
    assert end.scores() == scores
    outcome = end.outcome()
    assert outcome is not None and outcome.winner == winner and outcome.reason == ("discs" if winner else "draw")
    assert str(scores[0]) in outcome.detail and str(scores[1]) in outcome.detail
    assert events[-1].type == "game_over" and events[-1].seat == winner
    assert end.final_value(1) == scores[0] - scores[1] == -end.final_value(2)


def test_scores_follow_the_seats() -> None:
    position = GAME.parse_position(".WWW/BBBW/BBBW/BBBB - black=2")
    assert position.scores() == (5, 10)
    assert position.final_value(2) == 5.0


def test_random_play_agrees_with_reference() -> None:
    """Legal moves, flips and passes on 4×4 .. 10×10 against the naive implementation."""
    rng = random.Random(7)
    for g in range(24):
        size = (4, 6, 8, 10)[g % 4]
        position = GAME.new_position({"size": size, "black_seat": 1 + g % 2}, "")
        while position.to_move:
            grid, colour = grid_and_colour(position)
            expected = sorted(r * size + c for r, c in ref_moves(grid, colour))
            assert position.legal_moves() == (expected or [PASS])
            assert sorted(position.search_moves()) == sorted(expected or [PASS])
            move = rng.choice(position.legal_moves())
            after, events = position.apply(move)
            if move != PASS:
                flipped = ref_flips(grid, move // size, move % size, colour)
                assert events[1].count == len(flipped) == position.flip_count(move)
                assert ref_play(grid, move // size, move % size, colour) == tuple(after.board_rows())
            position = after
        grid = tuple(position.board_rows())
        assert not ref_moves(grid, "B") and not ref_moves(grid, "W")


@pytest.mark.parametrize(("size", "games"), [(4, 60), (6, 25), (8, 12)])
def test_contract(size: int, games: int) -> None:
    check_random_games(GAME, {"size": size}, games, seed=size)
    check_random_games(GAME, {"size": size, "black_seat": 2}, games // 3, seed=100 + size)


def test_search_moves_put_corners_first_and_x_squares_last() -> None:
    # Black may take a1 (corner), g7 (X-square next to the empty h8) and others.
    for seed in range(200):
        position = random_position(8, 40, seed)
        moves = position.search_moves()
        if len(moves) < 3 or moves == [PASS]:
            continue
        kinds = [_kind(m) for m in moves]
        assert kinds == sorted(kinds)
        assert sorted(moves) == position.legal_moves()


def _kind(square: int) -> int:
    r, c = divmod(square, 8)
    edge_r, edge_c = r in (0, 7), c in (0, 7)
    near_r, near_c = r in (1, 6), c in (1, 6)
    if edge_r and edge_c:
        return 0
    if (edge_r and near_c) or (edge_c and near_r):
        return 3  # C-square
    if near_r and near_c:
        return 4  # X-square
    if edge_r or edge_c:
        return 1
    return 2


# --------------------------------------------------------------------------------------------------
# Levels.


def test_levels_are_declared() -> None:
    assert [lv.name for lv in LEVELS.levels if lv.name not in LEVELS.ladder[:-1]] == [
        "beginner",
        "corner_hunter",
        "expert",
    ]
    assert LEVELS.default == "expert"
    assert all(lv.description.endswith(".") for lv in LEVELS.levels)


def test_beginner_takes_a_move_that_flips_the_most() -> None:
    for seed in range(30):
        position = random_position(8, 10 + seed, seed)
        if position.to_move == 0 or position.legal_moves() == [PASS]:
            continue
        grid, colour = grid_and_colour(position)
        counts = {r * 8 + c: len(ref_flips(grid, r, c, colour)) for r, c in ref_moves(grid, colour)}
        result = LEVELS.best_move(position, "beginner", None, seed, 1, lambda: False)
        assert counts[result.move] == max(counts.values())
        # Its value: the disc margin right after the move.
        mine, theirs = position.scores() if position.to_move == 1 else position.scores()[::-1]
        assert result.value == mine - theirs + 2 * counts[result.move] + 1


def test_beginner_ties_are_seeded() -> None:
    start = GAME.new_position({}, "")  # all four openings flip one disc
    chosen = {LEVELS.best_move(start, "beginner", None, seed, 1, lambda: False).move for seed in range(40)}
    assert chosen == set(start.legal_moves())
    again = [LEVELS.best_move(start, "beginner", None, 3, 1, lambda: False).move for _ in range(3)]
    assert len(set(again)) == 1


def test_corner_hunter_takes_an_available_corner() -> None:
    # White may take a1 (flips 1) or c7 (flips 3, the beginner's choice) among others.
    position = GAME.parse_position("..BBB.../.B.W..../B.WWW.../BB.WW.B./BBBWWW../BBBBW.W./...BBW../..B.B... 2 black=1")
    notes = [position.move_notation(m) for m in position.legal_moves()]
    assert notes == ["a1", "h3", "a7", "b7", "c7", "d8"]
    for seed in range(5):
        result = LEVELS.best_move(position, "corner_hunter", None, seed, 1, lambda: False)
        assert position.move_notation(result.move) == "a1"
        beginner = LEVELS.best_move(position, "beginner", None, seed, 1, lambda: False)
        assert position.move_notation(beginner.move) == "c7"


def test_corner_hunter_takes_a_corner_whenever_one_is_available() -> None:
    seen = 0
    for seed in range(120):
        position = random_position(8, 30 + seed % 25, seed)
        if position.to_move == 0:
            continue
        corners = [m for m in position.legal_moves() if m in (0, 7, 56, 63)]
        result = LEVELS.best_move(position, "corner_hunter", None, seed, 1, lambda: False)
        if corners:
            seen += 1
            assert result.move in corners
    assert seen >= 5


def test_corner_hunter_avoids_x_squares_next_to_an_empty_corner() -> None:
    for seed in range(120):
        position = random_position(8, 20 + seed % 30, seed)
        if position.to_move == 0:
            continue
        empty = {sq for sq in (0, 7, 56, 63) if not (position.black | position.white) >> sq & 1}
        x_of = {9: 0, 14: 7, 49: 56, 54: 63}
        moves = position.legal_moves()
        safe = [m for m in moves if m not in x_of or x_of[m] not in empty]
        result = LEVELS.best_move(position, "corner_hunter", None, seed, 1, lambda: False)
        if safe:
            assert result.move in safe


def test_expert_solves_small_endgames_exactly() -> None:
    cases = [START_4, *(random_position(8, 52, k, black_seat=1 + k % 2).to_notation() for k in range(2))]
    cases += [random_position(6, 25 + k, 500 + k, black_seat=1 + k % 2).to_notation() for k in range(3)]
    for notation in cases:
        position = GAME.parse_position(notation)
        assert 0 < position.empties() <= EXACT_EMPTIES and position.to_move
        result = LEVELS.best_move(position, "expert", None, 0, 1, lambda: False)
        grid, colour = grid_and_colour(position)
        assert result.exact, notation
        assert result.value == ref_value(grid, colour), notation
        # The move chosen keeps that value.
        after = position.play(result.move)
        if after.to_move == 0:
            assert after.final_value(position.to_move) == result.value
        else:
            after_grid, after_colour = grid_and_colour(after)
            value = ref_value(after_grid, after_colour)
            assert (value if after_colour == colour else -value) == result.value


@pytest.mark.parametrize("native", [True, False], ids=["kernel-if-built", "python"])
def test_endgame_solver_matches_brute_force_in_any_window(native: bool) -> None:
    previous = use_native(native)
    try:
        check_endgame_solver()
    finally:
        use_native(previous)


def check_endgame_solver() -> None:
    """``endgame_value`` (the native kernel on 8x8 when built and on, else ``_endgame``) against minimax."""
    cases = [random_position(8, 64 - ENDGAME_EMPTIES + k % 3, k, black_seat=1 + k % 2) for k in range(12)]
    cases += [random_position(6, 30 + k % 3, 100 + k) for k in range(6)]
    cases.append(GAME.parse_position("WWWWWW/WWWWBW/WWWBBW/WWBWWW/.BBBBW/.WWWWW 1 black=1"))  # must pass
    checked = 0
    for position in cases:
        if position.to_move == 0:
            continue
        checked += 1
        value = ref_value(*grid_and_colour(position))
        exact = endgame_value(position, -math.inf, math.inf)
        assert exact is not None and exact[0] == value and exact[1] > 0, position
        for alpha, beta in (
            (value - 1, value + 1),
            (value - 0.5, value),
            (value, value + 0.25),
            (value + 3, value + 4),
        ):
            answer = endgame_value(position, alpha, beta)
            assert answer is not None
            v = answer[0]
            # Fail-soft: a bound on the right side when outside the window, the value inside it.
            if v <= alpha:
                assert value <= v
            elif v >= beta:
                assert value >= v
            else:
                assert v == value
    assert checked >= 12
    assert endgame_value(random_position(8, 20, 1), -math.inf, math.inf) is None  # too many empties


def test_expert_solve_mode_scores_top_moves_like_brute_force() -> None:
    position = random_position(8, 53, 7)
    assert position.to_move and position.empties() <= 11
    _, colour = grid_and_colour(position)
    values = {}
    for move in position.legal_moves():
        after = position.play(move)
        if after.to_move == 0:
            values[move] = after.final_value(position.to_move)
        else:
            after_grid, after_colour = grid_and_colour(after)
            value = ref_value(after_grid, after_colour)
            values[move] = value if after_colour == colour else -value
    result = LEVELS.best_move(position, "expert", core.Limits(max_nodes=10**7), 0, len(values), lambda: False)
    assert result.exact and result.stop_reason == "solved"
    assert {a.move: a.value for a in result.alternatives} == values


def test_4x4_is_a_white_win_by_8() -> None:
    """4×4 Reversi solved (brute force in the reference): White wins by 8 discs."""
    start = GAME.new_position({"size": 4}, "")
    assert ref_value(tuple(start.board_rows()), "B") == -8


def test_expert_plays_a_legal_move_midgame_with_limits() -> None:
    position = random_position(8, 20, 11)
    result = LEVELS.best_move(position, "expert", core.Limits(max_depth=3), 0, 3, lambda: False)
    assert result.move in position.legal_moves() and not result.exact
    assert len(result.alternatives) == 3 and result.alternatives[0].move == result.move


def test_evaluate_is_antisymmetric_and_bounded() -> None:
    for seed in range(40):
        position = random_position(8, seed, seed)
        assert position.evaluate(1) == -position.evaluate(2)
        assert abs(position.evaluate(1)) <= 64


@pytest.mark.parametrize("level", ["beginner", "corner_hunter", "expert"])
def test_every_level_passes_when_it_must(level: str) -> None:
    position = GAME.parse_position("WWWWWW/WWWWBW/WWWBBW/WWBWWW/.BBBBW/.WWWWW 1 black=1")
    result = LEVELS.best_move(position, level, None, 0, 1, lambda: False)
    assert result.move == PASS
    if level == "expert":
        assert result.exact and result.value == ref_value(tuple(position.board_rows()), "B")


def test_best_move_errors() -> None:
    with pytest.raises(core.UnknownLevel):
        LEVELS.best_move(GAME.new_position({}, ""), "grandmaster", None, 0, 1, lambda: False)
    with pytest.raises(core.GameOverError):
        LEVELS.best_move(GAME.parse_position(".WWW/BBBW/BBBW/BBBB - black=1"), None, None, 0, 1, lambda: False)
