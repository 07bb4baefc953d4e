"""RenderPosition over gRPC and as ``GET /v1/games/{game}:render`` with its request in query parameters: SVG
bytes with an ETag and cache headers (304 when the client holds them), the same bytes for the same request,
and the usual Status errors naming the field or parameter."""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from email.message import Message

import grpc
import pytest

from gamerules.v1 import gamerules_pb2 as pb
from service.games import BY_ID, GAMES
from service.render import RenderOptions, render
from tests.render.test_render import NS, marked_moves

REVERSI = "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"


def get(base_url: str, path: str, params: list[tuple[str, str]], headers: dict[str, str] | None = None):
    url = f"{base_url}{path}?{urllib.parse.urlencode(params)}"
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read(), answer.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers


def test_grpc_answers_the_svg_the_drawing_code_makes(stub):
    request = pb.RenderPositionRequest(
        game="games/reversi", position=pb.Position(notation=REVERSI), show_legal_moves=True, arrows=["d3", "c5"]
    )
    answer = stub.RenderPosition(request, timeout=10)
    assert answer.content_type == "image/svg+xml"
    game = GAMES["reversi"]
    expected = render(
        BY_ID[game.id].draw, game.parse_position(REVERSI), RenderOptions(show_legal_moves=True, arrows=("d3", "c5"))
    )
    assert answer.data.decode() == expected


def test_unset_coordinates_means_drawn(stub):
    position = pb.Position(notation=REVERSI)
    default = stub.RenderPosition(pb.RenderPositionRequest(game="reversi", position=position), timeout=10).data
    shown = stub.RenderPosition(pb.RenderPositionRequest(game="reversi", position=position, coordinates=True)).data
    hidden = stub.RenderPosition(pb.RenderPositionRequest(game="reversi", position=position, coordinates=False)).data
    assert default == shown != hidden and b"coordinate" not in hidden


def test_rest_get_with_query_parameters(gateway_url):
    params = [
        ("position.notation", REVERSI),
        ("showLegalMoves", "true"),
        ("arrows", "d3"),
        ("arrows", "c5"),
        ("size", "320"),
        ("flip", "true"),
        ("theme", "dark"),
    ]
    status, body, headers = get(gateway_url, "/v1/games/reversi:render", params)
    assert status == 200 and headers["Content-Type"] == "image/svg+xml"
    root = ET.fromstring(body)
    assert root.tag == NS + "svg" and root.get("width") == "320"
    assert marked_moves(root) == {"d3", "c4", "f5", "e6"}
    assert [e.get("data-step") for e in root.iter(NS + "g") if e.get("class") == "arrow"] == ["1", "2"]
    game = GAMES["reversi"]
    options = RenderOptions(size=320, show_legal_moves=True, arrows=("d3", "c5"), flip=True, theme="dark")
    assert body.decode() == render(BY_ID[game.id].draw, game.parse_position(REVERSI), options)
    # proto names work as well as JSON names
    snake = get(gateway_url, "/v1/games/reversi:render", [("position.notation", REVERSI), ("show_legal_moves", "1")])
    camel = get(gateway_url, "/v1/games/reversi:render", [("position.notation", REVERSI), ("showLegalMoves", "true")])
    assert snake[1] == camel[1]


def test_etag_and_cache_headers(gateway_url):
    params = [("position.notation", REVERSI), ("lastMove", "d3")]
    status, body, headers = get(gateway_url, "/v1/games/reversi:render", params)
    again = get(gateway_url, "/v1/games/reversi:render", params)
    assert status == 200 and again[1] == body and again[2]["ETag"] == headers["ETag"]
    assert headers["ETag"].startswith('"') and len(headers["ETag"]) == 34
    assert headers["Cache-Control"] == "public, max-age=86400"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    status, body304, headers304 = get(
        gateway_url, "/v1/games/reversi:render", params, {"If-None-Match": headers["ETag"]}
    )
    assert status == 304 and body304 == b"" and headers304["ETag"] == headers["ETag"]
    other = get(gateway_url, "/v1/games/reversi:render", [*params, ("size", "200")])
    assert other[2]["ETag"] != headers["ETag"]
    assert get(gateway_url, "/v1/games/reversi:render", params, {"If-None-Match": '"other"'})[0] == 200


def status_of(answer: tuple[int, bytes, Message]) -> tuple[int, str, str, str]:
    import json

    status, body, _ = answer
    parsed = json.loads(body)
    reason = next((d["reason"] for d in parsed.get("details", []) if "reason" in d), "")
    field = next(
        (d["fieldViolations"][0]["field"] for d in parsed.get("details", []) if "fieldViolations" in d),
        next((d["violations"][0]["subject"] for d in parsed.get("details", []) if "violations" in d), ""),
    )
    return status, parsed["message"], reason, field


@pytest.mark.parametrize(
    ("path", "params", "expected"),
    [
        ("reversi", [("position.notation", "nonsense")], (400, "INVALID_NOTATION", "position.notation")),
        ("chess", [("position.notation", REVERSI)], (404, "UNKNOWN_GAME", "")),
        ("reversi", [], (400, "INVALID_POSITION", "position")),
        ("reversi", [("position.notation", REVERSI), ("size", "5000")], (400, "INVALID_ARGUMENT", "size")),
        ("reversi", [("position.notation", REVERSI), ("size", "big")], (400, "INVALID_ARGUMENT", "size")),
        ("reversi", [("position.notation", REVERSI), ("theme", "neon")], (400, "INVALID_ARGUMENT", "theme")),
        ("reversi", [("position.notation", REVERSI), ("flip", "maybe")], (400, "INVALID_ARGUMENT", "flip")),
        ("reversi", [("position.notation", REVERSI), ("lastMove", "z99")], (400, "INVALID_MOVE", "last_move")),
        ("reversi", [("position.notation", REVERSI), ("arrows", "a1")], (400, "ILLEGAL_MOVE", "arrows[0]")),
        ("reversi", [("position.notation", REVERSI), ("colour", "red")], (400, "INVALID_ARGUMENT", "colour")),
        ("reversi", [("position.notation", REVERSI), ("game", "kalah")], (400, "INVALID_ARGUMENT", "game")),
        ("reversi", [("position", "x")], (400, "INVALID_ARGUMENT", "position")),
        ("reversi", [("size", "99999999999")], (400, "INVALID_ARGUMENT", "size")),
    ],
)
def test_bad_requests_get_the_usual_status(gateway_url, path, params, expected):
    status, message, reason, field = status_of(get(gateway_url, f"/v1/games/{path}:render", params))
    assert (status, reason, field) == expected, message
    assert message


def test_grpc_errors_name_the_field(stub):
    request = pb.RenderPositionRequest(
        game="kalah", position=pb.Position(notation="4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4")
    )
    request.last_move = "S9"
    with pytest.raises(grpc.RpcError) as raised:
        stub.RenderPosition(request, timeout=10)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT and raised.value.details().startswith("last_move")


def test_post_is_not_allowed(gateway_url):
    request = urllib.request.Request(f"{gateway_url}/v1/games/reversi:render", data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=10)
    assert raised.value.code == 405 and raised.value.headers["Allow"] == "GET"


def test_head_answers_as_get_without_the_body(gateway_url):
    params = [("position.notation", REVERSI), ("showLegalMoves", "true")]
    _, image, got = get(gateway_url, "/v1/games/reversi:render", params)
    request = urllib.request.Request(
        f"{gateway_url}/v1/games/reversi:render?{urllib.parse.urlencode(params)}", method="HEAD"
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert (answer.status, answer.read()) == (200, b"")
        for header in ("Content-Type", "ETag", "Cache-Control"):
            assert answer.headers[header] == got[header], header
        assert answer.headers["Content-Length"] == str(len(image))
    request.add_header("If-None-Match", got["ETag"])
    with pytest.raises(urllib.error.HTTPError) as held:
        urllib.request.urlopen(request, timeout=30)
    assert held.value.code == 304
