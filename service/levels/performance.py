"""A reviewed seat's performance rating on its game's ladder scale (docs/api.md: Rated ladder).

The ladder's own reviewed games (``make fit-ladder``, ``service/learn/ladder.py``) count each rung's judged moves
by the band of win chance they lost (``LOSS_BANDS``). From those counts a **band model** gives the chance of each
band for a player of any rating: a multinomial logit whose log-odds against "nothing lost" are linear in the
rating, fitted to the rungs' counts by maximum likelihood (Newton's method). A seat's rating is then the median of
the posterior over ratings given its own moves' bands, a uniform prior over the ladder's span widened by
``MARGIN`` each side, with the ratings the posterior holds 95 % within.

Why this form: a posterior over the rungs themselves can only pull a seat at either end of the ladder towards its
middle, and each rung's own counts are a few hundred moves; a model smooth in the rating shares them between
rungs and reaches past the ends. ``python -m bench.ladder`` measures the error of both against the rungs' ratings
(the game's page gives the figures).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from service.levels.ladder import Rating, path_of, ratings

# The bands of lost win chance a performance rating counts a seat's judged moves in: none, up to each bound, more.
LOSS_BANDS = (0.005, 0.02, 0.05, 0.1, 0.2)
# Added to every band's count of a rung before the fit: a band a rung never lost in is rare for it, not impossible.
BAND_PRIOR = 0.5
# The posterior's span past the ladder's lowest and highest rungs (rating points), and the grid's step within it.
MARGIN = 100.0
STEP = 5.0
RIDGE = 1e-3  # on the model's coefficients: keeps a band no rung ever reached finite
NEWTON_STEPS = 50
_TAIL = 0.025  # each side of a 95 % interval


def band(loss: float) -> int:
    """The band of ``loss`` (0: nothing lost; then each bound of ``LOSS_BANDS`` in turn; the last: more)."""
    if loss <= 0.0:
        return 0
    return next((k for k, bound in enumerate(LOSS_BANDS, start=1) if loss <= bound), len(LOSS_BANDS) + 1)


BANDS = len(LOSS_BANDS) + 2
# A loss in each band, for drawing a seat from the model: none, each bound, and a whole win.
BAND_LOSSES = (0.0, *LOSS_BANDS, 1.0)


@dataclass(frozen=True, slots=True)
class Performance:
    """A game's band model: per band (the first, "nothing lost", the reference) an intercept and a slope of its
    log-odds in the standardised rating ``(rating - center) / scale``, and the span of ratings a seat may get."""

    intercepts: tuple[float, ...]
    slopes: tuple[float, ...]
    center: float
    scale: float
    low: float
    high: float

    @classmethod
    def fit(cls, rung_ratings: Sequence[float], counts: Sequence[Sequence[float]]) -> Performance:
        """The band model of rungs rated ``rung_ratings`` whose judged moves fell ``counts[k][b]`` times in band
        ``b`` (at least two rungs of different ratings)."""
        if len(rung_ratings) < 2 or len(counts) != len(rung_ratings):
            raise ValueError("a band model needs at least two rungs, each with its counts")
        center = sum(rung_ratings) / len(rung_ratings)
        scale = math.sqrt(sum((r - center) ** 2 for r in rung_ratings) / len(rung_ratings))
        if not scale > 0:
            raise ValueError("a band model needs rungs of different ratings")
        xs = [(r - center) / scale for r in rung_ratings]
        rows = [[float(c) + BAND_PRIOR for c in row] for row in counts]
        intercepts, slopes = _newton(xs, rows)
        return cls(intercepts, slopes, center, scale, min(rung_ratings) - MARGIN, max(rung_ratings) + MARGIN)

    def chances(self, rating: float) -> list[float]:
        """The chance of each band for one judged move of a player rated ``rating``."""
        return _softmax(_etas(self.intercepts, self.slopes, (rating - self.center) / self.scale))

    def draw(self, rating: float, moves: int, rng: random.Random) -> list[float]:
        """The losses of ``moves`` judged moves of a player rated ``rating`` as the model has them, each band's
        largest loss (``BAND_LOSSES``): the model's own seats, which tell how well any rating read off one game's
        bands can do (``python -m bench.ladder`` compares the reviews' error with theirs)."""
        return rng.choices(BAND_LOSSES, self.chances(rating), k=moves)

    def rating(self, losses: Sequence[float]) -> Rating:
        """The performance rating of a seat whose judged moves lost ``losses`` of win chance: the posterior's
        median over ratings, with the ratings it holds 95 % within."""
        counts = [0] * BANDS
        for loss in losses:
            counts[band(loss)] += 1
        steps = round((self.high - self.low) / STEP)
        grid = [self.low + STEP * k for k in range(steps + 1)]
        scores = []
        for value in grid:
            etas = _etas(self.intercepts, self.slopes, (value - self.center) / self.scale)
            normal = _logsumexp(etas)
            scores.append(sum(n * (eta - normal) for n, eta in zip(counts, etas, strict=True)))
        top = max(scores)
        weights = [math.exp(score - top) for score in scores]
        total = sum(weights)
        cumulative, held = [], 0.0
        for weight in weights:
            held += weight / total
            cumulative.append(held)
        low, median, high = (round(_quantile(grid, cumulative, share), 1) for share in (_TAIL, 0.5, 1 - _TAIL))
        return Rating(median, low, high)


def _quantile(grid: Sequence[float], cumulative: Sequence[float], share: float) -> float:
    """The lowest rating of ``grid`` at which the posterior's weight from below reaches ``share``."""
    return next((value for value, held in zip(grid, cumulative, strict=True) if held >= share - 1e-12), grid[-1])


def _etas(intercepts: Sequence[float], slopes: Sequence[float], x: float) -> list[float]:
    return [a + b * x for a, b in zip(intercepts, slopes, strict=True)]


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def _softmax(values: Sequence[float]) -> list[float]:
    normal = _logsumexp(values)
    return [math.exp(v - normal) for v in values]


def _newton(xs: Sequence[float], rows: Sequence[Sequence[float]]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The multinomial logit's coefficients (band 0 fixed at 0) by Newton's method on the ridge-penalised
    log-likelihood: a concave problem of 2 (BANDS - 1) unknowns, solved to convergence in a few steps (a step
    that would lower the likelihood is halved)."""
    theta = [0.0] * (2 * (BANDS - 1))  # the intercepts of bands 1.., then their slopes
    value = _likelihood(theta, xs, rows)
    for _ in range(NEWTON_STEPS):
        gradient, information = _derivatives(theta, xs, rows)
        delta = _solve(information, gradient)
        for _halving in range(30):
            trial = [t + d for t, d in zip(theta, delta, strict=True)]
            found = _likelihood(trial, xs, rows)
            if found >= value - 1e-12:
                break
            delta = [d / 2 for d in delta]
        theta, value = trial, found
        if max(abs(d) for d in delta) < 1e-9:
            break
    return _split(theta)


def _split(theta: Sequence[float]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    free = BANDS - 1
    return (0.0, *theta[:free]), (0.0, *theta[free:])


def _likelihood(theta: Sequence[float], xs: Sequence[float], rows: Sequence[Sequence[float]]) -> float:
    """The penalised log-likelihood of the counts ``rows`` at ratings ``xs``."""
    intercepts, slopes = _split(theta)
    value = -0.5 * RIDGE * sum(t * t for t in theta)
    for x, row in zip(xs, rows, strict=True):
        etas = _etas(intercepts, slopes, x)
        normal = _logsumexp(etas)
        value += sum(n * (eta - normal) for n, eta in zip(row, etas, strict=True))
    return value


def _derivatives(
    theta: Sequence[float], xs: Sequence[float], rows: Sequence[Sequence[float]]
) -> tuple[list[float], list[list[float]]]:
    """The penalised log-likelihood's gradient and its information matrix (the Hessian's negative)."""
    free = BANDS - 1
    size = 2 * free
    gradient = [-RIDGE * t for t in theta]
    information = [[RIDGE if i == j else 0.0 for j in range(size)] for i in range(size)]
    intercepts, slopes = _split(theta)
    for x, row in zip(xs, rows, strict=True):
        total = sum(row)
        chances = _softmax(_etas(intercepts, slopes, x))
        features = (1.0, x)
        for b in range(1, BANDS):
            residual = row[b] - total * chances[b]
            for j, f in enumerate(features):
                gradient[j * free + b - 1] += residual * f
            for c in range(1, BANDS):
                weight = total * chances[b] * ((b == c) - chances[c])
                for j, f in enumerate(features):
                    for k, h in enumerate(features):
                        information[j * free + b - 1][k * free + c - 1] += weight * f * h
    return gradient, information


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix⁻¹ vector`` by Gaussian elimination with partial pivoting (``matrix`` positive definite)."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, n + 1):
                rows[r][c] -= factor * rows[col][c]
    out = [0.0] * n
    for r in range(n - 1, -1, -1):
        out[r] = (rows[r][n] - sum(rows[r][c] * out[c] for c in range(r + 1, n))) / rows[r][r]
    return out


@cache
def performance(game_id: str) -> Performance | None:
    """The band model of ``game_id`` from its shipped calibration (None: not measured)."""
    path = path_of(game_id)
    if not path.exists():
        return None
    measured = ratings(game_id)
    try:
        entry = json.loads(path.read_text()).get("performance")
        if entry is None:
            return None
        if tuple(entry["bands"]) != LOSS_BANDS:
            raise ValueError(f"bands {entry['bands']} are not {list(LOSS_BANDS)}")
        names = [name for name in entry["counts"] if name in measured]
        rows = [[float(c) for c in entry["counts"][name]] for name in names]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{path.name}: no performance calibration ({error}); run make fit-ladder") from None
    if len(names) < 2 or any(len(row) != BANDS or not all(math.isfinite(c) and c >= 0 for c in row) for row in rows):
        raise ValueError(f"{path.name}: performance.counts needs two rungs or more, {BANDS} counts of 0 or more each")
    return Performance.fit([measured[name].value for name in names], rows)


def performance_rating(game_id: str, losses: Sequence[float]) -> Rating | None:
    """A reviewed seat's performance rating on ``game_id``'s ladder scale from its judged moves' losses of win
    chance (None: the game has no calibration or the seat no judged move with a choice)."""
    found = performance(game_id)
    return None if found is None or not losses else found.rating(losses)
