"""Fit tic-tac-toe's win-chance model (``data/winchance.json``): ``python -m tests.tictactoe.fit_winchance``.

The service's games fit theirs on self-play positions labelled by their strongest level
(``service/learn/winchance.py``), which leaves out every label the search proved. On 3x3 ``hard`` proves every
position, so that sample would be empty; and the 3x3 game is small enough to need no sample. So the fit takes the
whole game instead: every position play can reach with a seat to move (4,520 of the 5,478), its value the
engine's ``evaluate`` from the mover's view (the estimate a search backs up from its leaves on a board it cannot
prove), its target the mover's result under perfect play (1 a win, ½ a draw, 0 a loss), each position once. The
fit is the service's own (``fit_rising``: the five coefficients by maximum likelihood, the slope positive at
every stage), every fourth position in notation order held out for the calibration. The command writes the same
file every time; the tests check that the shipped model is what it fits.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from service.learn.winchance import calibration, features, fit_logistic, fit_rising, largest_gap, log_loss, sigmoid
from tests.tictactoe.game import TicTacToeGame
from tests.tictactoe.levels import DATA
from tests.tictactoe.position import TicTacToePosition

COMMAND = "python -m tests.tictactoe.fit_winchance"
HOLD_OUT = 4  # every fourth position, as the service's fits hold out every fourth game


def reachable() -> list[TicTacToePosition]:
    """Every 3x3 position play reaches with a seat to move, in notation order."""
    start = TicTacToeGame().new_position({})
    seen = {start}
    frontier = [start]
    while frontier:
        following = []
        for position in frontier:
            for move in position.legal_moves():
                child = position.play(move)
                if child not in seen:
                    seen.add(child)
                    following.append(child)
        frontier = following
    return sorted((p for p in seen if p.to_move), key=lambda p: p.to_notation())


def solve(position: TicTacToePosition, memo: dict[TicTacToePosition, int]) -> int:
    """The mover's result under perfect play: 1, 0 or -1 (negamax over every move, memoised)."""
    known = memo.get(position)
    if known is not None:
        return known
    seat = position.to_move
    best = -1
    for move in position.legal_moves():
        child = position.play(move)
        value = int(child.final_value(seat)) if not child.to_move else -solve(child, memo)
        best = max(best, value)
        if best == 1:
            break
    memo[position] = best
    return best


def sample() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(stages, values, scores) of every reachable position with a seat to move."""
    memo: dict[TicTacToePosition, int] = {}
    positions = reachable()
    stages = np.array([p.stage() for p in positions])
    values = np.array([p.evaluate(p.to_move) for p in positions])
    scores = np.array([(solve(p, memo) + 1) / 2 for p in positions])
    return stages, values, scores


def fit() -> tuple[dict[str, Any], dict[str, Any]]:
    """The model (``{"offset", "slope"}``) and the fit's figures, as ``service/learn/winchance.py`` reports
    them."""
    stages, values, scores = sample()
    index = np.arange(len(scores))
    held = index % HOLD_OUT == HOLD_OUT - 1
    train = ~held
    w, terms = fit_rising(stages[train], values[train], scores[train])
    flat = fit_logistic(features(stages[train], values[train], staged=False), scores[train])
    chance = sigmoid(features(stages, values) @ w)
    flat_chance = sigmoid(features(stages, values, staged=False) @ flat)
    rows = calibration(chance[held], scores[held], index[held])
    model = {"offset": [float(w[0]), float(w[1])], "slope": [float(w[2]), float(w[3]), float(w[4])]}
    report = {
        "log_loss": {
            "train": round(log_loss(chance[train], scores[train]), 4),
            "held_out": round(log_loss(chance[held], scores[held]), 4),
            "stageless_held_out": round(log_loss(flat_chance[held], scores[held]), 4),
        },
        "slope_terms": terms,
        "stageless": {"offset": float(flat[0]), "slope": float(flat[1])},
        "calibration": rows,
        "largest_gap": largest_gap(rows),
    }
    sample_figures = {
        "positions": len(scores),
        "labels": "the mover's result under perfect play (negamax over the whole 3x3 game), 1, 1/2 or 0",
        "values": "the engine's evaluate from the mover's view",
        "results": {
            "wins": int((scores == 1).sum()),
            "draws": int((scores == 0.5).sum()),
            "losses": int((scores == 0).sum()),
        },
        "held_out": f"every {HOLD_OUT}th position in notation order (index % {HOLD_OUT} == {HOLD_OUT - 1})",
        "held_out_positions": int(held.sum()),
    }
    return model, {"sample": sample_figures, "fit": report}


def document() -> dict[str, Any]:
    model, figures = fit()
    return {"game": "tic-tac-toe", "model": model, "command": COMMAND, **figures}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DATA / "winchance.json", help="the file to write (the shipped one)")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document(), indent=1) + "\n")
    print(f"wrote {args.out.name}: {json.dumps(document()['model'])}")


if __name__ == "__main__":
    main()
