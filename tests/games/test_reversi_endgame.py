"""Reversi's exact endgame on the native search engine (its solve mode over ``service/native/search/reversi.c``,
docs/games/reversi.md) against its reference, the pure-Python ``_endgame``, and against known values; and
expert on the native engine against expert on the Python search.

The engine is built by ``make install``; without it (no C compiler, ``GAMERULES_NO_NATIVE=1``) the tests that
need it are skipped and the engine solves in Python, which the rest of the suite covers.
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import time
from functools import cache

import pytest

from service.core import Limits
from service.engines.reversi import GAME, PASS, ReversiPosition
from service.engines.reversi.bitboards import GEOMETRIES, placement_mask
from service.levels import reversi as reversi_levels
from service.levels import reversi_endgame as endgame
from service.levels.budget import Budget
from service.levels.reversi import EXPERT_LIMITS, LEVELS
from service.native import engine, use_native

GEO = GEOMETRIES[8]
FULL = GEO.full
needs_kernel = pytest.mark.skipif(
    not engine.available("reversi"),
    reason="the native search engine is not built (`make install` builds it with a C compiler) or "
    "GAMERULES_NO_NATIVE is set",
)


def exact_empties(position, limits=None) -> int:
    """How far from the end the level proves ``position`` with the caller's ``limits`` (``Budget.solve_reach``)."""
    return Budget(EXPERT_LIMITS, limits or Limits()).solve_reach(reversi_levels.reach(position))


def kernel(me: int, opp: int) -> tuple[float, int]:
    """(exact value for the owner of ``me``, to move, and nodes) from the native engine's solve mode; a board
    where neither side can place is over, the mover's disc margin."""
    if not placement_mask(me, opp, GEO) and not placement_mask(opp, me, GEO):
        return float(me.bit_count() - opp.bit_count()), 0
    found = engine.search(ReversiPosition(8, me, opp, 1, 1), Limits(), solve=True)
    assert found is not None and found.exact and found.stop_reason == "solved"
    return found.value, found.nodes


@cache
def python(me: int, opp: int, alpha: int = -65, beta: int = 65) -> int:
    """The value from the pure-Python solver, the reference (remembered: several tests ask)."""
    return endgame._endgame(me, opp, placement_mask(me, opp, GEO), alpha, beta, GEO, [0])


def board(text: str) -> tuple[int, int]:
    """(X discs, O discs) from 64 characters a1..h8 row by row, ``X``/``O``/``-``."""
    assert len(text) == 64
    return (
        sum(1 << i for i, ch in enumerate(text) if ch == "X"),
        sum(1 << i for i, ch in enumerate(text) if ch == "O"),
    )


def played(empties: int, seed: int) -> ReversiPosition:
    """A random 8x8 game played down to ``empties`` empty squares, a seat to move."""
    rng = random.Random(seed)
    while True:
        position = GAME.new_position({}, "")
        while position.to_move and position.empties() > empties:
            position = position.play(rng.choice(position.legal_moves()))
        if position.to_move and position.empties() == empties:
            return position


def scattered(empties: int, bias: float, rng: random.Random) -> tuple[int, int]:
    """A random board (not a reachable one: the solver does not care) with ``empties`` empty squares and each
    disc the mover's with probability ``bias``: lopsided boards make passes and wipe-outs common."""
    squares = list(range(64))
    rng.shuffle(squares)
    me = opp = 0
    for square in squares[empties:]:
        if rng.random() < bias:
            me |= 1 << square
        else:
            opp |= 1 << square
    return me, opp


def cases() -> list[tuple[int, int]]:
    """300 (me, opp) boards with 6..12 empty squares: positions from random play (some with the mover to
    pass: the sides swapped when that leaves the mover no placement) and scattered boards with 6..10. Fewer
    with many empties: the Python reference takes ~0.3 s at 12."""
    out: list[tuple[int, int]] = []
    per_empties = {6: 50, 7: 50, 8: 40, 9: 30, 10: 20, 11: 8, 12: 4}
    for empties, count in per_empties.items():
        for k in range(count):
            me, opp = played(empties, 1000 * empties + k).sides()
            if k % 2 and not placement_mask(opp, me, GEO):
                me, opp = opp, me
            out.append((me, opp))
    rng = random.Random(7)
    while len(out) < 300:
        out.append(scattered(rng.randint(6, 10), rng.choice((0.5, 0.8, 0.95)), rng))
    return out


CASES = cases()


def test_cases_cover_passes_and_lopsided_endings() -> None:
    root_passes = sum(1 for me, opp in CASES if not placement_mask(me, opp, GEO))
    finished = sum(1 for me, opp in CASES if not placement_mask(me, opp, GEO) and not placement_mask(opp, me, GEO))
    lopsided = sum(1 for me, opp in CASES if abs(python(me, opp)) >= 40)
    assert root_passes >= 10 and finished >= 3 and lopsided >= 20


@needs_kernel
def test_kernel_agrees_with_python_on_300_positions() -> None:
    for me, opp in CASES:
        expected = python(me, opp)
        value, _ = kernel(me, opp)
        assert value == expected, (hex(me), hex(opp))


def test_known_endings() -> None:
    # Python and (when built) the kernel: empty squares count for nobody, and a finished game is final.
    rows = [
        ("X" * 64, 64),  # a full board
        ("-" + "X" * 63, 63),  # nobody can use a1: the game is over, a1 counts for nobody
        ("O" * 63 + "-", -63),  # the same for the other seat
        ("XO-" + "-" * 61, 3),  # c1 flips b1: a wipe-out with 61 empty squares, won by 3 (not 64)
        ("OX" + "-" * 61 + "X", -2),  # X has no placement (a1 is a corner): it passes, c1 flips b1, 1 to 3
        ("XXXXXXXO" + "X" * 55 + "-", 48),  # X cannot use h8, O can (h2..h7 flip): X passes, 56 to 8
    ]
    for text, expected in rows:
        me, opp = board(text)
        assert python(me, opp) == expected, text
        if engine.available("reversi"):
            assert kernel(me, opp)[0] == expected, text


@needs_kernel
def test_ffo_40() -> None:
    """FFO endgame test #40 (20 empties, Black to move), from the literature: Black wins by 38 discs. FFO
    gives empty squares to the winner; counting them for nobody gives the same 38 here."""
    black, white = board("O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X--------")
    found = engine.search(ReversiPosition(8, black, white, 1, 1), Limits(), solve=True)
    assert found is not None and found.exact and (found.value, found.move) == (38.0, 8)  # a2


@needs_kernel
def test_endgame_value_uses_the_native_engine_on_8x8() -> None:
    position = played(14, 3)
    answer = endgame.endgame_value(position, -100.0, 100.0)
    assert answer is not None
    me, opp = position.sides()
    value, nodes = kernel(me, opp)
    assert answer == (value, -(-nodes // endgame.NATIVE_NODE_WEIGHT))
    assert endgame.endgame_value(played(endgame.NATIVE_EMPTIES + 2, 3), -100.0, 100.0) is None
    six = GAME.parse_position("....../....../..WB../..BW../....../...... 1 black=1")
    assert endgame.endgame_value(six, -100.0, 100.0) is None  # 32 empties on 6x6: neither solver
    previous = use_native(False)
    try:
        assert endgame.endgame_value(position, -100.0, 100.0) is None  # beyond ENDGAME_EMPTIES without the engine
        assert exact_empties(position) == reversi_levels.EXACT_EMPTIES
    finally:
        use_native(previous)
    assert exact_empties(position) == reversi_levels.EXACT_EMPTIES_NATIVE
    assert exact_empties(GAME.new_position({"size": 6}, "")) == reversi_levels.EXACT_EMPTIES


def expert(position: ReversiPosition, native: bool, top_n: int = 1) -> tuple[object, float, dict[object, float]]:
    previous = use_native(native)
    try:
        result = LEVELS.best_move(position, "expert", Limits(max_nodes=10**7), 0, top_n, lambda: False)
    finally:
        use_native(previous)
    assert result.exact and result.stop_reason == "solved"
    return result.move, result.value, {a.move: a.value for a in result.alternatives}


@needs_kernel
@pytest.mark.parametrize(("empties", "seed"), [(10, 1), (11, 2), (12, 3), (12, 4)])
def test_expert_is_exact_and_the_same_with_and_without_the_kernel(empties: int, seed: int) -> None:
    position = played(empties, seed)
    moves = position.legal_moves()
    top_n = len(moves) if empties < 12 else 1
    move, value, scored = expert(position, True, top_n)
    py_move, py_value, py_scored = expert(position, False, top_n)
    assert value == py_value
    if top_n > 1:
        assert scored == py_scored and len(scored) == len(moves)
    # The move chosen keeps the value (equal moves may be chosen differently: the root orders differ).
    for chosen in (move, py_move):
        after = position.play(chosen)
        if after.to_move == 0:
            kept = after.final_value(position.to_move)
        else:
            me, opp = after.sides()
            kept = kernel(me, opp)[0] * (1 if after.to_move == position.to_move else -1)
        assert kept == value


@needs_kernel
def test_expert_solves_from_exact_empties_native() -> None:
    position = played(reversi_levels.EXACT_EMPTIES_NATIVE, 11)
    result = LEVELS.best_move(position, "expert", None, 0, 1, lambda: False)
    me, opp = position.sides()
    assert result.exact and result.value == kernel(me, opp)[0] and result.move != PASS


@needs_kernel
def test_a_callers_time_starts_the_native_solve_earlier() -> None:
    """With a time of the caller's and no node budget, expert solves from as many empties as the time allows
    (``SOLVE_AT_MS`` at ``SOLVE_AT``, ``SOLVE_GROWTH`` times more per empty); a node budget keeps the level's."""
    position = played(reversi_levels.SOLVE_AT, 5)
    assert exact_empties(position, Limits(max_time_ms=100)) == reversi_levels.SOLVE_AT
    assert exact_empties(position, Limits(max_time_ms=1000)) == reversi_levels.SOLVE_AT + 1
    assert exact_empties(position, Limits(max_time_ms=10_000)) == reversi_levels.SOLVE_AT + 3
    assert exact_empties(position, Limits(max_time_ms=1000, max_nodes=10**6)) == reversi_levels.EXACT_EMPTIES_NATIVE
    result = LEVELS.best_move(position, "expert", Limits(max_time_ms=5000), 0, 1, lambda: False)
    me, opp = position.sides()
    assert result.exact and result.stop_reason == "solved" and result.value == kernel(me, opp)[0]
    previous = use_native(False)
    try:
        assert exact_empties(position, Limits(max_time_ms=1000)) == reversi_levels.EXACT_EMPTIES
    finally:
        use_native(previous)


def test_the_environment_turns_the_native_engine_off() -> None:
    code = "from service.native import engine; print(engine.available('reversi'))"
    env = {**os.environ, "GAMERULES_NO_NATIVE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@needs_kernel
def test_the_endgame_gives_up_at_its_stop_time():
    """A best move must answer before its deadline, and the Python search cannot poll a native call: the
    engine reads the clock itself. With ``stop_at`` already past the plug-in gives up (None); a ``stop_at``
    far ahead changes nothing."""
    position = played(18, 7)
    assert endgame.endgame_value(position, -math.inf, math.inf, time.monotonic() - 1) is None
    small = played(12, 7)
    later = endgame.endgame_value(small, -math.inf, math.inf, time.monotonic() + 3600)
    assert later == endgame.endgame_value(small, -math.inf, math.inf) and later is not None


@needs_kernel
def test_a_search_whose_deadline_has_passed_still_answers():
    """Expert on a position it solves with the kernel, stopped by a signal whose end is already past (as the
    server's is when a deadline is too short): a legal move, not proved, and the stop reason passed on."""

    class Passed:
        end = time.monotonic() - 1

        def __call__(self) -> str:
            return "deadline"

    position = played(17, 3)
    result = LEVELS.best_move(position, "expert", None, 1, 1, Passed())
    assert result.move in position.legal_moves() and not result.exact
    assert result.stop_reason == "deadline"
