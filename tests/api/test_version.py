"""The release (``service/api/version.py``, ``pyproject.toml``'s version) where a caller or an operator looks
for it: ListGames, the gRPC initial metadata, the gateway's ``Gamerules-Version`` header on every answer
(whatever route answers: the rules calls, BestMove and the streams, errors), the
``gamerules_build_info`` metric and the OpenAPI document's ``info.version``."""

from __future__ import annotations

import http.client as httpclient
import tomllib
from pathlib import Path

from gamerules.v1 import gamerules_pb2 as pb
from service.api.version import RELEASE_METADATA, UNKNOWN, VERSION, read_version
from service.games import GAMES
from tests.api.conftest import http
from tests.api.test_gateway_http import call
from tests.api.test_metrics import samples

ROOT = Path(__file__).resolve().parents[2]
START = GAMES["reversi"].new_position().to_notation()


def test_the_version_is_pyprojects(tmp_path):
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"] == VERSION
    mine = tmp_path / "pyproject.toml"
    mine.write_text('[project]\nname = "gamerules"\nversion = "9.8.7"\n')
    assert read_version(mine) == "9.8.7"
    # Another project's file, or none: the installed distribution's metadata, if any.
    mine.write_text('[project]\nname = "other"\nversion = "1.0"\n')
    assert read_version(mine) == read_version(tmp_path / "missing.toml") in (UNKNOWN, VERSION)


def test_list_games_and_the_initial_metadata_name_the_release(stub):
    answer, call = stub.ListGames.with_call(pb.ListGamesRequest(), timeout=10)
    assert answer.service_version == VERSION
    assert (RELEASE_METADATA, VERSION) in call.initial_metadata()


def test_every_gateway_answer_names_the_release(gateway_url):
    position = {"notation": START}
    calls = [
        ("/v1/games/reversi:legalMoves", {"position": position}, 200),  # a rules call
        ("/v1/games/reversi:bestMove", {"position": position, "limits": {"maxDepth": 1}}, 200),  # a search
        ("/v1/games/reversi:analyze", {"position": position, "limits": {"maxDepth": 1}}, 200),  # a stream
        ("/v1/games/reversi:legalMoves", {"position": {"notation": "nonsense"}}, 400),
        ("/v1/games/reversi:bestMove", {"position": {"notation": "nonsense"}}, 400),
        ("/v1/nowhere", {}, 404),
    ]
    for path, body, expected in calls:
        status, headers, _ = call(gateway_url, "POST", path, body)
        assert (status, headers["Gamerules-Version"]) == (expected, VERSION), path
    status, answer, headers = http(gateway_url, "/v1/games")
    assert (status, answer["serviceVersion"], headers["Gamerules-Version"]) == (200, VERSION, VERSION)
    assert http(gateway_url, "/healthz")[2]["Gamerules-Version"] == VERSION


def test_the_gateways_metrics_and_document_name_the_release(gateway_url):
    connection = httpclient.HTTPConnection(gateway_url.removeprefix("http://"), timeout=30)
    connection.request("GET", "/metrics")
    exposed = samples(connection.getresponse().read().decode())
    connection.close()
    builds = {labels: value for (name, labels), value in exposed.items() if name == "gamerules_build_info"}
    assert builds == {frozenset({("version", VERSION)}): 1.0}  # once, though the workers write their own files
    _, document, _ = http(gateway_url, "/openapi.json")
    assert document["info"]["version"] == VERSION
