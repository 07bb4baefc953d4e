"""The release (``service/api/version.py``, ``pyproject.toml``'s version) where a caller or an operator looks
for it: ListGames, the gRPC initial metadata, the ``gamerules_build_info`` metric and the OpenAPI document's
``info.version``."""

from __future__ import annotations

import http.client as httpclient
import tomllib
from pathlib import Path

from gamerules.v1 import gamerules_pb2 as pb
from service.api.version import RELEASE_METADATA, UNKNOWN, VERSION, read_version
from tests.api.conftest import http
from tests.api.test_metrics import samples

ROOT = Path(__file__).resolve().parents[2]


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


def test_the_gateways_metrics_and_document_name_the_release(gateway_url):
    connection = httpclient.HTTPConnection(gateway_url.removeprefix("http://"), timeout=30)
    connection.request("GET", "/metrics")
    exposed = samples(connection.getresponse().read().decode())
    connection.close()
    builds = {labels: value for (name, labels), value in exposed.items() if name == "gamerules_build_info"}
    assert builds == {frozenset({("version", VERSION)}): 1.0}  # once, though the workers write their own files
    _, document, _ = http(gateway_url, "/openapi.json")
    assert document["info"]["version"] == VERSION
