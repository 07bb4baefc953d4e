"""The gateway's one request path (``service/api/rest/gateway_path.py``): every route, rules calls, GET
routes, searches, streams, ``:render`` and the fixed routes, answered through the front and the path in the
worker's event loop; the rules calls' answers for good and bad requests, with and without API keys; what a
route needs read from the contract."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from service.api import auth
from service.api.rest.gateway import build_routes
from service.api.rest.gateway_asgi import Front
from service.api.rest.gateway_config import GatewayConfig
from service.api.rest.gateway_local import GatewayClient
from service.api.rest.gateway_path import GatewayPath
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import ServiceConfig
from service.games import GAMES

REVERSI = GAMES["reversi"].new_position().to_notation()
KALAH = GAMES["kalah"].new_position().to_notation()
LEGAL = "/v1/games/reversi:legalMoves"

# (path, body, headers, status, reason): good calls, each kind of malformed body, bad deadlines, the rules
# refusing.
CASES: list[tuple[str, bytes, dict[str, str], int, str]] = [
    (LEGAL, json.dumps({"position": {"notation": REVERSI}}).encode(), {}, 200, ""),
    (LEGAL, json.dumps({"position": {"notation": REVERSI}, "pageSize": 2}).encode(), {"X-Request-Id": "r-1"}, 200, ""),
    (
        "/v1/games/reversi:applyMove",
        json.dumps({"position": {"notation": REVERSI}, "move": {"notation": "d3"}}).encode(),
        {},
        200,
        "",
    ),
    (
        "/v1/games/reversi:applyMove",
        json.dumps({"position": {"notation": REVERSI}, "move": {"notation": "a1"}}).encode(),
        {},
        400,
        "ILLEGAL_MOVE",
    ),
    ("/v1/games/kalah:score", json.dumps({"position": {"notation": KALAH}}).encode(), {}, 200, ""),
    (
        "/v1/games/strands:newGame",
        json.dumps({"options": {"size": 5}, "seed": "7"}).encode(),
        {},
        400,
        "INVALID_OPTION",
    ),
    ("/v1/games/dots-and-boxes:newGame", json.dumps({"options": {"rows": 7.5}}).encode(), {}, 400, "INVALID_OPTION"),
    ("/v1/games/chess:legalMoves", json.dumps({"position": {"notation": REVERSI}}).encode(), {}, 404, "UNKNOWN_GAME"),
    (LEGAL, b"{", {}, 400, "INVALID_JSON"),
    (LEGAL, b"[1, 2]", {}, 400, "INVALID_JSON"),
    (LEGAL, b'{"position": {"notation": NaN}}', {}, 400, "INVALID_JSON"),
    (LEGAL, b'{"position": "d3"}', {}, 400, "INVALID_JSON"),
    (LEGAL, b'{"unknown": 1}', {}, 400, "INVALID_JSON"),
    (LEGAL, b"", {}, 400, "INVALID_POSITION"),  # an empty body is an empty request: the rules refuse it
    (LEGAL, b" \r\n\t", {}, 400, "INVALID_POSITION"),
    (LEGAL, b"\x0c", {}, 400, "INVALID_JSON"),  # no JSON whitespace: not an empty body (the fuzz found it)
    (LEGAL, json.dumps({"position": {"notation": "x" * 20_000}}).encode(), {}, 400, "INVALID_NOTATION"),
    (LEGAL, json.dumps({"position": {"notation": REVERSI}}).encode(), {"Grpc-Timeout": "soon"}, 400, "INVALID_TIMEOUT"),
    (LEGAL, json.dumps({"position": {"notation": REVERSI}}).encode(), {"Grpc-Timeout": "1n"}, 504, "DEADLINE_EXCEEDED"),
    (LEGAL, json.dumps({"position": {"notation": REVERSI}}).encode(), {"Grpc-Timeout": "5S"}, 200, ""),
]
# Refused before a call (the body, the deadline): no gRPC worker answered, none is named.
NO_CALL = {"INVALID_JSON", "INVALID_TIMEOUT", "DEADLINE_EXCEEDED"}


@pytest.fixture(scope="module")
def backend() -> Iterator[str]:
    running = create_server(ServerConfig(service=ServiceConfig()), address="127.0.0.1:0")
    try:
        yield f"127.0.0.1:{running.port}"
    finally:
        running.shutdown(1)


def _scope(path: str, headers: dict[str, str]) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "POST",
        "path": path,
        "query_string": b"",
        "headers": [(name.lower().encode(), value.encode()) for name, value in headers.items()],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8080),
    }


def _answers(config: GatewayConfig, cases: list[tuple[str, bytes, dict[str, str]]]) -> list[tuple]:
    """Each case through the front and the path, in process: (status, JSON, headers by lower-case name)."""
    answers = []
    with GatewayClient(config) as client:
        for url, body, headers in cases:
            reply = client.post(url, data=body, headers={"Content-Type": "application/json", **headers})
            named = {name.lower(): value for name, value in reply.headers.items()}
            answers.append((reply.status_code, reply.json, named))
    return answers


def _reason(answer: dict) -> str:
    return answer["details"][0]["reason"] if "details" in answer else ""


def test_rules_calls_answer_as_the_contract_says(backend):
    config = GatewayConfig(grpc_target=backend, connections=2)
    answers = _answers(config, [case[:3] for case in CASES])
    for (url, body, headers, status, reason), (got, answer, named) in zip(CASES, answers, strict=True):
        assert (got, _reason(answer) if got != 200 else "") == (status, reason), (url, body[:80], headers, answer)
        assert named["content-type"] == "application/json"
        # The gRPC worker that answered is named whenever a call reached one.
        assert ("gamerules-worker" in named) == (reason not in NO_CALL), (url, body[:80], headers)
    form_feed = next(index for index, case in enumerate(CASES) if case[1] == b"\x0c")
    assert answers[form_feed][1]["message"].startswith("body: not valid JSON")
    assert answers[1][2]["x-request-id"] == "r-1" and answers[1][1]["totalSize"] == 4


def test_api_keys_are_checked_before_the_body(backend):
    config = GatewayConfig(grpc_target=backend, api_keys=auth.load(environ={"GAMERULES_API_KEYS": "k1"}))
    good = json.dumps({"position": {"notation": REVERSI}}).encode()
    cases = [
        (LEGAL, good, {}),
        (LEGAL, good, {"Authorization": "Bearer k2"}),
        (LEGAL, good, {"Authorization": "Bearer k1"}),
        (LEGAL, good, {"X-Api-Key": "k1"}),
        (LEGAL, b"{", {}),  # the key first: a caller without one learns nothing of the body
    ]
    answers = _answers(config, cases)
    assert [answer[0] for answer in answers] == [401, 401, 200, 200, 401]
    assert all(answer[2]["www-authenticate"] == "Bearer" for answer in answers if answer[0] == 401)


def test_a_server_that_is_down_is_unavailable():
    config = GatewayConfig(grpc_target="127.0.0.1:9", connections=2, timeout_s=5)
    (status, answer, _), *_ = _answers(config, [case[:3] for case in CASES[:1]])
    assert status == 503 and answer["code"] == 14, answer


def test_every_route_takes_the_one_path(backend):
    """Rules calls, GET routes with query parameters, a search, a stream, an image, the fixed routes and the
    refusals: all answered by the front and the path in one event loop (no thread pool, no other app)."""
    position = {"position": {"notation": REVERSI}}
    search = {**position, "limits": {"maxDepth": 1}}
    render = "/v1/games/reversi:render?position.notation=" + REVERSI.replace("/", "%2F")
    with GatewayClient(GatewayConfig(grpc_target=backend)) as client:
        assert client.post(LEGAL, json=position).json["totalSize"] == 4
        assert client.get("/v1/games").status_code == 200 and "ETag" in client.get("/v1/games").headers
        assert client.get("/v1/games/kalah").json["name"] == "games/kalah"
        assert client.post("/v1/games/reversi:bestMove", json=search).json["move"]["notation"]
        streamed = client.post("/v1/games/reversi:analyze", json=search)
        assert streamed.headers["Content-Type"] == "application/x-ndjson"
        assert all("result" in json.loads(line) for line in streamed.text.splitlines())
        image = client.get(render)
        assert image.status_code == 200 and image.headers["Content-Type"] == "image/svg+xml"
        assert client.open(render, method="HEAD").data == b""
        assert client.get("/healthz").json == {"status": "ok"}
        assert client.get("/readyz").json == {"status": "ready"}
        assert client.get("/").headers["Content-Type"].startswith("text/html")
        assert client.get("/openapi.json").json["openapi"].startswith("3.")
        assert client.get("/nothing").status_code == 404
        assert client.get("/playground/../gateway.py").status_code == 404
        refused = client.get("/v1/games/reversi:score")
        assert refused.status_code == 405 and refused.headers["Allow"] == "POST"


def _through_the_front(config: GatewayConfig, sent: Callable[[dict], object]) -> None:
    """A LegalMoves request through the front itself, as granian calls it, each message it sends to ``sent``."""
    body = json.dumps({"position": {"notation": REVERSI}}).encode()

    async def run() -> None:
        front = Front(GatewayPath(config), config.front())
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> dict:
            return messages.pop(0) if messages else await asyncio.sleep(3600)  # type: ignore[return-value]

        async def send(message: dict) -> None:
            sent(message)

        scope = {**_scope(LEGAL, {"Content-Length": str(len(body))}), "http_version": "1.1"}
        await front(scope, receive, send)

    asyncio.run(run())


def test_the_front_hands_a_request_to_the_path_whole(backend):
    """Through the front itself, as granian calls it: the body read, the answer written in two messages."""
    sent: list[dict] = []
    _through_the_front(GatewayConfig(grpc_target=backend), sent.append)
    assert sent[0]["status"] == 200, sent
    assert json.loads(sent[1]["body"])["totalSize"] == 4


def test_a_route_searches_when_its_contract_says_so() -> None:
    # Read from the request's fields (search limits), not from a method's name: such a call gets the rest of
    # its deadline, watches its client and has its 429 held; a server-streaming one is written as it comes.
    routes = build_routes()
    assert {route.method.name for route in routes if route.searches} == {"BestMove", "AnalyzePosition", "ReviewGame"}
    assert {route.method.name for route in routes if route.method.server_streaming} == {
        "AnalyzePosition",
        "ReviewGame",
    }


def test_a_request_is_counted_before_its_answer_and_logged_after_it(backend, monkeypatch):
    """The access line waits until the answer is written (``GatewayPath.handle``): before it, it delayed the
    answer. The count does not, so a client reading the metrics after its answer finds its request counted."""
    events: list[str] = []
    monkeypatch.setattr("service.api.metrics.observe_http", lambda *args: events.append("counted"))
    monkeypatch.setattr("service.api.logs.log_http", lambda *args: events.append("logged"))
    _through_the_front(GatewayConfig(grpc_target=backend), lambda message: events.append(message["type"]))
    assert events == ["counted", "http.response.start", "http.response.body", "logged"]
