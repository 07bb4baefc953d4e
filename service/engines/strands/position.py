"""The Strands position: the state and the rules (``docs/games/strands.md``).

A position is its layout (shared, precomputed per label text; see ``layouts.py``), two bitmasks of stones (bits of
the layout's padded grid), the seat to move and ``exact_count``. A move is the sorted tuple of the grid bits it
covers: hashable and canonical (a set of cells).

Moves are never enumerated to be checked or counted: ``apply`` checks a cell set directly, ``legal_move_count`` is
a sum of binomials and ``moves_slice`` unranks combinations. The stable move order (where the rules are silent): by
label ascending, then by the number of cells ascending, then the combinations of that label's empty cells in
lexicographic board order. ``legal_moves`` refuses (RulesError) above MAX_LISTED_MOVES moves: a side-9 board of 6s
has ~10^11; callers page instead.

Events: ``place`` for every turn (the seat, its cells in board order, how many), then ``game_over`` (seat = the
winner, detail = the Outcome's) on the turn that fills the board.

Score units (``final_value``, ``evaluate``, search values): the margin of the largest groups, or ±½ when they are
equal and a later entry decides (Petak Sawah's convention for a tie-break). ``scores()`` is each seat's largest
group.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from math import comb
from typing import cast

from service.core.bits import set_bits
from service.core.contract import Position
from service.core.errors import GameOverError, IllegalMove, InvalidMove, RulesError
from service.core.jsonvalue import JSONObject
from service.core.values import Event, MoveGroup, Outcome
from service.engines.strands.groups import compare_group_sizes, sorted_group_sizes
from service.engines.strands.layouts import Layout, cell_bit
from service.engines.strands.moves import (
    CANDIDATE_CAP,
    CoverGroups,
    StrandsMove,
    candidate_moves,
    estimate,
    full_cover_count,
    playout_cover,
)

SEAT_NAMES = ("Black", "White")
MAX_MOVE_CELLS = 6  # the highest label
MAX_MOVE_TEXT = 64  # six cell names of at most three characters, commas and some spaces
MAX_LISTED_MOVES = 250_000  # legal_moves refuses above this; page instead


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


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


class StrandsPosition(Position[StrandsMove]):
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

    def to_fields(self) -> JSONObject:
        return {
            "labels": self.layout.rows,
            "black": self.layout.cell_names(self.black),
            "white": self.layout.cell_names(self.white),
            "to_move": self._to_move,
            "exact_count": self.exact_count,
        }

    # --- moves --------------------------------------------------------------------------------

    def _move_groups(self) -> CoverGroups:
        """(label, empty cells, min count, max count) per label that may be played, label ascending."""
        if not self._to_move:
            return []
        empty = self.empty
        layout = self.layout
        if self.is_opening:
            return [(2, tuple(set_bits(empty & layout.label_masks[2])), 1, 1)]
        groups = []
        for label in range(1, 7):
            open_cells = empty & layout.label_masks[label]
            if open_cells:
                cells = tuple(set_bits(open_cells))
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

    def moves_slice(self, start: int, count: int) -> list[StrandsMove]:
        """Moves ``start .. start+count-1`` of the stable order, unranked: nothing before ``start`` is built."""
        moves: list[tuple[int, ...]] = []
        for _, cells, low, high in self._move_groups():
            for k in range(low, high + 1):
                if len(moves) >= count:
                    return cast("list[StrandsMove]", moves)
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
        return cast("list[StrandsMove]", moves)

    def legal_moves(self) -> list[StrandsMove]:
        """Every legal move in the stable order. Refused (RulesError) above MAX_LISTED_MOVES: page instead."""
        count = self.legal_move_count()
        if count > MAX_LISTED_MOVES:
            raise RulesError(f"{count} legal moves are too many to list at once; page through them", "")
        return self.legal_moves_page(0, count)

    def _cells_move(self, names: Sequence[object], field: str, item_field: bool) -> StrandsMove:
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
        return StrandsMove(tuple(sorted(bits)))

    def parse_move(self, text: str) -> StrandsMove:
        """Read ``e5,f6`` (cells in any order, joined by commas)."""
        if not isinstance(text, str):
            raise InvalidMove(f"a move must be a string, got {type(text).__name__}", "")
        if len(text) > MAX_MOVE_TEXT:
            raise InvalidMove(f"move text is {len(text)} characters; a move names at most six cells", "")
        if not text.strip():
            raise InvalidMove("empty move: name the cells to cover, joined by commas (e5,f6)", "")
        return self._cells_move(text.split(","), "", item_field=False)

    def move_from_fields(self, fields: Mapping[str, object]) -> StrandsMove:
        if not isinstance(fields, Mapping):
            raise InvalidMove("a move must be a message with a 'cells' list", "")
        unknown = set(fields) - {"cells"}
        if unknown:
            raise InvalidMove(f"unknown move field {sorted(map(str, unknown))[0]!r}", sorted(map(str, unknown))[0])
        cells = fields.get("cells", [])
        if isinstance(cells, str) or not isinstance(cells, Sequence):
            raise InvalidMove("cells must be a list of cell names", "cells")
        return self._cells_move(cells, "cells", item_field=True)

    def move_notation(self, move: StrandsMove) -> str:
        return ",".join(self.layout.names[b] for b in sorted(move))

    def move_to_fields(self, move: StrandsMove) -> JSONObject:
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

    def apply(self, move: StrandsMove) -> tuple[StrandsPosition, list[Event]]:
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

    def play(self, move: StrandsMove) -> StrandsPosition:
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

    def search_moves(self) -> Sequence[StrandsMove]:
        """Full-size covers only (never worse than fewer cells, see ``moves.py``), best first; all of them when
        there are at most CANDIDATE_CAP, else a capped set built stone by stone (``candidate_moves``)."""
        if not self._to_move:
            return []
        seat = self._to_move
        return candidate_moves(self.layout, self._move_groups(), self.stones(seat), self.stones(3 - seat))

    def stage(self) -> float:
        """The free cells' share of the board."""
        return 1.0 - (self.black | self.white).bit_count() / self.layout.size

    def search_moves_complete(self) -> bool:
        """Whether ``search_moves`` holds every full cover (at most CANDIDATE_CAP of them): then a value the
        search proves over them is the value over every move."""
        return full_cover_count(self._move_groups()) <= CANDIDATE_CAP

    def evaluate(self, seat: int) -> float:
        """Estimated final margin for ``seat`` in largest-group units (``moves.estimate``)."""
        if not self._to_move:
            return self.final_value(seat)
        return estimate(self.layout, self.stones(seat), self.stones(3 - seat))

    def playout_move(self, rng: random.Random) -> StrandsMove:
        """A quick move for Monte Carlo playouts (``moves.playout_cover``): a full cover of a random label,
        its stones mostly next to the mover's own."""
        return playout_cover(self.layout, self._move_groups(), self.stones(self._to_move), rng)
