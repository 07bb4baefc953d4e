"""The Kalah game: identity, options and notation help, and the readers of positions (``docs/games/kalah.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from service.core.contract import Game, int_option
from service.core.values import OptionSpec
from service.engines.kalah import notation
from service.engines.kalah.position import MAX_PITS, MAX_SEEDS, MIN_PITS, MIN_SEEDS, KalahPosition


class KalahGame(Game):
    """The Kalah game: the factory of ``KalahPosition``s."""

    id: ClassVar[str] = "kalah"
    title: ClassVar[str] = "Kalah"
    description: ClassVar[str] = (
        "Kalah, the Mancala most portals mean: sow seeds counter-clockwise, land in your store to move again, "
        "land in an empty pit of yours to capture the seeds opposite; most seeds in store wins."
    )
    seat_names: ClassVar[tuple[str, str]] = ("South", "North")
    options: ClassVar[tuple[OptionSpec, ...]] = (
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
    position_notation_help: ClassVar[str] = (
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
    move_notation_help: ClassVar[str] = (
        "The pit to sow from, 1..N, counted from the mover's own left (pit N is next to the mover's store), "
        "e.g. '3'; the pit must hold seeds. Events name holes S1..SN, N1..NN, S-store and N-store."
    )

    def start_position(self, options: Mapping[str, object], seed: str) -> KalahPosition:
        """Every pit holds ``seeds_per_pit``; ``seed`` is unused (Kalah has no randomness)."""
        n, seeds = int_option(options, "pits_per_side"), int_option(options, "seeds_per_pit")
        row = (seeds,) * n
        return KalahPosition((*row, 0, *row, 0), int_option(options, "first_seat"), seeds)

    def parse_position(self, text: str) -> KalahPosition:
        return notation.parse_position(text)

    def position_from_fields(self, fields: Mapping[str, object]) -> KalahPosition:
        return notation.position_from_fields(fields)
