"""The Strands game: options, notation help and the start position (``docs/games/strands.md``)."""

from __future__ import annotations

from collections.abc import Mapping

from service.core.contract import Game, bool_option, text_option
from service.core.errors import InvalidOption
from service.core.values import OptionSpec
from service.engines.strands.layouts import LAYOUT_CHOICES, NAMED_LAYOUTS, RANDOM_RING_COUNTS, parse_rows, random_rows
from service.engines.strands.notation import parse_position, position_from_fields
from service.engines.strands.position import SEAT_NAMES, StrandsPosition


class StrandsGame(Game):
    """The Strands factory: options, notation, the start position."""

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

    def start_position(self, options: Mapping[str, object], seed: str) -> StrandsPosition:
        """The empty board of the layout: ``labels`` goes with ``layout=custom`` and only with it; a random
        layout is dealt from ``seed``."""
        layout_name, labels = text_option(options, "layout"), text_option(options, "labels")
        exact_count = bool_option(options, "exact_count")
        if layout_name == "custom":
            if not labels:
                raise InvalidOption("layout=custom needs labels: label rows joined by '/'", "labels")
            layout = parse_rows(labels, "labels", InvalidOption, InvalidOption)
            return StrandsPosition(layout, 0, 0, 1, exact_count)
        if labels:
            raise InvalidOption("labels is only used with layout=custom", "labels")
        dealt = layout_name in RANDOM_RING_COUNTS
        rows = random_rows(layout_name, seed) if dealt else NAMED_LAYOUTS[layout_name]
        layout = parse_rows(rows, "layout", InvalidOption, InvalidOption)
        return StrandsPosition(layout, 0, 0, 1, exact_count)

    def parse_position(self, text: str) -> StrandsPosition:
        return parse_position(text)

    def position_from_fields(self, fields: Mapping[str, object]) -> StrandsPosition:
        return position_from_fields(fields)
