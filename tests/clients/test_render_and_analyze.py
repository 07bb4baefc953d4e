"""The client's board images and streamed analysis, and ``gamerules render`` writing the SVG."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest

import gamerules_client as gc
from gamerules_client import cli
from service.games import BY_ID, GAMES
from service.render import RenderOptions, render

START = GAMES["reversi"].new_position(GAMES["reversi"].default_options(), "").to_notation()
SVG = "{http://www.w3.org/2000/svg}svg"


@pytest.fixture(scope="module")
def client(grpc_address: str) -> Iterator[gc.GameRulesClient]:
    with gc.GameRulesClient(grpc_address) as client:
        yield client


def test_render_position(client):
    image = client.render_position("reversi", START, size=300, show_legal_moves=True, arrows=["d3"], flip=True)
    game = GAMES["reversi"]
    options = RenderOptions(size=300, show_legal_moves=True, arrows=("d3",), flip=True)
    assert image.decode() == render(BY_ID[game.id].draw, game.parse_position(START), options)
    with pytest.raises(gc.InvalidArgumentError) as raised:
        client.render_position("reversi", START, theme="neon")
    assert raised.value.fields == ["theme"]


def test_analyze_position(client):
    messages = list(client.analyze_position("reversi", START, max_depth=3, top_n=2))
    assert [m.analysis.depth for m in messages] == [1, 2, 3, 3] and messages[-1].final
    with pytest.raises(gc.InvalidArgumentError):
        list(client.analyze_position("reversi", "nonsense"))


def test_the_cli_writes_the_svg(grpc_address, tmp_path):
    target = tmp_path / "board.svg"
    argv = ["--target", grpc_address, "render", "kalah", "start", "--legal", "--last-move", "S3", "-o", str(target)]
    assert cli.main(argv, stdout=io.StringIO()) == 0
    root = ET.parse(target).getroot()
    assert root.tag == SVG and root.get("width") == "480"
    assert {e.get("data-move") for e in root.iter() if e.get("data-move")} == {"1", "2", "3", "4", "5", "6"}

    out = io.StringIO()
    argv = ["--target", grpc_address, "render", "strands", "start", "--size", "200", "--theme", "print", "--flip"]
    assert cli.main(argv, stdout=out) == 0
    assert ET.fromstring(out.getvalue()).get("width") == "200"

    assert cli.main(["--target", grpc_address, "render", "reversi", "start", "--size", "9"], stdout=io.StringIO()) == 1
