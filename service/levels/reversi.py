"""Reversi's levels: ``beginner`` and ``corner_hunter`` choose by one-ply rules, ``expert`` searches with the
learned evaluation (``reversi_learned.py``: the engine's estimate corrected by pattern weights) and proves
endgames with the endgame solver (``reversi_endgame.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.core.values import Level, Limits, ScoredMove, SearchResult, StopSignal
from service.engines.reversi import PASS, ReversiPosition
from service.levels import reversi_learned
from service.levels.driver import GameLevels
from service.levels.reversi_endgame import endgame_value as _endgame_value
from service.levels.reversi_endgame import native_solver
from service.search import Plugins, greedy, never, search

PLUGINS = Plugins(endgame=_endgame_value)  # what expert hands the search in solve mode


def _beginner(position: ReversiPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    """The move that flips the most discs now. Its value is the disc margin right after it (each flip moves
    the margin by two, the new disc by one), so the greedy key is already in the game's units."""
    margin = position.final_value(position.to_move)
    return greedy(position, lambda p, m: margin + 2 * p.flip_count(m) + (m != PASS), rng, top_n)


def _corner_hunter_key(position: ReversiPosition, move: Any) -> float:
    """One-ply preference: a corner above all; never an X-square, and a C-square only with care, next to an
    empty corner (a C-square is worst when the opponent could take that corner at once); then the fewest
    opponent replies; then the most flips."""
    if move == PASS:
        return 0.0
    geo = position.geometry
    bit = 1 << move
    empty = geo.full & ~(position.black | position.white)
    # Tiers: each outweighs everything below it (a 16x16 board has fewer than 256 replies and flips).
    key = 0.0
    if bit & geo.corners:
        key += 10_000_000
    for corner, x in geo.x_guards:
        if bit & x and empty & corner:
            key -= 5_000_000
    after = position.play(move)
    # The opponent's replies: none when it must pass or the game ends.
    replies = after.placements() if after.to_move not in (0, position.to_move) else 0
    for corner, c in geo.c_guards:
        if bit & c and empty & corner:
            key -= 3_000_000 if replies & corner else 500_000
    return key - 1_000 * replies.bit_count() + position.flip_count(move)


def _corner_hunter(position: ReversiPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    """``_corner_hunter_key``'s choice. The key only ranks moves, so the values reported are, like the
    beginner's, the disc margin right after each move (alternatives stay in the level's order of preference)."""
    result = greedy(position, _corner_hunter_key, rng, top_n)
    seat = position.to_move

    def margin(move: Any) -> float:
        return position.play(move).final_value(seat)

    result.value = margin(result.move)
    result.alternatives = [ScoredMove(a.move, margin(a.move), False) for a in result.alternatives]
    return result


EXACT_EMPTIES = 12  # expert solves the game from this many empty squares (the search's solve mode)
# And from this many on 8x8 with the native kernel. Measured (expert's own limits, 10 random positions each,
# CPU s): 17 empties take a median of 0.08 s, at most 0.23 s (35k weighted nodes); 18 a median of 0.3 s but one
# in ten ~1.7 s and 220k nodes, past ``EXPERT_NODES``. With the kernel the solve's first iteration is already
# the whole proof (the hook answers every child of the root), so a solve past the budget has no shallower
# iteration to fall back on: keep the hard cases inside the budget.
EXACT_EMPTIES_NATIVE = 17
MIDGAME_DEPTH = 6  # expert's depth before that, when the caller gives none
SOLVE_LEAD = MIDGAME_DEPTH  # iterations before the solve leaps to the end: the answer if the budget runs out
# The expert's node budget (core nodes and ``_endgame`` nodes alike; a native kernel node counts as
# 1/``NATIVE_NODE_WEIGHT``, so the budget is about the same CPU time on both paths). Measured on 8x8 with
# ``python -m bench.solve`` without the kernel (a node costs about 7 us there): solving takes a median of
# about 20k nodes (0.15 s) at 11 empties, 45k (0.3 s) at 12 and 150k (1 s) at 13, with a tail of hard
# positions at 12 up to 300k; a depth-6 midgame search takes under 16k. With the kernel, see
# ``EXACT_EMPTIES_NATIVE``. A budget keeps the answer the same on every machine.
EXPERT_NODES = 150_000


def exact_empties(position: ReversiPosition) -> int:
    """From how many empty squares expert solves ``position`` exactly: ``EXACT_EMPTIES_NATIVE`` on 8x8 with
    the native kernel, ``EXACT_EMPTIES`` otherwise (measured: see the constants)."""
    return EXACT_EMPTIES_NATIVE if position.size == 8 and native_solver() is not None else EXACT_EMPTIES


# The learned evaluation (``reversi_learned.py``: the hand-written estimate corrected by pattern weights),
# read from the package once, at start-up. Measured (``python -m bench.learned_eval --games 60``): at 100 ms
# a move the expert's search with it beats the same search with the hand-written evaluation in 79 % of
# games (47 wins, 1 draw, 12 losses, mean margin +19); its error against exact solves is 0.78 of the
# hand-written one's at 20-22 empties (0.5 at 12-16); it keeps 0.85 of the node rate.
LEARNED = reversi_learned.shipped()


def _expert(position: ReversiPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    """``expert_search`` with the learned evaluation (8x8; other sizes keep the hand-written one)."""
    return expert_search(position, limits, stop, top_n, LEARNED)


def expert_search(
    position: ReversiPosition,
    limits: Limits,
    stop: StopSignal = never,
    top_n: int = 1,
    evaluate: Callable[[Any, int], float] | None = None,
) -> SearchResult:
    """Alpha-beta (``service.search.search``) with ``evaluate`` (None: ``position.evaluate``); from
    ``EXACT_EMPTIES`` empty squares the search's solve mode (straight to the end of the game after
    ``SOLVE_LEAD`` shallow iterations, the last ``ENDGAME_EMPTIES`` squares in the endgame solver or, on 8x8
    with the native kernel, everything from ``EXACT_EMPTIES_NATIVE`` in the kernel), so the answer is proved
    exact whenever the solve fits the node budget. A caller's ``max_depth`` replaces this choice: plain
    iterative deepening to that depth."""
    if limits.max_depth is None:
        if position.empties() <= exact_empties(position):
            return search(
                position,
                limits,
                stop=stop,
                top_n=top_n,
                evaluate=evaluate,
                solve=True,
                solve_lead=SOLVE_LEAD,
                plugins=PLUGINS,
            )
        limits = Limits(max_time_ms=limits.max_time_ms, max_depth=MIDGAME_DEPTH, max_nodes=limits.max_nodes)
    return search(position, limits, stop=stop, top_n=top_n, evaluate=evaluate)


LEVELS = GameLevels(
    "reversi",
    (
        Level(
            "beginner",
            "Plays the move that flips the most discs right now (random among equals), often handing corners away.",
        ),
        Level(
            "corner_hunter",
            "Grabs any corner at once and avoids X- and C-squares next to an empty corner; otherwise leaves the "
            "opponent the fewest replies and flips the most discs.",
        ),
        Level(
            "expert",
            f"Searches {MIDGAME_DEPTH} moves ahead weighing mobility, frontier, corners and the squares next to them "
            "(on 8x8 with learned weights for edge, corner, row and diagonal patterns), "
            f"and from {EXACT_EMPTIES_NATIVE} empty squares on (8x8 with its native endgame solver; otherwise from "
            f"{EXACT_EMPTIES}) computes the game to the end exactly whenever that fits its {EXPERT_NODES:,}-node "
            "budget.",
            Limits(max_time_ms=20_000, max_nodes=EXPERT_NODES),
        ),
    ),
    "expert",
    {"beginner": _beginner, "corner_hunter": _corner_hunter, "expert": _expert},
)
