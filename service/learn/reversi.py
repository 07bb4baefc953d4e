"""Fit Reversi's pattern weights (``service/engines/reversi/patterns.py``): ``make train-reversi`` or
``python -m service.learn.reversi --config tiny|small|medium|large [--out FILE] [--workers N]`` (``--no-paired``,
``--smooth N``, ``--no-prior``, ``--games N``, ``--per-stage N`` and ``--exact-empties N`` change those fields of
the configuration, to measure what each gives; the header records what ran; ``--labels FILE`` keeps the labels
so that a stopped run continues: ``keep_labels``).

1. Self-play: ``games`` games of 8x8 from randomised openings (``OPENING`` uniformly random moves, then the
   hand-written evaluation one ply ahead with a ``NOISE`` share of random moves), every position kept once.
2. Stage by stage from the end of the game (``patterns.stage_of``), at most ``per_stage`` positions each,
   labelled with the final disc margin for the seat to move: exactly up to ``exact_empties`` empty squares
   (the native search engine's solve mode, ``service.native.engine``; without it the endgame solver of
   ``service/levels/reversi_endgame.py``); earlier by an alpha-beta search ``search_depths[stage]`` plies deep
   with the weights fitted so far at its leaves (the native engine's learned evaluation, handed the table
   being trained; without it the Python search with the same evaluation: the same values), the stage being
   labelled starting from the weights of the stage after it; with ``paired`` the mean of that search and the
   one a ply shallower (``search_label``). Bootstrapping from the end of the game, where the labels are exact:
   a deep enough search from a stage reaches the stages already fitted.
3. Each stage's weights by ridge regression (regularised least squares, conjugate gradients on the normal
   equations, ``ridge`` the penalty per weight in discs squared) of the label's difference from the
   hand-written estimate (the weights are a correction to it) on the positions' pattern indices, one weight
   per canonical index (``patterns.canonical_indices``: symmetric contents share it), rounded to
   1/``SCALE`` disc. With ``prior`` the ridge pulls a stage's weights towards those of the stage fitted before
   it rather than towards zero. With ``smooth``, once every stage is labelled, each stage is fitted again on
   its own and its neighbours' positions (``_fit_stages``), pulled towards the mean of its neighbours' first
   fits with ``prior``.

Everything is seeded (``seed``) and done in a fixed order, so a configuration reproduces its file bit for bit
on a machine (the header records the configuration; floating point may differ across CPUs), whatever the
number of ``workers`` (processes labelling a stage's positions: each label is its own search).
What each configuration costs, the training prints as it runs (``make train-reversi``).
"""

from __future__ import annotations

import argparse
import array
import hashlib
import io
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from scipy import sparse

from service.core.jsonvalue import JSONObject
from service.core.values import Limits
from service.engines.reversi import GAME, ReversiPosition
from service.engines.reversi.patterns import (
    FAMILIES,
    INSTANCES,
    SCALE,
    STAGE_SIZE,
    STAGES,
    TABLE_SIZE,
    WEIGHTS_FILE,
    canonical_indices,
    dump_weights,
    indices,
    stage_of,
)
from service.levels.reversi_endgame import endgame_value
from service.levels.reversi_learned import PatternEvaluation
from service.native import engine
from service.native import reversi as native_reversi
from service.search import search

OPENING = (4, 14)  # uniformly random moves at the start of a self-play game (inclusive range)
NOISE = 0.1  # share of random moves after the opening
CG_ITERATIONS = 300
CG_TOLERANCE = 1e-10  # relative residual at which conjugate gradients stops
LABEL_TT = 1 << 16  # transposition table entries of a labelling search (small: many short searches)


@dataclass(frozen=True)
class Config:
    """One training run's size; every number in it is recorded in the weights file's header."""

    name: str
    games: int
    per_stage: int
    exact_empties: int
    search_depths: tuple[int, ...]  # the labelling search's depth in each stage (where it is not exact)
    ridge: float
    seed: int = 18
    paired: bool = True  # a search label is the mean of the searches ``depth`` and ``depth - 1`` plies deep
    smooth: int = 1  # a second pass fits each stage on the positions of the stages within ``smooth`` of it too
    prior: bool = True  # the ridge pulls a stage's weights towards its neighbours' rather than towards zero

    def record(self) -> JSONObject:
        """The configuration as the weights file's header keeps it (JSON: lists for tuples)."""
        return {**asdict(self), "search_depths": list(self.search_depths)}


def _depths(*pairs: tuple[int, int]) -> tuple[int, ...]:
    """A depth per stage from (first stage, depth) pairs, each holding until the next."""
    out = []
    for stage in range(STAGES):
        out.append(next(depth for first, depth in reversed(pairs) if stage >= first))
    return tuple(out)


CONFIGS = {
    # For the tests: seconds, exact labels within the pure-Python solver's reach, depth-1 labels (the same on
    # both paths).
    "tiny": Config("tiny", games=40, per_stage=60, exact_empties=8, search_depths=_depths((0, 1)), ridge=4.0),
    # Labelling dominates: the exact solves near the end (``python -m bench.solve --games reversi --empties 18 20
    # --positions 10 --no-baseline``) and the paired search labels before them, which err about as little as a
    # single search a ply deeper against exact values, in less time (``python -m bench.learned_eval --positions
    # 2000 --empties 20-24 --label-depths 6 7``). The error falls with the positions a stage, slowly, and the
    # prior and the second pass help most where they are few: ``large`` has enough that the second pass no
    # longer helps, so it leaves it out (the same bench, ``--weights`` each file). ``large`` is the shipped
    # file; the Reversi page gives its accuracy, and the training prints what each part took.
    "small": Config("small", games=1500, per_stage=4000, exact_empties=14, search_depths=_depths((0, 4)), ridge=8.0),
    "medium": Config(
        "medium",
        games=6000,
        per_stage=20_000,
        exact_empties=15,
        search_depths=_depths((0, 6), (3, 7), (4, 4)),
        ridge=8.0,
    ),
    "large": Config(
        "large",
        games=80_000,
        per_stage=300_000,
        exact_empties=14,
        search_depths=_depths((0, 6), (5, 5)),
        ridge=8.0,
        smooth=0,
    ),
}


# --------------------------------------------------------------------------------------------------
# 1. Self-play.


def self_play(games: int, rng: random.Random) -> list[ReversiPosition]:
    """Every distinct position with a seat to move of ``games`` self-play games, in the order first met."""
    seen: set[tuple[int, int]] = set()
    out = []
    for _ in range(games):
        position = GAME.new_position({}, "")
        assert isinstance(position, ReversiPosition)
        opening = rng.randint(*OPENING)
        ply = 0
        while position.to_move:
            key = position.sides()
            if key not in seen:
                seen.add(key)
                out.append(position)
            moves = position.legal_moves()
            if ply < opening or rng.random() < NOISE:
                move = rng.choice(moves)
            else:
                seat = position.to_move
                move = max(moves, key=lambda m: position.play(m).evaluate(seat))
            position = position.play(move)
            ply += 1
    return out


def by_stage(positions: list[ReversiPosition], per_stage: int, rng: random.Random) -> list[list[ReversiPosition]]:
    """At most ``per_stage`` positions of each stage, drawn by ``rng``."""
    stages: list[list[ReversiPosition]] = [[] for _ in range(STAGES)]
    for position in positions:
        stages[stage_of(position.empties())].append(position)
    return [rng.sample(group, per_stage) if len(group) > per_stage else group for group in stages]


# --------------------------------------------------------------------------------------------------
# 2. Labels.


def exact_label(position: ReversiPosition) -> float:
    """The proved final margin for the seat to move: the native engine's solve, else the endgame solver."""
    if engine.available("reversi"):
        solved = engine.search(position, Limits(), solve=True, tt_entries=LABEL_TT)
        if solved is not None and solved.exact:
            return solved.value
    answer = endgame_value(position, -math.inf, math.inf)
    if answer is None:
        raise ValueError(f"no solver takes {position.empties()} empties here")
    return answer[0]


def search_label(position: ReversiPosition, depth: int, evaluate: PatternEvaluation, paired: bool) -> float:
    """The value of a ``depth``-ply alpha-beta search with ``evaluate`` at its leaves, for the seat to move;
    ``paired``: the mean of it and the search one ply shallower. A search's value leans towards the seat that
    moves at its leaves, so searches of odd and even depth err in opposite directions: against exact values
    at 20-24 empty squares the mean of 5 and 6 plies errs as little as 7 plies alone, in less time (``CONFIGS``)."""
    value = _search_value(position, depth, evaluate)
    if paired and depth > 1:
        value = (value + _search_value(position, depth - 1, evaluate)) / 2
    return value


def _search_value(position: ReversiPosition, depth: int, evaluate: PatternEvaluation) -> float:
    """The search's value natively when ``evaluate`` is the table handed to the native engine, else in Python
    (the same value)."""
    limits = Limits(max_depth=depth)
    if evaluate.in_native():
        result = engine.search(position, limits, learned=True, tt_entries=LABEL_TT)
        if result is not None:
            return result.value
    return search(position, limits, evaluate=evaluate, tt_size=LABEL_TT).value


Job = tuple[list[ReversiPosition], Config, int, PatternEvaluation]  # positions, config, stage, evaluation
_JOB: Job | None = None  # a labelling worker's job (``_start_worker``)


def labels(
    positions: list[ReversiPosition], config: Config, stage: int, evaluate: PatternEvaluation, workers: int = 1
) -> np.ndarray:
    """Every position's label, by ``workers`` processes (each label is its own search: the same values). The
    workers are forked, so they share the positions and the table handed to the native kernel without a copy;
    one that dies ends the run with ``BrokenProcessPool`` instead of leaving it waiting."""
    job = (positions, config, stage, evaluate)
    if workers <= 1 or len(positions) < 2 * workers:
        return np.array(_label_slice(job, 0, len(positions)))
    step = -(-len(positions) // (4 * workers))
    begins = range(0, len(positions), step)
    ends = [min(begin + step, len(positions)) for begin in begins]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=(job,)) as pool:
        return np.array([value for part in pool.map(_worker_slice, begins, ends) for value in part])


def _start_worker(job: Job) -> None:
    global _JOB
    _JOB = job


def _worker_slice(begin: int, end: int) -> list[float]:
    assert _JOB is not None, "a labelling worker is started with its job"
    return _label_slice(_JOB, begin, end)


def _label_slice(job: Job, begin: int, end: int) -> list[float]:
    """The labels of the job's positions ``begin:end``: exact near the end, else searched."""
    positions, config, stage, evaluate = job
    out = []
    for position in positions[begin:end]:
        if position.empties() <= config.exact_empties:
            out.append(exact_label(position))
        else:
            out.append(search_label(position, config.search_depths[stage], evaluate, config.paired))
    return out


# --------------------------------------------------------------------------------------------------
# 3. The fit.


def canonical_map() -> np.ndarray:
    """For every index of a stage's table, the index of the weight it shares (its canonical index)."""
    out = np.empty(STAGE_SIZE, dtype=np.int64)
    for family in FAMILIES:
        out[family.offset : family.offset + family.size] = family.offset + np.array(canonical_indices(family))
    return out


def features(positions: list[ReversiPosition], canonical: np.ndarray) -> np.ndarray:
    """The canonical stage-local index of every pattern instance of every position: (positions, instances)."""
    rows = np.empty((len(positions), len(INSTANCES)), dtype=np.int64)
    for i, position in enumerate(positions):
        me, opp = position.sides()
        rows[i] = [index % STAGE_SIZE for index in indices(me, opp)]
    return canonical[rows]


def ridge_fit(x: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    """Weights ``w`` (one per index of a stage) minimising ``|sum_k w[x[:, k]] - y|^2 + ridge |w|^2``, by
    conjugate gradients on the normal equations (each row sums one weight per column of ``x``: a sparse
    matrix of ones, whose products cost a third of gathering and counting with numpy alone)."""
    rows, width = x.shape
    ones = np.ones(rows * width)
    matrix = sparse.csr_matrix((ones, x.ravel(), np.arange(0, rows * width + 1, width)), shape=(rows, STAGE_SIZE))
    transposed = matrix.T.tocsr()

    def backward(r: np.ndarray) -> np.ndarray:
        result: np.ndarray = transposed @ r
        return result

    def normal(w: np.ndarray) -> np.ndarray:
        return backward(matrix @ w) + ridge * w

    w = np.zeros(STAGE_SIZE)
    residual = backward(y)
    direction = residual.copy()
    rho = float(residual @ residual)
    stop = CG_TOLERANCE * rho
    for _ in range(CG_ITERATIONS):
        if rho <= stop:
            break
        q = normal(direction)
        step = rho / float(direction @ q)
        w += step * direction
        residual -= step * q
        rho_next = float(residual @ residual)
        direction = residual + (rho_next / rho) * direction
        rho = rho_next
    return w


def to_table(w: np.ndarray, canonical: np.ndarray) -> np.ndarray:
    """A stage's fitted weights as int16 in 1/``SCALE`` disc, every index given its canonical weight."""
    table: np.ndarray = np.clip(np.rint(w[canonical] * SCALE), -32767, 32767).astype(np.int16)
    return table


# --------------------------------------------------------------------------------------------------
# The pipeline.


def train(
    config: Config,
    log: Callable[[str], None] = print,
    on_stage: Callable[[int, array.array[int]], None] | None = None,
    workers: int = 1,
    kept: Path | None = None,
) -> array.array[int]:
    """The weights table of ``config`` (module docstring); ``on_stage(stage, table)`` is called after each stage
    (a long run saves its progress with it); ``workers`` processes label the positions (the same table); with
    ``kept``, the stages' labels are kept in that file and taken from it (``keep_labels``)."""
    rng = random.Random(config.seed)
    start = time.monotonic()
    positions = self_play(config.games, rng)
    log(f"self-play: {config.games} games, {len(positions)} positions, {time.monotonic() - start:.0f} s")
    stages = by_stage(positions, config.per_stage, rng)
    table = array.array("h", bytes(2 * TABLE_SIZE))
    evaluate = PatternEvaluation(table)
    previous = native_reversi.weights()  # the service's table, when this runs inside it (the tests)
    evaluate.hand_to_native()
    try:
        _fit_stages(config, stages, table, evaluate, start, log, on_stage, workers, kept)
    finally:
        native_reversi.set_weights(previous)
    return table


class Labelled(NamedTuple):
    """A stage's positions as the fit sees them: pattern features, labels, hand-written estimates."""

    features: np.ndarray
    labels: np.ndarray
    hand: np.ndarray


def _fit_stages(
    config: Config,
    stages: list[list[ReversiPosition]],
    table: array.array[int],
    evaluate: PatternEvaluation,
    start: float,
    log: Callable[[str], None],
    on_stage: Callable[[int, array.array[int]], None] | None,
    workers: int,
    kept: Path | None,
) -> None:
    canonical = canonical_map()
    labelled: list[Labelled] = []
    made = read_labels(kept, config) if kept is not None and kept.exists() else []
    for stage, group in enumerate(stages):
        begin = stage * STAGE_SIZE
        if stage:  # bootstrap: the stage's searches start from the fitted weights of the stage after it
            table[begin : begin + STAGE_SIZE] = table[begin - STAGE_SIZE : begin]
        hand = np.array([p.evaluate(p.to_move) for p in group])
        if stage < len(made):
            if made[stage].positions != digest(group):
                raise ValueError(f"{kept}: stage {stage}'s labels are of other positions: delete it or name another")
            log(f"stage {stage}: {len(group)} labels from {kept}")
            values = made[stage].labels
        else:
            values = labels(group, config, stage, evaluate, workers)
            if kept is not None:
                made.append(Kept(digest(group), values))
                keep_labels(kept, config, made)
        labelled.append(Labelled(features(group, canonical), values, hand))
        if not group:
            continue
        prior = _stage_weights(table, [stage - 1]) if config.prior and stage else None
        _fit_stage(table, stage, labelled[stage : stage + 1], config.ridge, canonical, prior)
        error = _error(group, labelled[stage].labels, evaluate)
        log(
            f"stage {stage}: {len(group)} positions, training error {error:.2f} discs, {time.monotonic() - start:.0f} s"
        )
        if on_stage is not None:
            on_stage(stage, table)
    if config.smooth:
        _second_pass(config, stages, labelled, table, evaluate, start, log)
        if on_stage is not None:
            on_stage(len(stages) - 1, table)


def _labelling(config: Config) -> JSONObject:
    """What a stage's labels depend on: the configuration but the second pass (``smooth``), which takes the
    labels as they are."""
    record = config.record()
    del record["smooth"]
    return record


class Kept(NamedTuple):
    """A stage's labels as ``keep_labels`` keeps them, with ``digest`` of the positions they label."""

    positions: str
    labels: np.ndarray


def digest(positions: list[ReversiPosition]) -> str:
    """A fingerprint of positions in order: kept labels are taken only for the positions that they label."""
    return hashlib.sha256(np.array([p.sides() for p in positions], dtype=np.uint64).tobytes()).hexdigest()


def keep_labels(path: Path, config: Config, made: list[Kept]) -> None:
    """Write the labels of the stages labelled so far (``made``, from the end of the game), whole or not at all.
    Labelling is nearly all of a run's time, hours once exact solves reach far from the end, while a fit from
    given labels takes seconds to minutes; and labels are deterministic: a run handed the file (``train(...,
    kept=path)``) fits those stages again from it and labels only the rest, ending with the same table as a run
    that never stopped. ``main`` deletes the file once the weights are written (it holds nothing more then, and
    a later change to the code must not meet old labels)."""
    header = {"config": _labelling(config), "positions": [part.positions for part in made]}
    arrays: dict[str, Any] = {f"stage{stage}": part.labels for stage, part in enumerate(made)}
    out = io.BytesIO()
    np.savez(out, header=np.array(json.dumps(header, sort_keys=True)), **arrays)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, out.getvalue())


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: into a ``.partial`` file first, then renamed over ``path``
    (a run stopped while writing leaves the file as it was). The kept labels and the bench's exact values."""
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    partial.replace(path)


def read_labels(path: Path, config: Config) -> list[Kept]:
    """The labels ``keep_labels`` wrote, stage by stage; ``ValueError`` if another configuration made them."""
    with np.load(path) as data:
        header = json.loads(str(data["header"]))
        if header["config"] != _labelling(config):
            raise ValueError(f"{path} holds the labels of another configuration ({header['config']}): delete it")
        return [Kept(positions, data[f"stage{stage}"]) for stage, positions in enumerate(header["positions"])]


def _second_pass(
    config: Config,
    stages: list[list[ReversiPosition]],
    labelled: list[Labelled],
    table: array.array[int],
    evaluate: PatternEvaluation,
    start: float,
    log: Callable[[str], None],
) -> None:
    """Each stage fitted again on its neighbours' labelled positions too (the labels stay the first pass's): a
    stage's table has more weights than its positions pin down well, and neighbouring stages value a pattern
    alike (``prior`` uses that too: each stage is pulled towards its neighbours' first fits). Without a prior it
    takes ``medium``'s error from 0.62 of the hand-written estimate to 0.59 (``CONFIGS``)."""
    canonical = canonical_map()
    first = array.array("h", table) if config.prior else None  # the priors are the first pass's weights
    for stage, group in enumerate(stages):
        if group:
            near = labelled[max(0, stage - config.smooth) : stage + config.smooth + 1]
            others = [s for s in (stage - 1, stage + 1) if 0 <= s < len(stages) and stages[s]]
            prior = _stage_weights(first, others) if first is not None and others else None
            _fit_stage(table, stage, near, config.ridge, canonical, prior)
            error = _error(group, labelled[stage].labels, evaluate)
            log(
                f"stage {stage} with its neighbours: training error {error:.2f} discs, {time.monotonic() - start:.0f} s"
            )


def _fit_stage(
    table: array.array[int],
    stage: int,
    labelled: list[Labelled],
    ridge: float,
    canonical: np.ndarray,
    prior: np.ndarray | None = None,
) -> None:
    """Fit one stage's table on ``labelled`` (its own positions, and its neighbours' in the second pass). The
    weights fit what the hand-written estimate misses: ``patterns.estimate`` adds them to it. With ``prior``
    (weights in discs, one per index of a stage), the ridge pulls the weights towards it rather than towards
    zero: a configuration its stage's positions rarely show keeps its neighbours' weight instead of none."""
    x = np.concatenate([part.features for part in labelled])
    y = np.concatenate([part.labels - part.hand for part in labelled])
    # With a prior, fit what it leaves, so that the ridge shrinks towards it.
    w = ridge_fit(x, y, ridge) if prior is None else prior + ridge_fit(x, y - prior[x].sum(axis=1), ridge)
    begin = stage * STAGE_SIZE
    table[begin : begin + STAGE_SIZE] = array.array("h", to_table(w, canonical).tobytes())


def _stage_weights(table: array.array[int], stages: list[int]) -> np.ndarray:
    """The mean of ``stages``' weights in ``table``, in discs."""
    mean: np.ndarray = np.mean([np.array(table[s * STAGE_SIZE : (s + 1) * STAGE_SIZE]) / SCALE for s in stages], axis=0)
    return mean


def _error(group: list[ReversiPosition], target: np.ndarray, evaluate: PatternEvaluation) -> float:
    """The mean absolute error of the table's estimates against the labels (``target``)."""
    return float(np.mean(np.abs(np.array([evaluate(p, p.to_move) for p in group]) - target)))


def positive(text: str) -> int:
    """An argument that counts something (processes, plies): 1 or more."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fit Reversi's pattern weights (service/learn/reversi.py).")
    parser.add_argument("--config", choices=sorted(CONFIGS), default="small", help="the run's size")
    parser.add_argument("--out", type=Path, default=WEIGHTS_FILE, help="the weights file to write")
    parser.add_argument(
        "--workers",
        type=positive,
        default=1,
        help="processes labelling the positions, the same file with any number (make train-reversi: one per core)",
    )
    parser.add_argument(
        "--paired",
        action=argparse.BooleanOptionalAction,
        help="paired search labels or not, in place of the configuration's (the header records what ran)",
    )
    parser.add_argument(
        "--smooth", type=int, choices=range(STAGES), help="the second pass's reach in place of the configuration's"
    )
    parser.add_argument(
        "--prior",
        action=argparse.BooleanOptionalAction,
        help="pull each stage's weights towards its neighbours' or towards zero, in place of the configuration's",
    )
    for field in ("games", "per_stage", "exact_empties"):
        parser.add_argument(
            f"--{field.replace('_', '-')}", type=positive, help=f"{field} in place of the configuration's"
        )
    parser.add_argument(
        "--labels",
        type=Path,
        help="keep the labels in this file as they are made, and take those it holds from a stopped run of the "
        "same configuration (deleted once the weights are written; make train-reversi: build/)",
    )
    args = parser.parse_args(argv)
    fields = ("paired", "smooth", "prior", "games", "per_stage", "exact_empties")
    changed = {key: getattr(args, key) for key in fields if getattr(args, key) is not None}
    config = replace(CONFIGS[args.config], **changed)
    start = time.monotonic()
    partial = args.out.with_name(args.out.name + ".partial")

    def save(stage: int, table: array.array[int]) -> None:  # stages 0..stage fitted, the rest still zero
        dump_weights(partial, table, {**config.record(), "stages_fitted": stage + 1})

    table = train(
        config, log=lambda line: print(line, flush=True), on_stage=save, workers=args.workers, kept=args.labels
    )
    dump_weights(args.out, table, config.record())
    partial.unlink(missing_ok=True)
    if args.labels is not None:
        args.labels.unlink(missing_ok=True)
    print(f"wrote {args.out.name} ({args.config}) in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
