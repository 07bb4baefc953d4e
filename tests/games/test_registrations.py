"""Each game's registration (``service/games/<game>.py``) holds together: its parts are the game's own, its
example and answer options are options NewGame takes, its drawing draws its start, its page is linked, and
its native adapter is there exactly when its kernel is."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from service.games import BY_ID, GAMES, LEVELS, REGISTRATIONS, Registration
from service.native import engine
from service.render import render

ROOT = Path(__file__).resolve().parents[2]
GAMES_DIR = ROOT / "service" / "games"
KERNELS = ROOT / "service" / "native" / "search"
IDS = [game.id for game in REGISTRATIONS]


def test_the_registry_lists_every_game_of_the_tree_once_and_first() -> None:
    """Every registration file of the service's tree (``service/games/<game>.py``) is registered, before any game
    from outside it; no id twice; the maps list the games in the registry's order (ListGames')."""
    modules = [importlib.import_module(f"service.games.{path.stem}") for path in sorted(GAMES_DIR.glob("*.py"))]
    own = {module.REGISTRATION.id for module in modules if hasattr(module, "REGISTRATION")}
    assert own and set(IDS[: len(own)]) == own
    assert len(set(IDS)) == len(IDS)
    assert list(BY_ID) == list(GAMES) == list(LEVELS) == IDS


@pytest.mark.parametrize("game", REGISTRATIONS, ids=IDS)
def test_a_registration_names_the_game_s_own_parts(game: Registration) -> None:
    engine, draw = type(game.game).__module__, game.draw.__module__
    assert game.levels.game_id == game.id
    if engine.startswith("service."):  # a game of the tree: its parts in their layers, each named for the game
        package = game.id.replace("-", "_")
        assert engine.startswith(f"service.engines.{package}.")
        assert draw == f"service.render.{package}"
    else:  # a game from outside the tree (GAMERULES_EXTRA_GAMES): its parts in its own package
        assert engine.startswith(draw.rpartition(".")[0] + "."), (engine, draw)


@pytest.mark.parametrize("game", REGISTRATIONS, ids=IDS)
def test_example_and_answer_options_are_options_new_game_takes(game: Registration) -> None:
    names = {spec.name for spec in game.game.options}
    for options in game.answer_options:
        assert set(options) <= names, options
        game.game.new_position(dict(options), "7")
    camel = {name.split("_")[0] + "".join(part.title() for part in name.split("_")[1:]) for name in names}
    assert set(game.example_options) <= camel


@pytest.mark.parametrize("game", REGISTRATIONS, ids=IDS)
def test_the_drawing_draws_the_start_and_the_page_is_linked(game: Registration) -> None:
    assert render(game.draw, game.game.new_position({}, "7")).startswith("<svg")
    assert game.page.is_file()
    if game.page.is_relative_to(ROOT / "docs"):  # a game from outside the tree keeps its page in its package
        assert f"games/{game.page.name}" in (ROOT / "docs" / "README.md").read_text()


@pytest.mark.parametrize("game", REGISTRATIONS, ids=IDS)
def test_the_native_adapter_is_there_exactly_when_the_kernel_is(game: Registration) -> None:
    kernel = KERNELS / f"{game.id.replace('-', '_')}.c"
    assert (game.native is not None) == kernel.is_file()
    if game.native is not None:
        assert engine.position_game(game.game.new_position({}, "7")) == game.id


def test_no_adapter_for_what_is_not_a_game() -> None:
    assert engine.adapter_for("engine") is None and engine.adapter_for("mcts") is None
    assert engine.adapter_for("chess") is None and engine.adapter_for("../x") is None
    assert engine.position_game(object()) == ""
