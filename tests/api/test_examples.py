"""The OpenAPI document's examples are real: each recorded request, sent to a real gateway in front of a real
gRPC server, gets the recorded answer (``service/api/rest/examples.py``; ``make examples`` records them again)."""

from __future__ import annotations

import json

import pytest

from service.api.rest import examples, record_examples
from service.api.rest.openapi import SERVICE, openapi_document
from service.games import BUILT_IN, REGISTRATIONS
from tests.api.conftest import http
from tests.api.test_analyze import post_stream

RECORD_AGAIN = "the recorded examples are stale: run `make examples`"
# The games with recorded examples: the service's own (a game registered from outside the tree keeps none).
OWN = [registration.id for registration in BUILT_IN]


def test_there_is_an_example_per_game_for_every_method():
    recorded = {(example.method, example.game) for example in examples.load()}
    expected = {("ListGames", "")} | {
        (method.name, game)
        for method in SERVICE.methods
        if method.name != "ListGames" and (method.name not in examples.NOT_JSON or method.name in examples.STREAMED)
        for game in OWN
    }
    # Exactly the methods that answer something else than one JSON message are left out.
    assert {m.name for m in SERVICE.methods if m.server_streaming or m.output_type.name == "HttpBody"} == (
        examples.NOT_JSON
    )
    assert recorded == expected


def test_the_recorded_requests_are_the_ones_the_engines_give_now():
    built = [(method, game, summary, body) for method, game, summary, body in record_examples.requests()]
    recorded = [(e.method, e.game, e.summary, e.request) for e in examples.load()]
    assert recorded == built, RECORD_AGAIN


@pytest.mark.parametrize("example", examples.load(), ids=lambda e: f"{e.method}-{e.name}")
def test_each_example_gets_its_recorded_answer(example, gateway_url):
    verb, path = example.http
    if example.method in examples.STREAMED:
        status, _, text = post_stream(gateway_url, path, example.request)
        answer = {"stream": [json.loads(line)["result"] for line in text.splitlines()]}
    else:
        status, answer, _ = http(gateway_url, path, example.request, method=verb)
    assert status == 200, answer
    if example.method == "ListGames":  # the games served beside the service's own are not in its examples
        answer["games"] = [game for game in answer["games"] if game["name"].removeprefix("games/") in OWN]
    assert examples.comparable(answer) == examples.comparable(example.response), RECORD_AGAIN


@pytest.mark.parametrize("registration", [r for r in REGISTRATIONS if r not in BUILT_IN], ids=lambda r: r.id)
def test_a_game_from_outside_the_tree_records_its_examples(registration):
    """``make examples`` would record this game's examples as it does the service's own: every request built
    from its engine answers 200 through the gateway app, with its structured forms in the generic `fields`."""
    recorded = record_examples.record([registration], listing=False)
    assert {example.method for example in recorded} == {
        method for method, game, _, _ in record_examples.requests(BUILT_IN[:1], listing=False)
    }
    new_game = next(example for example in recorded if example.method == "NewGame")
    assert set(new_game.response["position"]) == {"notation", "fields"}


def test_the_document_shows_the_examples():
    document = openapi_document()
    legal_moves = document["paths"]["/v1/games/{game}:legalMoves"]["post"]
    body = legal_moves["requestBody"]["content"]["application/json"]["examples"]
    answer = legal_moves["responses"]["200"]["content"]["application/json"]["examples"]
    assert list(body) == list(answer) == OWN
    assert [p["examples"] for p in legal_moves["parameters"]] == [{game: {"value": game} for game in OWN}]
    kalah = examples.for_method("LegalMoves")[1]
    assert body["kalah"]["value"] == kalah.request and answer["kalah"]["value"] == kalah.response
    assert "all" in document["paths"]["/v1/games"]["get"]["responses"]["200"]["content"]["application/json"]["examples"]
    review = document["paths"]["/v1/games/{game}:review"]["post"]
    lines = review["responses"]["200"]["content"]["application/x-ndjson"]["examples"]
    assert list(review["requestBody"]["content"]["application/json"]["examples"]) == list(lines) == OWN
    assert all("summary" in line["value"]["result"] for line in lines.values())
