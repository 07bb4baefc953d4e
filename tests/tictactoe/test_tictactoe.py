"""Tic-tac-toe's rules, levels, drawing and page against known numbers: the well-known counts of the 3x3 game
(perft, the 255,168 games, the 5,478 positions play reaches), the solved values (3x3 a draw; three in a row on
3x4 a first-player win), notation and field round trips through random play, every documented refusal, and
the win-chance model being what its command fits. The generic suites check the rest once the game is
registered (``GAMERULES_EXTRA_GAMES=tests.tictactoe``)."""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import re
from collections import Counter
from typing import Any, cast

import pytest

from service.core import (
    GameOverError,
    IllegalMove,
    InvalidMove,
    InvalidOption,
    InvalidPosition,
    Limits,
    NotationError,
    Position,
    SearchResult,
)
from service.levels.review import BEST, BLUNDER, collect, review
from service.render import RenderOptions, render
from service.search import search
from tests.games.contract import check_position, check_random_games
from tests.tictactoe import REGISTRATION, fit_winchance
from tests.tictactoe.game import TicTacToeGame
from tests.tictactoe.levels import DATA, LEVELS, SOLVE_EMPTIES, sure_moves
from tests.tictactoe.position import TicTacToeMove, TicTacToePosition, perft

GAME = TicTacToeGame()
PAGE = REGISTRATION.page.read_text(encoding="utf-8")
OPTION_SETS = [
    {},
    {"rows": 4, "cols": 4},
    {"rows": 4, "cols": 4, "k": 4},
    {"rows": 5, "cols": 5, "k": 4},
    {"rows": 3, "cols": 5, "k": 5},
    {"rows": 5, "cols": 3},
]


def start(**options: int) -> TicTacToePosition:
    return GAME.new_position(options)


def chosen(position: TicTacToePosition, level: str, seed: int = 0, **asked: Any) -> TicTacToeMove:
    """The move ``level`` answers (a search answers any game's move type: this game's is a cell index)."""
    return cast("TicTacToeMove", LEVELS.best_move(position, level, seed=seed, **asked).move)


def played(position: TicTacToePosition, *cells: str) -> TicTacToePosition:
    for cell in cells:
        position = position.apply(position.parse_move(cell))[0]
    return position


# --- known numbers ----------------------------------------------------------------------------------------


def test_perft_of_the_3x3_game() -> None:
    # The well-known counts of tic-tac-toe's game tree, a game that ended before a depth counting nothing there.
    expected = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
    assert [perft(start(), depth) for depth in range(1, 10)] == expected
    assert perft(start(), 10) == 0 and perft(start(), 0) == 1


def test_the_255168_games_end_as_everyone_counts_them() -> None:
    """Every game of 3x3 by how and when it ends, through ``play`` (perft above does not use it): X wins 131,184
    games, O 77,904, and 46,080 are drawn, 255,168 in all."""
    ends: Counter[tuple[int, int]] = Counter()

    def walk(position: TicTacToePosition, ply: int) -> None:
        for move in position.legal_moves():
            child = position.play(move)
            if child.to_move:
                walk(child, ply + 1)
            else:
                ends[child.winner, ply + 1] += 1

    walk(start(), 0)
    assert ends == {(1, 5): 1440, (2, 6): 5328, (1, 7): 47952, (2, 8): 72576, (1, 9): 81792, (0, 9): 46080}
    assert sum(ends.values()) == 255168


def reachable() -> set[TicTacToePosition]:
    seen = {start()}
    frontier = list(seen)
    while frontier:
        frontier = [child for p in frontier for m in p.legal_moves() if (child := p.play(m)) not in seen]
        seen.update(frontier)
    return seen


def test_the_reader_accepts_exactly_the_5478_positions_play_reaches() -> None:
    """The well-known 5,478 positions of 3x3, and the notation's checks are exact: of every way to fill the board
    with every seat to move, the reader accepts those positions and no other."""
    reached = reachable()
    assert len(reached) == 5478
    accepted = set()
    for cells in itertools.product("xo.", repeat=9):
        board = "".join(cells)
        for seat in "12-":
            with contextlib.suppress(InvalidPosition):
                accepted.add(GAME.parse_position(f"{board[:3]}/{board[3:6]}/{board[6:]} {seat}"))
    assert accepted == reached


def test_3x3_is_a_draw_with_perfect_play() -> None:
    """The project's own search to the end of the game (no limits: until solved) proves the draw."""
    result = search(start(), Limits())
    assert result.exact and result.value == 0.0 and result.stop_reason == "solved"
    # Every first move keeps the draw: the corners and the centre as well as the edges.
    every = search(start(), Limits(), top_n=9)
    assert len(every.alternatives) == 9 and all(m.exact and m.value == 0.0 for m in every.alternatives)


@pytest.mark.parametrize(("rows", "cols"), [(3, 4), (4, 3)])
def test_three_in_a_row_on_3x4_is_a_first_player_win(rows: int, cols: int) -> None:
    # A known result of m,n,k-games: k = 3 is a draw on 3x3 and a first-player win on any larger board.
    result = search(start(rows=rows, cols=cols), Limits())
    assert result.exact and result.value == 1.0


def test_a_won_position_is_proved_won_and_a_lost_one_lost() -> None:
    # X to move completes a1-b2-c3 at c3, the cell O needs for c1-c3: a win at once.
    winning = GAME.parse_position("x.o/.xo/... 1")
    result = search(winning, Limits())
    assert result.exact and result.value == 1.0 and winning.move_notation(cast("TicTacToeMove", result.move)) == "c3"
    # O to move, facing X's fork (a1-c3 and a3-c1): every move loses.
    lost = GAME.parse_position("x.x/.o./x.o 2")
    assert search(lost, Limits()).value == -1.0


# --- the rules -------------------------------------------------------------------------------------------


def test_a_game_and_its_events() -> None:
    position = start()
    assert position.to_notation() == ".../.../... 1" and position.scores() == (0, 0) and position.stage() == 1.0
    after, events = position.apply(position.parse_move("b2"))
    assert after.to_notation() == ".../.x./... 2" and after.stage() == 8 / 9
    assert [(e.type, e.seat, e.cells, e.count) for e in events] == [("place", 1, ("b2",), 1)]
    position = played(after, "a1", "c1", "a3")  # O blocks the diagonal c1-b2-a3
    assert position.to_notation() == "o.x/.x./o.. 1" and position.scores() == (2, 1)
    position = played(position, "a2", "c2", "B1", "b3")  # either case; each threat blocked in turn
    assert position.to_notation() == "oxx/xxo/oo. 1" and position.scores() == (2, 2)
    end, events = position.apply(position.parse_move("c3"))
    assert end.to_notation() == "oxx/xxo/oox -" and end.to_move == 0
    assert [(e.type, e.seat, e.cells) for e in events] == [("place", 1, ("c3",)), ("game_over", 0, ())]
    assert events[-1].detail == "The game is over: the board is full without 3 in a row; a draw."


def test_a_win_names_its_line_and_a_full_board_is_a_draw() -> None:
    win, events = GAME.parse_position("xo./xo./... 1").apply(TicTacToeMove(6))  # a3
    assert win.to_notation() == "xo./xo./x.. -" and win.winner == 1
    assert events[-1].type == "game_over" and events[-1].cells == ("a1", "a2", "a3") and events[-1].count == 3
    outcome = win.outcome()
    assert outcome is not None and (outcome.winner, outcome.reason) == (1, "line")
    assert outcome.detail == "X (seat 1) has 3 in a row: a1, a2, a3."
    assert win.final_value(1) == 1.0 and win.final_value(2) == -1.0 and win.scores() == (3, 2)
    draw, events = GAME.parse_position("xox/xoo/o.x 1").apply(TicTacToeMove(7))  # b3
    assert draw.to_notation() == "xox/xoo/oxx -"
    assert events[-1].type == "game_over" and events[-1].seat == 0 and events[-1].cells == ()
    outcome = draw.outcome()
    assert outcome is not None and (outcome.winner, outcome.reason) == (0, "draw")
    assert draw.final_value(1) == draw.final_value(2) == 0.0 and draw.stage() == 0.0


def test_a_diagonal_win_on_a_larger_board_with_k_4() -> None:
    position = GAME.parse_position("x.o../.x.o./..xo./...../..... 1 k=4")
    after, events = position.apply(position.parse_move("d4"))
    assert after.winner == 1 and events[-1].cells == ("a1", "b2", "c3", "d4")
    assert after.to_notation() == "x.o../.x.o./..xo./...x./..... - k=4"
    # The other diagonal, for O.
    anti, events = GAME.parse_position("x.o/xo./..x 2").apply(TicTacToeMove(6))  # a3
    assert anti.winner == 2 and events[-1].cells == ("c1", "b2", "a3") and anti.to_notation() == "x.o/xo./o.x -"
    # A row on a board that is not square.
    row = played(start(rows=3, cols=5), "a1", "a2", "b1", "b2", "c1")
    assert row.winner == 1 and row.to_notation() == "xxx../oo.../..... -"


def test_apply_refuses_what_the_rules_do_not_allow() -> None:
    position = GAME.parse_position("x.o/.x./o.. 1")
    with pytest.raises(IllegalMove, match="already marked"):
        position.apply(position.parse_move("a1"))
    with pytest.raises(InvalidMove):
        position.apply(TicTacToeMove(9))
    over = GAME.parse_position("xxx/oo./... -")
    with pytest.raises(GameOverError):
        over.apply(over.parse_move("c2"))
    assert over.legal_moves() == [] and over.legal_move_count() == 0 and over.search_moves() == []


@pytest.mark.parametrize("text", ["d1", "a4", "b0", "b01", "zz", "b", "", "b2 ", "b2x", "pass", "2b"])
def test_a_move_that_is_not_a_cell_is_invalid(text: str) -> None:
    with pytest.raises(InvalidMove):
        start().parse_move(text)


def test_move_fields() -> None:
    position = start(rows=4, cols=5)
    assert position.move_to_fields(position.parse_move("e4")) == {"cell": "e4"}
    assert position.move_from_fields({"cell": "E4"}) == position.parse_move("e4") == 19
    for wrong, field in (({"square": "a1"}, "square"), ({"cell": 3}, "cell"), ({"cell": "f1"}, "cell"), ({}, "cell")):
        with pytest.raises(InvalidMove) as raised:
            position.move_from_fields(wrong)
        assert raised.value.field == field


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "x".join(str(v) for v in o.values()) or "3x3")
def test_random_games_keep_the_contract_s_promises(options: dict[str, int]) -> None:
    """Notation, fields and moves round trip, apply is play, paging is the list, at every ply of random games
    (``tests/games/contract.py``, what every registered game is held to)."""
    check_random_games(GAME, options, games=20, seed=7)


def test_fields_read_whole_numbers_as_the_generic_form_carries_them() -> None:
    """The generic ``fields`` of the contract is a JSON object: its numbers arrive as doubles."""
    rng = random.Random(3)
    for options in OPTION_SETS:
        position = GAME.new_position(options)
        while position.to_move:
            position = position.play(rng.choice(position.legal_moves()))
            doubles = {
                key: float(value) if isinstance(value, int) else value for key, value in position.to_fields().items()
            }
            assert GAME.position_from_fields(doubles) == position
            check_position(GAME, position)
    with pytest.raises(InvalidPosition) as raised:
        GAME.position_from_fields({"rows": 3.5, "cols": 3, "k": 3, "cells": ".........", "to_move": 1})
    assert raised.value.field == "rows"
    with pytest.raises(InvalidPosition) as raised:
        GAME.position_from_fields({"rows": True, "cols": 3, "k": 3, "cells": ".........", "to_move": 1})
    assert raised.value.field == "rows"


def test_fields_of_a_position() -> None:
    position = GAME.parse_position("x.o/.x./... 2")
    assert position.to_fields() == {"rows": 3, "cols": 3, "k": 3, "cells": "x.o.x....", "to_move": 2}
    wide = GAME.parse_position("...../..x../..... 2 k=4")
    assert wide.to_fields() == {"rows": 3, "cols": 5, "k": 4, "cells": ".......x.......", "to_move": 2}


def test_options_and_their_combination() -> None:
    assert GAME.default_options() == {"rows": 3, "cols": 3, "k": 3}
    assert start(rows=3, cols=5, k=5).to_notation() == "...../...../..... 1 k=5"
    with pytest.raises(InvalidOption) as raised:
        GAME.new_position({"k": 4})
    assert raised.value.field == "k" and "3x3" in raised.value.message
    for wrong in ({"rows": 6}, {"cols": 2}, {"k": 2}, {"size": 3}, {"rows": "3"}):
        with pytest.raises(InvalidOption) as raised:
            GAME.new_position(wrong)
        assert raised.value.field == next(iter(wrong))


# --- the page's checks, read from the page -----------------------------------------------------------------


def table(heading: str) -> list[list[str]]:
    """The body rows of the table under ``heading`` in the page, as cell texts."""
    section = PAGE.split(heading, 1)[1]
    rows = []
    for line in section.splitlines()[1:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]


def code(cell: str) -> str:
    match = re.fullmatch(r"`([^`]*)`", cell)
    assert match, cell
    return match.group(1)


REASONS = {"INVALID_NOTATION": NotationError, "INVALID_POSITION": InvalidPosition}


def test_every_documented_notation_check_is_refused_as_the_page_says() -> None:
    rows = table("### Checks on the notation")
    assert len(rows) >= 10
    for rule, example, reason in rows:
        with pytest.raises(REASONS[code(reason)]) as raised:
            GAME.parse_position(code(example))
        assert type(raised.value) is REASONS[code(reason)] and raised.value.field == "", rule


def test_every_documented_structured_check_is_refused_as_the_page_says() -> None:
    rows = table("### The structured form")
    assert len(rows) >= 4
    for rule, example, reason, field in rows:
        with pytest.raises(InvalidPosition) as raised:
            GAME.position_from_fields(json.loads(code(example)))
        assert code(reason) == "INVALID_POSITION" and code(field) == f"position.fields.{raised.value.field}", rule


def test_the_page_s_positions_read_and_write_back() -> None:
    blocks = re.findall(r"```\n(.*?)```", PAGE, flags=re.S)
    examples = [line for block in blocks for line in block.splitlines() if " " in line and "/" in line]
    assert len(examples) >= 4
    for text in examples:
        assert GAME.parse_position(text).to_notation() == text
    assert played(start(), "b2", "a1").to_notation() == "o../.x./... 1"  # the page's second example
    assert played(start(rows=5, cols=5, k=4), "c3", "b2", "d2").to_notation() == examples[3]


def test_the_notation_help_states_the_start() -> None:
    assert "'.../.../... 1'" in GAME.position_notation_help
    assert "'o../.x./... 1'" in GAME.position_notation_help
    assert "'...../...../...../...../..... 1 k=4'" in GAME.position_notation_help
    assert start(rows=5, cols=5, k=4).to_notation() == "...../...../...../...../..... 1 k=4"


# --- levels, review, drawing ------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_every_level_takes_a_win_it_sees(level: str) -> None:
    position = GAME.parse_position("xx./oo./... 1")
    for seed in range(4):
        assert position.move_notation(chosen(position, level, seed)) == "c1"


def test_medium_and_hard_stop_the_other_seat_s_line_and_easy_does_not_look() -> None:
    position = GAME.parse_position("oo./x../..x 1")  # O threatens c1; X has no win
    for level in ("medium", "hard"):
        assert {position.move_notation(chosen(position, level, s)) for s in range(4)} == {"c1"}
    easy = {position.move_notation(chosen(position, "easy", s)) for s in range(12)}
    assert len(easy) > 1  # a random cell: it sees its own lines only


def test_hard_proves_the_draw_from_the_start_and_never_loses() -> None:
    result = LEVELS.best_move(start(), "hard", seed=0, purpose="analysis")
    assert result.exact and result.value == 0.0 and result.nodes < 50_000
    # Hard against every level on both seats: the proved draw is never lost.
    for opponent in ("easy", "medium", "hard"):
        for hard_seat in (1, 2):
            for seed in range(3):
                position = start()
                while position.to_move:
                    level = "hard" if position.to_move == hard_seat else opponent
                    position = position.play(chosen(position, level, seed))
                assert position.winner in (0, hard_seat), (opponent, hard_seat, seed, position)


def test_hard_varies_its_opening_among_equal_moves_and_plays_its_best_in_analysis() -> None:
    first = {LEVELS.best_move(start(), "hard", seed=seed).move for seed in range(16)}
    assert len(first) > 1  # every first move draws: the seed picks among the equals scored
    analysis = {LEVELS.best_move(start(), "hard", seed=seed, purpose="analysis").move for seed in range(4)}
    assert len(analysis) == 1


def test_hard_searches_a_board_it_cannot_prove_within_its_budget() -> None:
    position = start(rows=5, cols=5, k=4)
    result = LEVELS.best_move(position, "hard", seed=0, purpose="analysis")
    assert not result.exact and result.stop_reason == "nodes" and -1 < result.value < 1
    assert result.move in position.legal_moves()
    small = LEVELS.best_move(position, "hard", Limits(max_nodes=500), seed=0)
    assert small.nodes <= 600 and small.move in position.legal_moves()


def test_sure_moves_are_wins_then_blocks() -> None:
    position = GAME.parse_position("xx./oo./x.. 2")  # O to move: O wins at c2, X threatens c1
    moves = position.legal_moves()
    assert [position.move_notation(m) for m in sure_moves(position, moves)] == ["c2"]
    blocking = GAME.parse_position("xx./o../... 2")
    assert [blocking.move_notation(m) for m in sure_moves(blocking, blocking.legal_moves())] == ["c1"]
    assert sure_moves(start(), start().legal_moves()) == []


def test_a_review_finds_the_blunder_that_loses_the_draw() -> None:
    """O answers X's corner with an edge (b1), which loses by force; every other move is best."""
    moves_text = ["a1", "b1", "b2", "c3", "a3", "a2", "c1"]
    positions = [start()]
    moves = []
    for text in moves_text:
        move = positions[-1].parse_move(text)
        moves.append(move)
        positions.append(positions[-1].play(move))
    assert positions[-1].winner == 1

    def judge(position: Position[Any]) -> SearchResult:
        assert isinstance(position, TicTacToePosition)  # a review's search is any game's; this one is ours
        return LEVELS.best_move(position, LEVELS.strongest, LEVELS.judge, 0, 1, purpose="analysis")

    plies, summary = collect(review(positions, moves, LEVELS.review_scale, judge, LEVELS.win_chance))
    judgements = [ply.judgement for ply in plies]
    assert judgements[1] == BLUNDER and plies[1].chance_loss == 0.5 and plies[1].exact
    assert all(j == BEST for i, j in enumerate(judgements) if i != 1), judgements
    assert summary.swings[0] == 1


def test_the_win_chance_model_is_what_its_command_fits() -> None:
    shipped = json.loads((DATA / "winchance.json").read_text())
    model, figures = fit_winchance.fit()
    assert shipped["model"].keys() == model.keys()
    for key in model:
        assert shipped["model"][key] == pytest.approx(model[key], rel=1e-9), key
    assert shipped["sample"] == figures["sample"] and figures["sample"]["positions"] == 4520
    chances = LEVELS.win_chance
    assert chances.game_id == "tic-tac-toe"
    # A better estimate is a better chance at every stage, and a proof is the result.
    for stage in (0.1, 0.5, 0.9):
        assert chances.chance(-0.5, stage) < chances.chance(0.0, stage) < chances.chance(0.5, stage)
    assert chances.chance(1.0, 0.5, exact=True) == 1.0 and chances.chance(0.0, 0.5, exact=True) == 0.5


def test_the_drawing() -> None:
    won = GAME.parse_position("xo./xo./x.. -")
    svg = render(REGISTRATION.draw, won, RenderOptions(last_move="a3"))
    assert svg.startswith("<svg") and "X wins (line)" in svg
    assert svg.count('class="mark x"') == 3 and svg.count('class="mark o"') == 2
    assert svg.count('class="winning-line"') == 1 and svg.count('class="last-move"') == 1
    position = GAME.parse_position("x.o/.x./... 2")
    svg = render(REGISTRATION.draw, position, RenderOptions(show_legal_moves=True, arrows=("c3", "a3")))
    assert svg.count('class="move legal"') == 6 and svg.count('class="arrow"') == 2 and "winning-line" not in svg
    assert "O to move" in svg
    wide = render(REGISTRATION.draw, start(rows=3, cols=5, k=4), RenderOptions(flip=True, coordinates=False))
    assert wide.startswith("<svg") and "3x5, 4 in a row" in wide


def test_the_registration() -> None:
    assert REGISTRATION.id == "tic-tac-toe" and REGISTRATION.levels is LEVELS
    assert REGISTRATION.page.name == "page.md" and REGISTRATION.page.is_file()
    assert REGISTRATION.native is None  # no kernel: the Python search plays every level
    for options in REGISTRATION.answer_options:
        GAME.new_position(dict(options))


def test_the_checks_hold_for_the_engine() -> None:
    """The data the generic tests read (``REGISTRATION.checks``) is true of the engine: the handwritten
    position's rules are quoted from GetGame's texts and its move applies, each finished position ends as
    declared, and the position past the opening is past it and short of hard's proofs."""
    checks = REGISTRATION.checks
    handwritten = checks.handwritten
    assert handwritten is not None
    assert all(rule in GAME.position_notation_help for rule in handwritten.position_rules)
    assert all(rule in GAME.move_notation_help for rule in handwritten.move_rules)
    position = GAME.parse_position(handwritten.position)
    assert position.apply(position.parse_move(handwritten.move))[0].to_notation() == "xxo/.x./o.. 2"
    for finished in checks.finished:
        outcome = GAME.parse_position(finished.position).outcome()
        assert outcome is not None and (outcome.winner, outcome.reason) == (finished.winner, finished.reason)
    assert checks.past_the_opening is not None
    past = GAME.parse_position(checks.past_the_opening.position)
    marked = past.geometry.cells - past.empty.bit_count()
    assert marked * 4 >= past.geometry.cells and past.empty.bit_count() > SOLVE_EMPTIES
