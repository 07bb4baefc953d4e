"""The gateway's OpenAPI document (generated from the protos) and its CORS: the document is valid OpenAPI 3.1,
covers every HTTP rule, and real answers of the gateway conform to the schemas it states."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
import referencing
from google.api import annotations_pb2, field_behavior_pb2
from openapi_spec_validator import validate

from service.api.required import behaviors
from service.api.rest.gateway_local import local_client
from service.api.rest.openapi import SERVICE, _path_and_parameters, openapi_document
from service.games import BUILT_IN, BY_ID, GAMES
from tests.api.conftest import http

START = GAMES["reversi"].new_position().to_notation()


@pytest.fixture(scope="module")
def document(gateway_url: str) -> dict[str, Any]:
    status, body, headers = http(gateway_url, "/openapi.json")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    return body


def test_the_served_document_is_valid_openapi(document):
    validate(document)
    assert document["openapi"].startswith("3.1") and document == openapi_document()


def test_every_http_rule_is_a_path_with_its_operation(document):
    for method in SERVICE.methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        verb = rule.WhichOneof("pattern")
        path, _ = _path_and_parameters(getattr(rule, verb))
        operation = document["paths"][path][verb]
        assert operation["operationId"] == f"GameRules_{method.name}"
        responses = operation["responses"]
        assert set(responses) == {"200", "400", "401", "404", "429", "500", "503", "504"}  # no 4XX/5XX
        assert responses["429"] == {"$ref": "#/components/responses/TooManyRequests"}
        assert ("requestBody" in operation) == bool(rule.body)
    assert set(document["paths"]) >= {"/v1/games", "/v1/games/{name}", "/v1/games/{game}:bestMove"}


def test_path_templates():
    assert _path_and_parameters("/v1/{game=games/*}:newGame") == ("/v1/games/{game}:newGame", ["game"])
    assert _path_and_parameters("/v1/{name=games/*}") == ("/v1/games/{name}", ["name"])
    assert _path_and_parameters("/v1/{name=a/**}/x") == ("/v1/{name}/x", ["name"])
    assert _path_and_parameters("/v1/games") == ("/v1/games", [])


def test_schemas_follow_the_proto3_json_mapping(document):
    schemas = document["components"]["schemas"]
    body = schemas["gamerules.v1.GameRules.LegalMovesBody"]["properties"]
    assert set(body) == {"position", "pageSize", "pageToken"}  # `game` is in the path
    assert body["pageSize"]["type"] == "integer" and body["pageSize"]["format"] == "int32"
    assert body["position"]["$ref"] == "#/components/schemas/gamerules.v1.Position"
    assert schemas["gamerules.v1.Position.notation"]["required"] == ["notation"]
    assert "dotsAndBoxes" in schemas["gamerules.v1.Position.dotsAndBoxes"]["properties"]
    assert schemas["google.protobuf.Value"].keys() <= {"description"}  # free-form
    assert schemas["google.protobuf.Struct"]["type"] == "object"
    status = schemas["google.rpc.Status"]["properties"]
    assert status["details"]["items"]["$ref"] == "#/components/schemas/google.protobuf.Any"
    # Descriptions come from the proto comments.
    assert "FEN" in schemas["gamerules.v1.Position"]["description"]


def _validator(document: dict[str, Any], ref: str) -> jsonschema.Draft202012Validator:
    resource = referencing.Resource.from_contents(document, referencing.jsonschema.DRAFT202012)
    registry = referencing.Registry().with_resource("urn:openapi", resource)
    return jsonschema.Draft202012Validator({"$ref": "urn:openapi" + ref}, registry=registry)


def _response_ref(document: dict[str, Any], path: str, verb: str, code: str) -> str:
    response = document["paths"][path][verb]["responses"][code]
    if "$ref" in response:
        response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    return response["content"]["application/json"]["schema"]["$ref"]


def test_real_answers_conform_to_the_document(document, gateway_url):
    position = {"notation": START}
    calls = [
        ("/v1/games", "get", "/v1/games", None),
        ("/v1/games/{name}", "get", "/v1/games/reversi", None),
        ("/v1/games/{game}:newGame", "post", "/v1/games/reversi:newGame", {"options": {"size": 6}, "seed": "1"}),
        ("/v1/games/{game}:legalMoves", "post", "/v1/games/reversi:legalMoves", {"position": position, "pageSize": 2}),
        (
            "/v1/games/{game}:applyMove",
            "post",
            "/v1/games/reversi:applyMove",
            {"position": position, "move": {"notation": "d3"}},
        ),
        (
            "/v1/games/{game}:applyMoves",
            "post",
            "/v1/games/reversi:applyMoves",
            {"position": position, "moves": [{"notation": "d3"}, {"notation": "c3"}]},
        ),
        ("/v1/games/{game}:score", "post", "/v1/games/reversi:score", {"position": position}),
        ("/v1/games/{game}:batchScore", "post", "/v1/games/reversi:batchScore", {"positions": [position]}),
        (
            "/v1/games/{game}:bestMove",
            "post",
            "/v1/games/reversi:bestMove",
            {"position": position, "limits": {"maxDepth": 2}, "topN": 2},
        ),
    ]
    for template, verb, url, body in calls:
        status, answer, _ = http(gateway_url, url, body, method=verb.upper())
        assert status == 200, (url, answer)
        _validator(document, _response_ref(document, template, verb, "200")).validate(answer)
    status, answer, _ = http(gateway_url, "/v1/games/reversi:score", {"position": {"notation": "x"}})
    assert status == 400
    _validator(document, _response_ref(document, "/v1/games/{game}:score", "post", "400")).validate(answer)
    for detail in answer["details"]:
        name = detail["@type"].rsplit("/", 1)[1]
        _validator(document, f"#/components/schemas/{name}").validate(
            {key: value for key, value in detail.items() if key != "@type"}
        )


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_games_answers_conform_to_the_document(document, gateway_url, game_id):
    """Every registered game's answers conform, its structured forms among them (its own messages, or the
    generic `fields` of a game registered from outside the tree), and a structured form an answer carries,
    sent back without its notation, is read as the same position and move."""
    options = dict(BY_ID[game_id].example_options)
    base = f"/v1/games/{game_id}"
    status, new, _ = http(gateway_url, f"{base}:newGame", {"options": options, "seed": "1"})
    assert status == 200, new
    structured = {key: value for key, value in new["position"].items() if key != "notation"}
    assert len(structured) == 1, new["position"]  # exactly one structured form, the game's
    status, legal, _ = http(gateway_url, f"{base}:legalMoves", {"position": structured, "pageSize": 3})
    assert status == 200, legal
    move = {key: value for key, value in legal["moves"][0].items() if key != "notation"}
    status, applied, _ = http(gateway_url, f"{base}:applyMove", {"position": structured, "move": move})
    assert status == 200, applied
    status, by_notation, _ = http(
        gateway_url,
        f"{base}:applyMove",
        {"position": {"notation": new["position"]["notation"]}, "move": {"notation": legal["moves"][0]["notation"]}},
    )
    assert status == 200 and by_notation == applied
    after = applied["position"]
    answers = [
        ("/v1/games/{game}:newGame", new),
        ("/v1/games/{game}:legalMoves", legal),
        ("/v1/games/{game}:applyMove", applied),
    ]
    for template, body in [
        ("/v1/games/{game}:score", {"position": after}),
        ("/v1/games/{game}:bestMove", {"position": after, "limits": {"maxDepth": 2}, "topN": 2}),
    ]:
        status, answer, _ = http(gateway_url, base + template.removeprefix("/v1/games/{game}"), body)
        assert status == 200, (template, answer)
        answers.append((template, answer))
    status, answer, _ = http(gateway_url, base)
    assert status == 200
    answers.append(("/v1/games/{name}", answer))
    for template, answer in answers:
        verb = "get" if template == "/v1/games/{name}" else "post"
        _validator(document, _response_ref(document, template, verb, "200")).validate(answer)


def test_required_follows_the_field_behavior(document):
    """REQUIRED fields (``google.api.field_behavior``) are ``required`` in request schemas; OUTPUT_ONLY ones are
    ``readOnly``; answers list every field the servicer always fills."""
    schemas = document["components"]["schemas"]
    assert schemas["gamerules.v1.GameRules.ApplyMoveBody"]["required"] == ["position", "move"]
    assert schemas["gamerules.v1.GameRules.NewGameBody"].get("required") is None  # options and seed default
    assert schemas["gamerules.v1.KalahPosition"]["required"] == ["pits", "stores", "seedsPerPit", "pitsPerSide"]
    assert schemas["gamerules.v1.ReversiMove"].get("required") is None  # a square or a pass
    for body in [name for name in schemas if name.endswith("Body")]:
        method = SERVICE.methods_by_name[body.rsplit(".", 1)[1].removesuffix("Body")]
        expected = [
            field.json_name
            for field in method.input_type.fields
            if field_behavior_pb2.REQUIRED in behaviors(field) and field.name != "game"
        ]
        assert schemas[body].get("required", []) == expected, body
    game = schemas["gamerules.v1.Game"]
    assert all(prop["readOnly"] for prop in game["properties"].values())
    assert set(schemas["gamerules.v1.ScoreResponse"]["required"]) >= {"scores", "gameOver", "reason", "position"}
    assert "winner" not in schemas["gamerules.v1.ScoreResponse"]["required"]  # optional: absent for a draw
    paths = document["paths"]
    assert paths["/v1/games/{game}:score"]["post"]["requestBody"]["required"] is True
    assert paths["/v1/games/{game}:newGame"]["post"]["requestBody"]["required"] is False


def test_positions_and_moves_are_a_notation_or_a_structured_form(document):
    schemas = document["components"]["schemas"]
    for message, forms in [("Position", "Position"), ("Move", "Move")]:
        branches = [ref["$ref"].rsplit("/", 1)[1] for ref in schemas[f"gamerules.v1.{message}"]["oneOf"]]
        # A branch per game with messages of its own (the built-in ones), the generic `fields`, then the notation.
        games = [registration.id.replace("-", "_") for registration in BUILT_IN] + ["fields"]
        expected = [f"gamerules.v1.{message}.{_camel(game)}" for game in sorted(games)] + [
            f"gamerules.v1.{message}.notation"
        ]
        assert sorted(branches[:-1]) == sorted(expected[:-1]) and branches[-1] == expected[-1], forms
        for branch in branches:
            assert schemas[branch]["additionalProperties"] is False
    # Exactly one branch matches a request's notation alone, a structured form, and an answer's both.
    validator = _validator(document, "#/components/schemas/gamerules.v1.Position")
    structured = {"kalah": {"pits": [4] * 12, "stores": [0, 0], "seedsPerPit": 4, "pitsPerSide": 6}}
    generic = {"fields": {"cells": "x........", "to_move": 2}}
    for position in [{"notation": START}, structured, {**structured, "notation": "x"}, generic]:
        validator.validate(position)
    for position in [{}, {"notation": START, "kalah": {}, "reversi": {}}, {"notation": START, "extra": 1}]:
        assert not validator.is_valid(position), position


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def test_ranges_and_closed_sets(document):
    schemas = document["components"]["schemas"]
    best = schemas["gamerules.v1.GameRules.BestMoveBody"]["properties"]
    assert (best["topN"]["minimum"], best["topN"]["maximum"]) == (0, 64)
    assert best["seed"]["maxLength"] == 1024
    assert schemas["gamerules.v1.SearchLimits"]["properties"]["maxDepth"]["minimum"] == 0
    assert schemas["gamerules.v1.GameRules.ApplyMovesBody"]["properties"]["moves"]["maxItems"] == 4096
    assert schemas["gamerules.v1.GameRules.BatchScoreBody"]["properties"]["positions"]["maxItems"] == 100
    assert "enum" in schemas["gamerules.v1.Event"]["properties"]["type"]
    assert schemas["gamerules.v1.ScoreResponse"]["properties"]["winner"]["maximum"] == 2


def test_errors_security_and_servers(document):
    responses = document["components"]["responses"]
    assert responses["TooManyRequests"]["headers"]["Retry-After"]["required"] is True
    for response in responses.values():
        assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/google.rpc.Status"}
    schemes = document["components"]["securitySchemes"]
    assert schemes["bearer"] == {**schemes["bearer"], "type": "http", "scheme": "bearer"}
    assert schemes["apiKey"] == {**schemes["apiKey"], "type": "apiKey", "in": "header", "name": "X-Api-Key"}
    assert document["security"] == [{}, {"bearer": []}, {"apiKey": []}]  # keys are off on the test gateway
    keyed = openapi_document(api_keys=True)
    validate(keyed)
    assert keyed["security"] == [{"bearer": []}, {"apiKey": []}]
    assert document["servers"][0]["url"] == "/"


def test_descriptions_cite_the_projects_docs(document):
    text = json.dumps(document)
    assert "rules.md" not in text and "to_fields" not in text and "§" not in text
    assert "docs/api.md" in text and "docs/games/" in text


# --- CORS --------------------------------------------------------------------------------------------


def _client(monkeypatch, origins: str, backend: str = "127.0.0.1:9"):
    if origins:
        monkeypatch.setenv("GAMERULES_CORS_ORIGINS", origins)
    else:
        monkeypatch.delenv("GAMERULES_CORS_ORIGINS", raising=False)
    return local_client(backend, timeout_s=5)


def test_no_cors_headers_by_default(monkeypatch, grpc_address):
    client = _client(monkeypatch, "", grpc_address)
    answer = client.get("/v1/games", headers={"Origin": "https://portal.example"})
    assert answer.status_code == 200 and "Access-Control-Allow-Origin" not in answer.headers
    preflight = client.options(
        "/v1/games/reversi:legalMoves",
        headers={"Origin": "https://portal.example", "Access-Control-Request-Method": "POST"},
    )
    assert "Access-Control-Allow-Origin" not in preflight.headers


def test_cors_for_a_configured_origin(monkeypatch, grpc_address):
    client = _client(monkeypatch, "https://portal.example, http://localhost:3000", grpc_address)
    preflight = client.options(
        "/v1/games/reversi:legalMoves",
        headers={
            "Origin": "https://portal.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, grpc-timeout",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "https://portal.example"
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    assert "grpc-timeout" in preflight.headers["Access-Control-Allow-Headers"].lower()
    assert "Origin" in preflight.headers["Vary"]

    answer = client.post(
        "/v1/games/reversi:legalMoves",
        json={"position": {"notation": START}},
        headers={"Origin": "http://localhost:3000"},
    )
    assert answer.status_code == 200 and answer.json["totalSize"] == 4
    assert answer.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"
    assert "Retry-After" in answer.headers["Access-Control-Expose-Headers"]
    document = client.get("/openapi.json", headers={"Origin": "https://portal.example"})
    assert document.headers["Access-Control-Allow-Origin"] == "https://portal.example"
    # Errors carry the headers too, so the browser lets the portal read the Status.
    error = client.post("/v1/games/nope:score", json={}, headers={"Origin": "https://portal.example"})
    assert error.status_code == 404 and error.headers["Access-Control-Allow-Origin"] == "https://portal.example"


def test_cors_refuses_other_origins_and_allows_any_with_a_star(monkeypatch, grpc_address):
    client = _client(monkeypatch, "https://portal.example", grpc_address)
    preflight = client.options(
        "/v1/games", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"}
    )
    assert "Access-Control-Allow-Origin" not in preflight.headers
    answer = client.get("/v1/games", headers={"Origin": "https://evil.example"})
    assert answer.status_code == 200 and "Access-Control-Allow-Origin" not in answer.headers
    assert (
        "Access-Control-Allow-Origin"
        not in client.get("/healthz", headers={"Origin": "https://portal.example"}).headers
    )

    client = _client(monkeypatch, "*", grpc_address)
    answer = client.get("/v1/games", headers={"Origin": "https://anyone.example"})
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
