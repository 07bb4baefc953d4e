"""The rated ladder: rungs that play like people of a given strength, each with a rating measured on one scale per
game (docs/api.md: Rated ladder).

A rung below the strongest level plays in three steps:

1. **Score.** The game's scoring level (a search of the game's own, cheap at the rung's depth) scores the moves
   it considers with ``top_n`` = ``SCORED``, in analysis mode; the game's win-chance model turns each value into
   the mover's win chance, and each move's **loss** is the best move's chance less its own.
2. **Take what a player of this strength does not miss.** A rung with ``sure`` set first asks the game for its
   sure moves among those scored (a Kalah extra turn, a safe Reversi corner, a free Dots and Boxes box that gives
   nothing away: each game's page lists them) and chooses among those alone when there are any.
3. **Err like a person.** A tolerance is drawn from an exponential distribution of mean ``mean_loss`` (mostly
   small, now and then large; the mean falls as the rating rises) and the rung plays one of the moves that lose
   no more than it, at random: a person picks among the moves that look good enough, not the worst one. A
   **steady** rung's tolerance never passes ``STEADY_LOSS``, the review's largest mistake: a player of its
   strength makes mistakes but does not throw away what it sees. In a position already lost (the best chance
   below ½) the losses are measured against the chance that is left, so the rung keeps resisting instead of
   treating every move as equally hopeless.

Everything draws from the call's seeded ``rng`` and the scoring search runs on a depth budget, so a rung answers
the same for a seed on every machine, on the native and the Python path alike.

A game's rungs are ``Rung`` values in its levels module; their ratings are measured by ``make fit-ladder``
(``service/learn/ladder.py``) and shipped as ``data/ladder/<game-id>.json``, read by ``ratings``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import cast

from service.core.contract import MoveT, PositionT
from service.core.values import Level, Limits, ScoredMove, SearchResult
from service.levels import data_files, winchance
from service.levels.budget import Budget
from service.levels.review import CHANCE_SCALE
from service.levels.winchance import WinChance
from service.search.deadline import Deadline

DATA = Path(__file__).resolve().parent / "data" / "ladder"
# The moves a rung's search scores: as many as a request's top_n may ask (the service's MAX_TOP_N).
SCORED = 64
# The fewest rungs a ladder has, the strongest level included (issue 42).
MIN_RUNGS = 8
# A rung's node budget beside its depth: a scoring search never runs long (a proof the scoring level would try
# near the end stops within it); the ladder's costs: ``python -m bench.ladder``.
RUNG_NODES = 50_000
# Below this chance a lost position's losses are not scaled further (a proved loss: every move loses all).
_LEFT_FLOOR = 0.02
# A steady rung's largest tolerance: the review's largest MISTAKE, so what it accepts is never a BLUNDER by its
# own scoring (``python -m bench.ladder`` counts the blunders of the rungs from the middle up).
STEADY_LOSS = CHANCE_SCALE.mistake
STEADY_MARK = "never more than"  # how a steady rung's description says so (the pages find the steady rungs by it)

# A level's way of choosing a move: (position, budget, rng, top_n, stop) -> SearchResult. ``budget.limits`` are
# the search's bounds; ``stop`` is the call's Deadline: pass it on to ``search``/``mcts`` as their ``stop``.
Strategy = Callable[[PositionT, Budget, random.Random, int, Deadline], SearchResult]

# The game's sure moves among those scored: the moves a player of a ``sure`` rung's strength does not miss.
SureMoves = Callable[[PositionT, Sequence[MoveT]], list[MoveT]]


@dataclass(frozen=True, slots=True)
class Rung:
    """One rung below the strongest: its level name, the scoring search's depth (0: as deep as ``nodes`` allow),
    its node budget, how many moves it chooses among (``width``; its sure moves are scored whatever their rank),
    the mean of its tolerance of lost win chance, whether it takes the game's sure moves, whether it is steady
    (its tolerance capped at ``STEADY_LOSS``), and the think time a portal may pace it with (``think_ms``, a hint:
    the service answers as fast as it can)."""

    name: str
    depth: int
    mean_loss: float
    sure: bool
    think_ms: int
    nodes: int = RUNG_NODES
    width: int = SCORED
    steady: bool = False

    @property
    def max_loss(self) -> float:
        """The largest tolerance the rung draws."""
        return STEADY_LOSS if self.steady else math.inf

    @property
    def limits(self) -> Limits:
        """The rung's level's own limits: the depth its scoring search goes to, within its node budget."""
        return Limits(max_depth=self.depth or None, max_nodes=self.nodes)

    def describe(self, scorer: str, full_depth: str = "at full depth") -> str:
        few = " (scoring every move when its best few hold none)" if self.width < SCORED else ""
        sure = f"takes the moves a player of its strength does not miss{few}, " if self.sure else ""
        deep = f"{self.depth} {'move' if self.depth == 1 else 'moves'} deep" if self.depth else full_depth
        scored = "the moves" if self.width >= SCORED else f"its best {self.width} moves"
        cap = f", {STEADY_MARK} {100 * self.max_loss:.0f} %" if self.steady else ""
        return (
            f"A rung of the rated ladder: scores {scored} with {scorer} {deep} ({self.nodes:,} positions at "
            f"most), {sure}and errs like a person, tolerating on average a loss of {100 * self.mean_loss:.1f} % "
            f"of win chance a move{cap}."
        )


@dataclass(frozen=True, slots=True)
class Rating:
    """A level's measured rating on its game's scale, with the 95 % interval of the fit."""

    value: float
    low: float
    high: float


def rung_strategy(
    rung: Rung,
    scorer: Strategy[PositionT],
    chances: Callable[[], WinChance],
    sure_moves: SureMoves[PositionT, MoveT],
) -> Strategy[PositionT]:
    """The strategy of ``rung``: ``scorer`` (a level's strategy) scores the moves at the rung's depth, then
    ``choose``. The rung's level declares the depth (``Rung.limits``); a caller's limits replace it as they would
    any level's (a node or time limit too small for the depth ends the search early: the rung then chooses among
    what it scored). The scoring search runs in analysis mode: the variety is the rung's own."""

    def play(position: PositionT, budget: Budget, rng: random.Random, top_n: int, stop: Deadline) -> SearchResult:
        scoring = dataclasses.replace(budget, purpose="analysis")
        result = scorer(position, scoring, rng, max(rung.width, top_n), stop)
        if rung.sure and budget.varied and rung.width < SCORED and unscored_sure(position, result, sure_moves):
            # Sure moves its best few all leave out: score every move, so that it takes one as the other rungs do.
            result = scorer(position, scoring, rng, SCORED, stop)
        return choose(position, result, rung, chances(), sure_moves, rng if budget.varied else None, top_n)

    return play


def unscored_sure(position: PositionT, result: SearchResult, sure_moves: SureMoves[PositionT, MoveT]) -> bool:
    """Whether ``position`` offers sure moves and ``result`` scored none of them."""
    scored = {scored_move.move for scored_move in result.alternatives} | {result.move}
    offered = sure_moves(position, list(position.search_moves()))
    return bool(offered) and not scored.intersection(offered)


def losses(position: PositionT, alternatives: Sequence[ScoredMove], chances: WinChance) -> list[float]:
    """Each alternative's loss of win chance against the best of them, for the seat to move of ``position``; in a
    lost position (best chance below ½) measured against the chance left, so the moves that keep the game alive
    still differ (the scale joins the plain one at ½)."""
    stage = position.stage()
    chance = [chances.chance(scored.value, stage, scored.exact) for scored in alternatives]
    best = max(chance)
    scale = 0.5 / max(best, _LEFT_FLOOR) if best < 0.5 else 1.0
    return [(best - c) * scale for c in chance]


def choose(
    position: PositionT,
    result: SearchResult,
    rung: Rung,
    chances: WinChance,
    sure_moves: SureMoves[PositionT, MoveT],
    rng: random.Random | None,
    top_n: int,
) -> SearchResult:
    """``result`` (the scoring search's, every move it scored among its alternatives) with the rung's move: a sure
    move when the rung takes them and there is one, else one at random of those within a tolerance drawn from the
    exponential of mean ``rung.mean_loss``, capped at ``rung.max_loss`` (``rng`` None, for analysis: the best move
    scored, the first of equals); its value, line and proof become the answer's. The rung chooses among its best
    ``rung.width`` moves and the sure ones it takes."""
    scored = list(result.alternatives) or [ScoredMove(result.move, result.value, result.exact, tuple(result.pv))]
    loss = losses(position, scored, chances)
    indices = list(range(min(len(scored), rung.width)))
    if rung.sure and rng is not None:  # analysis answers the best move the search scored, sure or not
        # The moves a search of ``position`` scored are its game's moves.
        sure = set(sure_moves(position, cast("list[MoveT]", [scored_move.move for scored_move in scored])))
        indices = [i for i in range(len(scored)) if scored[i].move in sure] or indices
    best = min(loss[i] for i in indices)
    if rng is None:  # analysis: the rung's best move, the first of equals (no variety)
        pick = next(i for i in indices if loss[i] == best)
    else:
        tolerance = min(rng.expovariate(1.0 / rung.mean_loss), rung.max_loss) if rung.mean_loss > 0 else 0.0
        pick = rng.choice([i for i in indices if loss[i] <= best + tolerance])
    chosen = scored[pick]
    result.move, result.value, result.exact = chosen.move, chosen.value, chosen.exact
    result.pv = list(chosen.pv) or [chosen.move]
    result.alternatives = scored[: max(1, top_n)]
    return result


def path_of(game_id: str) -> Path:
    return data_files.own_file("ladder", game_id) or DATA / f"{game_id}.json"


@cache
def ratings(game_id: str) -> dict[str, Rating]:
    """The measured rating of each level of ``game_id`` (read once from ``data/ladder/<game-id>.json``); an absent
    file is no ratings, a malformed one a ValueError naming it."""
    path = path_of(game_id)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
        out = {
            name: Rating(float(entry["rating"]), float(entry["low"]), float(entry["high"]))
            for name, entry in data["ratings"].items()
        }
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path.name}: not a ladder's ratings ({error}); run make fit-ladder") from None
    if not all(math.isfinite(x) for r in out.values() for x in (r.value, r.low, r.high)):
        raise ValueError(f"{path.name}: every rating, low and high must be a finite number")
    return out


def ladder_levels(
    rungs: Sequence[Rung],
    scorer_name: str,
    scorer: Strategy[PositionT],
    game_id: str,
    sure_moves: SureMoves[PositionT, MoveT],
    full_depth: str = "at full depth",
    close_scorer: tuple[str, Strategy[PositionT]] | None = None,
) -> tuple[tuple[Level, ...], dict[str, Strategy[PositionT]]]:
    """The levels and strategies of a game's rungs below its strongest level, weakest first: each scores with the
    ``scorer_name`` level's strategy ``scorer`` and the game's win-chance model; ``full_depth`` says how deep a
    rung of depth 0 searches (where the scoring level caps its depth itself, the cap: GetGame lists it);
    ``close_scorer`` (name, strategy) scores for the rungs of depth 0 instead, where the strongest level searches
    otherwise than the scoring level (Strands: its tree search)."""

    def scoring(rung: Rung) -> tuple[str, Strategy[PositionT]]:
        return close_scorer if close_scorer is not None and rung.depth == 0 else (scorer_name, scorer)

    levels = tuple(Level(r.name, r.describe(scoring(r)[0], full_depth), r.limits, r.think_ms) for r in rungs)
    strategies = {r.name: rung_strategy(r, scoring(r)[1], lambda: winchance.model(game_id), sure_moves) for r in rungs}
    return levels, strategies


# The think-time hint of the k-th rung (1-based): people who play better take longer over a move (a hint only:
# the service answers as fast as it can).
THINK_BASE_MS, THINK_STEP_MS = 1_500, 500


def think_ms(k: int) -> int:
    """The think-time hint of the ``k``-th rung of a ladder, 1-based (the strongest level is the last rung)."""
    return THINK_BASE_MS + THINK_STEP_MS * (k - 1)


def rungs(
    depths: Sequence[int],
    mean_losses: Sequence[float],
    sure_from: int,
    close: Sequence[tuple[float, int, int]] = (),
    steady_from: int | None = None,
) -> tuple[Rung, ...]:
    """Rungs ``ladder-1``, ``ladder-2``, … with the given scoring depths and mean losses (rungs from the
    ``sure_from``-th, 1-based, take the game's sure moves; from the ``steady_from``-th, if given, they are
    steady), then the ``close`` rungs: (mean loss, node budget, width) at full depth, the strongest level's own
    search choosing among its best few moves, which close the gap to it."""
    plain = [(depth, loss, RUNG_NODES, SCORED) for depth, loss in zip(depths, mean_losses, strict=True)]
    every = plain + [(0, loss, nodes, width) for loss, nodes, width in close]
    return tuple(
        Rung(
            f"ladder-{k}",
            depth,
            loss,
            k >= sure_from,
            think_ms(k),
            nodes,
            width,
            steady_from is not None and k >= steady_from,
        )
        for k, (depth, loss, nodes, width) in enumerate(every, start=1)
    )
