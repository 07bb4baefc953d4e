"""Kalah engine tests (docs/games/kalah.md): perft figures, hand-checked sowing and capture cases, notation round trips,
every kind of malformed input, the generic contract and the best-move levels."""

from __future__ import annotations

import random

import pytest

from service.core import (
    Event,
    GameOverError,
    IllegalMove,
    InvalidMove,
    InvalidOption,
    InvalidPosition,
    Limits,
    NotationError,
    Outcome,
    RulesError,
    UnknownLevel,
)
from service.engines.kalah import GAME, KalahPosition
from service.levels import kalah as kalah_levels
from service.levels.budget import Budget
from service.levels.kalah import HARD_LIMITS, HARD_NODES, LEVELS, SOLVE_SEEDS
from service.native import engine, use_native
from tests.games.contract import check_random_games

START = "4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4"


def solve_seeds(position, limits=None) -> int:
    """How far from the end the level proves ``position`` with the caller's ``limits`` (``Budget.solve_reach``)."""
    return Budget(HARD_LIMITS, limits or Limits()).solve_reach(kalah_levels.reach(position))


def perft(position: KalahPosition, depth: int) -> int:
    moves = position.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(perft(position.play(move), depth - 1) for move in moves)


def pos(text: str) -> KalahPosition:
    return GAME.parse_position(text)


def play_line(text: str, moves: str) -> tuple[KalahPosition, list[Event]]:
    """Apply the moves (in notation) one after another; the last position and the last move's events."""
    position, events = pos(text), list[Event]()
    for move in moves.split():
        position, events = position.apply(position.parse_move(move))
    return position, events


# --- perft (docs/games/kalah.md reference figures; each extra turn is a new ply) -------------------------------

PERFT = {
    3: [6, 35, 182, 904, 4243, 19418, 87103, 387726],
    4: [6, 35, 185, 942, 4690, 23233, 114430, 563055],
    5: [6, 35, 187, 982, 5113, 26927, 142073, 748196],
}


@pytest.mark.parametrize("seeds", [3, 4, 5])
def test_perft(seeds: int) -> None:
    start = GAME.new_position({"seeds_per_pit": seeds}, "")
    assert [perft(start, depth) for depth in range(1, 9)] == PERFT[seeds]


def test_perft_north_first_mirrors_south_first() -> None:
    north_first = GAME.new_position({"first_seat": 2}, "")
    assert north_first.to_notation() == "4,4,4,4,4,4,0/4,4,4,4,4,4,0 2 seeds=4"
    assert [perft(north_first, depth) for depth in range(1, 6)] == PERFT[4][:5]


# --- the start, notation and structured form ----------------------------------------------------------


def test_start_position() -> None:
    start = GAME.new_position({}, "")
    assert start.to_notation() == START
    assert start.to_move == 1 and start.scores() == (0, 0) and start.outcome() is None
    assert start.legal_moves() == [1, 2, 3, 4, 5, 6]
    assert start.to_fields() == {
        "pits": [4] * 12,
        "stores": [0, 0],
        "to_move": 1,
        "seeds_per_pit": 4,
        "pits_per_side": 6,
    }
    assert GAME.position_from_fields(start.to_fields()) == start == pos(START)
    assert hash(pos(START)) == hash(start)
    assert repr(start) == f"GAME.parse_position({START!r})"


def test_options() -> None:
    small = GAME.new_position({"seeds_per_pit": 3, "pits_per_side": 2, "first_seat": 2}, "x")
    assert small.to_notation() == "3,3,0/3,3,0 2 seeds=3"
    assert GAME.new_position({"pits_per_side": 12, "seeds_per_pit": 12}, "").to_notation() == (
        ",".join(["12"] * 12) + ",0/" + ",".join(["12"] * 12) + ",0 1 seeds=12"
    )
    assert {o.name: (o.default, o.minimum, o.maximum) for o in GAME.options} == {
        "seeds_per_pit": (4, 1, 12),
        "pits_per_side": (6, 1, 12),
        "first_seat": (1, 1, 2),
    }


def test_round_trips_of_odd_positions() -> None:
    for text in (
        "0,0,0,0,0,0,24/0,0,0,0,0,0,24 - seeds=4",
        "1,0/1,0 2 seeds=1",
        "0,13,0,0,0,0,12/2,2,2,2,2,2,11 1 seeds=4",
        "0,24/0,0 - seeds=12",
    ):
        position = pos(text)
        assert position.to_notation() == text
        assert GAME.position_from_fields(position.to_fields()) == position
    assert pos("0,0,0,0,0,0,24/0,0,0,0,0,0,24 - seeds=4").to_fields()["to_move"] == 0


def test_move_notation() -> None:
    start = pos(START)
    assert [start.move_notation(m) for m in start.legal_moves()] == ["1", "2", "3", "4", "5", "6"]
    assert start.parse_move("6") == 6
    assert start.move_to_fields(6) == {"pit": 6}
    assert start.move_from_fields({"pit": 2}) == 2


# --- sowing, extra turn, capture, end and sweep (hand-checked) ----------------------------------------


def test_extra_turn() -> None:
    after, events = play_line(START, "3")
    assert after.to_notation() == "4,4,0,5,5,5,1/4,4,4,4,4,4,0 1 seeds=4"
    assert [e.type for e in events] == ["sow", "extra_turn"]
    assert events[0].cells == ("S3", "S-store") and events[0].count == 4 and events[0].seat == 1


def test_north_sows_past_south_store_without_feeding_it() -> None:
    # North's pit 6 with 8 seeds: North's store, South's pits 1..6, (South's store skipped), North's pit 1.
    after, events = play_line("4,4,4,4,4,0,0/4,4,4,4,0,8,4 2 seeds=4", "6")
    assert after.to_notation() == "5,5,5,5,5,1,0/5,4,4,4,0,0,5 1 seeds=4"
    assert events[0].cells == ("N6", "N1") and events[0].count == 8
    assert [e.type for e in events] == ["sow"]  # N1 held 4 seeds: no capture


def test_north_extra_turn_and_numbering() -> None:
    after, events = play_line(START, "1 3")
    assert after.to_notation() == "0,5,5,5,5,4,0/4,4,0,5,5,5,1 2 seeds=4"
    assert [e.type for e in events] == ["sow", "extra_turn"] and events[0].cells == ("N3", "N-store")


def test_no_capture_when_the_opposite_pit_is_empty() -> None:
    # South's pit 1 sows its seed into the empty pit 2; the pit opposite (North's pit 5) is empty.
    after, events = play_line("1,0,3,3,3,3,10/3,3,3,3,0,3,10 1 seeds=4", "1")
    assert after.to_notation() == "0,1,3,3,3,3,10/3,3,3,3,0,3,10 2 seeds=4"
    assert [e.type for e in events] == ["sow"]


def test_capture_into_an_empty_pit() -> None:
    after, events = play_line("1,0,3,3,3,3,10/3,3,3,3,2,1,10 1 seeds=4", "1")
    assert after.to_notation() == "0,0,3,3,3,3,13/3,3,3,3,0,1,10 2 seeds=4"
    assert [e.type for e in events] == ["sow", "capture"]
    assert events[1].count == 3 and events[1].cells == ("S2", "N5") and events[1].seat == 1


def test_thirteen_seed_lap_captures_in_the_pit_it_started_from() -> None:
    # 13 seeds from South's pit 3: S4..S6, the store, N1..N6, S1, S2 and back into the lifted (empty) S3,
    # whose opposite N4 now holds 3: 4 seeds captured.
    after, events = play_line("0,0,13,0,0,0,12/2,2,2,2,2,2,11 1 seeds=4", "3")
    assert after.to_notation() == "1,1,0,1,1,1,17/3,3,3,0,3,3,11 2 seeds=4"
    assert [e.type for e in events] == ["sow", "capture"]
    assert events[0].cells == ("S3", "S3") and events[1].count == 4 and events[1].cells == ("S3", "N4")


def test_twenty_six_seed_double_lap_does_not_capture() -> None:
    after, events = play_line("0,0,26,0,0,0,8/1,1,1,1,1,1,8 1 seeds=4", "3")
    assert after.to_notation() == "2,2,2,2,2,2,10/3,3,3,3,3,3,8 2 seeds=4"
    assert [e.type for e in events] == ["sow"]


def test_north_capture() -> None:
    # North's pit 1 sows into its empty pit 2; opposite is South's pit 5 (6 seeds): 7 captured.
    after, events = play_line("4,4,4,4,6,2,0/1,0,4,4,4,4,7 2 seeds=4", "1")
    assert after.to_notation() == "4,4,4,4,0,2,0/0,0,4,4,4,4,14 1 seeds=4"
    assert events[1].type == "capture" and events[1].count == 7 and events[1].cells == ("N2", "S5")


def test_capture_on_the_final_move_then_sweep_and_draw() -> None:
    # South's last seed captures North's pit 1 (3 seeds) and leaves South's side empty: the game ends,
    # North sweeps 4 seeds, 24-24.
    after, events = play_line("0,0,0,0,1,0,20/3,2,1,0,0,1,20 1 seeds=4", "5")
    assert after.to_notation() == "0,0,0,0,0,0,24/0,0,0,0,0,0,24 - seeds=4"
    assert [e.type for e in events] == ["sow", "capture", "sweep", "game_over"]
    assert events[1].count == 4
    assert events[2].seat == 2 and events[2].count == 4 and events[2].cells == ("N2", "N3", "N6")
    assert events[3].seat == 0
    assert after.outcome() == Outcome(0, "draw", "South 24 seeds, North 24")
    assert after.to_move == 0 and after.legal_moves() == [] and after.final_value(1) == 0


def test_capture_that_empties_the_opponent_ends_the_game() -> None:
    after, events = play_line("1,0,2,0,0,0,20/0,0,0,0,3,0,22 1 seeds=4", "1")
    assert after.to_notation() == "0,0,0,0,0,0,26/0,0,0,0,0,0,22 - seeds=4"
    assert [e.type for e in events] == ["sow", "capture", "sweep", "game_over"]
    assert events[2].seat == 1 and events[2].count == 2 and events[3].seat == 1
    assert after.outcome() == Outcome(1, "seeds", "South 26 seeds, North 22")
    assert after.final_value(1) == 4 and after.final_value(2) == -4


def test_last_seed_in_store_that_ends_the_game_gives_no_extra_turn() -> None:
    after, events = play_line("0,0,0,0,0,1,20/4,4,4,4,4,4,3 1 seeds=4", "6")
    assert after.to_notation() == "0,0,0,0,0,0,21/0,0,0,0,0,0,27 - seeds=4"
    assert [e.type for e in events] == ["sow", "sweep", "game_over"]
    assert after.outcome() == Outcome(2, "seeds", "South 21 seeds, North 27")
    assert after.scores() == (21, 27)


def test_one_pit_a_side() -> None:
    # With one pit, South's single seed goes straight into the store, South's side is empty: North sweeps.
    position = GAME.new_position({"pits_per_side": 1, "seeds_per_pit": 1}, "")
    after, events = position.apply(1)
    assert after.to_notation() == "0,1/0,1 - seeds=1"
    assert [e.type for e in events] == ["sow", "sweep", "game_over"]
    # Three seeds make one lap of the 3 holes (S1, S-store, N1): back into the lifted pit, capturing N1.
    after, events = play_line("3,0/2,1 1 seeds=3", "1")
    assert after.to_notation() == "0,5/0,1 - seeds=3"
    assert [e.type for e in events] == ["sow", "capture", "game_over"]
    assert events[1].count == 4


@pytest.mark.parametrize(
    "options", [{}, {"seeds_per_pit": 12, "pits_per_side": 2}, {"seeds_per_pit": 6, "pits_per_side": 3}]
)
def test_move_hints_agree_with_sowing(options: dict[str, int]) -> None:
    """The cheap hints (extra turn, capture size, computed without sowing) match what ``apply`` reports."""
    rng = random.Random(5)
    checked = 0
    for _ in range(30):
        position = GAME.new_position(options, "")
        while position.to_move:
            store = "S-store" if position.to_move == 1 else "N-store"
            for pit, extra, capture in position.move_hints():
                _, events = position.apply(pit)
                assert extra == (events[0].cells[1] == store)
                assert capture == sum(e.count for e in events if e.type == "capture")
                checked += 1
            hints = position.move_hints()  # and ``evaluate``'s summary of them agrees
            summary = (sum(extra for _, extra, _ in hints), max(capture for _, _, capture in hints))
            assert position._threats() == summary
            assert sorted(position.search_moves()) == position.legal_moves()
            position = position.play(rng.choice(position.legal_moves()))
    assert checked > 500


# --- malformed input: every kind gets a precise error with the right field ---------------------------


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", NotationError),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0 1", NotationError),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0  1 seeds=4", NotationError),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4 x", NotationError),
        ("4,4,4,4,4,4,0 1 seeds=4", NotationError),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0/0 1 seeds=4", NotationError),
        ("4,4,4,x,4,4,0/4,4,4,4,4,4,0 1 seeds=4", NotationError),
        ("4,4,4,04,4,4,0/4,4,4,4,4,4,0 1 seeds=4", NotationError),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,1000 1 seeds=4", NotationError),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0 3 seeds=4", NotationError),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0 0 seeds=4", NotationError),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seed=4", NotationError),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=x", NotationError),
        ("0/0 - seeds=4", NotationError),
        (",".join(["1"] * 14) + "/" + ",".join(["1"] * 14) + " 1 seeds=1", NotationError),
        ("9" * 100_000, NotationError),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=0", InvalidPosition),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=13", InvalidPosition),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=3", InvalidPosition),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,1 1 seeds=4", InvalidPosition),
        ("4,4,4,4,4,5,0/4,4,4,4,4,4,-1 1 seeds=4", InvalidPosition),
        ("4,4,4,4,4,-4,8/4,4,4,4,4,4,0 1 seeds=4", InvalidPosition),
        ("4,4,4,4,4,0/4,4,4,4,4,4,4 1 seeds=4", InvalidPosition),
        ("0,0,0,0,0,0,24/0,0,0,0,0,0,24 1 seeds=4", InvalidPosition),
        ("4,4,4,4,4,4,0/4,4,4,4,4,4,0 - seeds=4", InvalidPosition),
        ("0,0,0,0,0,0,24/4,4,4,4,4,4,0 2 seeds=4", InvalidPosition),
        ("0,0,0,0,0,0,24/4,4,4,4,4,4,0 - seeds=4", InvalidPosition),
    ],
)
def test_bad_notation(text: str, error: type[RulesError]) -> None:
    with pytest.raises(error) as caught:
        GAME.parse_position(text)
    assert type(caught.value) is error and caught.value.message and caught.value.field == ""


def test_bad_notation_messages() -> None:
    cases = {
        "4,4,4,4,4,5,0/4,4,4,4,4,4,-1 1 seeds=4": "North's store holds -1 seeds",
        "4,4,4,4,4,4,0/4,4,4,4,4,4,1 1 seeds=4": "hold 49 seeds, but 6 pits a side with 4 seeds per pit make 48",
        "0,0,0,0,0,0,24/4,4,4,4,4,4,0 2 seeds=4": "South's pits are all empty",
        "4,4,4,4,4,0/4,4,4,4,4,4,4 1 seeds=4": "South has 5 pits and North 6",
    }
    for text, words in cases.items():
        with pytest.raises(RulesError, match=words):
            GAME.parse_position(text)


def fields(**changes: object) -> dict[str, object]:
    base: dict[str, object] = pos(START).to_fields()
    base.update(changes)
    return base


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"pits": [], "stores": [], "to_move": 0, "seeds_per_pit": 0, "pits_per_side": 0}, "pits_per_side"),
        (fields(pits_per_side=13), "pits_per_side"),
        (fields(pits_per_side="6"), "pits_per_side"),
        (fields(pits_per_side=5), "pits"),
        (fields(pits=[4] * 11), "pits"),
        (fields(pits=[4] * 10_000), "pits"),
        (fields(pits="4,4,4"), "pits"),
        (fields(pits=[4] * 5 + ["4"] + [4] * 6), "pits[5]"),
        (fields(pits=[4] * 5 + [True] + [4] * 6), "pits[5]"),
        (fields(pits=[4] * 7 + [-1] + [4] * 4, stores=[5, 0]), "pits[7]"),
        (fields(pits=[4] * 11 + [5]), "pits"),
        (fields(pits=[60] + [0] * 5 + [4] * 6, stores=[-36, 0]), "stores[0]"),
        (fields(stores=[0]), "stores"),
        (fields(stores=[0, 0.0]), "stores[1]"),
        (fields(stores=None), "stores"),
        (fields(to_move=0), "to_move"),
        (fields(to_move=3), "to_move"),
        (fields(to_move="1"), "to_move"),
        (fields(seeds_per_pit=0), "seeds_per_pit"),
        (fields(seeds_per_pit=3), "pits"),
        (fields(seeds_per_pit=4.0), "seeds_per_pit"),
        (fields(pits=[0] * 6 + [4] * 6, stores=[24, 0]), "pits"),
        (fields(pits=[0] * 12, stores=[24, 24], to_move=1), "to_move"),
        (fields(colour=1), "colour"),
    ],
)
def test_bad_fields(given: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidPosition) as caught:
        GAME.position_from_fields(given)
    assert caught.value.field == field and caught.value.message


def test_fields_with_every_default_missing_or_present() -> None:
    with pytest.raises(InvalidPosition):
        GAME.position_from_fields({})
    with pytest.raises(InvalidPosition):
        GAME.position_from_fields("pits")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"seeds_per_pit": 0}, "seeds_per_pit"),
        ({"seeds_per_pit": 13}, "seeds_per_pit"),
        ({"seeds_per_pit": "4"}, "seeds_per_pit"),
        ({"pits_per_side": 0}, "pits_per_side"),
        ({"pits_per_side": 13}, "pits_per_side"),
        ({"first_seat": 0}, "first_seat"),
        ({"first_seat": 3}, "first_seat"),
        ({"first_seat": True}, "first_seat"),
        ({"seeds": 4}, "seeds"),
    ],
)
def test_bad_options(options: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidOption) as caught:
        GAME.new_position(options, "")
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("0", InvalidMove),
        ("7", InvalidMove),  # the opponent's pits are not the mover's to sow
        ("12", InvalidMove),
        ("13", InvalidMove),
        ("999", InvalidMove),
        ("9" * 5000, InvalidMove),
        ("-1", InvalidMove),
        ("a", InvalidMove),
        ("", InvalidMove),
        (" 1", InvalidMove),
        ("1.0", InvalidMove),
        ("01", InvalidMove),
        ("\u0663", InvalidMove),  # an Arabic-Indic digit three
        ("S3", InvalidMove),
    ],
)
def test_bad_move_notation(text: str, error: type[RulesError]) -> None:
    with pytest.raises(error) as caught:
        pos(START).parse_move(text)
    assert type(caught.value) is error and caught.value.field == ""


def test_opponent_pit_message() -> None:
    with pytest.raises(InvalidMove, match="opponent's pits cannot be moved"):
        pos(START).parse_move("8")


@pytest.mark.parametrize(
    ("given", "field"),
    [({"pit": 0}, "pit"), ({"pit": 7}, "pit"), ({"pit": "3"}, "pit"), ({"pit": True}, "pit"), ({"pits": 3}, "pits")],
)
def test_bad_move_fields(given: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidMove) as caught:
        pos(START).move_from_fields(given)
    assert caught.value.field == field


def test_moving_an_empty_pit_is_illegal() -> None:
    after, _ = play_line(START, "3")
    with pytest.raises(IllegalMove, match="South's pit 3 is empty"):
        after.apply(3)
    with pytest.raises(InvalidMove):
        after.apply(7)
    with pytest.raises(InvalidMove):
        after.apply("3")


def test_a_move_after_the_end() -> None:
    over = pos("0,0,0,0,0,0,24/0,0,0,0,0,0,24 - seeds=4")
    with pytest.raises(GameOverError):
        over.apply(1)
    assert over.legal_move_count() == 0 and over.legal_moves_page(0, 10) == []


# --- the generic contract ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"seeds_per_pit": 3, "first_seat": 2},
        {"seeds_per_pit": 1, "pits_per_side": 1},
        {"seeds_per_pit": 12, "pits_per_side": 2},
        {"seeds_per_pit": 7, "pits_per_side": 12},
    ],
)
def test_contract(options: dict[str, int]) -> None:
    check_random_games(GAME, options, games=8, seed=11)


# --- best move -------------------------------------------------------------------------------------------


def solve(position: KalahPosition, memo: dict[KalahPosition, int] | None = None) -> int:
    """The exact final store margin for the seat to move: plain memoised negamax, independent of the
    search core (extra turns keep the sign)."""
    memo = {} if memo is None else memo
    known = memo.get(position)
    if known is not None:
        return known
    best = -10_000
    for move in position.legal_moves():
        child = position.play(move)
        if child.to_move == 0:
            value = int(child.final_value(position.to_move))
        elif child.to_move == position.to_move:
            value = solve(child, memo)
        else:
            value = -solve(child, memo)
        best = max(best, value)
    memo[position] = best
    return best


def best(position: KalahPosition, level: str | None = None, seed: int = 0, top_n: int = 1, **limits: int):

    return LEVELS.best_move(position, level, Limits(**limits) if limits else None, seed, top_n, lambda: False)


def test_levels() -> None:
    assert [level.name for level in LEVELS.levels if level.name not in LEVELS.ladder[:-1]] == ["easy", "medium", "hard"]
    assert LEVELS.default == "hard"
    assert all(level.description.endswith(".") for level in LEVELS.levels)

    with pytest.raises(UnknownLevel):
        best(pos(START), "expert")
    with pytest.raises(GameOverError):
        best(pos("0,0,0,0,0,0,24/0,0,0,0,0,0,24 - seeds=4"))


def test_easy_takes_a_free_move_and_is_random_otherwise() -> None:
    assert {best(pos(START), "easy", seed).move for seed in range(10)} == {3}
    no_free_move = pos("5,6,1,5,6,2,0/4,4,4,4,4,3,0 1 seeds=4")
    assert not any(extra for _, extra, _ in no_free_move.move_hints())
    chosen = [best(no_free_move, "easy", seed).move for seed in range(20)]
    assert len(set(chosen)) >= 3 and set(chosen) <= set(no_free_move.legal_moves())
    assert chosen == [best(no_free_move, "easy", seed).move for seed in range(20)]  # same seed, same move


def test_medium_and_hard_take_the_big_capture() -> None:
    # South's pit 1 sows into the empty pit 2, opposite North's pit 5 with 10 seeds.
    position = pos("1,0,3,4,3,3,5/1,1,1,1,10,1,14 1 seeds=4")
    medium = best(position, "medium", top_n=2)
    assert medium.move == 1 and medium.alternatives[1].value < medium.value - 5
    assert best(position, "hard", max_depth=8).move == 1


@pytest.mark.parametrize(("pits", "seeds", "value"), [(2, 2, -2), (3, 2, 4), (2, 3, None), (3, 3, 2)])
def test_hard_solves_small_boards(pits: int, seeds: int, value: int | None) -> None:
    start = GAME.new_position({"pits_per_side": pits, "seeds_per_pit": seeds}, "")
    proved = solve(start)
    if value is not None:
        assert proved == value  # the figures computed once with this solver, kept as a regression
    result = best(start)
    assert result.exact and result.stop_reason == "solved" and result.value == proved
    after = start.play(result.move)
    achieved = after.final_value(1) if after.to_move == 0 else solve(after) * (1 if after.to_move == 1 else -1)
    assert achieved == proved


def test_hard_is_exact_in_endgames() -> None:
    rng = random.Random(7)
    checked = 0
    while checked < 12:
        position = GAME.new_position({"seeds_per_pit": rng.choice([3, 4, 5])}, "")
        while position.to_move and position.seeds_in_play() > 9:
            position = position.play(rng.choice(position.legal_moves()))
        if not position.to_move:
            continue
        result = best(position, top_n=2)
        assert result.exact and result.value == solve(position)
        assert result.alternatives[0].move == result.move and result.alternatives[0].value == result.value
        assert all(a.exact for a in result.alternatives)
        assert [a.value for a in result.alternatives] == sorted((a.value for a in result.alternatives), reverse=True)
        for alternative in result.alternatives:
            child = position.play(alternative.move)
            if child.to_move == 0:
                expected = child.final_value(position.to_move)
            else:
                expected = solve(child) * (1 if child.to_move == position.to_move else -1)
            assert alternative.value == expected
        checked += 1


def test_search_limits_and_stop() -> None:
    start = pos(START)
    shallow = best(start, "hard", max_depth=2)
    assert shallow.depth == 2 and shallow.stop_reason == "depth" and not shallow.exact
    once, again = best(start, "hard", max_depth=5), best(start, "hard", max_depth=5)
    once.elapsed_ms = again.elapsed_ms = 0.0
    assert once == again  # no time limit: the same answer

    stopped = LEVELS.best_move(start, "hard", Limits(), 0, 1, lambda: True)
    assert stopped.move in start.legal_moves() and stopped.stop_reason == "cancelled"
    three = best(start, "medium", top_n=3)
    assert len(three.alternatives) == 3 and three.move in [scored.move for scored in three.alternatives]
    values = [scored.value for scored in three.alternatives]
    assert values == sorted(values, reverse=True)


def test_evaluate_weighs_stores_free_moves_captures_and_sides() -> None:
    # The start: South to move has one free move (pit 3) and no capture; nothing is stored yet, so the seeds
    # on the sides count for nothing.
    assert pos(START).evaluate(1) == 1.0 and pos(START).evaluate(2) == -1.0
    # South to move: pit 4 is a free move, pit 1 captures 3 (North's pit 5 and the last seed). 20 of the 48
    # seeds are stored, so each seed South has fewer on its side counts 20/48 against it.
    south = pos("1,0,3,3,3,3,10/3,3,3,3,2,1,10 1 seeds=4")
    assert south.evaluate(1) == pytest.approx(1.0 + 0.5 * 3 - 2 * 20 / 48)
    assert south.evaluate(2) == -south.evaluate(1)
    # The same board with North to move: North's pits 4, 5 and 6 are free moves, and it has no capture.
    north = pos("1,0,3,3,3,3,10/3,3,3,3,2,1,10 2 seeds=4")
    assert north.evaluate(2) == pytest.approx(3.0 + 2 * 20 / 48)
    assert pos("0,0,0,0,0,0,26/0,0,0,0,0,0,22 - seeds=4").evaluate(2) == -4


def test_hard_chains_extra_turns_for_either_seat() -> None:
    # South sows 6, 5, 6, 4, 6 (five free moves in a row), then 5 into its empty pit 6; North must move and
    # South's last seed ends the game: all six seeds stored, North sweeps its two, 28 to 20. The search must
    # keep the sign through the chain; the mirror image, with North to move, has the same value and line.
    south = pos("0,0,0,3,2,1,22/0,0,0,0,1,1,18 1 seeds=4")
    north = pos("0,0,0,0,1,1,18/0,0,0,3,2,1,22 2 seeds=4")
    assert solve(south) == solve(north) == 8
    for position in (south, north):
        result = best(position)
        assert result.exact and result.value == 8
        # The five free moves, then a line to the end worth the value (the search may end it either way North
        # answers: both paths give a whole, legal line).
        assert result.pv[:6] == [6, 5, 6, 4, 6, 5]
        seat = position.to_move
        movers = []
        for move in result.pv:
            assert move in position.legal_moves()
            movers.append(position.to_move)
            position = position.play(move)
        assert movers[:6] == [seat] * 6 and 3 - seat in movers
        assert position.to_move == 0 and position.final_value(seat) == 8


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # 14 seeds in the pits; values computed once with ``solve`` above (minutes each), kept as regressions.
        ("1,3,3,2,0,0,14/2,0,1,1,1,0,20 2 seeds=4", 4),
        ("5,0,2,3,0,2,21/0,0,0,0,2,0,13 1 seeds=4", 18),
        ("0,6,1,0,0,1,24/1,4,0,0,0,1,10 2 seeds=4", -12),
    ],
)
def test_hard_proves_endgames_with_fourteen_seeds(text: str, value: int) -> None:

    position = pos(text)
    assert position.seeds_in_play() == SOLVE_SEEDS
    result = best(position)
    assert result.exact and result.stop_reason == "solved" and result.value == value


@pytest.mark.skipif(not engine.available("kalah"), reason="the native search engine is not built or turned off")
def test_a_callers_time_starts_the_native_solve_earlier() -> None:
    """With a time of the caller's and no node budget, hard proves from as many seeds as the time allows on the
    native engine (``SOLVE_AT_MS`` at ``SOLVE_AT``, ``SOLVE_GROWTH`` times more per seed); a node budget, the
    Python search or a board of more than six pits keeps ``SOLVE_SEEDS``."""
    position = pos("2,0,3,3,0,2,12/0,0,3,7,5,1,10 2 seeds=4")  # 26 seeds in the pits
    assert solve_seeds(position, Limits(max_time_ms=100)) == kalah_levels.SOLVE_AT - 1
    assert solve_seeds(position, Limits(max_time_ms=1000)) == kalah_levels.SOLVE_AT + 2
    assert solve_seeds(position, Limits(max_time_ms=10_000)) == kalah_levels.SOLVE_AT + 4
    assert solve_seeds(position, Limits(max_time_ms=0)) == SOLVE_SEEDS  # proto3's unset: no time of the caller's
    assert solve_seeds(position, Limits(max_time_ms=1000, max_nodes=10**6)) == SOLVE_SEEDS
    assert solve_seeds(pos("4,4,4,4,4,4,4,0/4,4,4,4,4,4,4,0 1 seeds=4"), Limits(max_time_ms=1000)) == SOLVE_SEEDS
    result = best(position, max_time_ms=5000)
    assert result.exact and result.stop_reason == "solved" and result.value == -12
    previous = use_native(False)
    try:
        assert solve_seeds(position, Limits(max_time_ms=1000)) == SOLVE_SEEDS
    finally:
        use_native(previous)


def test_hard_budget_is_nodes_without_a_time_limit_and_time_with_one() -> None:

    start = pos(START)
    fixed = best(start)  # the level's own limits: the node budget, the same answer on every machine
    assert fixed.stop_reason == "nodes" and fixed.nodes <= HARD_NODES
    again = best(start)
    assert (again.move, again.value, again.nodes, again.pv) == (fixed.move, fixed.value, fixed.nodes, fixed.pv)
    # A time limit replaces the node budget (no Python search reaches 100k nodes in 100 ms)...
    assert best(start, max_time_ms=100).stop_reason == "time"
    # ...but a node budget the caller gives along with it is kept.
    capped = best(start, max_time_ms=60_000, max_nodes=3_000)
    assert capped.stop_reason == "nodes" and capped.nodes <= 3_000
