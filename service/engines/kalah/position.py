"""The Kalah position: the board in sowing order, the seat to move, and the rules (``docs/games/kalah.md``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NewType, cast

from service.core.contract import Position, is_int
from service.core.errors import GameOverError, IllegalMove, InvalidMove
from service.core.jsonvalue import JSONObject
from service.core.values import Event, Outcome

# A Kalah move: the number of the mover's pit sown, 1 to the pits a side (from the mover's left).
KalahMove = NewType("KalahMove", int)

MIN_PITS, MAX_PITS = 1, 12
MIN_SEEDS, MAX_SEEDS = 1, 12
SIDE_NAMES = ("", "South", "North")
_HOLE_PREFIX = ("", "S", "N")

# The longest canonical notation: 2 * 13 numbers of at most 3 digits, separators, "- seeds=12".
MAX_NOTATION = 2 * 13 * 4 + 16
NUMBER = re.compile(r"0|-?[1-9][0-9]{0,2}")


def _sow(board: tuple[int, ...], n: int, mover: int, pit: int) -> tuple[list[int], int, int]:
    """Sow from ``pit`` (1..n) of ``mover`` and capture: the new board, the hole the last seed reached,
    and how many seeds the capture took (0 if none). Unchecked; the end of the game is the caller's."""
    b = list(board)
    # The mover's row is indices first_pit .. own_store - 1; the opponent's store is skipped.
    if mover == 1:
        start, first_pit, own_store, skip = pit - 1, 0, n, 2 * n + 1
    else:
        start, first_pit, own_store, skip = n + pit, n + 1, 2 * n + 1, n
    seeds = b[start]
    b[start] = 0
    size = 2 * n + 2
    cycle = size - 1
    if start + seeds <= own_store:
        # The common case: the seeds stop by the mover's own store, no wrapping, nothing to skip.
        i = start + seeds
        for j in range(start + 1, i + 1):
            b[j] += 1
    else:
        i = start
        if seeds >= cycle:
            # Whole laps put one seed in every hole but the opponent's store (the start pit included).
            laps, seeds = divmod(seeds, cycle)
            for j in range(size):
                if j != skip:
                    b[j] += laps
        while seeds:
            i += 1
            if i == size:
                i = 0
            if i != skip:
                b[i] += 1
                seeds -= 1
    captured = 0
    # Empty before the last seed <=> exactly one seed now (a lap that passed it earlier leaves two or more).
    if first_pit <= i < own_store and b[i] == 1:
        opposite = 2 * n - i
        if b[opposite]:
            captured = b[opposite] + 1
            b[own_store] += captured
            b[i] = 0
            b[opposite] = 0
    return b, i, captured


class KalahPosition(Position[KalahMove]):
    """A Kalah position: the holes in sowing order, the seat to move (0 once over), the seeds per pit."""

    __slots__ = ("_board", "_hash", "_pits", "_seeds", "_to_move")

    def __init__(self, board: tuple[int, ...], to_move: int, seeds_per_pit: int) -> None:
        # Unchecked: callers are the validating readers below and ``play``.
        self._board = board
        self._to_move = to_move
        self._seeds = seeds_per_pit
        self._pits = (len(board) - 2) >> 1
        self._hash = 0

    # --- identity -----------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KalahPosition):
            return NotImplemented
        return self._board == other._board and self._to_move == other._to_move and self._seeds == other._seeds

    def __hash__(self) -> int:
        if not self._hash:
            self._hash = hash((self._board, self._to_move, self._seeds)) or 1
        return self._hash

    def __repr__(self) -> str:
        return f"GAME.parse_position({self.to_notation()!r})"

    # --- plain facts --------------------------------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self._to_move

    @property
    def board(self) -> tuple[int, ...]:
        """The holes in sowing order: South's pits 1..N, South's store, North's pits 1..N, North's store."""
        return self._board

    @property
    def pits_per_side(self) -> int:
        return self._pits

    @property
    def seeds_per_pit(self) -> int:
        return self._seeds

    def pits(self, seat: int) -> tuple[int, ...]:
        """The seeds in ``seat``'s pits 1..N, from that seat's left."""
        n = self._pits
        return self._board[0:n] if seat == 1 else self._board[n + 1 : 2 * n + 1]

    def store(self, seat: int) -> int:
        n = self._pits
        return self._board[n] if seat == 1 else self._board[2 * n + 1]

    def scores(self) -> tuple[int, int]:
        """Seeds in each store now (after the final sweep once the game is over)."""
        return self.store(1), self.store(2)

    # --- notation -----------------------------------------------------------------------------------

    def to_notation(self) -> str:
        b, n = self._board, self._pits
        south = ",".join(map(str, b[0 : n + 1]))
        north = ",".join(map(str, b[n + 1 :]))
        seat = str(self._to_move) if self._to_move else "-"
        return f"{south}/{north} {seat} seeds={self._seeds}"

    def to_fields(self) -> JSONObject:
        n = self._pits
        return {
            "pits": list(self._board[0:n]) + list(self._board[n + 1 : 2 * n + 1]),
            "stores": [self._board[n], self._board[2 * n + 1]],
            "to_move": self._to_move,
            "seeds_per_pit": self._seeds,
            "pits_per_side": n,
        }

    # --- moves --------------------------------------------------------------------------------------

    def legal_moves(self) -> list[KalahMove]:
        """The non-empty pits of the seat to move, pit 1 first."""
        if not self._to_move:
            return []
        base = 0 if self._to_move == 1 else self._pits + 1
        b = self._board
        return cast("list[KalahMove]", [p + 1 for p in range(self._pits) if b[base + p]])

    def legal_move_count(self) -> int:
        return len(self.legal_moves())

    def _check_pit(self, pit: object, field: str) -> KalahMove:
        n = self._pits
        if not is_int(pit):
            raise InvalidMove(f"a move is a pit number 1..{n}, not {type(pit).__name__}", field)
        if not 1 <= pit <= n:
            if n < pit <= 2 * n:
                raise InvalidMove(
                    f"pit {pit} is out of range 1..{n}: pits are counted from the mover's own left, "
                    "and the opponent's pits cannot be moved",
                    field,
                )
            raise InvalidMove(f"pit {pit} is out of range 1..{n}", field)
        return KalahMove(pit)

    def parse_move(self, text: str) -> KalahMove:
        if not isinstance(text, str):
            raise InvalidMove(f"a move is a pit number 1..{self._pits} as text, not {type(text).__name__}")
        if len(text) > 3 or not text.isascii() or not text.isdigit() or (text[0] == "0" and text != "0"):
            shown = text if len(text) <= 20 else text[:20] + "..."
            raise InvalidMove(f"{shown!r} is not a move: a move is a pit number 1..{self._pits}")
        return self._check_pit(int(text), "")

    def move_from_fields(self, fields: Mapping[str, object]) -> KalahMove:
        if not isinstance(fields, Mapping):
            raise InvalidMove("a move is a message with the field 'pit'")
        for key in fields:
            if key != "pit":
                raise InvalidMove(f"unknown move field {key!r}: a Kalah move has only 'pit'", str(key))
        return self._check_pit(fields.get("pit", 0), "pit")

    def move_notation(self, move: KalahMove) -> str:
        return str(move)

    def move_to_fields(self, move: KalahMove) -> JSONObject:
        return {"pit": move}

    def apply(self, move: KalahMove) -> tuple[KalahPosition, list[Event]]:
        mover = self._to_move
        if not mover:
            raise GameOverError("the game is over: no more moves")
        pit = self._check_pit(move, "")
        n = self._pits
        start = pit - 1 if mover == 1 else n + pit
        seeds = self._board[start]
        name, pre = SIDE_NAMES[mover], _HOLE_PREFIX[mover]
        if not seeds:
            raise IllegalMove(f"{name}'s pit {pit} is empty")
        after = self.play(pit)
        b, last, captured = _sow(self._board, n, mover, pit)
        events = [
            Event(
                "sow",
                mover,
                (f"{pre}{pit}", self._hole_name(last)),
                seeds,
                f"{name} sows {seeds} seed{'s' if seeds != 1 else ''} from pit {pit}; "
                f"the last lands in {self._hole_phrase(last)}.",
            )
        ]
        if captured:
            opposite = self._hole_name(2 * n - last)
            events.append(
                Event(
                    "capture",
                    mover,
                    (self._hole_name(last), opposite),
                    captured,
                    f"{name} captures {captured} seeds: {captured - 1} from {self._hole_phrase(2 * n - last)} "
                    f"and the last seed in pit {self._hole_name(last)[1:]}.",
                )
            )
        if after._to_move:
            if after._to_move == mover:
                events.append(
                    Event("extra_turn", mover, (), 0, f"{name} moves again: the last seed landed in their store.")
                )
            return after, events
        for seat, base in ((1, 0), (2, n + 1)):
            left = sum(b[base : base + n])
            if left:
                events.append(
                    Event(
                        "sweep",
                        seat,
                        tuple(f"{_HOLE_PREFIX[seat]}{p + 1}" for p in range(n) if b[base + p]),
                        left,
                        f"{SIDE_NAMES[seat]} moves the {left} seed{'s' if left != 1 else ''} left on their side "
                        "into their store.",
                    )
                )
        outcome = after.outcome()
        assert outcome is not None
        events.append(Event("game_over", outcome.winner, (), 0, outcome.detail + "."))
        return after, events

    def _hole_name(self, index: int) -> str:
        n = self._pits
        if index == n:
            return "S-store"
        if index == 2 * n + 1:
            return "N-store"
        return f"S{index + 1}" if index < n else f"N{index - n}"

    def _hole_phrase(self, index: int) -> str:
        n = self._pits
        if index == n:
            return "South's store"
        if index == 2 * n + 1:
            return "North's store"
        return f"South's pit {index + 1}" if index < n else f"North's pit {index - n}"

    def outcome(self) -> Outcome | None:
        if self._to_move:
            return None
        south, north = self.scores()
        winner = 1 if south > north else 2 if north > south else 0
        return Outcome(winner, "seeds" if winner else "draw", f"South {south} seeds, North {north}")

    # --- search hooks -------------------------------------------------------------------------------

    def play(self, move: KalahMove) -> KalahPosition:
        n, mover = self._pits, self._to_move
        b, last, _ = _sow(self._board, n, mover, move)
        south_left = any(b[0:n])
        north_left = any(b[n + 1 : 2 * n + 1])
        if south_left and north_left:
            own_store = n if mover == 1 else 2 * n + 1
            return KalahPosition(tuple(b), mover if last == own_store else 3 - mover, self._seeds)
        # The end: each side's seeds go to its owner's store.
        b[n] += sum(b[0:n])
        b[2 * n + 1] += sum(b[n + 1 : 2 * n + 1])
        for i in range(n):
            b[i] = 0
            b[n + 1 + i] = 0
        return KalahPosition(tuple(b), 0, self._seeds)

    def _hint_keys(self) -> list[int]:
        """One int per legal move, pit order: ``extra << 20 | capture << 8 | pit index`` (extra turn 0/1,
        the seeds a capture would take or 0, the pit 0..N-1), so sorting the ints orders the moves.

        Computed without sowing: the last seed's hole is ``(pit index + seeds) mod (2N + 1)`` counted in the
        mover's own frame (own pits 0..N-1, own store N, the opponent's pits N+1..2N)."""
        mover, n, b = self._to_move, self._pits, self._board
        if not mover:
            return []
        cycle = 2 * n + 1
        base = 0 if mover == 1 else n + 1
        facing = (n + 1 if mover == 1 else 0) + n - 1  # facing - i = the opponent's pit opposite own pit i
        keys = []
        for p in range(n):
            seeds = b[base + p]
            if not seeds:
                continue
            last = (p + seeds) % cycle
            if last == n:
                keys.append(1 << 20 | p)
            elif last < n and seeds <= cycle:
                if seeds == cycle:  # exactly one lap: back into the lifted pit; the opposite got a seed
                    keys.append((b[facing - last] + 2) << 8 | p)
                elif not b[base + last]:
                    # A sowing that wrapped round passed the opponent's whole row.
                    opposite = b[facing - last] + (last < p)
                    keys.append((opposite + 1 if opposite else 0) << 8 | p)
                else:
                    keys.append(p)
            else:
                keys.append(p)
        return keys

    def move_hints(self) -> list[tuple[int, int, int]]:
        """For each legal move, pit order: (pit, 1 if it earns an extra turn else 0, the seeds its capture
        would take or 0)."""
        return [((k & 255) + 1, k >> 20, (k >> 8) & 4095) for k in self._hint_keys()]

    def _threats(self) -> tuple[int, int]:
        """What the seat to move can take at once: (how many pits earn an extra turn, the seeds the biggest
        capture would take), read off ``_hint_keys``."""
        free = best = 0
        for key in self._hint_keys():
            if key >> 20:
                free += 1
            elif key > best:
                best = key
        return free, best >> 8

    def search_moves(self) -> list[KalahMove]:
        """Extra turns first (nearest the store first, as it disturbs nothing), then captures, biggest
        first, then the rest from the store side out."""
        keys = self._hint_keys()
        keys.sort(reverse=True)
        return cast("list[KalahMove]", [(k & 255) + 1 for k in keys])

    def evaluate(self, seat: int) -> float:
        """Estimated final store margin for ``seat``: the store difference; for the seat to move, a share of
        what it can take at once (its free moves and its biggest capture); and the seeds on each side, weighted
        by how far the game has gone (the more seeds are already in the stores, the likelier the seeds on a
        side end up swept into its owner's store).

        The weights were measured in self-play (the comment above ``_FREE_WEIGHT`` gives the figures)."""
        if not self._to_move:
            return self.final_value(seat)
        n, b = self._pits, self._board
        free, capture = self._threats()
        tempo = _FREE_WEIGHT * free + _CAPTURE_WEIGHT * capture
        south_side = sum(b[0:n])
        north_side = sum(b[n + 1 : 2 * n + 1])
        total = south_side + north_side + b[n] + b[2 * n + 1]
        weight = _SIDE_WEIGHT * (1.0 - (south_side + north_side) / total)
        value = b[n] - b[2 * n + 1] + weight * (south_side - north_side) + (tempo if self._to_move == 1 else -tempo)
        return value if seat == 1 else -value

    def store_difference(self, seat: int) -> float:
        """The plain evaluation of the ``medium`` level: ``seat``'s store minus the other's."""
        n, b = self._pits, self._board
        if not self._to_move:
            return self.final_value(seat)
        diff = b[n] - b[2 * n + 1]
        return diff if seat == 1 else -diff

    def final_value(self, seat: int) -> float:
        """The final store margin for ``seat`` (after the sweep)."""
        n, b = self._pits, self._board
        diff = b[n] - b[2 * n + 1]
        return diff if seat == 1 else -diff

    def seeds_in_play(self) -> int:
        """Seeds still in pits (not yet in a store)."""
        n, b = self._pits, self._board
        return sum(b) - b[n] - b[2 * n + 1]

    def stage(self) -> float:
        """The seeds still in the pits as a share of all the seeds on the board."""
        total = sum(self._board)
        return self.seeds_in_play() / total if total else 0.0


# Weights of ``evaluate``, in seeds. The free-move and capture terms are older (they beat the plain store
# difference in self-play). The seeds-on-side term won the self-play of ``hard`` variants at a fixed node budget
# (seeded openings, colours swapped) against the evaluation without it, at this weight and not at half or twice
# it; subtracting the opponent's capture threats, or raising the free-move and capture weights by half, did not
# win, and neither was kept (``python -m bench.strength --only kalah`` plays such matches).
_FREE_WEIGHT = 1.0
_CAPTURE_WEIGHT = 0.5
_SIDE_WEIGHT = 1.0
