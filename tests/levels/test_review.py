"""The game review (``service/levels/review.py``) over the registry, on the native and the Python path: from a
position the strongest level proves, a planted blunder (the move the exact search values lowest, one that
throws a result away) is judged a BLUNDER, exact, with the right best move, loss and win chances; a game of best
moves only is all BEST; a forced move is BEST without a search; a review whose time runs out says which plies
it did not review; a seat with no judged move has no accuracy."""

from __future__ import annotations

import itertools
import random

import pytest

from service.core import Limits, Position
from service.games import BY_ID, GAMES, LEVELS
from service.levels.review import (
    BEST,
    BLUNDER,
    EXCELLENT,
    GOOD,
    INACCURACY,
    MISTAKE,
    PlyReview,
    ReviewScale,
    ReviewSummary,
    Search,
    collect,
    move_accuracy,
    review,
)


def searcher(game_id: str) -> Search:
    levels = LEVELS[game_id]
    return lambda position: levels.best_move(position, levels.strongest, None, 0, 1, purpose="analysis")


def near_the_end(game_id: str, seed: int) -> Position:
    """The game's ``checks.review_tail`` plies before the end of the ``seed``-th random game (where the strongest
    level proves every move quickly on either path)."""
    rng = random.Random(f"review/{game_id}/{seed}")
    positions = [GAMES[game_id].new_position({}, str(seed))]
    while positions[-1].to_move:
        moves = positions[-1].legal_moves()
        positions.append(positions[-1].play(moves[rng.randrange(len(moves))]))
    return positions[max(len(positions) - 1 - BY_ID[game_id].checks.review_tail, 0)]


def played_on(start: Position, first: list[object], search: Search) -> tuple[list[Position], list[object]]:
    """The game from ``start``: the moves ``first``, then the search's best move at every ply to the end."""
    positions, moves = [start], []
    while positions[-1].to_move:
        move = first[len(moves)] if len(moves) < len(first) else search(positions[-1]).move  # type: ignore[union-attr]
        moves.append(move)
        positions.append(positions[-1].play(move))
    return positions, moves


def reviewed(game_id: str, positions: list[Position], moves: list[object], search: Search | None = None):  # type: ignore[no-untyped-def]
    levels = LEVELS[game_id]
    items = list(review(positions, moves, levels.review_scale, search or searcher(game_id), levels.win_chance))
    plies = [item for item in items if isinstance(item, PlyReview)]
    assert isinstance(items[-1], ReviewSummary) and len(plies) == len(moves) == len(items) - 1
    assert collect(items) == (plies, items[-1])
    return plies, items[-1]


def test_collect_needs_the_summary() -> None:
    with pytest.raises(ValueError, match="summary"):
        collect([PlyReview(0, 1, 3)])


def proved_values(game_id: str, position: Position) -> dict[object, float] | None:
    """Every legal move's proved value for the mover; None if the strongest level proves not all of them."""
    levels = LEVELS[game_id]
    found = levels.best_move(position, levels.strongest, None, 0, 64, purpose="analysis")
    if not all(scored.exact for scored in found.alternatives):
        return None
    return {scored.move: scored.value for scored in found.alternatives}


def planted_blunder(game_id: str) -> tuple[Position, object, dict[object, float]]:
    """A proved position whose worst move throws a result away (a win to a draw or a loss, a draw to a loss: a
    proved value's win chance is 1, ½ or 0), with the worst."""
    for seed in range(40):
        position = near_the_end(game_id, seed)
        if position.legal_move_count() < 2 or position.legal_move_count() > 64:
            continue
        values = proved_values(game_id, position)
        if values is None or len(values) != position.legal_move_count():
            continue
        worst = min(values, key=lambda move: values[move])
        if _result(max(values.values())) != _result(values[worst]):
            return position, worst, values
    raise AssertionError(f"no position with a blunder among 40 random {game_id} endings")


def _result(value: float) -> float:
    return 1.0 if value > 0 else 0.0 if value < 0 else 0.5


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_a_planted_blunder_is_judged_a_blunder_with_the_right_best_move_loss_and_chances(
    game_id: str, path: bool
) -> None:
    start, worst, values = planted_blunder(game_id)
    positions, moves = played_on(start, [worst], searcher(game_id))
    plies, summary = reviewed(game_id, positions, moves)
    first = plies[0]
    best = max(values.values())
    assert first.judgement == BLUNDER and first.exact
    assert values[first.best_move] == best and first.best_value == best
    assert first.played_value == values[worst] and first.loss == best - values[worst]
    assert (first.chance_before, first.chance_after) == (_result(best), _result(values[worst]))
    assert first.chance_loss == _result(best) - _result(values[worst]) >= 0.5
    assert first.pv and first.pv[0] == first.best_move
    assert all(ply.judgement == BEST for ply in plies[1:])
    assert summary.swings[0] == 0 and summary.reviewed == len(moves) and summary.unreviewed == 0
    mover = summary.seats[start.to_move - 1]
    assert mover.accuracy is not None and mover.accuracy < 100 and mover.mean_chance_loss > 0


@pytest.mark.parametrize("game_id", sorted(LEVELS))
def test_a_game_of_best_moves_only_is_all_best(game_id: str, path: bool) -> None:
    positions, moves = played_on(near_the_end(game_id, 1), [], searcher(game_id))
    plies, summary = reviewed(game_id, positions, moves)
    assert [ply.judgement for ply in plies] == [BEST] * len(moves)
    assert all(ply.loss == 0 and ply.chance_loss == 0 and not ply.pv for ply in plies)
    assert all(ply.chance_before == ply.chance_after for ply in plies if ply.chance_before is not None)
    chose = {ply.seat for ply in plies if not ply.forced}
    assert [seat.accuracy for seat in summary.seats] == [100.0 if seat in chose else None for seat in (1, 2)]
    assert summary.swings == []


def test_a_forced_move_is_best_without_a_search_and_the_last_one_carries_the_final_margin() -> None:
    """Dots and Boxes' last line is the only move left: BEST, forced, valued by the end of the game."""
    positions, moves = played_on(near_the_end("dots-and-boxes", 2), [], searcher("dots-and-boxes"))
    searched: list[Position] = []

    def counting(position: Position):  # type: ignore[no-untyped-def]
        searched.append(position)
        return searcher("dots-and-boxes")(position)

    plies, _ = reviewed("dots-and-boxes", positions, moves, counting)
    last = plies[-1]
    assert last.forced and last.judgement == BEST and last.exact
    assert last.played_value == positions[-1].final_value(last.seat)
    assert positions[-2] not in searched
    assert len(searched) == len(set(searched))  # every position searched at most once


def test_plies_the_time_does_not_reach_are_unreviewed_never_dropped() -> None:
    positions, moves = played_on(near_the_end("reversi", 3), [], searcher("reversi"))
    calls = []

    def two_searches(position: Position):  # type: ignore[no-untyped-def]
        calls.append(position)
        return searcher("reversi")(position) if len(calls) <= 2 else None

    plies, summary = reviewed("reversi", positions, moves, two_searches)
    reviewed_plies = [ply for ply in plies if ply.reviewed]
    assert 1 <= len(reviewed_plies) < len(moves) and len(calls) == 3
    assert all(not ply.reviewed and ply.judgement == "" for ply in plies[len(reviewed_plies) :])
    assert (summary.reviewed, summary.unreviewed) == (len(reviewed_plies), len(moves) - len(reviewed_plies))


def test_a_move_valued_above_the_searchs_best_is_best_and_loses_nothing() -> None:
    """A search that misjudged: the played move's value (the next position's) beats the 'best'."""
    game_id = "reversi"
    start = near_the_end(game_id, 4)
    values = proved_values(game_id, start)
    assert values is not None
    worst = min(values, key=lambda move: values[move])
    positions, moves = played_on(start, [worst], searcher(game_id))
    real = searcher(game_id)

    def fooled(position: Position):  # type: ignore[no-untyped-def]
        found = real(position)
        if position == start and found is not None:  # says the worst move's value is ... far below it
            found.value = values[worst] - 10
            found.move = next(move for move in values if move != worst)
        return found

    plies, _ = reviewed(game_id, positions, moves, fooled)
    assert plies[0].judgement == BEST and plies[0].loss == 0


@pytest.mark.parametrize(
    ("loss", "judgement"),
    [
        (0, BEST),
        (-0.1, BEST),
        (0.01, EXCELLENT),
        (0.02, EXCELLENT),
        (0.03, GOOD),
        (0.05, GOOD),
        (0.0501, INACCURACY),
        (0.1, INACCURACY),
        (0.2, MISTAKE),
        (0.21, BLUNDER),
        (1, BLUNDER),
    ],
)
def test_the_scale_reads_each_threshold_as_the_largest_chance_loss_of_its_judgement(
    loss: float, judgement: str
) -> None:
    assert ReviewScale(excellent=0.02, good=0.05, inaccuracy=0.1, mistake=0.2).judge(loss) == judgement


def test_a_scale_rises_from_above_zero_to_below_a_whole_win() -> None:
    for bad in ((0, 0.1, 0.2, 0.3), (0.2, 0.1, 0.2, 0.3), (0.1, 0.2, 0.3, 1.0)):
        with pytest.raises(ValueError):
            ReviewScale(*bad)


def test_accuracy_falls_from_100_at_no_loss_to_0_at_a_whole_win_lost() -> None:
    assert move_accuracy(0) == 100.0 and move_accuracy(-0.5) == 100.0 and move_accuracy(1) == 0.0
    assert move_accuracy(0.05) == pytest.approx(79.8, abs=0.1) and move_accuracy(0.1) == pytest.approx(63.6, abs=0.1)
    assert move_accuracy(0.2) == pytest.approx(40.0, abs=0.1)
    losses = [k / 100 for k in range(101)]
    assert all(move_accuracy(a) >= move_accuracy(b) for a, b in itertools.pairwise(losses))


def test_a_seat_with_no_judged_move_has_no_accuracy() -> None:
    """One move reviewed: the other seat judged nothing, so it has no accuracy (not 100)."""
    start = GAMES["reversi"].new_position({}, "")
    move = start.legal_moves()[0]
    plies, summary = reviewed("reversi", [start, start.play(move)], [move])
    assert plies[0].reviewed and summary.seats[start.to_move - 1].accuracy is not None
    other = summary.seats[2 - start.to_move]
    assert other.accuracy is None and other.moves == 0 and other.mean_chance_loss == 0


def test_a_move_that_keeps_a_proved_win_by_less_is_excellent_not_best() -> None:
    """Both values proved wins: no chance lost, yet value lost: at least EXCELLENT, never BEST."""
    game_id = "reversi"
    for seed in range(40):
        start = near_the_end(game_id, seed)
        values = proved_values(game_id, start)
        if values is None or len(values) < 2:
            continue
        best = max(values.values())
        kept = [move for move, value in values.items() if 0 < value < best]
        if kept:
            break
    else:
        raise AssertionError("no proved win with a smaller win among 40 random endings")
    positions, moves = played_on(start, [kept[0]], searcher(game_id))
    plies, _ = reviewed(game_id, positions, moves)
    assert plies[0].chance_loss == 0 and plies[0].loss > 0 and plies[0].judgement == EXCELLENT


def test_every_game_declares_a_scale_and_a_strongest_level() -> None:
    for game_id, levels in LEVELS.items():
        assert isinstance(levels.review_scale, ReviewScale), game_id
        assert levels.strongest == levels.levels[-1].name


def test_a_time_limited_level_reviews_within_its_limits() -> None:
    """Strands' strongest level searches for a time of its own: the caller's limits per ply replace it."""
    levels = LEVELS["strands"]
    start = near_the_end("strands", 5)
    positions, moves = played_on(start, [], searcher("strands"))
    search = lambda position: levels.best_move(  # noqa: E731
        position, levels.strongest, Limits(max_time_ms=50), 0, 1, purpose="analysis"
    )
    plies, summary = reviewed("strands", positions, moves, search)
    assert summary.reviewed == len(moves) and all(ply.judgement for ply in plies)
