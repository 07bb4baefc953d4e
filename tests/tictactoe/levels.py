"""Tic-tac-toe's levels: ``easy`` completes a line when it sees one, else marks a random cell; ``medium`` is
alpha-beta two plies deep (it sees its own wins and the other seat's next one, not forks); ``hard`` (the
default) is alpha-beta under a node budget, proving the game to its end from ``SOLVE_EMPTIES`` empty cells, so
it plays the 3x3 game perfectly from the first move. No native kernel: every level searches in Python. Medium
and hard pick by their seed among the moves within their margin of the best (``variety.py``; hard only in the
opening, and a proved answer only among equals)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from random import Random

from service.core.values import Level, Limits, SearchResult
from service.levels import data_files, variety
from service.levels.budget import Budget, Reach
from service.levels.driver import GameLevels
from service.levels.review import CHANCE_SCALE
from service.search import Deadline, greedy, search
from tests.tictactoe.position import TicTacToeMove, TicTacToePosition

GAME_ID = "tic-tac-toe"
# The game's measured data (the win-chance model, ``data/winchance.json``) ships in this package, not in the
# service's tree.
DATA = Path(__file__).resolve().parent / "data"
data_files.ship(GAME_ID, DATA)

# Values are results, 1 a win, 0 a draw, -1 a loss, and estimates strictly between (``evaluate``). Medium picks
# among the moves within MEDIUM_MARGIN of the best: at the 3x3 start its two plies value the centre 0.44 and the
# corners 0.25 (the edges 0), and all of them draw, so it opens in the centre or a corner by its seed; hard, in
# the opening only, within HARD_MARGIN on a board it cannot prove, and among equals once it proves.
MEDIUM_MARGIN = 0.2
HARD_MARGIN = 0.1
MEDIUM_DEPTH = 2
# hard's node budget when the caller gives no time: the same answer on every machine. From ``SOLVE_EMPTIES``
# empty cells it proves the game (the search's solve mode, ``SOLVE_LEAD`` iterations first): random positions
# of 4x4 and 5x5 boards with 12 empty cells took at most 31,291 nodes to prove, with 14 up to 195,884 (4x4, four
# in a row; measured with ``search(..., solve=True, solve_lead=4)`` on ten random positions a board), and the 3x3
# game from its start, 9 empty cells, takes some 4,400.
HARD_NODES = 50_000
SOLVE_EMPTIES = 12
SOLVE_LEAD = 4
HARD_LIMITS = Limits(max_nodes=HARD_NODES)
# The review's judge: the strongest level with eight times its node budget, at most JUDGE_MS a search, as the
# service's own games judge.
JUDGE_NODES = 8 * HARD_NODES
JUDGE_MS = 2_000


def _wins_now(position: TicTacToePosition) -> int:
    return position.threats()[0]


def _easy(position: TicTacToePosition, budget: Budget, rng: Random, top_n: int, stop: Deadline) -> SearchResult:
    """A beginner: completes a line when it sees one (a win's value, 1), otherwise any cell (0: it knows
    nothing more), ties broken by its seed."""
    wins = _wins_now(position)
    return greedy(position, lambda p, move: float(wins >> move & 1), rng, top_n, moves=position.legal_moves())


def _medium(position: TicTacToePosition, budget: Budget, rng: Random, top_n: int, stop: Deadline) -> SearchResult:
    """Alpha-beta to the level's depth with the engine's ``evaluate``: blind to a fork two moves away."""
    choice = variety.choose(rng, stop, MEDIUM_MARGIN, top_n, budget.varied)
    return choice.pick(search(position, budget.limits, stop=stop, top_n=choice.width, rng=rng), top_n)


def _hard(position: TicTacToePosition, budget: Budget, rng: Random, top_n: int, stop: Deadline) -> SearchResult:
    """Iterative-deepening alpha-beta under the node budget, or until the caller's time is up when one is
    given; within ``SOLVE_EMPTIES`` of the end the solve mode (``Budget.plan``), so it answers proved results;
    then, in the opening (``variety.opening``) of a game played, the seeded pick."""
    empty = position.empty.bit_count()
    plan = budget.plan(empty, Reach(SOLVE_EMPTIES))
    cells = position.geometry.cells
    varied = budget.varied and variety.opening(cells - empty, cells)
    choice = variety.choose(rng, stop, HARD_MARGIN, top_n, varied)
    result = search(
        position,
        budget.limits,
        stop=stop,
        top_n=choice.width,
        rng=rng,
        solve=plan == "solve",
        solve_lead=SOLVE_LEAD,
    )
    return choice.pick(result, top_n)


def sure_moves(position: TicTacToePosition, moves: Sequence[TicTacToeMove]) -> list[TicTacToeMove]:
    """A cell that completes a line wins at once; without one, a cell that stops the other seat's line next
    move is forced (every player past the first lesson sees both)."""
    wins, blocks = position.threats()
    sure = [move for move in moves if wins >> move & 1]
    return sure or [move for move in moves if blocks >> move & 1]


LEVELS: GameLevels[TicTacToePosition, TicTacToeMove] = GameLevels(
    GAME_ID,
    (
        Level("easy", "Completes a line of its own when it sees one, otherwise marks a random cell."),
        Level(
            "medium",
            f"Looks {MEDIUM_DEPTH} moves ahead, so it takes its wins and stops the other seat's next line, but does "
            f"not see a fork coming; picks by its seed among moves within {MEDIUM_MARGIN:g} of the best.",
            Limits(max_depth=MEDIUM_DEPTH),
        ),
        Level(
            "hard",
            f"Searches deep ({HARD_NODES:,} positions, or until the time limit when one is given), weighing the lines "
            f"still open to each seat, and plays perfectly from {SOLVE_EMPTIES} empty cells on (the whole 3x3 game). "
            "In the opening (the first quarter of the cells marked) picks by its seed among moves within "
            f"{HARD_MARGIN:g} of the best (among equals once proved).",
            HARD_LIMITS,
        ),
    ),
    "hard",
    {"easy": _easy, "medium": _medium, "hard": _hard},
    review_scale=CHANCE_SCALE,
    judge=Limits(max_nodes=JUDGE_NODES, max_time_ms=JUDGE_MS),
    sure_moves=sure_moves,
)
