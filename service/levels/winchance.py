"""A game's win-chance model: the expected score of the seat to move (win 1, draw ½, loss 0) from a value in the
game's units and the stage of the game (``Position.stage()``: the share still to play, 1 at the start).

The model is a logistic curve whose slope and offset move with the stage::

    chance = σ(b0 + b1·s + v·(a0 + a1·s + a2·s²))

so a five-disc lead near the end counts for more than the same lead in the opening, and a game whose side to
move has an edge (or a handicap) of its own keeps it in ``b``. A proved value is a known result: 1, ½ or 0.

Each game's coefficients are fitted on self-play games of every level with a held-out part
(``service/learn/winchance.py``, ``make fit-winchance``) and shipped as ``data/winchance/<game-id>.json``, which
records the command, the sample and the fit's quality; each game's page in ``docs/games`` shows its calibration.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from service.core.jsonvalue import JSONObject
from service.levels import data_files

DATA = Path(__file__).resolve().parent / "data" / "winchance"
_Z_LIMIT = 40.0  # |z| beyond this is 0 or 1 in doubles anyway; keeps exp() finite


@dataclass(frozen=True, slots=True)
class WinChance:
    """One game's fitted curve (see the module docstring); ``offset`` is (b0, b1), ``slope`` (a0, a1, a2)."""

    game_id: str
    offset: tuple[float, float]
    slope: tuple[float, float, float]

    def chance(self, value: float, stage: float, exact: bool = False) -> float:
        """The mover's expected score for ``value`` (the mover's view, the game's units) at ``stage``; a proved
        ``value`` (``exact``) is the result itself."""
        if exact:
            return 1.0 if value > 0 else 0.0 if value < 0 else 0.5
        return logistic(self.logit(value, stage))

    def logit(self, value: float, stage: float) -> float:
        s = min(max(stage, 0.0), 1.0)
        b0, b1 = self.offset
        a0, a1, a2 = self.slope
        return b0 + b1 * s + value * (a0 + a1 * s + a2 * s * s)

    def to_json(self) -> JSONObject:
        return {"offset": list(self.offset), "slope": list(self.slope)}


def logistic(z: float) -> float:
    z = min(max(z, -_Z_LIMIT), _Z_LIMIT)
    return 1.0 / (1.0 + math.exp(-z))


def path_of(game_id: str) -> Path:
    return data_files.own_file("winchance", game_id) or DATA / f"{game_id}.json"


@cache
def model(game_id: str) -> WinChance:
    """The shipped model of ``game_id`` (read once); a missing or malformed file is a ValueError naming it."""
    path = path_of(game_id)
    try:
        data = json.loads(path.read_text())
        offset = tuple(float(x) for x in data["model"]["offset"])
        slope = tuple(float(x) for x in data["model"]["slope"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path.name}: not a win-chance model ({error}); run make fit-winchance") from None
    if len(offset) != 2 or len(slope) != 3 or not all(map(math.isfinite, offset + slope)):
        raise ValueError(f"{path.name}: model.offset takes 2 numbers and model.slope 3, all finite")
    return WinChance(game_id, (offset[0], offset[1]), (slope[0], slope[1], slope[2]))
