"""Dots and Boxes' exact solver: what ``hard`` (``dots_and_boxes.py`` beside this) plays once few lines remain on
the Python path, when the native engine is not built or turned off (natively ``hard`` proves with the core's solve
mode, whose Dots and Boxes kernel keys its table by the lines alone in the same way: ``service/native``).

The value of the rest of the game (the margin on the boxes not yet complete, for the side to move) depends on the
drawn lines only, and not on their orientation: the solver is alpha-beta (MTD(f) at the root) over the engine's
sound reductions (``play_moves``), with a table keyed by the least image of the line set under the board's
symmetries (``canonical_lines``: 8 on a square board, 4 on a rectangle), forced captures followed without a table
entry and simple loony endgames valued by ``loony_value``. It solves 3x3 from the empty board (-3 for the first
player, 3 boxes to 6) in about 280 000 solver nodes.

It stays a search of its own beside the core's alpha-beta (``service/search``): its values are margins on the
open boxes alone, keyed by the line set up to symmetry, which the core's table (keyed by whole positions, owners
and seats included) cannot share; it is tested against plain minimax over every line.
"""

from __future__ import annotations

from service.core.values import Limits, ScoredMove, SearchResult, StopSignal
from service.engines.dots_and_boxes import (
    DotsAndBoxesPosition,
    Geometry,
    canonical_lines,
    estimate_rest,
    loony_value,
    play_moves,
    run_lengths,
)
from service.search import Deadline


class SolveAborted(Exception):
    """The exact solver ran out of nodes or was stopped; ``hard`` falls back on the search."""


class ExactSolver:
    """The exact margin of the rest of a game: the boxes not yet complete, from the view of the side to move.

    That value depends on the drawn lines only (not on who owns the complete boxes, nor on which seat is to
    move), and is the same for line sets that differ by a symmetry of the board, so the transposition table
    is keyed by the canonical line set. Alpha-beta (negamax; a line that completes a box keeps the turn, so
    its value is added, not negated) over the sound reductions of ``search_moves``; simple loony endgames
    (every open box has two sides) are valued by ``loony_value`` at once. The table holds a lower and an
    upper bound per key. ``stop`` is polled every node with the node count (a ``Deadline`` fits);
    ``SolveAborted`` is raised once it fires.
    """

    __slots__ = ("_loony", "_stop", "geo", "nodes", "table")

    def __init__(self, geo: Geometry, stop: Deadline | None = None, *, loony: bool = True) -> None:
        self.geo = geo
        self.table: dict[int, tuple[int, int]] = {}
        self.nodes = 0
        self._stop = stop
        self._loony = loony

    def value(self, lines: int) -> int:
        """The exact margin of the boxes still open, for the side to move (0 once every line is drawn).

        MTD(f): a series of null-window searches closing in from ``estimate_rest``'s guess, each cheap and
        each leaving bounds in the table for the next (the margin has the parity of the open boxes)."""
        geo = self.geo
        if lines == geo.full:
            return 0
        left = sum((lines & mask).bit_count() < 4 for mask in geo.box_lines)
        low, high = -left, left
        guess = max(low, min(high, round(estimate_rest(geo, lines))))
        if (guess - left) & 1:
            guess += 1 if guess < high else -1
        while low < high:
            test = guess + 1 if guess == low else guess
            guess = self._search(lines, test - 1, test)
            if guess < test:
                high = guess
            else:
                low = guess
        return low

    def move_value(self, lines: int, line: int, alpha: int | None = None, beta: int | None = None) -> int:
        """The exact value for the mover of drawing ``line`` (boxes it completes plus the rest, negated when
        the turn passes), or within ``alpha``..``beta`` a fail-soft bound (a value at or beyond the window's
        edge only bounds the true one)."""
        geo = self.geo
        bound = geo.box_count + 1
        alpha = -bound if alpha is None else alpha
        beta = bound if beta is None else beta
        after = lines | 1 << line
        gained = 0
        for box in geo.line_boxes[line]:
            mask = geo.box_lines[box]
            if after & mask == mask:
                gained += 1
        if after == geo.full:
            return gained
        if gained:
            return gained + self._search(after, alpha - gained, beta - gained)
        return -self._search(after, -beta, -alpha)

    def _search(self, lines: int, alpha: int, beta: int) -> int:
        geo = self.geo
        full, line_boxes, box_lines = geo.full, geo.line_boxes, geo.box_lines
        # Forced captures (the reductions leave one line, and it completes a box) are followed here, neither
        # counted nor stored: most positions of a solve are in the middle of taking a chain.
        taken = 0
        while True:
            moves = play_moves(geo, lines)
            if len(moves) != 1:
                break
            after = lines | 1 << moves[0]
            gained = 0
            for box in line_boxes[moves[0]]:
                mask = box_lines[box]
                if after & mask == mask:
                    gained += 1
            if not gained:
                break
            taken += gained
            lines = after
            if lines == full:
                return taken
        if taken:
            return taken + self._choose(lines, alpha - taken, beta - taken)
        return self._choose(lines, alpha, beta)

    def _choose(self, lines: int, alpha: int, beta: int) -> int:
        geo = self.geo
        lines = canonical_lines(geo, lines)
        entry = self.table.get(lines)
        if entry is None:
            sides = [(lines & mask).bit_count() for mask in geo.box_lines]
            if self._loony and 0 not in sides and 1 not in sides and 3 not in sides:
                chains, loops = run_lengths(geo, lines, sides)
                exact = loony_value(chains, loops)
                self.table[lines] = (exact, exact)
                return exact
            left = len(sides) - sides.count(4)
            low, high = -left, left
        else:
            low, high = entry
        # The bounds known may already answer the window (even a fresh node's: at most every open box).
        if low >= beta:
            return low
        if high <= alpha or low == high:
            return high
        self.nodes += 1
        if self._stop is not None and self._stop.expired(self.nodes):
            raise SolveAborted
        floor, ceiling = max(alpha, low), min(beta, high)
        best = -(1 << 30)
        window = floor
        full, line_boxes, box_lines = geo.full, geo.line_boxes, geo.box_lines
        for line in play_moves(geo, lines):
            after = lines | 1 << line
            gained = 0
            for box in line_boxes[line]:
                mask = box_lines[box]
                if after & mask == mask:
                    gained += 1
            if after == full:
                value = gained
            elif gained:
                value = gained + self._search(after, window - gained, ceiling - gained)
            else:
                value = -self._search(after, -ceiling, -window)
            if value > best:
                best = value
                if value > window:
                    window = value
                    if window >= ceiling:
                        break
        if best <= floor:
            high = min(high, best)
        elif best >= ceiling:
            low = max(low, best)
        else:
            low = high = best
        self.table[lines] = (low, high)
        return best


# ``hard`` proves the value with ``ExactSolver`` when the solve looks affordable: at most _EXACT_LINES undrawn
# lines (well under a second on 3x3), or more when the node budget covers the expected solve: about
# ``_EXACT_NODES_AT_LIMIT`` nodes at that many lines, ``_EXACT_GROWTH`` times more per further line (``python -m
# bench.solve --games dots-and-boxes``).
# A solve that runs past the node budget (or the time limit) gives up, and the chain search answers as before.
_EXACT_LINES = 18
_EXACT_NODES_AT_LIMIT = 5_000
_EXACT_GROWTH = 2.5


def exact_affordable(free: int, max_nodes: int | None) -> bool:
    """Whether a solve with ``free`` undrawn lines is worth trying within ``max_nodes`` (None: no limit)."""
    if free <= _EXACT_LINES or max_nodes is None:
        return True
    return max_nodes >= _EXACT_NODES_AT_LIMIT * _EXACT_GROWTH ** (free - _EXACT_LINES)


def solve(position: DotsAndBoxesPosition, limits: Limits, top_n: int, stop: StopSignal) -> SearchResult | None:
    """The proved best move and value with ``ExactSolver``, or None when its node budget or ``stop`` ran out.
    The move is the first of ``search_moves`` with the best value; with ``top_n`` > 1 every root move is
    valued exactly."""
    solver = ExactSolver(position.geometry, Deadline(Limits(max_nodes=limits.max_nodes), stop))
    lines = position.lines
    moves = list(position.search_moves())
    owned = position.box_margin(position.to_move)
    try:
        if top_n > 1:
            values = [solver.move_value(lines, move) for move in moves]
        else:
            # The value first, then the first move that reaches it (a null window each: cheap).
            rest = solver.value(lines)
            values = []
            for move in moves:
                values.append(solver.move_value(lines, move, rest - 1, rest))
                if values[-1] >= rest:
                    values[-1] = rest
                    break
            moves = moves[: len(values)]
    except SolveAborted:
        return None
    order = sorted(range(len(moves)), key=lambda i: -values[i])  # stable: the first best move leads
    if top_n == 1:
        order = order[:1]
    alternatives = [ScoredMove(moves[i], owned + values[i], True) for i in order[:top_n]]
    best_move = alternatives[0]
    return SearchResult(
        move=best_move.move,
        value=best_move.value,
        exact=True,
        depth=(lines ^ position.geometry.full).bit_count(),
        nodes=solver.nodes,
        stop_reason="solved",
        pv=[best_move.move],
        alternatives=alternatives,
    )
