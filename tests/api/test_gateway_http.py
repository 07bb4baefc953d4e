"""The gateway's HTTP manners, on the session's gateway: the request's id echoed on every answer, the OpenAPI
document gzipped, the games' ETags, hints for a misspelt field or game, and which default fields are written."""

from __future__ import annotations

import gzip
import http.client as httpclient
import json
import re

from service.games import GAMES

START = GAMES["reversi"].new_position().to_notation()


def call(
    base_url: str, method: str, path: str, body: dict | None = None, headers: dict[str, str] | None = None
) -> tuple[int, httpclient.HTTPMessage, bytes]:
    """One request on a connection of its own: (status, headers, the body as sent, not decoded)."""
    connection = httpclient.HTTPConnection(base_url.removeprefix("http://"), timeout=30)
    try:
        data = None if body is None else json.dumps(body)
        connection.request(method, path, data, {"Content-Type": "application/json", **(headers or {})})
        answer = connection.getresponse()
        return answer.status, answer.headers, answer.read()
    finally:
        connection.close()


def test_the_request_id_is_echoed_on_every_path(gateway_url):
    position = {"notation": START}
    for path, body in [
        ("/v1/games/reversi:legalMoves", {"position": position}),  # a rules call
        ("/v1/games/reversi:bestMove", {"position": position, "limits": {"maxDepth": 1}}),  # a search
        ("/v1/games/reversi:analyze", {"position": position, "limits": {"maxDepth": 1}}),  # a stream
        ("/v1/games/reversi:score", {"position": {"notation": "nonsense"}}),  # an error
    ]:
        _, headers, _ = call(gateway_url, "POST", path, body, {"X-Request-Id": "portal-7f3a:42"})
        assert headers["X-Request-Id"] == "portal-7f3a:42", path
    _, headers, _ = call(gateway_url, "GET", "/v1/games", headers={"X-Request-Id": "portal-7f3a:43"})
    assert headers["X-Request-Id"] == "portal-7f3a:43"


def test_a_request_without_a_sane_id_gets_one(gateway_url):
    made = set()
    for sent in [None, "x" * 129, "two words", "é"]:
        for method, path, body in [
            ("POST", "/v1/games/reversi:legalMoves", {"position": {"notation": START}}),
            ("GET", "/healthz", None),
        ]:
            _, headers, _ = call(gateway_url, method, path, body, {} if sent is None else {"X-Request-Id": sent})
            assert re.fullmatch("[0-9a-f]{32}", headers["X-Request-Id"]), (sent, path)
            made.add(headers["X-Request-Id"])
    assert len(made) == 8
    _, headers, _ = call(gateway_url, "GET", "/healthz", headers={"X-Request-Id": "x" * 128})
    assert headers["X-Request-Id"] == "x" * 128


def test_the_openapi_document_is_gzipped_for_who_accepts_it(gateway_url):
    status, headers, plain = call(gateway_url, "GET", "/openapi.json")
    assert status == 200 and headers["Content-Encoding"] is None and "Accept-Encoding" in headers["Vary"]
    status, headers, packed = call(gateway_url, "GET", "/openapi.json", headers={"Accept-Encoding": "gzip, br"})
    assert (status, headers["Content-Encoding"]) == (200, "gzip") and "Accept-Encoding" in headers["Vary"]
    assert gzip.decompress(packed) == plain and len(packed) < len(plain)
    refused = call(gateway_url, "GET", "/openapi.json", headers={"Accept-Encoding": "gzip;q=0"})[1]
    assert refused["Content-Encoding"] is None


def test_the_games_carry_an_etag_and_a_held_one_is_304(gateway_url):
    for path in ("/v1/games", "/v1/games/kalah"):
        status, headers, body = call(gateway_url, "GET", path)
        etag = headers["ETag"]
        assert status == 200 and re.fullmatch('"[0-9a-f]{32}"', etag) and json.loads(body)
        assert call(gateway_url, "GET", path)[1]["ETag"] == etag  # the same answer, the same tag
        status, headers, body = call(gateway_url, "GET", path, headers={"If-None-Match": f'"other", {etag}'})
        assert (status, headers["ETag"], body) == (304, etag, b"")
        assert call(gateway_url, "GET", path, headers={"If-None-Match": '"other"'})[0] == 200
    assert call(gateway_url, "GET", "/v1/games/reversi")[1]["ETag"] != etag


def test_a_misspelt_field_or_game_is_told_the_close_one(gateway_url):
    body = {"position": {"notation": START}, "topn": 2}
    status, _, raw = call(gateway_url, "POST", "/v1/games/reversi:bestMove", body)
    assert status == 400 and 'did you mean "topN"?' in json.loads(raw)["message"]
    body = {"position": {"notation": START}, "limits": {"max_deph": 2}}
    status, _, raw = call(gateway_url, "POST", "/v1/games/reversi:bestMove", body)
    assert status == 400 and 'did you mean "maxDepth"?' in json.loads(raw)["message"]
    status, _, raw = call(gateway_url, "POST", "/v1/games/reversi:legalMoves", {"position": body["position"], "zzz": 1})
    assert status == 400 and "did you mean" not in json.loads(raw)["message"]
    for game, meant in [("dots_and_boxes", "dots-and-boxes"), ("Reversi", "reversi"), ("kalha", "kalah")]:
        status, _, raw = call(gateway_url, "POST", f"/v1/games/{game}:legalMoves", {"position": {"notation": "x"}})
        assert status == 404 and f"did you mean '{meant}'?" in json.loads(raw)["message"], game
    status, _, raw = call(gateway_url, "GET", "/v1/games/chess")
    assert status == 404 and "did you mean" not in json.loads(raw)["message"]


def test_fields_at_their_default_are_written_and_optional_unset_ones_left_out(gateway_url):
    """As docs/api.md says (and the OpenAPI document's ``required``): grpc-gateway's default JSON."""
    position = {"position": {"notation": START}}
    _, _, raw = call(gateway_url, "POST", "/v1/games/reversi:legalMoves", position)
    moves = json.loads(raw)
    assert (moves["nextPageToken"], moves["gameOver"], moves["toMove"]) == ("", False, 1)
    assert moves["moves"][0]["reversi"]["isPass"] is False
    _, _, raw = call(gateway_url, "POST", "/v1/games/reversi:score", position)
    score = json.loads(raw)
    assert score["gameOver"] is False and "winner" not in score  # optional, and the game runs
