"""Kalah (the Mancala most portals mean): the rules engine. Rules: ``shared/spec/rules.md`` §2.

Seat 1 is **South** (bottom row, store on the east), seat 2 is **North** (top row, store on the west).
Each seat numbers its own pits ``1..N`` from its own left, so pit ``N`` is next to its own store, and a move
is just that number (``"3"``): the mover is the seat to move.

Internal state: one tuple of ints in **sowing order** (counter-clockwise) starting from South's pit 1::

    index 0 .. N-1      South's pits 1..N
    index N             South's store
    index N+1 .. 2N     North's pits 1..N
    index 2N+1          North's store

so sowing is "index + 1, wrapping, skipping the opponent's store", and the pit opposite index ``i`` (a pit) is
index ``2N - i``. A move is the int pit number ``1..N`` of the seat to move.

Position notation (one line, three space-separated fields)::

    4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4

- the board: South's pits 1..N from South's left then South's store, ``/``, North's pits 1..N from North's
  left then North's store (each side read the way its owner sees it, store at the right-hand end; the
  whole is the sowing cycle from South's pit 1);
- the seat to move, ``1`` or ``2``, or ``-`` once the game is over;
- ``seeds=K``: the seeds per pit the game started with (the position's total must be ``2 * N * K``).

Events of ``apply``: ``sow`` (cells: the pit sown from and the hole the last seed reached; count: seeds
sown), ``capture`` (cells: the landing pit and the pit opposite; count: seeds taken, the last seed included),
``extra_turn``, ``sweep`` (one per side that still held seeds at the end; count: seeds moved to the store) and
``game_over`` (seat: the winner, 0 for a draw).

Levels (strategies for ``service.search.play_level``): ``easy`` takes a free move when it sees one, else a
random pit; ``medium`` is alpha-beta to 4 plies counting only the stores; ``hard`` (the default) is
iterative-deepening alpha-beta with ``evaluate`` (stores, seeds on each side, free moves, capture threats)
under a node budget, or until the caller's time limit when one is given; the search's solve mode once few
seeds are left in the pits, so it is exact once the game's end is within reach of the search. Below the root
the search runs in the native kernel ``kalah_search.c`` when it is built (``subtree_value``): the same search
and values, about sixty times the positions a second, so some 6-9 plies deeper in the same time.

Choices where rules.md is silent (documented here and in the report):
- The pit count is the length of each side's list; ``seeds_per_pit`` is carried because the options chose
  it, and the total is checked against it. ``first_seat`` is not part of a position (no history).
- A finished position has every pit empty (the sweep happened) and no seat to move; a position with one side
  empty and the other not is impossible (the game would already have ended and swept), and so rejected.
- Reachability beyond counts is not checked (any non-negative split of the right total is accepted).
- Event cells name holes ``S1``..``SN``, ``N1``..``NN`` (each side's own numbering), ``S-store``, ``N-store``.
- No ``extra_turn`` event when the move that ended in the store also ended the game; ``sweep`` events
  only for a side that still held seeds.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from service.games import native
from service.games.base import (
    Event,
    Game,
    GameOverError,
    IllegalMove,
    InvalidMove,
    InvalidOption,
    InvalidPosition,
    Level,
    Limits,
    Move,
    NotationError,
    OptionSpec,
    Outcome,
    PlaysLevels,
    Position,
    SearchResult,
    StopSignal,
)

MIN_PITS, MAX_PITS = 1, 12
MIN_SEEDS, MAX_SEEDS = 1, 12
SIDE_NAMES = ("", "South", "North")
_HOLE_PREFIX = ("", "S", "N")

# The longest canonical notation: 2 * 13 numbers of at most 3 digits, separators, "- seeds=12".
_MAX_NOTATION = 2 * 13 * 4 + 16
_NUMBER = re.compile(r"0|-?[1-9][0-9]{0,2}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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


class KalahPosition:
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

    def to_fields(self) -> dict[str, Any]:
        n = self._pits
        return {
            "pits": list(self._board[0:n]) + list(self._board[n + 1 : 2 * n + 1]),
            "stores": [self._board[n], self._board[2 * n + 1]],
            "to_move": self._to_move,
            "seeds_per_pit": self._seeds,
            "pits_per_side": n,
        }

    # --- moves --------------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """The non-empty pits of the seat to move, pit 1 first."""
        if not self._to_move:
            return []
        base = 0 if self._to_move == 1 else self._pits + 1
        b = self._board
        return [p + 1 for p in range(self._pits) if b[base + p]]

    def legal_move_count(self) -> int:
        return len(self.legal_moves())

    def legal_moves_page(self, start: int, count: int) -> list[Move]:
        start = max(start, 0)
        return self.legal_moves()[start : start + max(count, 0)]

    def _check_pit(self, pit: Any, field: str) -> int:
        n = self._pits
        if not _is_int(pit):
            raise InvalidMove(f"a move is a pit number 1..{n}, not {type(pit).__name__}", field)
        if not 1 <= pit <= n:
            if n < pit <= 2 * n:
                raise InvalidMove(
                    f"pit {pit} is out of range 1..{n}: pits are counted from the mover's own left, "
                    "and the opponent's pits cannot be moved",
                    field,
                )
            raise InvalidMove(f"pit {pit} is out of range 1..{n}", field)
        return pit

    def parse_move(self, text: str) -> int:
        if not isinstance(text, str):
            raise InvalidMove(f"a move is a pit number 1..{self._pits} as text, not {type(text).__name__}")
        if len(text) > 3 or not text.isascii() or not text.isdigit() or (text[0] == "0" and text != "0"):
            shown = text if len(text) <= 20 else text[:20] + "..."
            raise InvalidMove(f"{shown!r} is not a move: a move is a pit number 1..{self._pits}")
        return self._check_pit(int(text), "")

    def move_from_fields(self, fields: Mapping[str, Any]) -> int:
        if not isinstance(fields, Mapping):
            raise InvalidMove("a move is a message with the field 'pit'")
        for key in fields:
            if key != "pit":
                raise InvalidMove(f"unknown move field {key!r}: a Kalah move has only 'pit'", str(key))
        return self._check_pit(fields.get("pit", 0), "pit")

    def move_notation(self, move: Any) -> str:
        return str(move)

    def move_to_fields(self, move: Any) -> dict[str, Any]:
        return {"pit": move}

    def apply(self, move: Any) -> tuple[KalahPosition, list[Event]]:
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

    def play(self, move: Any) -> KalahPosition:
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

    def search_moves(self) -> list[int]:
        """Extra turns first (nearest the store first, as it disturbs nothing), then captures, biggest
        first, then the rest from the store side out."""
        keys = self._hint_keys()
        keys.sort(reverse=True)
        return [(k & 255) + 1 for k in keys]

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

    def subtree_value(
        self,
        depth: int,
        alpha: float,
        beta: float,
        stop_at: float | None,
        max_nodes: int | None,
        poll: Callable[[], bool] | None,
        scratch: dict[str, Any],
    ) -> tuple[float | None, int, bool, list[int]] | None:
        """The search core's hook for an engine's own search below a node (``service/search/alphabeta.py``):
        the native kernel ``kalah_search.c``, the core's search with ``evaluate`` at the leaves, about sixty
        times faster; None (the core searches in Python) when it is not built or turned off.
        Its nodes are counted 1/``NATIVE_NODE_WEIGHT``; its table lives in ``scratch`` for the search."""
        kernel = native_search()
        if kernel is None or not self._to_move:
            return None
        table = scratch.get("kalah")
        if table is None:
            table = scratch["kalah"] = ctypes.create_string_buffer(NATIVE_TABLE_SIZE * _native_entry_size())
        holes = len(self._board)
        nodes, value, proved, line = ctypes.c_uint64(), ctypes.c_double(), ctypes.c_int(), _NativeLine()
        cap = 0 if max_nodes is None else max(1, max_nodes * NATIVE_NODE_WEIGHT)
        # The kernel asks ``poll`` every 10 ms or so, so a cancelled call stops inside a long kernel call. An
        # exception cannot cross the C frames (ctypes would print it and go on): it stops the kernel, and is
        # raised again once the kernel has returned.
        raised: list[BaseException] = []

        def ask_poll() -> int:
            try:
                return 1 if poll is not None and poll() else 0
            except BaseException as error:  # KeyboardInterrupt too: it must not be lost in the callback
                raised.append(error)
                return 1

        ask = _NativePoll() if poll is None else _NativePoll(ask_poll)  # _NativePoll() is NULL: no poll
        length = kernel(
            (ctypes.c_int32 * holes)(*self._board), self._pits, self._to_move, depth, alpha, beta, stop_at or 0.0, cap,
            ask, table, NATIVE_TABLE_SIZE, ctypes.byref(nodes), ctypes.byref(value), ctypes.byref(proved), line,
            len(line),
        )  # fmt: skip
        if raised:
            raise raised[0]
        cost = -(-nodes.value // NATIVE_NODE_WEIGHT)
        if length < 0:
            return None, cost, False, []
        return value.value, cost, bool(proved.value), list(line[:length])


# Weights of ``evaluate``, in seeds. The free-move and capture terms are older (they beat the plain store
# difference in self-play). The seeds-on-side term was measured for issue 7 by self-play of ``hard`` variants
# at a fixed node budget, 60 games each on 30 seeded openings of 2-4 random plies, colours swapped, against
# the evaluation without it (W-D-L for the variant): weight 1.0 x the share of seeds stored 32-5-23 at 3,000
# nodes a move and 30-4-26 at 10,000; 0.5 x that share 32-3-25; 2.0 x 18-2-40; a fixed 1/4 27-9-24.
# Subtracting the opponent's capture threats (x 0.5) went 24-11-25, raising the free-move and capture weights
# by half 28-1-31: neither was kept.
_FREE_WEIGHT = 1.0
_CAPTURE_WEIGHT = 0.5
_SIDE_WEIGHT = 1.0


# --------------------------------------------------------------------------------------------------
# The native search kernel: ``kalah_search.c`` beside this file, compiled by the Makefile and loaded through
# ``service.games.native``. Without it (no compiler, ``GAMERULES_NO_NATIVE=1``) the core searches in Python.

# Kernel nodes per search node: the search's node count (and so every node budget: ``HARD_NODES``, a caller's
# ``max_nodes``) is in Python search nodes, each about this many times the CPU of a kernel node, so a budget
# buys about the same time on both paths and, kernel nodes being deterministic, the same answer everywhere.
NATIVE_NODE_WEIGHT = 60
NATIVE_TABLE_SIZE = 1 << 18  # kernel table entries per search (24 bytes each: 6 MB)
_NativeLine = ctypes.c_int8 * 64  # the longest line the kernel reports
_NativePoll = ctypes.CFUNCTYPE(ctypes.c_int)  # the kernel's ``poll``: nonzero to stop


def native_search() -> Any | None:
    """The kernel's ``gr_kalah_search`` (its arguments are documented in the C file), or None when it is
    not built or turned off (``GAMERULES_NO_NATIVE=1``, ``native.use_native(False)``)."""
    c = ctypes
    argtypes = (
        c.POINTER(c.c_int32), c.c_int, c.c_int, c.c_int, c.c_double, c.c_double, c.c_double, c.c_uint64, _NativePoll,
        c.c_void_p, c.c_uint64, c.POINTER(c.c_uint64), c.POINTER(c.c_double), c.POINTER(c.c_int),
        c.POINTER(c.c_int8), c.c_int,
    )  # fmt: skip
    return native.kernel("kalah_search", "gr_kalah_search", argtypes, c.c_int)


def _native_entry_size() -> int:
    size = native.kernel("kalah_search", "gr_kalah_entry_size", (), ctypes.c_int)
    return int(size()) if size is not None else 0


# --------------------------------------------------------------------------------------------------
# Reading positions: both readers end in ``_build``, which checks everything.


def _build(
    south: Sequence[int],
    north: Sequence[int],
    stores: Sequence[int],
    to_move: int,
    seeds_per_pit: int,
    pit_field: Callable[[int, int], str],
) -> KalahPosition:
    """The checked position; ``pit_field(seat, index)`` names a pit's field for error messages."""
    n = len(south)
    if not MIN_SEEDS <= seeds_per_pit <= MAX_SEEDS:
        raise InvalidPosition(f"seeds_per_pit must be {MIN_SEEDS}..{MAX_SEEDS}, not {seeds_per_pit}", "seeds_per_pit")
    for seat, side in ((1, south), (2, north)):
        for i, seeds in enumerate(side):
            if seeds < 0:
                raise InvalidPosition(
                    f"{SIDE_NAMES[seat]}'s pit {i + 1} holds {seeds} seeds: counts cannot be negative",
                    pit_field(seat, i),
                )
    for seat in (1, 2):
        if stores[seat - 1] < 0:
            raise InvalidPosition(
                f"{SIDE_NAMES[seat]}'s store holds {stores[seat - 1]} seeds: counts cannot be negative",
                f"stores[{seat - 1}]",
            )
    total = sum(south) + sum(north) + stores[0] + stores[1]
    expected = 2 * n * seeds_per_pit
    if total != expected:
        raise InvalidPosition(
            f"the pits and stores hold {total} seeds, but {n} pits a side with {seeds_per_pit} seeds per pit "
            f"make {expected}",
            "pits",
        )
    south_left, north_left = sum(south), sum(north)
    if (south_left == 0) != (north_left == 0):
        empty, full = ("South", "North") if south_left == 0 else ("North", "South")
        raise InvalidPosition(
            f"{empty}'s pits are all empty but {full}'s still hold seeds: the game ends at once, and the sweep "
            "empties both sides",
            "pits",
        )
    if south_left == 0:
        if to_move != 0:
            raise InvalidPosition(
                f"the game is over (every pit is empty), so no seat is to move, not {to_move}", "to_move"
            )
    elif to_move not in (1, 2):
        raise InvalidPosition(
            f"the seat to move must be 1 (South) or 2 (North) while pits hold seeds, not {to_move}", "to_move"
        )
    board = (*south, stores[0], *north, stores[1])
    return KalahPosition(board, to_move, seeds_per_pit)


def _parse_position(text: str) -> KalahPosition:
    if not isinstance(text, str):
        raise NotationError(f"a Kalah position is text, not {type(text).__name__}")
    if len(text) > _MAX_NOTATION:
        raise NotationError(f"a Kalah position is at most {_MAX_NOTATION} characters, not {len(text)}")
    parts = text.split(" ")
    if len(parts) != 3 or not all(parts):
        raise NotationError(
            "a Kalah position is three fields separated by single spaces: the board, the seat to move and "
            "seeds=K, e.g. '4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4'"
        )
    board_text, seat_text, seeds_text = parts
    sides = board_text.split("/")
    if len(sides) != 2:
        raise NotationError(
            "the board is South's holes, '/', North's holes (each: pits from the owner's left, then the store)"
        )
    rows: list[list[int]] = []
    for seat, side in zip((1, 2), sides, strict=True):
        holes = side.split(",")
        if len(holes) > MAX_PITS + 1:
            raise NotationError(f"{SIDE_NAMES[seat]} has {len(holes) - 1} pits; at most {MAX_PITS} are allowed")
        row = []
        for hole in holes:
            if not _NUMBER.fullmatch(hole):
                raise NotationError(f"{SIDE_NAMES[seat]}'s holes must be whole numbers written plainly, not {hole!r}")
            row.append(int(hole))
        if len(row) < MIN_PITS + 1:
            raise NotationError(f"{SIDE_NAMES[seat]} needs at least {MIN_PITS} pit and a store")
        rows.append(row)
    if len(rows[0]) != len(rows[1]):
        raise InvalidPosition(
            f"South has {len(rows[0]) - 1} pits and North {len(rows[1]) - 1}: both sides have the same number"
        )
    if seat_text not in ("1", "2", "-"):
        raise NotationError(f"the seat to move is 1, 2 or '-' (game over), not {seat_text!r}")
    match = re.fullmatch(r"seeds=(0|[1-9][0-9]?)", seeds_text)
    if not match:
        raise NotationError(f"the third field is seeds=K (the seeds per pit at the start), not {seeds_text[:20]!r}")
    to_move = 0 if seat_text == "-" else int(seat_text)
    try:
        return _build(
            rows[0][:-1],
            rows[1][:-1],
            (rows[0][-1], rows[1][-1]),
            to_move,
            int(match.group(1)),
            lambda seat, i: "",
        )
    except InvalidPosition as error:
        # Notation errors name no field: the whole text is the thing being parsed.
        raise InvalidPosition(error.message) from None


_POSITION_FIELDS = ("pits", "stores", "to_move", "seeds_per_pit", "pits_per_side")


def _position_from_fields(fields: Mapping[str, Any]) -> KalahPosition:
    if not isinstance(fields, Mapping):
        raise InvalidPosition("a Kalah position is a message with the fields " + ", ".join(_POSITION_FIELDS))
    for key in fields:
        if key not in _POSITION_FIELDS:
            raise InvalidPosition(f"unknown field {key!r} in a Kalah position", str(key))
    n = fields.get("pits_per_side", 0)
    if not _is_int(n):
        raise InvalidPosition(f"pits_per_side must be an integer, not {type(n).__name__}", "pits_per_side")
    if not MIN_PITS <= n <= MAX_PITS:
        raise InvalidPosition(f"pits_per_side must be {MIN_PITS}..{MAX_PITS}, not {n}", "pits_per_side")
    seeds_per_pit = fields.get("seeds_per_pit", 0)
    if not _is_int(seeds_per_pit):
        raise InvalidPosition(f"seeds_per_pit must be an integer, not {type(seeds_per_pit).__name__}", "seeds_per_pit")
    pits = fields.get("pits", [])
    if not isinstance(pits, list | tuple):
        raise InvalidPosition(f"pits must be a list of integers, not {type(pits).__name__}", "pits")
    if len(pits) != 2 * n:
        raise InvalidPosition(f"pits lists South's {n} pits then North's {n}: {2 * n} numbers, not {len(pits)}", "pits")
    for i, seeds in enumerate(pits):
        if not _is_int(seeds):
            raise InvalidPosition(f"pits[{i}] must be an integer, not {type(seeds).__name__}", f"pits[{i}]")
    stores = fields.get("stores", [])
    if not isinstance(stores, list | tuple):
        raise InvalidPosition(f"stores must be a list of integers, not {type(stores).__name__}", "stores")
    if len(stores) != 2:
        raise InvalidPosition(f"stores lists South's store then North's: 2 numbers, not {len(stores)}", "stores")
    for i, seeds in enumerate(stores):
        if not _is_int(seeds):
            raise InvalidPosition(f"stores[{i}] must be an integer, not {type(seeds).__name__}", f"stores[{i}]")
    to_move = fields.get("to_move", 0)
    if not _is_int(to_move):
        raise InvalidPosition(f"to_move must be an integer, not {type(to_move).__name__}", "to_move")
    return _build(pits[:n], pits[n:], stores, to_move, seeds_per_pit, lambda seat, i: f"pits[{i + (seat - 1) * n}]")


# --------------------------------------------------------------------------------------------------
# The game: options, levels, best move.


# The levels import the search core when they run: ``service.search`` imports ``service.games.base``, whose
# package imports the registry and so this module, so a module-level import here would be circular.


def _easy(position: KalahPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    """A beginner: takes a free move when it sees one, otherwise any pit (greedy's random tie-break). The
    key is in seeds: the store margin now, plus the seed a free move drops into the mover's store."""
    from service.search import greedy

    margin = position.final_value(position.to_move)
    free = {pit for pit, extra, _capture in position.move_hints() if extra}
    return greedy(position, lambda p, move: margin + (move in free), rng, top_n)


def _medium(position: KalahPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    """Alpha-beta to the level's depth (4 plies) counting only the stores: blind to threats past it."""
    from service.search import search

    return search(position, limits, stop=stop, top_n=top_n, rng=rng, evaluate=KalahPosition.store_difference)


# The hard level's node budget when the caller gives no time limit: answers are then the same on every
# machine. With a time limit it searches until the time is up instead (the budget would stop it long before
# on a fast machine, and a caller who gives time wants it used).
HARD_NODES = 100_000
# From this many seeds left in the pits, hard proves the game to its end (the search's solve mode). Measured
# on random endgames: with 12 seeds a proof takes at most a few thousand nodes, with 16 up to 150k+.
SOLVE_SEEDS = 14
# Iterations before the solve leaps to the end of the game: the answer if the proof does not fit the budget.
SOLVE_LEAD = 8


def _hard(position: KalahPosition, limits: Limits, rng: Any, top_n: int, stop: StopSignal) -> SearchResult:
    """Iterative-deepening alpha-beta with ``KalahPosition.evaluate``: under the level's node budget when no
    time is given (no depth cap, so the answer does not depend on the clock), until the time is up when it
    is; from ``SOLVE_SEEDS`` seeds in the pits the solve mode, straight to the end of the game after
    ``SOLVE_LEAD`` iterations. It ends early, exact, once every line reaches the end. Extra turns need no
    care here: the search keeps the sign of a child whose seat to move has not changed."""
    from service.search import search

    if limits.max_time_ms is not None and limits.max_nodes == HARD_NODES:
        limits = Limits(max_time_ms=limits.max_time_ms, max_depth=limits.max_depth)
    if limits.max_depth is None and position.seeds_in_play() <= SOLVE_SEEDS:
        return search(position, limits, stop=stop, top_n=top_n, rng=rng, solve=True, solve_lead=SOLVE_LEAD)
    return search(position, limits, stop=stop, top_n=top_n, rng=rng)


_STRATEGIES = {"easy": _easy, "medium": _medium, "hard": _hard}


class Kalah(PlaysLevels):
    """The Kalah game: the factory of ``KalahPosition``s (rules.md §2)."""

    strategies = _STRATEGIES

    id = "kalah"
    title = "Kalah"
    description = (
        "Kalah, the Mancala most portals mean: sow seeds counter-clockwise, land in your store to move again, "
        "land in an empty pit of yours to capture the seeds opposite; most seeds in store wins."
    )
    seat_names = ("South", "North")
    options: tuple[OptionSpec, ...] = (
        OptionSpec(
            "seeds_per_pit",
            "int",
            4,
            "Seeds in every pit at the start (portals offer 3, 4 and 5).",
            MIN_SEEDS,
            MAX_SEEDS,
        ),
        OptionSpec("pits_per_side", "int", 6, "Pits in each seat's row (portals use 6).", MIN_PITS, MAX_PITS),
        OptionSpec("first_seat", "int", 1, "The seat that moves first: 1 (South) or 2 (North).", 1, 2),
    )
    levels: tuple[Level, ...] = (
        Level("easy", "Takes a free move when it sees one, otherwise plays a random pit."),
        Level(
            "medium",
            "Looks four moves ahead (extra turns count as moves) and counts only the seeds in the stores.",
            Limits(max_depth=4),
        ),
        Level(
            "hard",
            f"Searches deep ({HARD_NODES:,} positions, or until the time limit when one is given; in compiled "
            "code when the service has it, some 18 plies in half a second), chaining extra turns and weighing the "
            f"stores, the seeds on each side, free moves and capture threats; from {SOLVE_SEEDS} seeds left in the "
            "pits it computes the game to the end exactly whenever that fits its budget.",
            Limits(max_nodes=HARD_NODES),
        ),
    )
    default_level = "hard"
    position_notation_help = (
        "Three fields separated by single spaces: the board, the seat to move, seeds=K. The board is South's "
        "pits 1..N from South's left then South's store, '/', North's pits 1..N from North's left then North's "
        "store (the sowing order from South's pit 1); counts are whole numbers without leading zeros, and both "
        "sides have the same N, 1..12. The seat to move is 1 (South), 2 (North) or '-' once the game is over. "
        "K (1..12) is the seeds per pit at the start; all pits and stores together must hold 2 x N x K. The "
        "game is over exactly when every pit is empty (the last seeds were swept into the stores): then the "
        "seat to move is '-', and one side empty while the other still holds seeds is not a position. "
        "Start: '4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4'; after South's 3 and then 6: "
        "'4,4,0,5,5,0,2/5,5,5,5,4,4,0 2 seeds=4'."
    )
    move_notation_help = (
        "The pit to sow from, 1..N, counted from the mover's own left (pit N is next to the mover's store), "
        "e.g. '3'; the pit must hold seeds. Events name holes S1..SN, N1..NN, S-store and N-store."
    )

    def new_position(self, options: Mapping[str, Any], seed: str = "") -> KalahPosition:
        values = {spec.name: spec.default for spec in self.options}
        for name, value in options.items():
            if name not in values:
                raise InvalidOption(f"unknown option {name!r} for Kalah", str(name))
            if not _is_int(value):
                raise InvalidOption(f"{name} must be an integer, not {type(value).__name__}", name)
            values[name] = value
        for spec in self.options:
            value = values[spec.name]
            assert spec.minimum is not None and spec.maximum is not None
            if not spec.minimum <= value <= spec.maximum:
                raise InvalidOption(f"{spec.name} must be {spec.minimum}..{spec.maximum}, not {value}", spec.name)
        n, seeds = values["pits_per_side"], values["seeds_per_pit"]
        row = (seeds,) * n
        return KalahPosition((*row, 0, *row, 0), values["first_seat"], seeds)

    def parse_position(self, text: str) -> KalahPosition:
        return _parse_position(text)

    def position_from_fields(self, fields: Mapping[str, Any]) -> KalahPosition:
        return _position_from_fields(fields)


GAME = Kalah()

if TYPE_CHECKING:  # mypy checks that the engine fits the interface
    _GAME: Game = GAME
    _POSITION: Position = GAME.new_position({}, "")

__all__ = ["GAME", "Kalah", "KalahPosition"]
