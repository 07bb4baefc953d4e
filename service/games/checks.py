"""What the generic tests ask of a game: the test data a game brings, declared in its registration
(``service/games/<game>.py``, ``Registration.checks``) so that no generic test keeps a table of games.

Each field says which test reads it. A field with a default is one a game may leave out (the default suits a
small, quick game); a field that is None or empty by default is a datum only some games have: the tests that
need it skip for a game without it, naming the game and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from service.core import Limits
from service.render import RenderOptions


@dataclass(frozen=True, slots=True)
class DocsImage:
    """A board image the README shows (``docs/images/<game-id>.svg``): a position drawn with these options."""

    position: str  # in notation
    options: RenderOptions


@dataclass(frozen=True, slots=True)
class Finished:
    """A finished position, its winner (0: a draw) and the result reason the engine and Score give for it."""

    position: str  # in notation
    winner: int
    reason: str


@dataclass(frozen=True, slots=True)
class Handwritten:
    """A position and a move written by hand from GetGame's texts alone. Each rule is quoted from the text the
    server answers (``positionNotation``, ``moveNotation``), so the test fails when the text stops saying it."""

    position_rules: tuple[str, ...]  # what the position relies on, quoted from positionNotation
    position: str
    move_rules: tuple[str, ...]  # what the move relies on, quoted from moveNotation
    move: str  # a legal move of ``position``


@dataclass(frozen=True, slots=True)
class Playground:
    """How the browser test plays a whole game of it against the service."""

    options: Mapping[str, object]  # small options (engine names), as typed into the page's option fields
    level: str  # the level the service plays
    think_ms: int = 0  # the think time typed in where the level searches (0: none)
    fast: bool = False  # its whole game runs in the fast suite (else ``pytest -m slow`` only: some 9 s)


@dataclass(frozen=True, slots=True)
class PastTheOpening:
    """A position just past the opening (a quarter of the game played, not yet in the solve mode) where the
    strongest level's top four moves hold two or more within its variety margin of the best."""

    position: str  # in notation
    margin: float  # the strongest level's margin (the levels module's own constant)


@dataclass(frozen=True, slots=True)
class Checks:
    """What the generic tests ask of a game, one field per datum (``registration.py``: ``Registration.checks``)."""

    # --- drawing: tests/render/ ---
    # Options (engine names) of a small board: test_render.py draws every position of whole random games on it.
    small_options: Mapping[str, object] = field(default_factory=dict)
    # A move naming a place off that small board: test_render.py's drawing refuses it as the last move. None:
    # that test skips for the game.
    move_off_the_board: str | None = None
    # The README's image of the game: test_docs_images.py draws it again and compares. None: no image, it skips.
    docs_image: DocsImage | None = None

    # --- the searches: tests/search/, tests/native/ ---
    # Random plies from the start that make a midgame, a range the seed draws from (test_pv.py's ``midgame``,
    # which test_lines.py, test_play_lines.py and the native PV and lines tests use too).
    midgame_plies: tuple[int, int] = (2, 5)
    # The midgames (seeds) test_pv.py and tests/native/test_pv.py search to a fixed depth: fewer where slow.
    pv_seeds: tuple[int, ...] = (0, 1, 2)
    # test_pv.py's fixed depth for the Python search (a fraction of a second a search).
    pv_depth: int = 2
    # tests/native/test_pv.py's fixed depth for the native core (milliseconds a search); None: ``pv_depth``.
    native_pv_depth: int | None = None
    # test_lines.py searches positions this many plies before the end of random games instead of midgames
    # (where its midgames take the Python search seconds at its depth); empty: midgames.
    lines_from_the_end: tuple[int, ...] = ()
    # tests/native/test_alternative_lines.py: the options of its random games, one game each (the n-th played
    # with seed n), and the depth both search paths score four root moves at (milliseconds a search).
    lines_options: tuple[Mapping[str, object], ...] = ({},)
    lines_depth: int = 2

    # --- the levels: tests/levels/ ---
    # test_review.py reviews from this many plies before the end of random games, where the strongest level
    # proves every move quickly on either path.
    review_tail: int = 4
    # test_play_lines.py's limits for the seeded pick of every level (a depth for a search, playouts for a
    # Monte Carlo level).
    play_limits: Limits = field(default_factory=lambda: Limits(max_depth=3, max_nodes=3000))
    # test_play_lines.py also picks on a midgame; False where a midgame is past the opening, where its levels do
    # not vary (Strands).
    picks_past_the_start: bool = True
    # Every level answers a midgame in a fraction of a second on its own budget: test_budget_contract.py runs
    # each level there (a depth only when advertised, the same answer for a seed) and varies the first move by
    # seed. False (seconds a level) leaves those out; the registry-wide contract still runs every level.
    quick_levels: bool = True
    # The start has one move far ahead of the rest, so the seed cannot vary the first move there (Kalah):
    # test_budget_contract.py's first-move variety checks leave the game out.
    one_move_ahead_at_the_start: bool = False
    # test_budget_contract.py: past the opening the strongest level plays its best move whatever the seed.
    # None: that test skips for the game.
    past_the_opening: PastTheOpening | None = None
    # Whether tests/levels/data/ holds the game's recorded BestMove answers (test_recorded_answers.py gives
    # them again); False (a game registered from outside the tree): that test leaves the game out, saying so.
    recorded_answers: bool = True

    # --- the docs and the API: tests/docs/, tests/api/ ---
    # test_handwritten_positions.py: a position and a move written from GetGame's texts. None: it skips.
    handwritten: Handwritten | None = None
    # test_result_reasons.py: finished positions, one of every way the game ends (each win reason, a draw).
    # Empty: it skips for the game.
    finished: tuple[Finished, ...] = ()
    # test_playground.py: the browser plays a whole game of it. None: it skips for the game.
    playground: Playground | None = None


__all__ = ["Checks", "DocsImage", "Finished", "Handwritten", "PastTheOpening", "Playground"]
