"""Perft: move generation speed of our engines, next to OpenSpiel's C++ engines driven from Python in the
same run (``python -m bench.perft``).

Both sides walk the same tree the same way (one Python call per node), so the ratio says what a portal would
gain or lose calling our pure-Python engines instead of wiring OpenSpiel in. The counts must match
the reference counts of each game's page (``docs/games/*.md``); a mismatch is printed and fails the run.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import pyspiel

from service.games import GAMES

REFERENCE = {
    "reversi": [4, 12, 56, 244, 1396, 8200, 55092, 390216],
    "kalah": [6, 35, 185, 942, 4690, 23233, 114430, 563055],
    "dots-and-boxes": [24, 552, 12144, 255024],  # 3×3 boxes
}
OPENSPIEL = {
    "reversi": ("othello", {}),
    "kalah": ("mancala", {}),
    "dots-and-boxes": ("dots_and_boxes", {"num_rows": 3, "num_cols": 3}),
}
OPTIONS: dict[str, dict[str, Any]] = {"dots-and-boxes": {"rows": 3, "cols": 3}}


def ours(position: Any, depth: int) -> int:
    """Leaves at ``depth`` plies; a finished game is a leaf of no count. A forced pass is a ply: Reversi's
    ``play`` passes by itself, so its perft is the engine's own ``perft`` (which counts the pass)."""
    if position.outcome() is not None:
        return 0
    if depth == 1:
        return position.legal_move_count()
    return sum(ours(position.play(move), depth - 1) for move in position.legal_moves())


def theirs(state: Any, depth: int) -> int:
    if state.is_terminal():
        return 0
    if depth == 1:
        return len(state.legal_actions())
    return sum(theirs(state.child(action), depth - 1) for action in state.legal_actions())


def timed(function: Callable[[], int]) -> tuple[int, float]:
    start = time.perf_counter()
    count = function()
    return count, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=0, help="one depth for every game (default: each game's table)")
    args = parser.parse_args()
    print("game            depth      leaves    ours (s)  OpenSpiel (s)  ours/OpenSpiel")
    failed = False
    for game_id, figures in REFERENCE.items():
        if game_id not in GAMES:
            print(f"{game_id:<15} not registered")
            continue
        game = GAMES[game_id]
        start = game.new_position({**game.default_options(), **OPTIONS.get(game_id, {})}, "perft")
        name, params = OPENSPIEL[game_id]
        spiel = pyspiel.load_game(name, params)
        walk = ours
        if game_id == "reversi":
            from service.engines.reversi import perft as walk  # counts forced passes as plies
        depth = args.depth or len(figures) - 1
        count, mine = timed(lambda: walk(start, depth))  # noqa: B023 - called at once
        other, spent = timed(lambda: theirs(spiel.new_initial_state(), depth))  # noqa: B023
        ok = count == other == (figures[depth - 1] if depth <= len(figures) else count)
        failed |= not ok
        flag = (
            ""
            if ok
            else f"  MISMATCH (reference {figures[depth - 1] if depth <= len(figures) else '?'}, OpenSpiel {other})"
        )
        print(
            f"{game_id:<15} {depth:>5} {count:>11} {mine:>11.2f} {spent:>14.2f} {mine / spent:>15.2f}{flag}", flush=True
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
