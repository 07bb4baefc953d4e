"""The board images the README shows (``docs/images/*.svg``) are exactly what the service draws for the
request each game's registration declares (``checks.docs_image``): change a drawing and this test says which
image to regenerate, with
``GAMERULES_WRITE_DOCS_IMAGES=1 python -m pytest tests/render/test_docs_images.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.games import BY_ID, GAMES
from service.render import render

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_readme_images_are_current(game_id):
    image = BY_ID[game_id].checks.docs_image  # a mid-game position with the last move, legal moves and a line
    if image is None:
        pytest.skip(f"{game_id} declares no docs image (its registration's checks.docs_image)")
    game = GAMES[game_id]
    drawn = render(BY_ID[game.id].draw, game.parse_position(image.position), image.options)
    path = IMAGES / f"{game_id}.svg"
    if os.environ.get("GAMERULES_WRITE_DOCS_IMAGES") == "1":
        IMAGES.mkdir(parents=True, exist_ok=True)
        path.write_text(drawn, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == drawn, f"{path.name} is stale: regenerate it (see the docstring)"
