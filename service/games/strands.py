"""Strands (Nick Bentley, 2022): the rules engine. Rules: ``shared/spec/rules.md`` §3.

Black opens by covering one empty 2; then White and Black alternate, each turn covering up to X (option
``exact_count``: exactly min(X, empty)) empty cells of one label X. When the board is full, the sorted group
sizes are compared entry by entry (a longer list wins over its own prefix).

Representation: a position is its layout (shared, precomputed per label text; see ``strands_layouts``),
two bitmasks of stones (bits of the layout's padded grid), the seat to move and ``exact_count``. A move is
the sorted tuple of the grid bits it covers: hashable and canonical (a set of cells).

Moves are never enumerated to be checked or counted: ``apply`` checks a cell set directly,
``legal_move_count`` is a sum of binomials and ``legal_moves_page`` unranks combinations. The stable move
order (where rules.md is silent): by label ascending, then by the number of cells ascending, then the
combinations of that label's empty cells in lexicographic board order.

Events: ``place`` for every turn (the seat, its cells in board order, how many), then ``game_over`` (seat =
the winner, detail = the Outcome's) on the turn that fills the board. Levels (``LEVELS``): ``easy`` picks
the candidate that evaluates best one move ahead, ``medium`` is a two-move alpha-beta, ``hard`` is Monte
Carlo tree search that hands over to alpha-beta (and proofs) once every full cover fits the search.

Choices where rules.md is silent:
- Notation: ``<label rows> <stone rows> <to move> exact=<0|1>``; rows top to bottom joined by ``/``, labels
  as digits, stones as ``.`` (empty), ``B``, ``W``; to move ``1``/``2`` or ``-`` when the board is full.
- ``legal_moves`` refuses (RulesError) above MAX_LISTED_MOVES moves: a side-9 board of 6s has ~10^11.
- Position checks: Black's opening stone lies on a 2; the seat to move must be reachable from the stone
  counts (under ``exact_count`` the number of turns each seat made follows from the counts per label; under
  "up to" it lies in a range, and the seat to move must fit it).
- Score units (``final_value``, ``evaluate``, search values): the margin of the largest groups, or ±½ when
  they are equal and a later entry decides (Petak Sawah's convention for a tie-break). ``scores()`` is each
  seat's largest group.
- Search reduction: only full-size covers (min(X, empty) cells) are searched. rules.md states they are
  never worse; the reason: a seat with extra stones can follow any plan of the seat without them
  (dropping cells it already holds, playing anywhere when nothing is left), and more stones of one's own
  (or fewer of the opponent's) only ever improve the sorted group sizes. ``final_value`` never decreases
  when they improve, so values proved over full covers are the values over every move (the tests check
  this against a brute force). When the full covers number more than CANDIDATE_CAP, a capped set of
  candidates is built stone by stone with a group-aware gain (``candidate_moves``); a value proved in a
  tree whose root was capped is not reported as exact.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from math import comb
from typing import Any, cast

from service.games.base import (
    Event,
    GameOverError,
    IllegalMove,
    InvalidMove,
    InvalidOption,
    InvalidPosition,
    Level,
    Limits,
    MoveGroup,
    NotationError,
    OptionSpec,
    Outcome,
    PlaysLevels,
    RulesError,
    ScoredMove,
    SearchResult,
    StopSignal,
)
from service.games.strands_layouts import (
    LAYOUT_CHOICES,
    MAX_LABELS_TEXT,
    NAMED_LAYOUTS,
    RANDOM_RING_COUNTS,
    Layout,
    parse_rows,
    random_rows,
)
from service.search import greedy, mcts, search

SEAT_NAMES = ("Black", "White")
STONE_CHARS = ".BW"
MAX_MOVE_CELLS = 6  # the highest label
MAX_MOVE_TEXT = 64  # six cell names of at most three characters, commas and some spaces
MAX_NOTATION = 2 * MAX_LABELS_TEXT + 16
MAX_LISTED_MOVES = 250_000  # legal_moves refuses above this; page instead
POSITION_FIELDS = ("labels", "black", "white", "to_move", "exact_count")

Move = tuple[int, ...]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _bits(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first (board order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def group_masks(layout: Layout, stones: int) -> list[int]:
    """The groups of ``stones`` (connected through adjacency), each as a bitmask."""
    groups = []
    while stones:
        group = stones & -stones
        while True:
            grown = layout.dilate(group) & stones
            if grown == group:
                break
            group = grown
        groups.append(group)
        stones ^= group
    return groups


def sorted_group_sizes(layout: Layout, stones: int) -> list[int]:
    """Group sizes of ``stones``, largest first."""
    return sorted((g.bit_count() for g in group_masks(layout, stones)), reverse=True)


def compare_group_sizes(black: list[int], white: list[int]) -> tuple[int, int, int]:
    """Decide rules.md's comparison: (winner seat, deciding index, margin in group-size units).

    The first differing entry decides (the larger wins); when one list is a prefix of the other, the
    longer wins and the margin is its extra entry. Equal lists return winner 0 (impossible on a full
    board, whose odd cell count makes the stone counts differ).
    """
    for i, (b, w) in enumerate(zip(black, white, strict=False)):
        if b != w:
            return (1 if b > w else 2), i, abs(b - w)
    if len(black) == len(white):
        return 0, len(black), 0
    longer = black if len(black) > len(white) else white
    return (1 if longer is black else 2), min(len(black), len(white)), longer[min(len(black), len(white))]


def _next_combination(combo: list[int], n: int) -> bool:
    """Advance ``combo`` (k increasing indices below n) to the next one in lexicographic order."""
    k = len(combo)
    i = k - 1
    while i >= 0 and combo[i] == n - k + i:
        i -= 1
    if i < 0:
        return False
    combo[i] += 1
    for j in range(i + 1, k):
        combo[j] = combo[j - 1] + 1
    return True


def _unrank_combination(rank: int, n: int, k: int) -> list[int]:
    """The ``rank``-th (0-based) k-combination of range(n) in lexicographic order."""
    combo, x = [], 0
    for i in range(k):
        while True:
            with_x = comb(n - x - 1, k - i - 1)  # combinations whose i-th element is x
            if rank < with_x:
                break
            rank -= with_x
            x += 1
        combo.append(x)
        x += 1
    return combo


def cell_bit(layout: Layout, name: object, error: type[RulesError], field: str) -> int:
    """The grid bit of a cell name such as ``f6``; ``error`` naming ``field`` when there is no such cell."""
    if not isinstance(name, str):
        raise error(f"a cell name must be a string, got {type(name).__name__}", field)
    bit = layout.index.get(name.strip())
    if bit is None:
        last_row = chr(ord("a") + 2 * layout.side - 2)
        raise error(
            f"{name.strip()[:8]!r} is not a cell of this side-{layout.side} board (rows a..{last_row}, "
            "cells 1.. from the left of each row)",
            field,
        )
    return bit


class StrandsPosition:
    """A Strands position: layout, Black's and White's stones, the seat to move, the ``exact_count`` rule.

    Build positions with ``GAME.new_position`` / ``parse_position`` / ``position_from_fields`` (checked)
    or ``apply`` / ``play``; the constructor trusts its arguments.
    """

    __slots__ = ("_hash", "_to_move", "black", "exact_count", "layout", "white")

    def __init__(self, layout: Layout, black: int, white: int, to_move: int, exact_count: bool) -> None:
        self.layout = layout
        self.black = black  # bitmask of Black's stones (grid bits of ``layout``)
        self.white = white
        self._to_move = to_move  # 1 Black, 2 White, 0 when the board is full
        self.exact_count = exact_count
        self._hash = hash((layout.rows, black, white, to_move, exact_count))

    # --- identity -----------------------------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self._to_move

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, StrandsPosition)
            and self.black == other.black
            and self.white == other.white
            and self._to_move == other._to_move
            and self.exact_count == other.exact_count
            and self.layout.rows == other.layout.rows
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"GAME.parse_position({self.to_notation()!r})"

    @property
    def empty(self) -> int:
        return self.layout.board & ~(self.black | self.white)

    @property
    def is_opening(self) -> bool:
        """Black's one-stone opening is still to be played (the board is empty)."""
        return not (self.black | self.white)

    def stones(self, seat: int) -> int:
        return self.black if seat == 1 else self.white

    # --- notation -----------------------------------------------------------------------------

    def to_notation(self) -> str:
        layout = self.layout
        chars = []
        for bit in layout.cells:
            chars.append("B" if self.black >> bit & 1 else "W" if self.white >> bit & 1 else ".")
        rows, at = [], 0
        for row in layout.rows.split("/"):
            rows.append("".join(chars[at : at + len(row)]))
            at += len(row)
        seat = str(self._to_move) if self._to_move else "-"
        return f"{layout.rows} {'/'.join(rows)} {seat} exact={int(self.exact_count)}"

    def to_fields(self) -> dict[str, Any]:
        return {
            "labels": self.layout.rows,
            "black": self.layout.cell_names(self.black),
            "white": self.layout.cell_names(self.white),
            "to_move": self._to_move,
            "exact_count": self.exact_count,
        }

    # --- moves --------------------------------------------------------------------------------

    def _move_groups(self) -> list[tuple[int, tuple[int, ...], int, int]]:
        """(label, empty cells, min count, max count) per label that may be played, label ascending."""
        if not self._to_move:
            return []
        empty = self.empty
        layout = self.layout
        if self.is_opening:
            return [(2, tuple(_bits(empty & layout.label_masks[2])), 1, 1)]
        groups = []
        for label in range(1, 7):
            open_cells = empty & layout.label_masks[label]
            if open_cells:
                cells = tuple(_bits(open_cells))
                most = min(label, len(cells))
                groups.append((label, cells, most if self.exact_count else 1, most))
        return groups

    def move_space(self) -> list[MoveGroup]:
        """The compact move space: per label, its empty cells and how many of them a move covers."""
        names = self.layout.names
        return [
            MoveGroup(label, tuple(names[b] for b in cells), low, high)
            for label, cells, low, high in self._move_groups()
        ]

    def legal_move_count(self) -> int:
        return sum(comb(len(cells), k) for _, cells, low, high in self._move_groups() for k in range(low, high + 1))

    def legal_moves_page(self, start: int, count: int) -> list[Move]:
        """Moves ``start .. start+count-1`` of the stable order, unranked: nothing before ``start`` is built."""
        start = max(start, 0)
        moves: list[Move] = []
        for _, cells, low, high in self._move_groups():
            for k in range(low, high + 1):
                if len(moves) >= count:
                    return moves
                block = comb(len(cells), k)
                if start >= block:
                    start -= block
                    continue
                combo = _unrank_combination(start, len(cells), k)
                start = 0
                while len(moves) < count:
                    moves.append(tuple(cells[i] for i in combo))
                    if not _next_combination(combo, len(cells)):
                        break
        return moves

    def legal_moves(self) -> list[Move]:
        """Every legal move in the stable order. Refused (RulesError) above MAX_LISTED_MOVES: page instead."""
        count = self.legal_move_count()
        if count > MAX_LISTED_MOVES:
            raise RulesError(f"{count} legal moves are too many to list at once; page through them", "")
        return self.legal_moves_page(0, count)

    def _cells_move(self, names: Sequence[object], field: str, item_field: bool) -> Move:
        if not names:
            raise InvalidMove("a move covers at least one cell", field)
        if len(names) > MAX_MOVE_CELLS:
            raise InvalidMove(f"a move covers at most {MAX_MOVE_CELLS} cells, got {len(names)}", field)
        bits = []
        for i, name in enumerate(names):
            where = f"{field}[{i}]" if item_field else field
            bit = cell_bit(self.layout, name, InvalidMove, where)
            if bit in bits:
                raise InvalidMove(f"cell {self.layout.names[bit]} is named twice", where)
            bits.append(bit)
        return tuple(sorted(bits))

    def parse_move(self, text: str) -> Move:
        """Read ``e5,f6`` (cells in any order, joined by commas)."""
        if not isinstance(text, str):
            raise InvalidMove(f"a move must be a string, got {type(text).__name__}", "")
        if len(text) > MAX_MOVE_TEXT:
            raise InvalidMove(f"move text is {len(text)} characters; a move names at most six cells", "")
        if not text.strip():
            raise InvalidMove("empty move: name the cells to cover, joined by commas (e5,f6)", "")
        return self._cells_move(text.split(","), "", item_field=False)

    def move_from_fields(self, fields: Mapping[str, Any]) -> Move:
        if not isinstance(fields, Mapping):
            raise InvalidMove("a move must be a message with a 'cells' list", "")
        unknown = set(fields) - {"cells"}
        if unknown:
            raise InvalidMove(f"unknown move field {sorted(map(str, unknown))[0]!r}", sorted(map(str, unknown))[0])
        cells = fields.get("cells", [])
        if isinstance(cells, str) or not isinstance(cells, Sequence):
            raise InvalidMove("cells must be a list of cell names", "cells")
        return self._cells_move(cells, "cells", item_field=True)

    def move_notation(self, move: Any) -> str:
        return ",".join(self.layout.names[b] for b in sorted(move))

    def move_to_fields(self, move: Any) -> dict[str, Any]:
        return {"cells": [self.layout.names[b] for b in sorted(move)]}

    def _check(self, move: object) -> int:
        """The mask a legal ``move`` covers; GameOverError / InvalidMove / IllegalMove otherwise."""
        if not self._to_move:
            raise GameOverError("the board is full: the game is over", "")
        layout = self.layout
        if (
            not isinstance(move, tuple)
            or not 1 <= len(move) <= MAX_MOVE_CELLS
            or not all(type(b) is int and b in layout.cell_label for b in move)
            or len(set(move)) != len(move)
        ):
            raise InvalidMove("a move is one to six distinct cells of this board", "cells")
        cells = sorted(move)
        names = layout.names
        taken = [names[b] for b in cells if (self.black | self.white) >> b & 1]
        if taken:
            raise IllegalMove(f"{', '.join(taken)} {'is' if len(taken) == 1 else 'are'} already covered", "cells")
        labels = {layout.cell_label[b] for b in cells}
        if len(labels) > 1:
            first = cells[0]
            other = next(b for b in cells if layout.cell_label[b] != layout.cell_label[first])
            raise IllegalMove(
                f"one turn covers cells of one label: {names[first]} is a {layout.cell_label[first]}, "
                f"{names[other]} is a {layout.cell_label[other]}",
                "cells",
            )
        label = labels.pop()
        if self.is_opening:
            if label != 2 or len(cells) != 1:
                raise IllegalMove("Black opens by covering exactly one cell labelled 2", "cells")
        else:
            left = (self.empty & layout.label_masks[label]).bit_count()
            most = min(label, left)
            if len(cells) > most:
                raise IllegalMove(
                    f"at most {most} cell{'s' if most > 1 else ''} labelled {label} may be covered now, "
                    f"got {len(cells)}",
                    "cells",
                )
            if self.exact_count and len(cells) < most:
                raise IllegalMove(
                    f"exact_count: a move on label {label} covers exactly {most} cells now, got {len(cells)}", "cells"
                )
        mask = 0
        for b in cells:
            mask |= 1 << b
        return mask

    def apply(self, move: Any) -> tuple[StrandsPosition, list[Event]]:
        mask = self._check(move)
        seat = self._to_move
        after = self._after(mask)
        label = self.layout.cell_label[move[0]]
        names = tuple(self.layout.cell_names(mask))
        plural = "s" if len(names) > 1 else ""
        events = [
            Event(
                "place",
                seat,
                names,
                len(names),
                f"{SEAT_NAMES[seat - 1]} covers {len(names)} cell{plural} labelled {label}: {', '.join(names)}.",
            )
        ]
        outcome = after.outcome()
        if outcome is not None:
            events.append(Event("game_over", outcome.winner, (), 0, outcome.detail))
        return after, events

    def _after(self, mask: int) -> StrandsPosition:
        seat = self._to_move
        black = self.black | mask if seat == 1 else self.black
        white = self.white | mask if seat == 2 else self.white
        full = (black | white) == self.layout.board
        return StrandsPosition(self.layout, black, white, 0 if full else 3 - seat, self.exact_count)

    def play(self, move: Any) -> StrandsPosition:
        mask = 0
        for b in move:
            mask |= 1 << b
        return self._after(mask)

    # --- result -------------------------------------------------------------------------------

    def group_sizes(self, seat: int) -> list[int]:
        """The seat's group sizes, largest first."""
        return sorted_group_sizes(self.layout, self.stones(seat))

    def scores(self) -> tuple[int, int]:
        """Each seat's largest group."""
        black, white = self.group_sizes(1), self.group_sizes(2)
        return (black[0] if black else 0), (white[0] if white else 0)

    def outcome(self) -> Outcome | None:
        if self._to_move:
            return None
        black, white = self.group_sizes(1), self.group_sizes(2)
        winner, index, _ = compare_group_sizes(black, white)
        win, lose = (black, white) if winner == 1 else (white, black)
        name, other = SEAT_NAMES[winner - 1], SEAT_NAMES[2 - winner]
        if index < min(len(black), len(white)):
            which = "largest group" if index == 0 else f"{_ordinal(index + 1)} largest group"
            detail = f"{name}'s {which} has {win[index]} stones, {other}'s {lose[index]}"
            if index:
                detail += " (the largest groups are equal)" if index == 1 else f" (the {index} largest are equal)"
        else:
            shown = ", ".join(map(str, lose))
            detail = (
                f"{other}'s group sizes {shown} are a prefix of {name}'s, whose next group has {win[index]} "
                "stones: the longer list wins"
            )
        return Outcome(winner, "group_sizes", detail)

    def final_value(self, seat: int) -> float:
        """The largest-group margin for ``seat``; ±0.5 when the largest groups are equal and a later entry
        (or the prefix rule) decides. Never decreases when a seat's sorted sizes improve, so searching
        only full-size covers proves the same values as searching every move."""
        black, white = self.group_sizes(1), self.group_sizes(2)
        winner, _, _ = compare_group_sizes(black, white)
        largest = (black[0] if black else 0) - (white[0] if white else 0)
        margin = float(largest) if largest else (0.5 if winner == 1 else -0.5)
        return margin if seat == 1 else -margin

    # --- search hooks -------------------------------------------------------------------------

    def search_moves(self) -> Sequence[Move]:
        """Full-size covers only (never worse than fewer cells, rules.md §3), best first; all of them when
        there are at most CANDIDATE_CAP, else a capped set built stone by stone (``candidate_moves``)."""
        return candidate_moves(self)

    def evaluate(self, seat: int) -> float:
        return evaluate(self, seat)


# --------------------------------------------------------------------------------------------------
# Checking positions.


def _turn_range(layout: Layout, stones: int, opener: bool) -> tuple[int, int, int]:
    """Turns a seat's stones took: (fewest under "up to", most under "up to", the exact_count number).

    The exact_count number is -1 when the stones cannot be split that way. ``opener``: the seat is Black,
    whose first stone on a 2 was the one-stone opening.
    """
    low = high = exact = 1 if opener else 0
    for label in range(1, 7):
        count = (stones & layout.label_masks[label]).bit_count()
        if opener and label == 2:
            count -= 1
        low += -(-count // label)
        high += count
        exact += -(-count // label)
    return low, high, exact


def _check_exact_counts(layout: Layout, black: int, white: int) -> str:
    """Why the stones cannot arise under exact_count, or "" when they can."""
    empty = layout.board & ~(black | white)
    for label in range(1, 7):
        mask = layout.label_masks[label]
        if not mask:
            continue
        opening = 1 if label == 2 and black else 0
        b = (black & mask).bit_count() - opening
        w = (white & mask).bit_count()
        pool = mask.bit_count() - opening
        # Every turn covers `label` cells except the one that empties the label, which covers the rest.
        short = pool % label if not empty & mask else 0
        remainders = sorted((b % label, w % label))
        if remainders != [0, short]:
            return (
                f"under exact_count each seat covers cells labelled {label} in turns of {label} "
                f"(the last turn there takes the rest), which {b + opening} Black and {w} White stones do not fit"
            )
    return ""


def checked_position(
    layout: Layout, black: int, white: int, to_move: int, exact_count: bool, fields: Mapping[str, str]
) -> StrandsPosition:
    """A position after checking it could arise; InvalidPosition naming ``fields[...]`` otherwise."""
    board = layout.board
    full = (black | white) == board
    if full and to_move:
        raise InvalidPosition("the board is full, so the game is over: no seat is to move", fields["to_move"])
    if not full and to_move not in (1, 2):
        raise InvalidPosition("the board is not full: the seat to move must be 1 or 2", fields["to_move"])
    if not black and not white:
        if to_move != 1:
            raise InvalidPosition("on the empty board Black (seat 1) is to move", fields["to_move"])
        return StrandsPosition(layout, 0, 0, to_move, exact_count)
    if not black & layout.label_masks[2]:
        raise InvalidPosition(
            "Black has no stone on a 2, but Black's first turn covers one cell labelled 2, so every position "
            "with stones on the board has a Black stone on a 2",
            fields["black"],
        )
    b_low, b_high, b_exact = _turn_range(layout, black, opener=True)
    w_low, w_high, w_exact = _turn_range(layout, white, opener=False)
    if exact_count:
        why = _check_exact_counts(layout, black, white)
        if why:
            raise InvalidPosition(why, fields["black"])
        b_low = b_high = b_exact
        w_low = w_high = w_exact
    # Black has made one turn more than White when White is to move, as many when Black is to move.
    seats = [seat for seat, ahead in ((2, 1), (1, 0)) if max(w_low, b_low - ahead) <= min(w_high, b_high - ahead)]
    if not seats:
        raise InvalidPosition(
            f"Black's {black.bit_count()} and White's {white.bit_count()} stones cannot come from alternating turns",
            fields["white"],
        )
    if to_move and to_move not in seats:
        raise InvalidPosition(
            f"with these stones {SEAT_NAMES[seats[0] - 1]} (seat {seats[0]}) is to move, not seat {to_move}",
            fields["to_move"],
        )
    return StrandsPosition(layout, black, white, to_move, exact_count)


# --------------------------------------------------------------------------------------------------
# Search: candidate moves, evaluation and the levels (on service.search).

PLAYOUT_NEAR = 0.75  # how often a playout stone goes next to the mover's stones when it can
CANDIDATE_CAP = 32  # up to this many full-size covers, search sees them all (and may then prove values)
POOL = 12  # cells of a label a candidate cover is built from: the best by single-cell gain
PER_LABEL = 5  # candidates kept per label when capping
BLOCK_WEIGHT = 0.75  # a cell the opponent would like is worth this share of its value to them
ROOM_WEIGHT = 0.1  # per empty neighbour: room to grow
CENTRE_WEIGHT = 0.05  # per ring nearer the centre: breaks ties on an empty board towards the middle


class _Groups:
    """One colour's groups seen from the empty cells: which groups each empty cell touches."""

    __slots__ = ("sizes", "touch")

    def __init__(self, layout: Layout, stones: int, empty: int) -> None:
        self.sizes: list[int] = []
        group_of: dict[int, int] = {}
        for i, group in enumerate(group_masks(layout, stones)):
            self.sizes.append(group.bit_count())
            for bit in _bits(group):
                group_of[bit] = i
        neighbours = layout.neighbours
        self.touch: dict[int, tuple[int, ...]] = {
            cell: tuple({group_of[b] for b in _bits(neighbours[cell] & stones)}) for cell in _bits(empty)
        }

    def single_gain(self, cell: int) -> int:
        """How much the sum of squared group sizes grows when ``cell`` alone joins this colour."""
        sizes = [self.sizes[g] for g in self.touch[cell]]
        return (1 + sum(sizes)) ** 2 - sum(s * s for s in sizes)

    def gain(self, cells: Sequence[int], neighbours: Mapping[int, int]) -> int:
        """How much the sum of squared group sizes grows when ``cells`` join this colour."""
        comp = list(range(len(self.sizes)))  # group -> the component it belongs to now
        size = dict(enumerate(self.sizes))  # component -> stones
        cell_comp: dict[int, int] = {}
        grown = 0
        for cell in cells:
            grown += self.join(cell, comp, size, cell_comp, neighbours)
        return grown

    def join(
        self, cell: int, comp: list[int], size: dict[int, int], cell_comp: dict[int, int], neighbours: Mapping[int, int]
    ) -> int:
        """Add ``cell`` to the components (in place); return the growth of the sum of squares."""
        touching = {comp[g] for g in self.touch[cell]}
        touching.update(c for other, c in cell_comp.items() if neighbours[cell] >> other & 1)
        new = -1 - len(cell_comp)  # cells' components get negative ids
        total = 1 + sum(size[c] for c in touching)
        grown = total * total - sum(size[c] * size[c] for c in touching)
        size[new] = total
        for g, c in enumerate(comp):
            if c in touching:
                comp[g] = new
        for other, c in cell_comp.items():
            if c in touching:
                cell_comp[other] = new
        cell_comp[cell] = new
        return grown

    def marginal(
        self, cell: int, comp: list[int], size: dict[int, int], cell_comp: dict[int, int], neighbours: Mapping[int, int]
    ) -> int:
        """What ``join`` would return, without changing anything."""
        touching = {comp[g] for g in self.touch[cell]}
        touching.update(c for other, c in cell_comp.items() if neighbours[cell] >> other & 1)
        total = 1 + sum(size[c] for c in touching)
        return total * total - sum(size[c] * size[c] for c in touching)


class _MoveScorer:
    """A cheap group-aware value of covering a set of cells, for ordering and building candidates."""

    __slots__ = ("extra", "neighbours", "own", "static", "their")

    def __init__(self, position: StrandsPosition) -> None:
        layout = position.layout
        seat = position.to_move
        empty = position.empty
        own, their = position.stones(seat), position.stones(3 - seat)
        self.neighbours = layout.neighbours
        self.own = _Groups(layout, own, empty)
        self.their = _Groups(layout, their, empty)
        self.extra: dict[int, float] = {}  # what a cell is worth beyond own growth: denial and room
        self.static: dict[int, float] = {}  # a single cell's whole value
        for cell in _bits(empty):
            block = self.their.single_gain(cell) - 1
            room = (self.neighbours[cell] & empty).bit_count()
            centre = layout.side - 1 - layout.ring[cell]
            self.extra[cell] = BLOCK_WEIGHT * block + ROOM_WEIGHT * room + CENTRE_WEIGHT * centre
            self.static[cell] = self.own.single_gain(cell) + self.extra[cell]

    def score(self, cells: Sequence[int]) -> float:
        """Own group growth of the whole set plus what each cell denies the opponent."""
        return self.own.gain(cells, self.neighbours) + sum(self.extra[c] for c in cells)

    def build(self, pool: Sequence[int], size: int, first: int | None) -> Move:
        """A cover of ``size`` cells from ``pool``, chosen stone by stone by the best marginal score."""
        own, neighbours, extra = self.own, self.neighbours, self.extra
        comp = list(range(len(own.sizes)))
        sizes = dict(enumerate(own.sizes))
        cell_comp: dict[int, int] = {}
        if first is not None:
            own.join(first, comp, sizes, cell_comp, neighbours)
        while len(cell_comp) < size:
            best, best_cell = -math.inf, -1
            for cell in pool:
                if cell not in cell_comp:
                    value = own.marginal(cell, comp, sizes, cell_comp, neighbours) + extra[cell]
                    if value > best:
                        best, best_cell = value, cell
            own.join(best_cell, comp, sizes, cell_comp, neighbours)
        return tuple(sorted(cell_comp))


def candidate_moves(position: StrandsPosition) -> list[Move]:
    """The moves search considers, best first by ``_MoveScorer``; see ``search_moves``."""
    if not position.to_move:
        return []
    scorer = _MoveScorer(position)
    groups = position._move_groups()
    if sum(comb(len(cells), high) for _, cells, _, high in groups) <= CANDIDATE_CAP:
        covers = [cover for _, cells, _, high in groups for cover in itertools.combinations(cells, high)]
        return sorted(covers, key=scorer.score, reverse=True)
    ranked: list[tuple[float, Move]] = []
    for _, cells, _, high in groups:
        if comb(len(cells), high) <= PER_LABEL:
            found = set(itertools.combinations(cells, high))
        elif high == 1:
            found = {(cell,) for cell in sorted(cells, key=scorer.static.__getitem__, reverse=True)[:PER_LABEL]}
        else:
            pool = sorted(cells, key=scorer.static.__getitem__, reverse=True)[:POOL]
            found = {scorer.build(pool, high, None)}
            for first in pool:  # greedy covers forced to start on each good cell in turn, for variety
                if len(found) >= PER_LABEL:
                    break
                found.add(scorer.build(pool, high, first))
        best = sorted(((scorer.score(m), m) for m in found), reverse=True)
        ranked.extend(best[:PER_LABEL])
    ranked.sort(key=lambda pair: pair[0], reverse=True)
    return [move for _, move in ranked[:CANDIDATE_CAP]]


def evaluate(position: StrandsPosition, seat: int) -> float:
    """Estimated final margin for ``seat`` in largest-group units.

    Each colour is worth a blend of its largest group now and its room to grow: the largest region of its
    stones and the empty cells connected to them, which bounds any group it can still make. As the board
    fills, the weight moves from the room to the group itself. Tuned by self-play at depth 2 on ``standard``:
    counting a room's empty cells as 0.7 of a stone beat 0.5 in 32 of 40 games, and counting them fully beat
    0.7 in 29 of 40; an even blend instead of the fill-driven one won 12 of 30.
    """
    if not position.to_move:
        return position.final_value(seat)
    layout = position.layout
    empty = position.empty
    filled = 1.0 - empty.bit_count() / layout.size
    values = []
    for colour in (seat, 3 - seat):
        stones = position.stones(colour)
        largest = max((g.bit_count() for g in group_masks(layout, stones)), default=0)
        room = max((r.bit_count() for r in group_masks(layout, stones | empty) if r & stones), default=0)
        values.append(filled * largest + (1.0 - filled) * room)
    return values[0] - values[1]


def full_cover_count(position: StrandsPosition) -> int:
    """How many full-size covers the seat to move has (what search_moves reduces to before any cap)."""
    return sum(comb(len(cells), high) for _, cells, _, high in position._move_groups())


def playout_move(position: StrandsPosition, rng: random.Random) -> Move:
    """A quick playout move: a full cover of a random label, its stones mostly next to the mover's own.

    Uniformly random covers scatter stones; growing from one's own stones makes playouts look like games
    in which groups matter (it beat uniform playouts 7 of 10 games against alpha-beta at equal time).
    """
    groups = position._move_groups()
    _, cells, _, high = groups[int(rng.random() * len(groups))]
    if high == len(cells):
        return cells
    neighbours = position.layout.neighbours
    grown = position.stones(position.to_move)
    rest = list(cells)
    chosen: list[int] = []
    while len(chosen) < high:
        near = [c for c in rest if neighbours[c] & grown]
        cell = (
            near[int(rng.random() * len(near))]
            if near and rng.random() < PLAYOUT_NEAR
            else rest[int(rng.random() * len(rest))]
        )
        chosen.append(cell)
        rest.remove(cell)
        grown |= 1 << cell
    return tuple(sorted(chosen))


def _easy(position: StrandsPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    mover = position.to_move
    return greedy(cast(Any, position), lambda p, m: evaluate(p.play(m), mover), rng, top_n)


def _medium(position: StrandsPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    return search(position, limits, stop=stop, top_n=top_n, rng=rng)


def _hard(position: StrandsPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    if full_cover_count(position) <= CANDIDATE_CAP:
        # Every full cover fits the search from here to the end: alpha-beta can prove the result.
        return search(position, limits, stop=stop, top_n=top_n, rng=rng)
    return mcts(position, limits, stop=stop, top_n=top_n, rng=rng, rollout=playout_move)


LEVELS = (
    Level("easy", "Plays the candidate cover that evaluates best one move ahead.", Limits()),
    Level(
        "medium",
        "Alpha-beta two moves deep over group-aware candidate covers.",
        Limits(max_time_ms=1000, max_depth=2),
    ),
    Level(
        "hard",
        "Monte Carlo tree search with group-growing playouts for 1.5 seconds, then alpha-beta to the proved "
        "end once every full cover fits the search.",
        Limits(max_time_ms=1500),
    ),
)
_STRATEGIES = {"easy": _easy, "medium": _medium, "hard": _hard}


# --------------------------------------------------------------------------------------------------
# The game.

_NOTATION_FIELDS = dict.fromkeys(POSITION_FIELDS, "")
_STRUCT_FIELDS = {name: name for name in POSITION_FIELDS}


class StrandsGame(PlaysLevels):
    """The Strands factory: options, notation, levels."""

    strategies = _STRATEGIES

    id = "strands"
    title = "Strands"
    description = (
        "Nick Bentley's Strands: cover up to X empty cells labelled X a turn on a hexhex board; "
        "when the board is full, the larger groups win."
    )
    seat_names = SEAT_NAMES
    options = (
        OptionSpec(
            "layout",
            "enum",
            "standard",
            "The board: a named layout, a random one dealt from the seed (random6, random7), or custom labels.",
            choices=LAYOUT_CHOICES,
        ),
        OptionSpec(
            "labels",
            "string",
            "",
            "Only with layout=custom: label rows top to bottom, digits 1..6 joined by '/', a hexhex board of side "
            "2..9 with at least one 2 (e.g. 22/232/22).",
        ),
        OptionSpec(
            "exact_count",
            "bool",
            False,
            "Each turn covers exactly min(X, empty cells labelled X) instead of up to X.",
        ),
    )
    levels = LEVELS
    default_level = "medium"
    position_notation_help = (
        "Four fields separated by single spaces: the label rows top to bottom joined by '/' (digits 1..6), the "
        "stone rows in the same shape ('.' empty, 'B' Black, 'W' White), the seat to move (1 Black, 2 White, "
        "'-' once the board is full) and exact=0 or exact=1 (the exact_count rule). Rows are drawn pointy-top, "
        "each offset by half a cell. A hexagonal board of side n (2..9) has 2n-1 rows of n, n+1, ..., 2n-1, "
        "..., n+1, n cells (side 6: 6/7/8/9/10/11/10/9/8/7/6), and at least one cell labelled 2. Play: Black "
        "opens by covering exactly one 2; then White and Black alternate, each turn covering 1..X empty cells "
        "of one label X (with exact=1 exactly min(X, the empty cells labelled X)). So a position is accepted "
        "only if: any stones on the board include a Black stone on a 2; the seat to move is '-' exactly when "
        "the board is full, and 1 on the empty board; the stones split into such turns, Black having made one "
        "turn more than White when White is to move and as many when Black is to move (a seat's stones on "
        "label X take at least ceil(stones / X) turns and at most one turn per stone, Black's opening 2 "
        "counted apart); with exact=1, each seat's stones on a label (Black's opening 2 apart) are a multiple "
        "of X, except that once every cell of that label is covered one seat may hold the short remainder. "
        "Example on a custom side-2 board after Black a1 and White a2,b1: '22/232/22 BW/W../.. 1 exact=0'."
    )
    move_notation_help = (
        "The covered cells joined by commas, e.g. 'e5,f6': row letter from the top (a, b, ...) and place in "
        "the row from the left (1, 2, ...); on the standard board the centre is f6. Any order is accepted; "
        "the service answers in board order. The cells must be empty, distinct and of one label X, 1..X of "
        "them (exactly min(X, the empty cells labelled X) with exact=1); Black's opening is exactly one 2."
    )

    def new_position(self, options: Mapping[str, Any], seed: str) -> StrandsPosition:
        layout_name = options.get("layout", "standard")
        labels = options.get("labels", "")
        exact_count = options.get("exact_count", False)
        if layout_name not in LAYOUT_CHOICES:
            raise InvalidOption(
                f"unknown layout {str(layout_name)[:32]!r}: one of {', '.join(LAYOUT_CHOICES)}", "layout"
            )
        if not isinstance(exact_count, bool):
            raise InvalidOption("exact_count must be true or false", "exact_count")
        if not isinstance(labels, str):
            raise InvalidOption("labels must be a string of label rows", "labels")
        if layout_name == "custom":
            if not labels:
                raise InvalidOption("layout=custom needs labels: label rows joined by '/'", "labels")
            layout = parse_rows(labels, "labels", InvalidOption, InvalidOption)
        else:
            if labels:
                raise InvalidOption("labels is only used with layout=custom", "labels")
            if layout_name in RANDOM_RING_COUNTS:
                if not isinstance(seed, str):
                    raise InvalidOption("the seed of a random layout must be a string", "seed")
                rows = random_rows(layout_name, seed)
            else:
                rows = NAMED_LAYOUTS[layout_name]
            layout = parse_rows(rows, "layout", InvalidOption, InvalidOption)
        return StrandsPosition(layout, 0, 0, 1, exact_count)

    def parse_position(self, text: str) -> StrandsPosition:
        if not isinstance(text, str):
            raise NotationError(f"a position must be a string, got {type(text).__name__}", "")
        if len(text) > MAX_NOTATION:
            raise NotationError(f"position notation is {len(text)} characters, more than any board needs", "")
        parts = text.split(" ")
        if len(parts) != 4 or not all(parts):
            raise NotationError(
                "position notation is four fields separated by single spaces: labels, stones, seat to move, "
                f"exact=0|1; got {len(text.split())}",
                "",
            )
        labels, stones, seat, exact = parts
        layout = parse_rows(labels, "", InvalidPosition, NotationError)
        rows = stones.split("/")
        label_rows = layout.rows.split("/")
        if [len(r) for r in rows] != [len(r) for r in label_rows]:
            raise NotationError("the stone rows must have the same shape as the label rows", "")
        text_stones = "".join(rows)
        if text_stones.strip(STONE_CHARS):
            raise NotationError("stones are '.' (empty), 'B' (Black) or 'W' (White)", "")
        black = white = 0
        for bit, ch in zip(layout.cells, text_stones, strict=True):
            if ch == "B":
                black |= 1 << bit
            elif ch == "W":
                white |= 1 << bit
        if seat not in ("1", "2", "-"):
            raise NotationError(f"the seat to move is 1, 2 or '-', got {seat[:8]!r}", "")
        if exact not in ("exact=0", "exact=1"):
            raise NotationError(f"the last field is exact=0 or exact=1, got {exact[:16]!r}", "")
        to_move = 0 if seat == "-" else int(seat)
        return checked_position(layout, black, white, to_move, exact == "exact=1", _NOTATION_FIELDS)

    def position_from_fields(self, fields: Mapping[str, Any]) -> StrandsPosition:
        if not isinstance(fields, Mapping):
            raise InvalidPosition("a Strands position must be a message", "")
        unknown = sorted(str(k) for k in fields if k not in POSITION_FIELDS)
        if unknown:
            raise InvalidPosition(f"unknown field {unknown[0][:32]!r}", unknown[0][:32])
        layout = parse_rows(fields.get("labels", ""), "labels", InvalidPosition, InvalidPosition)
        masks = []
        for key in ("black", "white"):
            cells = fields.get(key, [])
            if isinstance(cells, str) or not isinstance(cells, Sequence):
                raise InvalidPosition(f"{key} must be a list of cell names", key)
            if len(cells) > layout.size:
                raise InvalidPosition(f"{key} lists {len(cells)} cells; the board has {layout.size}", key)
            mask = 0
            for i, name in enumerate(cells):
                bit = cell_bit(layout, name, InvalidPosition, f"{key}[{i}]")
                if mask >> bit & 1:
                    raise InvalidPosition(f"{key} names {layout.names[bit]} twice", f"{key}[{i}]")
                mask |= 1 << bit
            masks.append(mask)
        black, white = masks
        both = black & white
        if both:
            raise InvalidPosition(f"{layout.cell_names(both)[0]} is both Black and White", "white")
        to_move = fields.get("to_move", 0)
        if type(to_move) is not int:
            raise InvalidPosition("to_move must be an integer seat (1, 2; 0 when the game is over)", "to_move")
        exact_count = fields.get("exact_count", False)
        if not isinstance(exact_count, bool):
            raise InvalidPosition("exact_count must be true or false", "exact_count")
        return checked_position(layout, black, white, to_move, exact_count, _STRUCT_FIELDS)

    def best_move(
        self,
        position: StrandsPosition,
        level: str | None,
        limits: Limits | None,
        seed: int,
        top_n: int,
        stop: StopSignal,
    ) -> SearchResult:
        if not isinstance(position, StrandsPosition):
            raise InvalidPosition("not a Strands position", "")
        result = super().best_move(position, level, limits, seed, top_n, stop)
        if result.exact and full_cover_count(position) > CANDIDATE_CAP:
            # The root's moves were capped, so a search that reached only finished games proved nothing.
            result.exact = False
            result.stop_reason = "depth" if result.stop_reason == "solved" else result.stop_reason
            result.alternatives = [ScoredMove(m.move, m.value, False) for m in result.alternatives]
        return result


GAME = StrandsGame()

__all__ = [
    "CANDIDATE_CAP",
    "GAME",
    "LEVELS",
    "Move",
    "StrandsGame",
    "StrandsPosition",
    "candidate_moves",
    "compare_group_sizes",
    "evaluate",
    "full_cover_count",
    "group_masks",
    "playout_move",
    "sorted_group_sizes",
]
