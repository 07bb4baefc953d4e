"""The rules calls the front answers in its event loop (``service/api/rest/gateway_unary.py``) answer as the
Flask app does: the same status, JSON and headers, for good and bad requests, with and without API keys; the
front hands them there and everything else to the app."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from service.api import auth
from service.api.rest.gateway import build_routes, create_app
from service.api.rest.gateway_asgi import Front
from service.api.rest.gateway_config import GatewayConfig
from service.api.rest.gateway_unary import UnaryPath, answers_here
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import ServiceConfig
from service.games import GAMES

REVERSI = GAMES["reversi"].new_position().to_notation()
KALAH = GAMES["kalah"].new_position().to_notation()
LEGAL = "/v1/games/reversi:legalMoves"

# (path, body, headers): good calls, each kind of malformed body, bad deadlines, the rules refusing.
CASES: list[tuple[str, bytes, dict[str, str]]] = [
    (LEGAL, json.dumps({"position": {"notation": REVERSI}}).encode(), {}),
    (LEGAL, json.dumps({"position": {"notation": REVERSI}, "pageSize": 2}).encode(), {"X-Request-Id": "r-1"}),
    (
        "/v1/games/reversi:applyMove",
        json.dumps({"position": {"notation": REVERSI}, "move": {"notation": "d3"}}).encode(),
        {},
    ),
    (
        "/v1/games/reversi:applyMove",
        json.dumps({"position": {"notation": REVERSI}, "move": {"notation": "a1"}}).encode(),
        {},
    ),
    ("/v1/games/kalah:score", json.dumps({"position": {"notation": KALAH}}).encode(), {}),
    ("/v1/games/strands:newGame", json.dumps({"options": {"size": 5}, "seed": "7"}).encode(), {}),
    ("/v1/games/dots-and-boxes:newGame", json.dumps({"options": {"rows": 7.5}}).encode(), {}),
    ("/v1/games/chess:legalMoves", json.dumps({"position": {"notation": REVERSI}}).encode(), {}),
    (LEGAL, b"{", {}),
    (LEGAL, b"[1, 2]", {}),
    (LEGAL, b'{"position": {"notation": NaN}}', {}),
    (LEGAL, b'{"position": "d3"}', {}),
    (LEGAL, b'{"unknown": 1}', {}),
    (LEGAL, b"", {}),
    (LEGAL, b" \r\n\t", {}),
    (LEGAL, b"\x0c", {}),  # no JSON whitespace: not an empty body (the fuzz found it)
    (LEGAL, json.dumps({"position": {"notation": "x" * 20_000}}).encode(), {}),
    (LEGAL, json.dumps({"position": {"notation": REVERSI}}).encode(), {"Grpc-Timeout": "soon"}),
    (LEGAL, json.dumps({"position": {"notation": REVERSI}}).encode(), {"Grpc-Timeout": "1n"}),
    (LEGAL, json.dumps({"position": {"notation": REVERSI}}).encode(), {"Grpc-Timeout": "5S"}),
]
COMPARED_HEADERS = ("content-type", "retry-after", "www-authenticate")


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


def _fast_answers(config: GatewayConfig, cases: list[tuple[str, bytes, dict[str, str]]]) -> list[tuple]:
    """Each case through ``UnaryPath``, in one event loop (its channels belong to it)."""

    async def run() -> list[tuple]:
        path = UnaryPath(config)
        answers = []
        for url, body, headers in cases:
            scope = _scope(url, headers)
            routed = path.route(scope)
            assert routed is not None, url
            status, raw_headers, data = await path.answer(scope, *routed, body)
            named = {name.decode(): value.decode() for name, value in raw_headers}
            answers.append((status, json.loads(data), {h: named.get(h) for h in COMPARED_HEADERS}, named))
        return answers

    return asyncio.run(run())


def _app_answers(config: GatewayConfig, cases: list[tuple[str, bytes, dict[str, str]]]) -> list[tuple]:
    client = create_app(config).test_client()
    answers = []
    for url, body, headers in cases:
        reply = client.post(url, data=body, headers={"Content-Type": "application/json", **headers})
        named = {name.lower(): value for name, value in reply.headers.items()}
        answers.append((reply.status_code, reply.get_json(), {h: named.get(h) for h in COMPARED_HEADERS}, named))
    return answers


def _same(fast: list[tuple], app: list[tuple], cases: list[tuple]) -> None:
    for (url, body, headers), mine, theirs in zip(cases, fast, app, strict=True):
        assert mine[:3] == theirs[:3], (url, body[:80], headers)
        # Both name the worker that answered, whenever a call reached one.
        assert ("gamerules-worker" in mine[3]) == ("gamerules-worker" in theirs[3]), (url, body[:80])


def test_rules_calls_answer_as_the_app_does(backend):
    config = GatewayConfig(grpc_target=backend, connections=2)
    fast, app = _fast_answers(config, CASES), _app_answers(config, CASES)
    _same(fast, app, CASES)
    statuses = {answer[0] for answer in fast}
    assert {200, 400, 404, 504} <= statuses, statuses  # the cases reach every kind of answer
    form_feed = next(index for index, case in enumerate(CASES) if case[1] == b"\x0c")
    assert fast[form_feed][0] == 400 and fast[form_feed][1]["message"].startswith("body: not valid JSON")


def test_api_keys_are_checked_as_the_app_checks_them(backend):
    config = GatewayConfig(grpc_target=backend, api_keys=auth.load(environ={"GAMERULES_API_KEYS": "k1"}))
    good = json.dumps({"position": {"notation": REVERSI}}).encode()
    cases = [
        (LEGAL, good, {}),
        (LEGAL, good, {"Authorization": "Bearer k2"}),
        (LEGAL, good, {"Authorization": "Bearer k1"}),
        (LEGAL, good, {"X-Api-Key": "k1"}),
        (LEGAL, b"{", {}),  # the key first: a caller without one learns nothing of the body
    ]
    fast, app = _fast_answers(config, cases), _app_answers(config, cases)
    _same(fast, app, cases)
    assert [answer[0] for answer in fast] == [401, 401, 200, 200, 401]


def test_a_server_that_is_down_is_unavailable_as_through_the_app():
    config = GatewayConfig(grpc_target="127.0.0.1:9", connections=2, timeout_s=5)
    cases = CASES[:1]
    fast, app = _fast_answers(config, cases), _app_answers(config, cases)
    assert fast[0][:3] == app[0][:3] and fast[0][0] == 503, fast


@pytest.mark.parametrize(
    ("method", "path", "headers", "here"),
    [
        ("POST", LEGAL, {}, True),
        ("POST", "/v1/games/kalah:applyMove", {}, True),
        ("POST", "/v1/games/kalah:bestMove", {}, False),  # waits for a slot and watches its client: the app's
        ("POST", "/v1/games/kalah:analyze", {}, False),  # a stream
        ("GET", "/v1/games/kalah:render", {}, False),  # bytes, cached
        ("GET", "/v1/games", {}, False),
        ("POST", "/v1/games", {}, False),  # no such POST route: the app's 405
        ("POST", "/v1/nothing", {}, False),
        ("POST", "/healthz", {}, False),
        ("POST", LEGAL, {"Origin": "https://portal.example"}, False),  # CORS is on below: its headers are the app's
    ],
)
def test_the_front_hands_rules_calls_here_and_the_rest_to_the_app(method, path, headers, here):
    config = GatewayConfig(grpc_target="127.0.0.1:9", cors_origins=("https://portal.example",))
    routed = UnaryPath(config).route({**_scope(path, headers), "method": method})
    assert (routed is not None) == here
    if here:
        without_cors = UnaryPath(dataclasses.replace(config, cors_origins=()))
        assert without_cors.route(_scope(path, {"Origin": "https://portal.example"})) is not None


def test_the_front_answers_a_rules_call_without_the_app(backend):
    """Through the front itself: the app (which would fail the test) is never called for a LegalMoves."""

    def app(environ: dict, start_response: Any) -> list[bytes]:
        raise AssertionError(f"the app was called for {environ['PATH_INFO']}")

    config = GatewayConfig(grpc_target=backend)
    front = Front(app, config.front(), UnaryPath(config))
    body = json.dumps({"position": {"notation": REVERSI}}).encode()
    sent: list[dict] = []

    async def run() -> None:
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> dict:
            return messages.pop(0) if messages else await asyncio.sleep(3600)  # type: ignore[return-value]

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {**_scope(LEGAL, {"Content-Length": str(len(body))}), "http_version": "1.1"}
        await front(scope, receive, send)

    asyncio.run(run())
    assert sent[0]["status"] == 200, sent
    assert json.loads(sent[1]["body"])["totalSize"] == 4


def test_a_route_searches_when_its_contract_says_so() -> None:
    # Read from the request's fields (search limits), not from a method's name: the unary path leaves every
    # search to the app, which holds its slot and watches its client.
    routes = build_routes(None)
    assert {route.method.name for route in routes if route.searches} == {"BestMove", "AnalyzePosition", "ReviewGame"}
    assert not any(answers_here(route) for route in routes if route.searches)
    assert {route.method.name for route in routes if answers_here(route)} >= {"LegalMoves", "ApplyMove", "Score"}
