"""What the contract promises, against a real gRPC server: every REQUIRED field (``google.api.field_behavior``)
is enforced, every closed string set holds every value the service produces, and the ranges the OpenAPI
document states are the ones the servicer enforces."""

from __future__ import annotations

import random

import grpc
import pytest
from google.api import field_behavior_pb2
from google.protobuf import json_format
from google.protobuf.message import Message

from gamerules.v1 import gamerules_pb2 as pb
from service.api.codec import encode_move, encode_position, oneof_name
from service.api.required import behaviors
from service.api.rest import examples
from service.api.rest.openapi import FIELD_SCHEMAS, openapi_document, result_reasons
from service.core import EVENT_TYPES, OPTION_TYPES, STOP_REASONS
from service.games import GAMES
from tests.api.test_grpc import details


def _request(example: examples.Example) -> Message:
    """The recorded example's request as the gRPC message."""
    message = getattr(pb, f"{example.method}Request")()
    json_format.ParseDict(example.request or {}, message)
    if "game" in message.DESCRIPTOR.fields_by_name:
        message.game = example.game
    else:
        message.name = example.game
    return message


def _required(message: Message) -> list[str]:
    return [f.name for f in message.DESCRIPTOR.fields if field_behavior_pb2.REQUIRED in behaviors(f)]


def _answered(method, streamed: bool):  # type: ignore[no-untyped-def]
    """A call that reads a server stream to its end (where its errors surface), or the unary call itself."""
    if not streamed:
        return method
    return lambda request, timeout: list(method(request, timeout=timeout))


def _refused(call, request: Message, field: str, reason: str) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        call(request, timeout=10)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT, raised.value.details()
    assert details(raised.value) == (reason, [field]), raised.value.details()


def test_every_required_request_field_is_enforced(stub):
    checked = set()
    for example in examples.load():
        if example.method == "ListGames":
            continue
        valid = _request(example)
        call = _answered(getattr(stub, example.method), example.method in examples.STREAMED)
        call(valid, timeout=30)  # the example itself is accepted
        for name in _required(valid):
            request = type(valid)()
            request.CopyFrom(valid)
            request.ClearField(name)
            reason = {"position": "INVALID_POSITION", "move": "INVALID_MOVE", "moves": "INVALID_MOVE"}
            _refused(call, request, name, reason.get(name, "INVALID_ARGUMENT"))
            checked.add(f"{example.method}Request.{name}")
    assert "ApplyMoveRequest.move" in checked and "GetGameRequest.name" in checked and len(checked) >= 12


def test_every_required_field_of_a_structured_form_is_enforced(stub):
    checked = 0
    for game in GAMES.values():
        start = game.new_position(game.default_options(), "7")
        own = oneof_name(game)
        position = pb.Position(**{own: getattr(encode_position(game, start), own)})
        move = pb.Move(**{own: getattr(encode_move(game, start, start.legal_moves()[0]), own)})
        for name in _required(getattr(position, own)):
            broken = pb.Position()
            broken.CopyFrom(position)
            getattr(broken, own).ClearField(name)
            _refused(
                stub.Score, pb.ScoreRequest(game=game.id, position=broken), f"position.{own}.{name}", "INVALID_POSITION"
            )
            checked += 1
        for name in _required(getattr(move, own)):
            broken_move = pb.Move()
            broken_move.CopyFrom(move)
            getattr(broken_move, own).ClearField(name)
            request = pb.ApplyMoveRequest(game=game.id, position=position, move=broken_move)
            _refused(stub.ApplyMove, request, f"move.{own}.{name}", "INVALID_MOVE")
            checked += 1
    assert checked >= 14


def test_an_unknown_game_is_reported_before_a_missing_field(stub):
    with pytest.raises(grpc.RpcError) as raised:
        stub.Score(pb.ScoreRequest(game="chess"), timeout=10)
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND


def test_the_closed_sets_hold_every_value_the_service_produces(stub):
    """Random games in every game through the service: every event type, result reason and stop reason it
    answers is in its set (service/core/values.py), and the document lists exactly those sets."""
    rng = random.Random(16)
    seen: dict[str, set[str]] = {"event": set(), "reason": set(), "stop": set(), "option": set()}
    for game in GAMES.values():
        seen["option"] |= {option.type for option in stub.GetGame(pb.GetGameRequest(name=game.id)).options}
        for _ in range(3):
            position = stub.NewGame(pb.NewGameRequest(game=game.id, seed=str(rng.random())), timeout=10).position
            while True:
                score = stub.Score(pb.ScoreRequest(game=game.id, position=position), timeout=10)
                if score.game_over:
                    seen["reason"].add(score.reason)
                    break
                if rng.random() < 0.05:
                    limits = rng.choice([pb.SearchLimits(max_depth=1), pb.SearchLimits(max_nodes=50)])
                    best = stub.BestMove(pb.BestMoveRequest(game=game.id, position=position, limits=limits), timeout=30)
                    seen["stop"].add(best.stop_reason)
                moves = stub.LegalMoves(pb.LegalMovesRequest(game=game.id, position=position), timeout=10).moves
                step = stub.ApplyMove(
                    pb.ApplyMoveRequest(game=game.id, position=position, move=rng.choice(moves)), timeout=10
                )
                seen["event"] |= {event.type for event in step.events}
                position = step.position
    assert seen["event"] <= set(EVENT_TYPES) and {"place", "game_over"} <= seen["event"]
    assert seen["reason"] <= set(result_reasons()) and len(seen["reason"]) >= 4
    assert seen["stop"] <= set(STOP_REASONS) and seen["stop"]
    assert seen["option"] <= set(OPTION_TYPES) and {"int", "bool", "enum"} <= seen["option"]

    schemas = openapi_document()["components"]["schemas"]
    assert schemas["gamerules.v1.Event"]["properties"]["type"]["enum"] == list(EVENT_TYPES)
    assert schemas["gamerules.v1.ScoreResponse"]["properties"]["reason"]["enum"] == ["", *result_reasons()]
    assert schemas["gamerules.v1.BestMoveResponse"]["properties"]["stopReason"]["enum"] == list(STOP_REASONS)
    assert schemas["gamerules.v1.GameOption"]["properties"]["type"]["enum"] == list(OPTION_TYPES)


def _bounds(field: str) -> tuple[int, int | None]:
    schema = FIELD_SCHEMAS[field]
    return schema["minimum"], schema.get("maximum")


@pytest.mark.parametrize(
    ("field", "call", "build"),
    [
        (
            "gamerules.v1.BestMoveRequest.top_n",
            "BestMove",
            lambda p, n: pb.BestMoveRequest(position=p, top_n=n, limits=pb.SearchLimits(max_depth=1)),
        ),
        (
            "gamerules.v1.LegalMovesRequest.page_size",
            "LegalMoves",
            lambda p, n: pb.LegalMovesRequest(position=p, page_size=n),
        ),
        (
            "gamerules.v1.SearchLimits.max_depth",
            "BestMove",
            lambda p, n: pb.BestMoveRequest(position=p, limits=pb.SearchLimits(max_depth=n, max_nodes=200)),
        ),
        (
            "gamerules.v1.SearchLimits.max_nodes",
            "BestMove",
            lambda p, n: pb.BestMoveRequest(position=p, limits=pb.SearchLimits(max_depth=1, max_nodes=n)),
        ),
    ],
)
def test_the_documented_ranges_are_enforced(stub, field, call, build):
    """Each bound the document states is the last value the servicer accepts."""
    low, high = _bounds(field)
    position = pb.Position(notation=examples.for_method("LegalMoves")[0].request["position"]["notation"])
    name = field.rsplit(".", 1)[1]
    for value, accepted in [(low, True), (low - 1, False)] + ([(high, True), (high + 1, False)] if high else []):
        request = build(position, value)
        request.game = "reversi"
        if accepted:
            getattr(stub, call)(request, timeout=30)
        else:
            with pytest.raises(grpc.RpcError) as raised:
                getattr(stub, call)(request, timeout=30)
            assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert any(f.endswith(name) for f in details(raised.value)[1]), raised.value.details()
