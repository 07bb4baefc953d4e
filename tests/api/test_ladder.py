"""The rated ladder over both transports (docs/api.md: Rated ladder): GetGame lists every level with its rating,
interval, think-time hint and place on the ladder; BestMove and AnalyzePosition choose the rung nearest a
``rating`` at the edges (a rung's own rating, halfway between two, below the lowest, above the highest, 0), name it
in ``level``, and refuse a rating beside a level, out of range, or over HTTP not a JSON integer; ReviewGame rates
each seat. Generic over the registry: every number comes from the shipped ratings, never from here, and a game
whose ladder is not measured is held to its refusal instead."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable

import grpc
import pytest

from gamerules.v1 import gamerules_pb2 as pb
from service.api.limits import MAX_RATING, MIN_RATING
from service.games import GAMES, LEVELS
from service.levels import performance
from tests.api.conftest import http
from tests.api.test_analyze import post_stream
from tests.api.test_gateway import fields_of, reason_of
from tests.api.test_grpc import fails

GAME_IDS = sorted(LEVELS)
# A cheap search at any level, the strongest included: the tests are about which level plays, not how well.
CHEAP = {"maxNodes": 300}


def start(game_id: str) -> str:
    return GAMES[game_id].new_position().to_notation()


def measured(game_id: str) -> list[tuple[float, str]]:
    """(rating, rung) of every rung of the game's ladder that has a measured rating."""
    levels = LEVELS[game_id]
    return [(found.value, name) for name in levels.ladder if (found := levels.rating(name)) is not None]


def nearest(rungs: Iterable[tuple[float, str]], rating: int) -> str | None:
    """The rule, written again: the rung whose rating is nearest, the lower of two as near; None where two rungs
    share that rating (no rule tells them apart)."""
    listed = list(rungs)
    # Distances to a millionth of a point, as the service measures them: a midpoint is a tie however it rounds.
    distance = min(round(abs(value - rating), 6) for value, _ in listed)
    near = sorted(value for value, _ in listed if round(abs(value - rating), 6) == distance)
    names = [name for value, name in listed if value == near[0]]
    return names[0] if len(names) == 1 else None


def probes(rungs: list[tuple[float, str]]) -> list[int]:
    """Ratings at the edges: each rung's own (rounded), both sides of each midpoint between neighbours (the lower
    wins a tie), below the lowest, above the highest, the ends of the range and 0 (a rating, not "none")."""
    values = sorted({value for value, _ in rungs})
    found = {MIN_RATING, MAX_RATING, 0, math.floor(values[0]) - 1, math.ceil(values[-1]) + 1}
    found |= {round(value) for value in values}
    for low, high in itertools.pairwise(values):
        middle = math.floor((low + high) / 2)
        found |= {middle, middle + 1}
    return sorted(rating for rating in found if MIN_RATING <= rating <= MAX_RATING)


def search(game_id: str, **fields: object) -> pb.BestMoveRequest:
    return pb.BestMoveRequest(
        game=game_id,
        position=pb.Position(notation=start(game_id)),
        limits=pb.SearchLimits(max_nodes=CHEAP["maxNodes"]),
        **fields,  # type: ignore[arg-type]
    )


# --- GetGame ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_level_is_listed_with_its_rating_interval_hint_and_rung(stub, gateway_url, game_id):
    levels = LEVELS[game_id]
    described = stub.GetGame(pb.GetGameRequest(name=game_id), timeout=10)
    assert [level.name for level in described.levels] == [level.name for level in levels.levels]
    for listed, level in zip(described.levels, levels.levels, strict=True):
        rating = levels.rating(level.name)
        assert listed.HasField("rating") == (rating is not None), level.name
        if rating is not None:
            assert (listed.rating, listed.rating_low, listed.rating_high) == (rating.value, rating.low, rating.high)
            assert listed.rating_low <= listed.rating <= listed.rating_high
        assert listed.think_ms == level.think_ms >= 0
        assert listed.rung == (levels.ladder.index(level.name) + 1 if level.name in levels.ladder else 0)
    # The rungs in ladder order, weakest first, ending with the strongest level; the hint never falls up the ladder.
    rungs = [level for level in described.levels if level.rung]
    assert [level.rung for level in rungs] == list(range(1, len(levels.ladder) + 1))
    assert [level.name for level in rungs] == list(levels.ladder)
    assert not rungs or rungs[-1].name == levels.strongest  # a game may have no ladder: no rungs, no ratings
    assert [level.think_ms for level in rungs] == sorted(level.think_ms for level in rungs)
    # Every measured rung can be asked for: its rating lies inside the range a request may give.
    assert all(MIN_RATING <= value <= MAX_RATING for value, _ in measured(game_id))

    # REST: the same levels in proto3 JSON (thinkMs and rung always written, the rating only where measured).
    status, body, _ = http(gateway_url, f"/v1/games/{game_id}")
    assert status == 200
    for listed, level in zip(body["levels"], described.levels, strict=True):
        assert (listed["name"], listed["thinkMs"], listed["rung"]) == (level.name, level.think_ms, level.rung)
        if level.HasField("rating"):
            shown = (listed["rating"], listed["ratingLow"], listed["ratingHigh"])
            assert shown == (level.rating, level.rating_low, level.rating_high)
        else:
            assert not {"rating", "ratingLow", "ratingHigh"} & set(listed)


# --- choosing by rating ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_rating_chooses_the_nearest_rung_at_the_edges(stub, game_id):
    rungs = measured(game_id)
    if not rungs:
        fails(stub.BestMove, search(game_id, rating=1000), grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_LEVEL", "rating")
        return
    checked = 0
    for rating in probes(rungs):
        expected = nearest(rungs, rating)
        if expected is None:
            continue
        answer = stub.BestMove(search(game_id, rating=rating, seed="ladder"), timeout=30)
        assert answer.level == expected == LEVELS[game_id].rated(rating), rating
        checked += 1
    assert checked >= len({value for value, _ in rungs})
    # Below the lowest rung and above the highest: the ends of the ladder.
    lowest, highest = min(rungs)[1], max(rungs)[1]
    assert stub.BestMove(search(game_id, rating=MIN_RATING), timeout=30).level == lowest
    assert stub.BestMove(search(game_id, rating=MAX_RATING), timeout=30).level == highest


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_without_a_rating_the_default_level_plays(stub, game_id):
    assert stub.BestMove(search(game_id), timeout=30).level == LEVELS[game_id].default


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_rating_plays_as_the_rung_it_chooses(stub, game_id):
    """The rung a rating chooses answers as that level asked by name: same seed, same move."""
    rungs = measured(game_id)
    if not rungs:
        pytest.skip(f"{game_id}'s ladder is not measured")
    value, _ = sorted(rungs)[len(rungs) // 2]
    by_rating = stub.BestMove(search(game_id, rating=round(value), seed="same"), timeout=30)
    by_name = stub.BestMove(search(game_id, level=by_rating.level, seed="same"), timeout=30)
    assert by_rating.level == nearest(rungs, round(value))
    assert (by_rating.move, by_rating.value, by_rating.pv) == (by_name.move, by_name.value, by_name.pv)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_analysis_by_rating_streams_the_rungs_search(stub, gateway_url, game_id):
    rungs = measured(game_id)
    if not rungs:
        pytest.skip(f"{game_id}'s ladder is not measured")
    rating = round(sorted(rungs)[0][0])
    expected = nearest(rungs, rating)
    # The same fields and numbers as BestMove's (a BestMove body is sent to AnalyzePosition as it is).
    message = pb.AnalyzePositionRequest.FromString(search(game_id, rating=rating).SerializeToString())
    updates = list(stub.AnalyzePosition(message, timeout=30))
    assert updates[-1].final and all(update.analysis.level == expected for update in updates)
    body = {"position": {"notation": start(game_id)}, "rating": rating, "limits": CHEAP, "purpose": "play"}
    status, _, text = post_stream(gateway_url, f"/v1/games/{game_id}:analyze", body)
    lines = [json.loads(line)["result"] for line in text.splitlines()]
    assert status == 200 and lines[-1]["final"] and lines[-1]["analysis"]["level"] == expected
    status, answer, _ = http(gateway_url, f"/v1/games/{game_id}:bestMove", body)
    assert status == 200 and answer["level"] == expected


def test_rest_chooses_like_grpc_at_the_ends(stub, gateway_url):
    for game_id in GAME_IDS:
        rungs = measured(game_id)
        for rating in (MIN_RATING, MAX_RATING):
            body = {"position": {"notation": start(game_id)}, "rating": rating, "limits": CHEAP}
            status, answer, _ = http(gateway_url, f"/v1/games/{game_id}:bestMove", body)
            if not rungs:
                assert status == 400 and reason_of(answer) == "UNKNOWN_LEVEL" and fields_of(answer) == ["rating"]
                continue
            assert status == 200 and answer["level"] == (min(rungs) if rating < 0 else max(rungs))[1]


# --- refusals -------------------------------------------------------------------------------------------------

REFUSED = (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", "rating")


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"rating": 1200, "level": "hard"}, "give a level or a rating, not both"),
        ({"rating": MAX_RATING + 1}, f"must be {MIN_RATING} to {MAX_RATING}"),
        ({"rating": MIN_RATING - 1}, f"must be {MIN_RATING} to {MAX_RATING}"),
        ({"rating": -(2**31)}, f"must be {MIN_RATING} to {MAX_RATING}"),
    ],
)
def test_a_rating_beside_a_level_or_out_of_range_is_refused(stub, gateway_url, fields, said):
    request = search("kalah", **fields)
    analysis = pb.AnalyzePositionRequest.FromString(request.SerializeToString())
    for message in (
        fails(stub.BestMove, request, *REFUSED),
        fails(lambda r, timeout: list(stub.AnalyzePosition(r, timeout=timeout)), analysis, *REFUSED),
    ):
        assert message.startswith("rating: ") and said in message
    body = {"position": {"notation": start("kalah")}, **fields}
    for verb in ("bestMove", "analyze"):
        status, answer, _ = http(gateway_url, f"/v1/games/kalah:{verb}", body)
        assert status == 400 and reason_of(answer) == "INVALID_ARGUMENT" and fields_of(answer) == ["rating"]
        assert said in answer["message"]


@pytest.mark.parametrize("value", ["1200", 1200.5, True, [1200], {"value": 1200}, 2**40])
def test_over_http_a_rating_is_a_json_integer(gateway_url, value):
    body = {"position": {"notation": start("kalah")}, "rating": value}
    for verb in ("bestMove", "analyze"):
        status, answer, _ = http(gateway_url, f"/v1/games/kalah:{verb}", body)
        assert status == 400 and reason_of(answer) == "INVALID_JSON", answer
        assert fields_of(answer) == ["rating"] and answer["message"].startswith("rating: ")


# --- reviews ---------------------------------------------------------------------------------------------------


def opening(game_id: str, plies: int = 6) -> list[str]:
    """The first legal move each turn, as far as ``plies`` or the end."""
    position, moves = GAMES[game_id].new_position(), []
    while len(moves) < plies and position.outcome() is None:
        move = position.legal_moves()[0]
        moves.append(position.move_notation(move))
        position = position.play(move)
    return moves


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_review_rates_each_seat_with_an_interval(stub, game_id):
    moves = opening(game_id)
    # A Monte Carlo judge (Strands) ignores the depth: the node budget keeps its searches as small.
    limits = pb.SearchLimits(max_depth=2, max_nodes=2_000)
    message = pb.ReviewGameRequest(game=game_id, moves=[pb.Move(notation=move) for move in moves], limits=limits)
    answers = list(stub.ReviewGame(message, timeout=60))
    plies, summary = [answer.ply for answer in answers[1:-1]], answers[-1].summary
    calibrated = performance.performance(game_id) is not None
    for seat in summary.seats:
        judged = sum(1 for ply in plies if ply.seat == seat.seat and ply.reviewed and not ply.forced)
        # Rated exactly where the accuracy is (the same moves), and the game has a calibration.
        assert seat.HasField("rating") == (calibrated and judged > 0) == (calibrated and seat.HasField("accuracy"))
        assert seat.HasField("rating_low") == seat.HasField("rating_high") == seat.HasField("rating")
        if seat.HasField("rating"):
            assert seat.rating_low <= seat.rating <= seat.rating_high
            assert seat.rating_high - seat.rating_low > 0


def test_the_review_rating_over_http(stub, gateway_url):
    game_id = GAME_IDS[0]
    moves = opening(game_id)
    body = {"moves": [{"notation": move} for move in moves], "limits": {"maxDepth": 2}}
    status, _, text = post_stream(gateway_url, f"/v1/games/{game_id}:review", body)
    seats = [json.loads(line)["result"] for line in text.splitlines()][-1]["summary"]["seats"]
    message = pb.ReviewGameRequest(
        game=game_id, moves=[pb.Move(notation=move) for move in moves], limits=pb.SearchLimits(max_depth=2)
    )
    expected = list(stub.ReviewGame(message, timeout=60))[-1].summary.seats
    assert status == 200 and len(seats) == len(expected) == 2
    for shown, seat in zip(seats, expected, strict=True):
        if seat.HasField("rating"):
            assert (shown["rating"], shown["ratingLow"], shown["ratingHigh"]) == (
                seat.rating,
                seat.rating_low,
                seat.rating_high,
            )
        else:
            assert not {"rating", "ratingLow", "ratingHigh"} & set(shown)
