"""The rated ladder's rungs (``service/levels/ladder.py``), over the registry and with known numbers: every game's
ladder, its measured ratings, the rung nearest a rating, how a rung chooses (its tolerance, the sure moves, a lost
position), and that its play is seeded on both search paths."""

from __future__ import annotations

import json
import math
import random

import pytest

from service.core.errors import UnknownLevel
from service.core.values import Limits, ScoredMove, SearchResult
from service.games import BUILT_IN, GAMES, LEVELS
from service.levels import GameLevels, ladder, performance
from service.levels.budget import Budget
from service.levels.ladder import MIN_RUNGS, Rung, choose, losses
from service.levels.winchance import WinChance
from service.search import never
from tests.levels.conftest import small_limits

# Every game, its ladder's tests skipping, by name, for a game without a rated ladder (one from outside the
# tree may have none: BestMove's ``rating`` then answers UnknownLevel).
LADDERS = [
    pytest.param(
        game_id, marks=[] if LEVELS[game_id].ladder else pytest.mark.skip(reason=f"{game_id}: no rated ladder")
    )
    for game_id in sorted(LEVELS)
]
# σ(v): a value of 0 is an even game, +ln 3 a chance of ¾.
PLAIN = WinChance("plain", (0.0, 0.0), (1.0, 0.0, 0.0))


class _Staged:
    """A position as ``losses`` reads it: only its stage."""

    to_move = 1

    def stage(self) -> float:
        return 0.5


def _result(values: list[float]) -> SearchResult:
    alternatives = [ScoredMove(move, value) for move, value in enumerate(values)]
    return SearchResult(0, values[0], False, 1, 1, 0.0, "depth", [0], alternatives)


def _rung(mean_loss: float, sure: bool = False) -> Rung:
    return Rung("test", 1, mean_loss, sure, 0)


def test_the_services_own_games_have_a_ladder_and_a_game_without_one_answers_a_rating_so() -> None:
    assert all(registration.levels.ladder for registration in BUILT_IN)
    for levels in LEVELS.values():
        if not levels.ladder:
            with pytest.raises(UnknownLevel, match="no rated ladder"):
                levels.rated(1500.0)


@pytest.mark.parametrize("game_id", LADDERS)
def test_every_game_has_a_ladder_ending_with_its_strongest_level(game_id: str) -> None:
    levels = LEVELS[game_id]
    names = [level.name for level in levels.levels]
    assert len(levels.ladder) >= MIN_RUNGS and levels.ladder[-1] == levels.strongest
    assert set(levels.ladder) <= set(names) and len(set(levels.ladder)) == len(levels.ladder)
    think = [levels.level(name).think_ms for name in levels.ladder]
    assert think[0] > 0 and think == sorted(think)
    assert levels.sure_moves is not None


@pytest.mark.parametrize("game_id", LADDERS)
def test_every_rung_has_a_rating_within_its_interval(game_id: str) -> None:
    levels = LEVELS[game_id]
    for name in levels.ladder:
        rating = levels.rating(name)
        assert rating is not None and rating.low <= rating.value <= rating.high, name


@pytest.mark.parametrize("game_id", LADDERS)
def test_the_rung_nearest_a_rating(game_id: str) -> None:
    levels = LEVELS[game_id]
    measured = sorted((rating.value, name) for name in levels.ladder if (rating := levels.rating(name)))
    lowest, highest = measured[0], measured[-1]
    assert levels.rated(lowest[0]) == lowest[1]  # exactly a rung's rating
    assert levels.rated(lowest[0] - 5_000) == lowest[1]  # below the ladder: its lowest rung
    assert levels.rated(highest[0] + 5_000) == highest[1]  # above it: the highest
    (a, low), (b, high) = measured[0], measured[1]
    if a < b:
        assert levels.rated((a + b) / 2) == low  # halfway: the lower of the two
        assert levels.rated((a + b) / 2 + 0.01) == high


def test_a_game_without_a_measured_ladder_says_so() -> None:
    levels = LEVELS["kalah"]
    unmeasured = GameLevels(
        "no-such-game",
        levels.levels,
        levels.default,
        levels.strategies,
        levels.review_scale,
        levels.judge,
        levels.ladder,
    )
    with pytest.raises(UnknownLevel) as raised:
        unmeasured.rated(1_000)
    assert raised.value.field == "rating"


# --- how a rung chooses: known numbers ---


def test_losses_are_win_chance_against_the_best() -> None:
    values = [math.log(3.0), 0.0]  # chances ¾ and ½
    assert losses(_Staged(), _result(values).alternatives, PLAIN) == pytest.approx([0.0, 0.25])


def test_a_lost_position_measures_the_losses_against_the_chance_left() -> None:
    values = [-math.log(9.0), -math.log(19.0)]  # chances 0.1 and 0.05: half the chance left is lost
    assert losses(_Staged(), _result(values).alternatives, PLAIN) == pytest.approx([0.0, 0.25])


def test_no_tolerance_plays_the_best_move() -> None:
    for seed in range(20):
        chosen = choose(
            _Staged(), _result([0.0, 2.0, -1.0]), _rung(0.0), PLAIN, lambda p, m: [], random.Random(seed), 1
        )
        assert chosen.move == 1 and chosen.value == 2.0


def test_analysis_plays_the_first_of_the_best_moves() -> None:
    chosen = choose(_Staged(), _result([1.0, 2.0, 2.0]), _rung(0.5), PLAIN, lambda p, m: [], None, 3)
    assert chosen.move == 1 and [s.move for s in chosen.alternatives] == [0, 1, 2]


def test_a_tolerance_errs_more_often_as_it_grows() -> None:
    def worse(mean_loss: float) -> int:
        picks = [
            choose(_Staged(), _result([1.0, 0.0, -3.0]), _rung(mean_loss), PLAIN, lambda p, m: [], random.Random(s), 1)
            for s in range(300)
        ]
        return sum(pick.move != 0 for pick in picks)

    errors = [worse(loss) for loss in (0.01, 0.1, 1.0)]
    assert errors[0] < errors[1] < errors[2]


def test_a_rung_that_takes_sure_moves_takes_one_even_when_it_scores_worse() -> None:
    def sure(position: object, moves: object) -> list[int]:
        return [2]

    for seed in range(20):
        with_sure = choose(_Staged(), _result([1.0, 0.0, -1.0]), _rung(0.0, True), PLAIN, sure, random.Random(seed), 1)
        assert with_sure.move == 2
    assert choose(_Staged(), _result([1.0, 0.0, -1.0]), _rung(0.0), PLAIN, sure, random.Random(0), 1).move == 0


def test_a_steady_rung_never_tolerates_more_than_the_largest_mistake() -> None:
    """A loss of ½ (chance ¾ against ¼): an unsteady rung of a large mean tolerance plays it now and then, a
    steady one never; a loss within the cap stays open to both."""
    values = [math.log(3.0), -math.log(3.0), math.log(2.0)]  # losses 0, ½, 1/12

    def picks(steady: bool) -> set[int]:
        rung = Rung("test", 1, 5.0, False, 0, steady=steady)
        return {
            choose(_Staged(), _result(values), rung, PLAIN, lambda p, m: [], random.Random(s), 1).move
            for s in range(200)
        }

    assert picks(steady=False) == {0, 1, 2}
    assert picks(steady=True) == {0, 2}
    assert Rung("test", 1, 5.0, False, 0, steady=True).max_loss == ladder.STEADY_LOSS < 0.5


def test_a_rung_chooses_among_its_best_few_whatever_the_top_n_asked() -> None:
    rung = Rung("test", 0, 100.0, False, 0, width=2)
    for seed in range(30):
        chosen = choose(_Staged(), _result([3.0, 2.0, 1.0, 0.0]), rung, PLAIN, lambda p, m: [], random.Random(seed), 4)
        assert chosen.move in (0, 1) and len(chosen.alternatives) == 4


class _Offering(_Staged):
    """A position of six moves."""

    def search_moves(self) -> list[int]:
        return list(range(6))


def test_a_rung_of_a_few_best_moves_scores_them_all_for_a_sure_one_it_left_out() -> None:
    asked: list[int] = []

    def scorer(position: object, budget: Budget, rng: random.Random, top_n: int, stop: object) -> SearchResult:
        asked.append(top_n)
        return _result([3.0, 2.0, 1.0, 0.0, -1.0, -2.0][:top_n])

    def fifth(position: object, moves: list[int]) -> list[int]:
        return [move for move in moves if move == 4]

    strategy = ladder.rung_strategy(Rung("test", 0, 0.01, True, 0, width=2), scorer, lambda: PLAIN, fifth)
    played = strategy(_Offering(), Budget(Limits(), Limits()), random.Random(0), 1, never)
    assert asked == [2, ladder.SCORED] and played.move == 4
    asked.clear()  # analysis answers the best move: no second search
    analysis = strategy(_Offering(), Budget(Limits(), Limits(), purpose="analysis"), random.Random(0), 1, never)
    assert asked == [2] and analysis.move == 0


def _positions_with_a_sure_move(game_id: str, count: int) -> list[object]:
    """Positions of random games where the game names a sure move among the moves the search scores."""
    levels = LEVELS[game_id]
    found = []
    for index in range(400):
        rng = random.Random(index)
        position = GAMES[game_id].new_position({}, f"sure-{index}")
        for _ in range(rng.randrange(1, 30)):
            if not position.to_move:
                break
            position = position.play(position.legal_moves_page(rng.randrange(position.legal_move_count()), 1)[0])
        if position.to_move and levels.sure_moves is not None:
            moves = list(position.search_moves())
            if levels.sure_moves(position, moves) and position.legal_move_count() > 1:
                found.append(position)
        if len(found) == count:
            break
    return found


@pytest.mark.parametrize("game_id", LADDERS)
def test_the_rungs_that_take_sure_moves_take_them(game_id: str) -> None:
    levels = LEVELS[game_id]
    takes = [name for name in levels.ladder[:-1] if "does not miss" in levels.level(name).description]
    assert takes, "a ladder's upper rungs take the game's sure moves"
    positions = _positions_with_a_sure_move(game_id, 3)
    assert positions, f"{game_id}: random games offer a sure move now and then"
    assert levels.sure_moves is not None
    for position in positions:
        for seed in range(3):
            answer = levels.best_move(position, takes[0], Limits(max_depth=1), seed)
            scored = [s.move for s in answer.alternatives] + [answer.move]
            offered = levels.sure_moves(position, scored)
            assert not offered or answer.move in offered, (position, answer.move, offered)
    # A rung choosing among its best few (the strongest level's search) takes a sure move it did not rank there.
    few = [name for name in takes if "its best" in levels.level(name).description]
    for name in few[-1:]:
        for position in positions:
            answer = levels.best_move(position, name, Limits(max_depth=1, max_nodes=300), 0)
            assert answer.move in levels.sure_moves(position, list(position.search_moves())), (name, answer.move)


@pytest.mark.parametrize("game_id", LADDERS)
def test_a_rung_plays_the_same_move_for_a_seed(game_id: str, path: bool) -> None:
    levels = LEVELS[game_id]
    position = GAMES[game_id].new_position({}, "rung")
    for _ in range(3):
        position = position.play(position.legal_moves_page(0, 1)[0])
    rung = levels.ladder[len(levels.ladder) // 2]
    small = small_limits(levels.level(rung), path)  # quick on either path; the choice is the rung's
    first = [levels.best_move(position, rung, small, seed).move for seed in range(4)]
    again = [levels.best_move(position, rung, small, seed).move for seed in range(4)]
    assert first == again


@pytest.mark.parametrize("game_id", LADDERS)
def test_every_game_rates_a_reviews_seats_on_its_ladder(game_id: str) -> None:
    levels = LEVELS[game_id]
    model = performance.performance(game_id)
    ratings = [rating.value for name in levels.ladder if (rating := levels.rating(name))]
    assert model is not None and len(ratings) == len(levels.ladder)  # every rung rated
    counted = json.loads(ladder.path_of(game_id).read_text())["performance"]["counts"]
    assert set(counted) == set(levels.ladder)  # and counted
    assert (model.low, model.high) == (min(ratings) - performance.MARGIN, max(ratings) + performance.MARGIN)
    perfect = performance.performance_rating(game_id, [0.0] * 40)
    careless = performance.performance_rating(game_id, [0.3] * 40)
    assert perfect is not None and careless is not None and careless.value < perfect.value
    assert model.low <= careless.value and perfect.value <= model.high
    assert performance.performance_rating(game_id, []) is None
