"""Reading Kalah positions from their notation and their structured form; both end in ``_build``, which checks
everything (``docs/games/kalah.md`` lists the checks)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from service.core.contract import is_int
from service.core.errors import InvalidPosition, NotationError
from service.engines.kalah.position import (
    MAX_NOTATION,
    MAX_PITS,
    MAX_SEEDS,
    MIN_PITS,
    MIN_SEEDS,
    NUMBER,
    SIDE_NAMES,
    KalahPosition,
)


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


def parse_position(text: str) -> KalahPosition:
    if not isinstance(text, str):
        raise NotationError(f"a Kalah position is text, not {type(text).__name__}")
    if len(text) > MAX_NOTATION:
        raise NotationError(f"a Kalah position is at most {MAX_NOTATION} characters, not {len(text)}")
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
            if not NUMBER.fullmatch(hole):
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


def position_from_fields(fields: Mapping[str, object]) -> KalahPosition:
    if not isinstance(fields, Mapping):
        raise InvalidPosition("a Kalah position is a message with the fields " + ", ".join(_POSITION_FIELDS))
    for key in fields:
        if key not in _POSITION_FIELDS:
            raise InvalidPosition(f"unknown field {key!r} in a Kalah position", str(key))
    n = fields.get("pits_per_side", 0)
    if not is_int(n):
        raise InvalidPosition(f"pits_per_side must be an integer, not {type(n).__name__}", "pits_per_side")
    if not MIN_PITS <= n <= MAX_PITS:
        raise InvalidPosition(f"pits_per_side must be {MIN_PITS}..{MAX_PITS}, not {n}", "pits_per_side")
    seeds_per_pit = fields.get("seeds_per_pit", 0)
    if not is_int(seeds_per_pit):
        raise InvalidPosition(f"seeds_per_pit must be an integer, not {type(seeds_per_pit).__name__}", "seeds_per_pit")
    pits = fields.get("pits", [])
    if not isinstance(pits, list | tuple):
        raise InvalidPosition(f"pits must be a list of integers, not {type(pits).__name__}", "pits")
    if len(pits) != 2 * n:
        raise InvalidPosition(f"pits lists South's {n} pits then North's {n}: {2 * n} numbers, not {len(pits)}", "pits")
    for i, seeds in enumerate(pits):
        if not is_int(seeds):
            raise InvalidPosition(f"pits[{i}] must be an integer, not {type(seeds).__name__}", f"pits[{i}]")
    stores = fields.get("stores", [])
    if not isinstance(stores, list | tuple):
        raise InvalidPosition(f"stores must be a list of integers, not {type(stores).__name__}", "stores")
    if len(stores) != 2:
        raise InvalidPosition(f"stores lists South's store then North's: 2 numbers, not {len(stores)}", "stores")
    for i, seeds in enumerate(stores):
        if not is_int(seeds):
            raise InvalidPosition(f"stores[{i}] must be an integer, not {type(seeds).__name__}", f"stores[{i}]")
    to_move = fields.get("to_move", 0)
    if not is_int(to_move):
        raise InvalidPosition(f"to_move must be an integer, not {type(to_move).__name__}", "to_move")
    return _build(pits[:n], pits[n:], stores, to_move, seeds_per_pit, lambda seat, i: f"pits[{i + (seat - 1) * n}]")
