"""Fit Reversi's multi-ProbCut model (``service/core/selectivity.py``): ``make fit-probcut`` or ``python -m
service.learn.probcut [--games N] [--depth D] [--workers N] [--out FILE]``.

1. Positions: ``games`` self-play games (``service.learn.reversi.self_play``: random openings, then the
   hand-written evaluation a ply ahead with some random moves), every ``EVERY``-th position with a seat to move
   and ``LOW``..``HIGH`` empty squares (the midgame, where the search is not a proof).
2. Each position searched by the native engine with expert's learned evaluation to ``depth`` plies, no
   selectivity; its iterations give the root value at every depth 1..``depth`` (aspiration re-searches until
   the value is inside the window, so each is the value of that depth).
3. For every deep depth D from 3 on and its shallow depth d (``selectivity.shallow_depth``): per stage bucket
   (``EDGES``, the stage being ``plies_left()``: empties + 1), the line ``v_D = a * v_d + b`` by least squares
   over all pairs of the bucket; the residuals' spread per (bucket, D) cell, then ``sigma = c0 + c1 * stage +
   c2 * D + c3 * d`` by least squares over the cells (weighted by their pairs), so deeper nodes than fitted get
   a spread by the same line.

Seeded and in a fixed order (each search is its own process's, with a node budget only through its depth):
a run reproduces its file on a machine. The file records how it was made and the fit's figures.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from service.core import Limits
from service.core.jsonvalue import JSONObject
from service.core.selectivity import Selectivity, shallow_depth
from service.engines.reversi import ReversiPosition
from service.learn.reversi import self_play
from service.levels import reversi as _expert  # noqa: F401  (importing it hands the kernel expert's weights)
from service.native import engine

OUT = Path(__file__).resolve().parents[1] / "engines" / "reversi" / "data" / "probcut.json"
EDGES = (0, 20, 28, 36, 44, 52)  # stage buckets' lower ends (plies_left: empties + 1)
LOW, HIGH = 14, 54  # empty squares of the positions fitted
EVERY = 3  # every third position of a game (neighbours are alike)
WIDTH = 1.5  # the cut's width in standard deviations (``python -m bench.reversi_selective`` measures others)
MIN_DEPTH = 3


def values(position: ReversiPosition, depth: int) -> tuple[int, list[float]]:
    """The stage of a position and its root value at each depth 1..depth (a worker's job)."""
    found: list[engine.Iteration] = []
    engine.search(position, Limits(max_depth=depth), learned=True, iterations=found)
    return position.plies_left(), [i.value for i in found]


def sample(games: int, seed: int) -> list[ReversiPosition]:
    rng = random.Random(seed)
    out = [p for p in self_play(games, rng) if LOW <= p.empties() <= HIGH]
    return out[::EVERY]


def fit(rows: list[tuple[int, list[float]]], depth: int) -> tuple[Selectivity, JSONObject]:
    """The model of the module docstring from each position's (stage, values by depth)."""
    slopes, intercepts, cells = [], [], []
    buckets: list[JSONObject] = []
    report: JSONObject = {"buckets": buckets}
    for i, edge in enumerate(EDGES):
        top = EDGES[i + 1] if i + 1 < len(EDGES) else 1000
        mine = [(s, v) for s, v in rows if edge <= s < top]
        pairs = [(v[shallow_depth(d) - 1], v[d - 1], s, d) for s, v in mine for d in range(MIN_DEPTH, depth + 1)]
        if len(pairs) < 20:
            raise SystemExit(f"too few positions in the bucket from stage {edge}: play more games (--games)")
        x = np.array([p[0] for p in pairs])
        y = np.array([p[1] for p in pairs])
        a, b = np.polyfit(x, y, 1)
        slopes.append(float(a))
        intercepts.append(float(b))
        by_depth = []
        for d in range(MIN_DEPTH, depth + 1):
            cell = [(p[1] - (a * p[0] + b), p[2]) for p in pairs if p[3] == d]
            sigma = float(np.sqrt(np.mean([r * r for r, _ in cell])))
            cells.append((float(np.mean([s for _, s in cell])), d, shallow_depth(d), sigma, len(cell)))
            by_depth.append(round(sigma, 2))
        buckets.append(
            {
                "from_stage": edge,
                "positions": len(mine),
                "a": round(float(a), 4),
                "b": round(float(b), 3),
                # JSON's keys are text: the depths as json.dumps would write them
                "sigma_by_depth": {
                    str(d): sigma for d, sigma in zip(range(MIN_DEPTH, depth + 1), by_depth, strict=True)
                },
            }
        )
    features = np.array([[1.0, s, d, sd] for s, d, sd, _, _ in cells])
    target = np.array([sigma for _, _, _, sigma, _ in cells])
    weight = np.sqrt(np.array([n for *_, n in cells], dtype=float))
    coef, *_ = np.linalg.lstsq(features * weight[:, None], target * weight, rcond=None)
    spread = (float(coef[0]), float(coef[1]), float(coef[2]), float(coef[3]))
    model = Selectivity(EDGES, tuple(slopes), tuple(intercepts), spread, WIDTH, MIN_DEPTH, depth)
    fitted = features @ coef
    report["spread_rms_error"] = round(float(np.sqrt(np.mean((fitted - target) ** 2))), 3)
    return model, report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=80)
    parser.add_argument("--depth", type=int, default=11, help="the deepest search fitted (11)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if not engine.available("reversi"):
        print("the native search engine is not built (make install): the fit needs its searches")
        return 1
    began = time.monotonic()
    positions = sample(args.games, args.seed)
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(functools.partial(values, depth=args.depth), positions, chunksize=4))
    rows = [(s, v) for s, v in rows if len(v) == args.depth]  # a game that ended inside the depth has fewer
    model, report = fit(rows, args.depth)
    data = model.to_json()
    data["made_by"] = {
        "command": "python -m service.learn.probcut",
        "games": args.games,
        "seed": args.seed,
        "depth": args.depth,
        "positions": len(rows),
        "empties": [LOW, HIGH],
    }
    data["fit"] = report
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    print(f"{len(rows)} positions in {time.monotonic() - began:.0f} s: wrote {args.out.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
