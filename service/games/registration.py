"""What the service serves of one game, declared in the game's own file (``service/games/<game>.py``).

The game's parts live in their layers (the rules in ``service/engines/<game>/``, the levels in
``service/levels/<game>.py``, the board drawing in ``service/render/<game>.py``, the native adapter, if any, in
``service/native/<game>.py``); its registration names them together with what the examples, the recorded
answers and the docs need, and ``service/games/__init__.py`` lists the registrations. The transport, the
benches and the generic tests read the list, so adding a game touches no table of theirs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.core.contract import Game
from service.games.checks import Checks
from service.levels import GameLevels
from service.native import engine
from service.render import Draw

DOCS = Path(__file__).resolve().parents[2] / "docs"


@dataclass(frozen=True, slots=True)
class Registration:
    """One game: its engine, levels and drawing, the options its examples and recorded answers use, and the data
    its generic tests ask for."""

    game: Game  # the rules engine (``service/engines/<game>``)
    levels: GameLevels[Any, Any]  # its best-move levels (``service/levels/<game>.py``)
    draw: Draw  # its board drawing (``service/render/<game>.py``)
    # NewGame options (JSON names) of the recorded API examples: small boards keep the answers short.
    example_options: Mapping[str, Any]
    # The option sets (engine names) the recorded BestMove answers draw from (``tests/levels/answers.py``).
    answer_options: tuple[Mapping[str, Any], ...] = ({},)
    # What the recorded ReviewGame example searches each ply with (its level, the strongest unless named, and
    # limits): a fixed depth, so the answer is the same on every run and on both search paths.
    example_review: Mapping[str, Any] = field(default_factory=lambda: {"limits": {"maxDepth": 2}})
    # What the generic tests ask of the game: its test data (``checks.py`` says which test reads what).
    checks: Checks = field(default_factory=Checks)
    # The game's page when it is not ``docs/games/<game-id>.md``: a game kept outside the service's tree
    # (``GAMERULES_EXTRA_GAMES``) keeps its page in its own package.
    own_page: Path | None = None

    def __post_init__(self) -> None:
        if self.levels.game_id != self.game.id:
            raise ValueError(f"{self.game.id}: the levels are declared for {self.levels.game_id}")

    @property
    def id(self) -> str:
        return self.game.id

    @property
    def page(self) -> Path:
        """The game's page: its rules, notation, options and levels (``docs/games/<game-id>.md``)."""
        return self.own_page or DOCS / "games" / f"{self.id}.md"

    @property
    def native(self) -> engine.Adapter | None:
        """The native adapter (``service/native/<game>.py``, found by the engine's package name), or None."""
        return engine.adapter_for(self.id)
