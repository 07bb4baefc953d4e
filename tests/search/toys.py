"""Small games implementing the search hooks of ``core.Position``, with brute-force minimax to check against.

- ``Nim``: heaps, take any number from one heap, the player who takes the last object wins (+1 / -1).
- ``TicTacToe``: the usual 3×3 game, margin +1 / 0 / -1.
- ``Piles``: take 1..3 tokens from a pile and score them; emptying a pile earns an extra turn (the same seat
  moves again); the final value is the score margin. Tests seat continuation.
- ``Tree``: a random game graph from a seed: random branching, random seat to move (often the same seat
  twice), random early ends, random leaf values and a noisy evaluation. ``ply`` is part of the position, so
  positions at different depths never transpose (fixed-depth values are well defined), while ``width``
  small makes many transpositions at the same depth.
- ``QuickWin``: many moves, exactly one wins at once; the others lead to a long random game.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from service.core.contract import Position
from service.search import Plugins

INF = float("inf")


class Toy:
    """The contract's optional search members with their defaults (toys implement only the search hooks)."""

    __slots__ = ()
    plies_left = Position.plies_left
    search_moves_complete = Position.search_moves_complete


class Nim(Toy):
    __slots__ = ("heaps", "to_move", "winner")

    def __init__(self, heaps: tuple[int, ...], to_move: int = 1, winner: int = 0) -> None:
        self.heaps = heaps
        self.to_move = to_move
        self.winner = winner

    def __hash__(self) -> int:
        return hash((self.heaps, self.to_move, self.winner))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Nim)
            and self.heaps == other.heaps
            and self.to_move == other.to_move
            and self.winner == other.winner
        )

    def __repr__(self) -> str:
        return f"Nim({self.heaps}, {self.to_move}, {self.winner})"

    def search_moves(self) -> list[tuple[int, int]]:
        return [(h, n) for h, size in enumerate(self.heaps) for n in range(1, size + 1)]

    legal_moves = search_moves

    def play(self, move: tuple[int, int]) -> Nim:
        h, n = move
        heaps = (*self.heaps[:h], self.heaps[h] - n, *self.heaps[h + 1 :])
        if not any(heaps):
            return Nim(heaps, 0, self.to_move)
        return Nim(heaps, 3 - self.to_move, 0)

    def evaluate(self, seat: int) -> float:
        return 0.0

    def final_value(self, seat: int) -> float:
        return 1.0 if seat == self.winner else -1.0


_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class TicTacToe(Toy):
    __slots__ = ("board", "to_move")

    def __init__(self, board: tuple[int, ...] = (0,) * 9, to_move: int = 1) -> None:
        self.board = board
        self.to_move = to_move

    def __hash__(self) -> int:
        return hash((self.board, self.to_move))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TicTacToe) and self.board == other.board and self.to_move == other.to_move

    def winner(self) -> int:
        b = self.board
        for x, y, z in _LINES:
            if b[x] and b[x] == b[y] == b[z]:
                return b[x]
        return 0

    def search_moves(self) -> list[int]:
        return [i for i in (4, 0, 2, 6, 8, 1, 3, 5, 7) if not self.board[i]]

    legal_moves = search_moves

    def play(self, move: int) -> TicTacToe:
        board = (*self.board[:move], self.to_move, *self.board[move + 1 :])
        after = TicTacToe(board, 3 - self.to_move)
        if after.winner() or all(board):
            after.to_move = 0
        return after

    def evaluate(self, seat: int) -> float:
        return 0.0

    def final_value(self, seat: int) -> float:
        w = self.winner()
        return 0.0 if w == 0 else (1.0 if w == seat else -1.0)


class Piles(Toy):
    """Scores (s1, s2); a pile emptied by the mover gives the mover another turn."""

    __slots__ = ("piles", "scores", "to_move")

    def __init__(self, piles: tuple[int, ...], to_move: int = 1, scores: tuple[int, int] = (0, 0)) -> None:
        self.piles = piles
        self.to_move = to_move
        self.scores = scores

    def __hash__(self) -> int:
        return hash((self.piles, self.to_move, self.scores))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Piles)
            and self.piles == other.piles
            and self.to_move == other.to_move
            and self.scores == other.scores
        )

    def __repr__(self) -> str:
        return f"Piles({self.piles}, {self.to_move}, {self.scores})"

    def search_moves(self) -> list[tuple[int, int]]:
        return [(p, n) for p, size in enumerate(self.piles) for n in range(min(3, size), 0, -1)]

    legal_moves = search_moves

    def play(self, move: tuple[int, int]) -> Piles:
        p, n = move
        piles = (*self.piles[:p], self.piles[p] - n, *self.piles[p + 1 :])
        s1, s2 = self.scores
        # Taking from an odd-numbered pile scores double: makes the order of captures matter.
        gain = n * (2 if p % 2 else 1)
        scores = (s1 + gain, s2) if self.to_move == 1 else (s1, s2 + gain)
        if not any(piles):
            to_move = 0
        elif piles[p] == 0:
            to_move = self.to_move
        else:
            to_move = 3 - self.to_move
        return Piles(piles, to_move, scores)

    def evaluate(self, seat: int) -> float:
        s1, s2 = self.scores
        return float(s1 - s2 if seat == 1 else s2 - s1)

    final_value = evaluate


def _h(*parts: Any) -> int:
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=8).digest(), "big")


class Tree(Toy):
    """A random game graph: position = (seed, ply, key). ``width`` bounds distinct keys per ply."""

    __slots__ = ("_hash", "key", "ply", "seed", "to_move", "width")

    def __init__(self, seed: int, ply: int = 0, key: int = 0, width: int = 1 << 40, to_move: int = 1) -> None:
        self.seed = seed
        self.ply = ply
        self.key = key
        self.width = width
        self.to_move = to_move
        self._hash = hash((seed, ply, key, to_move))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Tree)
            and self.key == other.key
            and self.ply == other.ply
            and self.to_move == other.to_move
            and self.seed == other.seed
            and self.width == other.width
        )

    def __repr__(self) -> str:
        return f"Tree({self.seed}, {self.ply}, {self.key}, {self.width}, {self.to_move})"

    def search_moves(self) -> list[int]:
        return list(range(1 + _h(self.seed, self.ply, self.key, "b") % 4))

    legal_moves = search_moves

    def play(self, move: int) -> Tree:
        key = _h(self.seed, self.ply, self.key, move) % self.width
        ply = self.ply + 1
        r = _h(self.seed, ply, key, "t") % 100
        # Sometimes the end, often the same seat again (extra turns), otherwise the other seat.
        to_move = 0 if ply >= 12 or r < 8 else self.to_move if r < 40 else 3 - self.to_move
        return Tree(self.seed, ply, key, self.width, to_move)

    def evaluate(self, seat: int) -> float:
        v = _h(self.seed, self.ply, self.key, "e") % 21 - 10
        return float(v if seat == 1 else -v)

    def final_value(self, seat: int) -> float:
        v = _h(self.seed, self.ply, self.key, "f") % 41 - 20
        return float(v if seat == 1 else -v)


class QuickWin(Toy):
    """Seat 1 to move with 12 moves; move 7 wins at once (+5). Other moves start a long random race."""

    __slots__ = ("left", "to_move", "won")

    def __init__(self, left: int = 30, to_move: int = 1, won: int = 0) -> None:
        self.left = left
        self.to_move = to_move
        self.won = won

    def __hash__(self) -> int:
        return hash((self.left, self.to_move, self.won))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QuickWin) and (self.left, self.to_move, self.won) == (
            other.left,
            other.to_move,
            other.won,
        )

    def search_moves(self) -> list[int]:
        return list(range(12))

    def play(self, move: int) -> QuickWin:
        if self.left == 30 and move == 7:
            return QuickWin(0, 0, 1)
        left = self.left - 1 - move % 2
        if left <= 0:
            # Whoever ends the race loses it unless the move was even.
            return QuickWin(0, 0, self.to_move if move % 2 == 0 else 3 - self.to_move)
        return QuickWin(left, 3 - self.to_move, 0)

    def evaluate(self, seat: int) -> float:
        return 0.0

    def final_value(self, seat: int) -> float:
        return 5.0 if self.won == seat else -5.0


def minimax(pos: Any, depth: int | None = None) -> float:
    """Plain minimax value for ``pos.to_move`` with seat continuation; ``depth`` None = to the end."""

    @cache
    def value(p: Any, d: int) -> float:
        seat = p.to_move
        if d == 0:
            return p.evaluate(seat)
        best = -INF
        for m in p.search_moves():
            c = p.play(m)
            if c.to_move == 0:
                v = c.final_value(seat)
            elif c.to_move == seat:
                v = value(c, d - 1)
            else:
                v = -value(c, d - 1)
            best = max(best, v)
        return best

    return value(pos, -1 if depth is None else depth)


def move_values(pos: Any, depth: int | None = None) -> dict[Any, float]:
    """Minimax value of each move for the mover (``depth`` counts the move itself)."""
    seat = pos.to_move
    out = {}
    for m in pos.search_moves():
        c = pos.play(m)
        if c.to_move == 0:
            out[m] = c.final_value(seat)
        else:
            v = minimax(c, None if depth is None else depth - 1)
            out[m] = v if c.to_move == seat else -v
    return out


class BoundedTree(Tree):
    """``Tree`` with the solve-mode hooks: ``plies_left`` (the graph ends by ply 12) and an exact
    ``endgame_value`` (by minimax) for the last ``small`` plies, counting its calls in ``calls``."""

    __slots__ = ()
    small = 3
    calls = 0

    def play(self, move: int) -> BoundedTree:
        t = Tree.play(self, move)
        return BoundedTree(t.seed, t.ply, t.key, t.width, t.to_move)

    def plies_left(self) -> int:
        return 12 - self.ply

    def endgame_value(self, alpha: float, beta: float, stop_at: float | None = None) -> tuple[float, int] | None:
        """The solve-mode plug-in (``ENDGAME``)."""
        if 12 - self.ply > self.small:
            return None
        BoundedTree.calls += 1
        return minimax(self), 1


ENDGAME = Plugins(endgame=BoundedTree.endgame_value)
