"""The Dots and Boxes game: options, notation help and the readers of positions (``docs/games/dots-and-boxes.md``)."""

from __future__ import annotations

from collections.abc import Mapping

from service.core.contract import Game, bool_option, int_option
from service.core.errors import InvalidOption
from service.core.values import OptionSpec
from service.engines.dots_and_boxes.geometry import MAX_LINES, MAX_SIZE, MIN_SIZE, geometry
from service.engines.dots_and_boxes.notation import parse_position, position_from_fields
from service.engines.dots_and_boxes.position import PLAY, SETUP, DotsAndBoxesPosition

DEFAULT_SIZE = 5
DEFAULT_PIE_LINES = 5


class DotsAndBoxesGame(Game):
    """The Dots and Boxes game: the factory of ``DotsAndBoxesPosition``s."""

    id = "dots-and-boxes"
    title = "Dots and Boxes"
    description = (
        "Dots and Boxes: draw lines between neighbouring dots; the fourth side of a box claims it and the same "
        "seat draws again; most boxes wins. Optional pie rule: seat 1 draws the opening for both colours, "
        "seat 2 then keeps or swaps the colours."
    )
    seat_names = ("A", "B")
    options = (
        OptionSpec("rows", "int", DEFAULT_SIZE, "Rows of boxes (the dots are one more).", MIN_SIZE, MAX_SIZE),
        OptionSpec("cols", "int", DEFAULT_SIZE, "Columns of boxes (the dots are one more).", MIN_SIZE, MAX_SIZE),
        OptionSpec(
            "pie_rule",
            "bool",
            False,
            "Play with the pie rule: seat 1 draws up to pie_lines lines for both colours, then seat 2 keeps "
            "or swaps the colours.",
        ),
        OptionSpec(
            "pie_lines",
            "int",
            DEFAULT_PIE_LINES,
            "With the pie rule: the most lines seat 1 draws in the setup (at most the board's line count).",
            1,
            MAX_LINES,
        ),
    )
    position_notation_help = (
        "The board, the seat to move, and with the pie rule four tokens, separated by single spaces. The board "
        "of R x C boxes (1..12 each) is 2R+1 rows of 2C+1 characters, top to bottom, separated by '/': dot rows "
        "('+' per dot, '-' or '.' for each horizontal line between dots) alternate with box rows ('|' or '.' "
        "for each vertical line, and between them each box's owner A or B, or '.'). A box has an owner exactly "
        "when its four sides are drawn. The seat to move is not free: it is '-' exactly when every line is "
        "drawn, and otherwise follows from the board. Colour A draws the first line, a line that completes a "
        "box lets the same colour draw again, any other line passes the turn: with D lines drawn and K boxes "
        "owned, A is to move when D - K is even and B when it is odd (when a single line could have completed "
        "two boxes, i.e. two neighbouring boxes have the same owner, either colour is accepted). Without the "
        "pie rule seat 1 holds A. With the pie rule: pie=N (the setup's most lines, 1..the board's lines), "
        "phase=setup|choice|play, colour=A|B (the colour to move, by the same count; '-' when no line remains), "
        "seat1=A|B (the colour seat 1 holds; '-' in setup and choice, A or B in play). In setup seat 1 is to "
        "move and fewer than N lines are drawn (and not every line), in choice seat 2 is to move and 1..N "
        "lines are drawn, in play the seat holding the colour to move is to move. Start of 1x2 boxes: "
        "'+.+.+/...../+.+.+ 1'; 2x2 boxes after a1-b1, b1-c1, a1-a2, b1-b2, a2-b2 (A's box a1, A to move "
        "again): '+-+-+/|A|../+-+.+/...../+.+.+ 1'."
    )
    move_notation_help = (
        "A line by its two neighbouring dots (columns a.., rows 1.. from the top), e.g. 'a1-b1' (horizontal) or "
        "'a1-a2' (vertical), either dot first; answered top/left dot first. The line must not be drawn yet. "
        "Pie rule: 'stop' (seat 1 ends the setup, once at least one line is drawn), 'keep' or 'swap' (seat 2's "
        "choice after the setup)."
    )

    def start_position(self, options: Mapping[str, object], seed: str) -> DotsAndBoxesPosition:
        """The empty board; with the pie rule, seat 1's setup. ``pie_lines`` counts only with the pie rule, and
        then must not exceed the board's lines (a 1x1 board has 4)."""
        geo = geometry(int_option(options, "rows"), int_option(options, "cols"))
        pie = 0
        if bool_option(options, "pie_rule"):
            pie = int_option(options, "pie_lines")
            if pie > geo.line_count:
                raise InvalidOption(
                    f"pie_lines must be at most {geo.line_count}, the lines of a {geo.rows}x{geo.cols} board, "
                    f"not {pie}",
                    "pie_lines",
                )
        return DotsAndBoxesPosition(geo, 0, 0, 0, 0, 0 if pie else 1, SETUP if pie else PLAY, pie)

    def parse_position(self, text: str) -> DotsAndBoxesPosition:
        return parse_position(text)

    def position_from_fields(self, fields: Mapping[str, object]) -> DotsAndBoxesPosition:
        return position_from_fields(fields)
