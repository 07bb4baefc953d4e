"""Each alternative's own line (``ScoredMove.pv``) from the native core (``core.c``) against the Python search
(``service/search/alphabeta.py``), over random games of each game with a kernel, of the options its registration
declares (``checks.lines_options``: a game each), searched at a fixed depth (``checks.lines_depth``) with four
root moves scored.

The two searches answer the same alternatives (move, value, proof) and keep each move's line the same way (the
root pass's line below it, then the table's). Where a position has two moves equally good at the depth left,
each search keeps the one its own move order met first, and the orders part below the root (the core skips the
table near the leaves and keeps the kernel's order at the frontier, both for speed): so the lines are identical
move by move up to such a tie, where both moves are shown worth the line's value, and each goes on as a best line
of its own. Both are legal move by move, start with their move and are as long as the search (or end the game).
The core's lines are also asked what ``tests/search/test_lines.py`` asks of the Python search's, its proofs of
Kalah's depth too, and the native Monte Carlo search's alternatives their most visited lines."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from service.core import Limits, ScoredMove, SearchResult, Stop
from service.games import BY_ID, GAMES
from service.native import engine as native
from service.native import mcts as native_mcts
from service.search import search
from tests.native import test_kalah, test_strands
from tests.native.twins import native_games, needs
from tests.search import test_lines as lines
from tests.search.test_pv import played

EVERY = 4  # one position of every four plies of each game is searched
TOP_N = 4


def starts(game_id: str) -> Iterator[tuple[int, Any]]:
    """(seed, start) of each random game: the ``seed``-th of the option sets the game's registration declares
    (``checks.lines_options``), from 1."""
    for seed, options in enumerate(BY_ID[game_id].checks.lines_options, start=1):
        yield seed, GAMES[game_id].new_position(dict(options), f"twin-{seed}")


def positions(start: Any, seed: int) -> Iterator[Any]:
    """Every ``EVERY``-th position of a random game from ``start`` (the search's moves drawn with
    ``random.Random(seed)``: Strands' legal moves may be too many to list) that the kernel holds."""
    rng = random.Random(seed)
    position = start
    ply = 0
    while position.to_move:
        if ply % EVERY == 0 and native.holds(position):
            yield position
        position = position.play(rng.choice(position.search_moves()))
        ply += 1


def worth(position: Any, move: Any, depth: int) -> float:
    """``move``'s value at ``depth`` plies for the seat to move at ``position`` (the Python search's, which is the
    plain negamax: ``tests/native/test_*.py``)."""
    seat = position.to_move
    child = position.play(move)
    if child.to_move == 0:
        return float(child.final_value(seat))
    deeper = depth > 1
    value = search(child, Limits(max_depth=depth - 1)).value if deeper else float(child.evaluate(child.to_move))
    return value if child.to_move == seat else -value


def explained(position: Any, line: tuple[Any, ...], value: float, depth: int, exact: bool) -> None:
    """``line`` from ``position`` is legal move by move, as long as the search (or to the end of the game: a
    proof's always) and worth ``value`` at its end for the seat to move at ``position``."""
    seat = position.to_move
    end = played(position, list(line))
    if end.to_move == 0:
        assert end.final_value(seat) == value
        return
    assert not exact, "a proved line goes to the end of the game"
    assert len(line) == depth
    leaf = end.evaluate(end.to_move)
    assert (leaf if end.to_move == seat else -leaf) == value


def same_up_to_a_tie(position: Any, mine: ScoredMove, theirs: ScoredMove, depth: int) -> bool:
    """The native line and the Python line of one alternative: identical, or identical up to a position where both
    take a move worth the line's value at the depth left (a proof's lines, which ``explained`` saw end the game
    at the proved value, are not searched again). Whether they are identical."""
    if mine.pv == theirs.pv:
        return True
    at = next((i for i, (a, b) in enumerate(zip(mine.pv, theirs.pv, strict=False)) if a != b), None)
    if mine.exact or theirs.exact:
        return False
    assert at is not None, "a line of the search's depth is no longer than the other, unless the game ended"
    fork = played(position, list(mine.pv[:at]))
    left = depth - at
    assert worth(fork, mine.pv[at], left) == worth(fork, theirs.pv[at], left), (at, mine.pv, theirs.pv)
    return False


def compare(game_id: str, position: Any) -> tuple[int, int]:
    """Both paths' alternatives at the game's depth: the same answer, and lines as the module docstring says.
    Returns (alternatives compared, identical lines)."""
    depth = BY_ID[game_id].checks.lines_depth
    limits = Limits(max_depth=depth)
    python = search(position, limits, top_n=TOP_N)
    mine = native.search(position, limits, top_n=TOP_N)
    assert mine is not None
    # (Not the proved flags: the Python search's table may take an earlier iteration's unproved entry where the
    # core, storing fewer shallow nodes, finds the proof.)
    assert [(a.move, a.value) for a in mine.alternatives] == [(a.move, a.value) for a in python.alternatives], (
        position.to_notation()
    )
    assert (mine.move, mine.value, mine.depth) == (python.move, python.value, python.depth)
    assert mine.alternatives[0].pv == tuple(mine.pv) and python.alternatives[0].pv == tuple(python.pv)
    identical = 0
    for a, b in zip(mine.alternatives, python.alternatives, strict=True):
        assert a.pv[0] == b.pv[0] == a.move
        explained(position, a.pv, a.value, mine.depth, a.exact)
        explained(position, b.pv, b.value, python.depth, b.exact)
        identical += same_up_to_a_tie(position, a, b, mine.depth)
    return len(mine.alternatives), identical


@pytest.mark.parametrize("game_id", native_games(sorted(GAMES)))
def test_native_and_python_keep_the_same_alternative_lines(game_id: str) -> None:
    compared = identical = 0
    for seed, start in starts(game_id):
        for position in positions(start, seed):
            n, same = compare(game_id, position)
            compared += n
            identical += same
    assert compared >= 20 and identical > 0


@pytest.mark.parametrize("game_id", native_games(sorted(GAMES)))
def test_every_native_alternative_carries_its_own_line(game_id: str) -> None:
    """``tests/search/test_lines.py``'s positions and checks, on the native core at depth 4."""
    for position in lines.positions(game_id):
        result = native.search(position, Limits(max_depth=lines.DEPTH), top_n=TOP_N)
        assert result is not None and result.depth == lines.DEPTH
        lines.check_lines(position, result, lines.DEPTH)


class _Heard(Stop):
    def __init__(self) -> None:
        self.heard: list[SearchResult] = []
        self.on_iteration = self.heard.append


@needs("kalah")
@pytest.mark.parametrize("seed", range(4))
def test_a_native_kalah_proof_answers_its_lines_plies_as_its_depth(seed: int) -> None:
    """As the Python search answers (``alphabeta``'s module docstring): the kernel knows no bound on the plies left,
    so the proof's leap goes to a sentinel depth; the answer, its last streamed iteration and its last recorded
    iteration carry the proved line's length instead."""
    position = test_kalah.small(100 + seed, 12)
    stop = _Heard()
    iterations: list[native.Iteration] = []
    result = native.search(position, Limits(), stop=stop, solve=True, solve_lead=2, iterations=iterations, top_n=2)
    assert result is not None and result.exact and result.stop_reason == "solved"
    assert result.depth < 1000 and result.depth == len(result.pv)
    assert played(position, result.pv).to_move == 0
    assert stop.heard[-1].depth == iterations[-1].depth == result.depth
    python = search(position, Limits(), solve=True, solve_lead=2, top_n=2)
    assert python.depth == len(python.pv) and python.value == result.value


@needs("strands")
def test_native_monte_carlo_alternatives_carry_their_most_visited_lines() -> None:
    position = test_strands.start(3)
    result = native_mcts.mcts(position, Limits(max_nodes=2000), rng=random.Random(3), top_n=TOP_N)
    assert result is not None
    lines.check_lines(position, result, 0)
    assert any(len(a.pv) >= 2 for a in result.alternatives)
