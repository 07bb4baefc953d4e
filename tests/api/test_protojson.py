"""``service/api/protojson.py`` writes exactly what ``json_format.MessageToDict`` writes, but whole doubles as
integers (``8``, not ``8.0``): on every answer of random games in all five games (over the real gRPC server),
and on the values json_format writes specially."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from gamerules.v1 import gamerules_pb2 as pb
from service.api import protojson
from service.games import GAMES


def whole(value: Any) -> Any:
    """json_format's output as the API writes it: a whole float (within 2**53) an int."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: whole(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole(item) for item in value]
    return value


def same_as_json_format(message: Message) -> None:
    for proto_names in (False, True):
        expected = whole(
            json_format.MessageToDict(
                message, preserving_proto_field_name=proto_names, always_print_fields_with_no_presence=True
            )
        )
        got = protojson.to_dict(message, proto_names)
        # The same JSON text: the same keys in the same order, and ints where the numbers are whole.
        assert json.dumps(got) == json.dumps(expected), (type(message).__name__, proto_names)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_answers_of_random_games(stub, game):
    rng = random.Random(f"protojson {game}")
    same_as_json_format(stub.GetGame(pb.GetGameRequest(name=f"games/{game}"), timeout=10))
    for _ in range(2):
        new = stub.NewGame(pb.NewGameRequest(game=game, seed=str(rng.random())), timeout=10)
        same_as_json_format(new)
        position = new.position
        for ply in range(200):
            legal = stub.LegalMoves(pb.LegalMovesRequest(game=game, position=position, page_size=50), timeout=10)
            same_as_json_format(legal)
            same_as_json_format(stub.Score(pb.ScoreRequest(game=game, position=position), timeout=10))
            if not legal.moves:
                break
            if ply % 10 == 0:
                best = stub.BestMove(
                    pb.BestMoveRequest(
                        game=game, position=position, level="easy" if game != "reversi" else "beginner", top_n=3
                    ),
                    timeout=30,
                )
                same_as_json_format(best)
            move = rng.choice(list(legal.moves))
            applied = stub.ApplyMove(pb.ApplyMoveRequest(game=game, position=position, move=move), timeout=10)
            same_as_json_format(applied)
            position = applied.position


def test_list_games_and_the_values_json_format_writes_specially(stub):
    same_as_json_format(stub.ListGames(pb.ListGamesRequest(), timeout=10))
    for value in (math.inf, -math.inf, math.nan, 0.0, -2.5, 1e300, 38.0, 2.0**53, 2.0**53 + 2):
        answer = pb.BestMoveResponse(value=value, alternatives=[pb.ScoredMove(value=value)])
        # NaN is not equal to itself: compare the JSON texts, keys sorted.
        expected = whole(json_format.MessageToDict(answer, always_print_fields_with_no_presence=True))
        assert json.dumps(protojson.to_dict(answer), sort_keys=True) == json.dumps(expected, sort_keys=True)
    assert json.dumps(protojson.to_dict(pb.BestMoveResponse(value=38.0))["value"]) == "38"
    same_as_json_format(pb.ScoreResponse())  # every field at its default, the optional ones absent
    same_as_json_format(pb.Position())  # a oneof with nothing set


def test_whole_option_defaults_are_integers(stub):
    described = protojson.to_dict(stub.GetGame(pb.GetGameRequest(name="games/reversi"), timeout=10))
    size = next(option for option in described["options"] if option["name"] == "size")
    assert '"defaultValue": 8,' in json.dumps(size) and '"maximum": ' in json.dumps(size)
