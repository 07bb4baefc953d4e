"""The board images the README shows (``docs/images/*.svg``) are exactly what the service draws for the
requests listed here: change a drawing and this test says which image to regenerate, with
``GAMERULES_WRITE_DOCS_IMAGES=1 python -m pytest tests/render/test_docs_images.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.games import BY_ID, GAMES
from service.render import RenderOptions, render

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
# game id -> (position, options): mid-game positions with the last move, the legal moves and a line of two.
REQUESTS = {
    "reversi": (
        "......../...BB.../..B.B.../BBBWB.../..WWW.../...WBW../.....BW./.......W 1 black=1",
        RenderOptions(last_move="h8", show_legal_moves=True, arrows=("f5", "a3")),
    ),
    "kalah": (
        "1,6,2,0,1,7,3/6,1,1,9,7,0,4 2 seeds=4",
        RenderOptions(last_move="S4", show_legal_moves=True, arrows=("1",)),
    ),
    "dots-and-boxes": (
        "+.+-+-+/..|...|/+-+.+.+/|...|.|/+.+-+.+/|.|...|/+.+.+-+ 2",
        RenderOptions(last_move="d1-d2", show_legal_moves=True, arrows=("a1-b1",)),
    ),
    "petak-sawah": (
        "..##./..22./1.22./11###/11... 2 opener=1",
        RenderOptions(last_move="a3", show_legal_moves=True, arrows=("b3", "b2")),
    ),
    "strands": (
        "64446/433334/4322234/43222234/632212236/43222234/4322234/433334/64446 "
        "WBWBW/BBBBWW/B.....W/B......W/WW.....WW/B.....WB/..B..WB/....W./W...W 1 exact=0",
        RenderOptions(last_move="e2,g6,h5", show_legal_moves=True, arrows=("c2,d2,h4",)),
    ),
}


@pytest.mark.parametrize("game_id", sorted(REQUESTS))
def test_the_readme_images_are_current(game_id):
    notation, options = REQUESTS[game_id]
    game = GAMES[game_id]
    drawn = render(BY_ID[game.id].draw, game.parse_position(notation), options)
    path = IMAGES / f"{game_id}.svg"
    if os.environ.get("GAMERULES_WRITE_DOCS_IMAGES") == "1":
        IMAGES.mkdir(parents=True, exist_ok=True)
        path.write_text(drawn, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == drawn, f"{path.name} is stale: regenerate it (see the docstring)"
