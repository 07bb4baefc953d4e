"""The OpenAPI document's examples are real: each recorded request, sent to a real gateway in front of a real
gRPC server, gets the recorded answer (``service/api/rest/examples.py``; ``make examples`` records them again)."""

from __future__ import annotations

import json

import pytest

from service.api.rest import examples, record_examples
from service.api.rest.openapi import SERVICE, openapi_document
from service.games import GAMES
from tests.api.conftest import http
from tests.api.test_analyze import post_stream

RECORD_AGAIN = "the recorded examples are stale: run `make examples`"


def test_there_is_an_example_per_game_for_every_method():
    recorded = {(example.method, example.game) for example in examples.load()}
    expected = {("ListGames", "")} | {
        (method.name, game)
        for method in SERVICE.methods
        if method.name != "ListGames" and (method.name not in examples.NOT_JSON or method.name in examples.STREAMED)
        for game in GAMES
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
    assert examples.comparable(answer) == examples.comparable(example.response), RECORD_AGAIN


def test_the_document_shows_the_examples():
    document = openapi_document()
    legal_moves = document["paths"]["/v1/games/{game}:legalMoves"]["post"]
    body = legal_moves["requestBody"]["content"]["application/json"]["examples"]
    answer = legal_moves["responses"]["200"]["content"]["application/json"]["examples"]
    assert list(body) == list(answer) == list(GAMES)
    assert [p["examples"] for p in legal_moves["parameters"]] == [{game: {"value": game} for game in GAMES}]
    kalah = examples.for_method("LegalMoves")[1]
    assert body["kalah"]["value"] == kalah.request and answer["kalah"]["value"] == kalah.response
    assert "all" in document["paths"]["/v1/games"]["get"]["responses"]["200"]["content"]["application/json"]["examples"]
    review = document["paths"]["/v1/games/{game}:review"]["post"]
    lines = review["responses"]["200"]["content"]["application/x-ndjson"]["examples"]
    assert list(review["requestBody"]["content"]["application/json"]["examples"]) == list(lines) == list(GAMES)
    assert all("summary" in line["value"]["result"] for line in lines.values())
