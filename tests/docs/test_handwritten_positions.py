"""Positions written by hand from the documentation alone, sent to a real in-process server.

Per game, a mid-game position is written following only the rules GetGame's ``positionNotation`` states
(each rule is quoted from the text the server answers, so the test fails when the text stops saying it; the
comments say which rule each character follows): the server must read it, write it back unchanged, list
legal moves for it, and apply a move written from GetGame's ``moveNotation``. Then every check that
``docs/games/<game>.md`` documents is sent, in notation and in the structured form, and must fail with
exactly the reason and field the page promises.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc

DOCS = Path(__file__).resolve().parents[2] / "docs"
GAME_IDS = ("reversi", "kalah", "dots-and-boxes", "petak-sawah", "strands")


def notation_help(stub: pb_grpc.GameRulesStub, game: str) -> str:
    return stub.GetGame(pb.GetGameRequest(name=f"games/{game}"), timeout=10).position_notation


def follows(text: str, rule: str) -> str:
    """``rule``, after checking GetGame's text states it: a position or move may rely on nothing else."""
    assert rule in text, f"GetGame's positionNotation no longer says {rule!r}"
    return rule


# --- one hand-written position per game ---------------------------------------------------------------


def reversi(text: str) -> str:
    follows(text, "the board rows from the top (row 1) down, joined by '/'")
    follows(text, "its squares from column a rightwards as B (Black), W (White) or . (empty)")
    follows(text, "The board is square, with an even side from 4 to 16")  # 6 rows of 6 squares
    rows = [
        "......",  # row 1: six empty squares
        "..B...",  # row 2: a Black disc on c2, touching the centre below it
        "..BB..",  # row 3: c3 and d3, two of the four centre squares
        ".WWW..",  # row 4: c4 and d4 complete the centre; b4 touches c4 and c3
        "......",
        "......",
    ]
    follows(text, "the four centre squares are occupied")  # c3, d3, c4, d4
    follows(text, "all discs form one group")  # every disc above touches another
    follows(text, "the seat to move (1 or 2, - once the game is over)")
    follows(text, "is - exactly when neither seat has a placement")  # Black can play next to White: not over
    seat = "1"
    follows(text, "black=1 or black=2, the seat playing Black")
    return f"{'/'.join(rows)} {seat} black=1"


def kalah(text: str) -> str:
    follows(text, "South's pits 1..N from South's left then South's store, '/', North's pits 1..N")
    follows(text, "counts are whole numbers without leading zeros, and both sides have the same N, 1..12")
    south = [0, 5, 1, 2]  # N = 4 pits, South's from its own left
    south_store = 3
    north = [4, 0, 6, 2]  # North's 4 pits from North's own left
    north_store = 1
    follows(text, "K (1..12) is the seeds per pit at the start; all pits and stores together must hold 2 x N x K")
    seeds = 3
    assert sum(south) + south_store + sum(north) + north_store == 2 * 4 * seeds  # 24 seeds in all
    follows(text, "one side empty while the other still holds seeds is not a position")  # both rows hold seeds
    follows(text, "The seat to move is 1 (South), 2 (North) or '-' once the game is over")
    seat = "2"  # pits hold seeds, so a seat is to move: North
    board = f"{','.join(map(str, [*south, south_store]))}/{','.join(map(str, [*north, north_store]))}"
    return f"{board} {seat} seeds={seeds}"


def dots_and_boxes(text: str) -> str:
    follows(text, "The board of R x C boxes (1..12 each) is 2R+1 rows of 2C+1 characters")  # 2 x 3 boxes: 5 x 7
    follows(text, "dot rows ('+' per dot, '-' or '.' for each horizontal line between dots)")
    follows(text, "box rows ('|' or '.' for each vertical line, and between them each box's owner A or B, or '.')")
    follows(text, "A box has an owner exactly when its four sides are drawn")
    rows = [
        "+-+-+-+",  # dots a1..d1, all three lines between them drawn
        "|A|B|..",  # a1-a2, b1-b2, c1-c2 drawn; box a1 (4 sides) is A's, b1 (4 sides) B's; c1 open; d1-d2 not
        "+-+-+.+",  # a2-b2 and b2-c2 drawn (the bottoms of a1 and b1); c2-d2 not
        "|......",  # a2-a3 drawn; boxes a2, b2, c2 open
        "+.+.+.+",  # no line on the bottom row of dots
    ]
    board = "/".join(rows)
    # The seat to move is not free: D lines drawn, K boxes owned, A to move when D - K is even.
    follows(text, "with D lines drawn and K boxes owned, A is to move when D - K is even and B when it is odd")
    follows(text, "Without the pie rule seat 1 holds A")
    drawn = board.count("-") + board.count("|")
    owned = board.count("A") + board.count("B")
    assert (drawn, owned) == (9, 2)
    seat = "1" if (drawn - owned) % 2 == 0 else "2"
    return f"{board} {seat}"


def petak_sawah(text: str) -> str:
    follows(text, "one character per cell from column a: '.' empty, '#' rock, '1' or '2' taken by that seat")
    follows(text, "The board has 2..12 rows of the same length, 2..12 cells")  # 4 x 4
    rows = [
        "2.#.",  # a1 seat 2's, c1 a rock
        ".1.2",  # b2 seat 1's, d2 seat 2's
        "#.1.",  # a3 a rock, c3 seat 1's
        "2...",  # a4 seat 2's
    ]
    board = "/".join(rows)
    follows(text, "The cells that are not rocks (the cultivable cells) must number at least 2 and be even")
    cultivable = sum(len(row) for row in rows) - board.count("#")  # 16 cells, 2 rocks: 14
    assert cultivable >= 2 and cultivable % 2 == 0
    follows(text, "The opener holds as many cells as the other seat or one more")
    opener = 2  # seat 2 holds 3 cells, seat 1 holds 2
    follows(text, "the seat to move is the opener when both hold the same number, the other seat when the opener")
    seat = "1" if board.count("2") == board.count("1") + 1 else "2"
    return f"{board} {seat} opener={opener}"


def strands(text: str) -> str:
    follows(text, "the label rows top to bottom joined by '/' (digits 1..6)")
    follows(text, "A hexagonal board of side n (2..9) has 2n-1 rows of n, n+1, ..., 2n-1, ..., n+1, n cells")
    follows(text, "and at least one cell labelled 2")
    labels = [
        "333",  # side 3: 5 rows of 3, 4, 5, 4, 3 cells
        "3223",
        "32123",
        "3223",
        "333",
    ]
    follows(text, "the stone rows in the same shape ('.' empty, 'B' Black, 'W' White)")
    follows(text, "Black opens by covering exactly one 2")
    follows(text, "each turn covering 1..X empty cells of one label X")
    stones = [
        "WWW",  # White's first turn: all three 3s of row a (X = 3, three cells)
        ".B..",  # Black's opening stone on b2, a 2
        ".B.B.",  # Black's second turn: c2 and c4, two 2s (X = 2)
        "....",
        "...",
    ]
    follows(text, "any stones on the board include a Black stone on a 2")  # b2
    follows(text, "Black having made one turn more than White when White is to move")  # Black 2 turns, White 1
    seat = "2"
    follows(text, "exact=0 or exact=1 (the exact_count rule)")
    return f"{'/'.join(labels)} {'/'.join(stones)} {seat} exact=0"


# A move per game, written from GetGame's moveNotation for the position above: (rules it follows, the move).
MOVES = {
    "reversi": (["A square as column letter and row number", "bracket at least one line of opponent discs"], "a5"),
    "kalah": (["The pit to sow from, 1..N, counted from the mover's own left", "the pit must hold seeds"], "1"),
    "dots-and-boxes": (["A line by its two neighbouring dots", "The line must not be drawn yet"], "d2-c2"),
    "petak-sawah": (["column letter and row number from the top", "It must be empty and not a rock"], "b1"),
    "strands": (["The covered cells joined by commas", "of one label X, 1..X of them"], "b4,b1"),
}

WRITERS = {
    "reversi": reversi,
    "kalah": kalah,
    "dots-and-boxes": dots_and_boxes,
    "petak-sawah": petak_sawah,
    "strands": strands,
}


@pytest.mark.parametrize("game", GAME_IDS)
def test_a_handwritten_position_is_read_written_back_and_has_moves(stub, game: str) -> None:
    text = WRITERS[game](notation_help(stub, game))
    position = pb.Position(notation=text)
    score = stub.Score(pb.ScoreRequest(game=game, position=position), timeout=10)
    assert score.position.notation == text  # written back exactly as written
    assert not score.game_over and score.to_move in (1, 2)
    moves = stub.LegalMoves(pb.LegalMovesRequest(game=game, position=position, page_size=5), timeout=10)
    assert moves.total_size > 0 and moves.moves and moves.to_move == score.to_move
    # A move written from GetGame's moveNotation applies: the rules continue from the hand-written position.
    help_text = stub.GetGame(pb.GetGameRequest(name=game), timeout=10).move_notation
    rules, move = MOVES[game]
    for rule in rules:
        follows(help_text, rule)
    step = stub.ApplyMove(pb.ApplyMoveRequest(game=game, position=position, move=pb.Move(notation=move)), timeout=10)
    assert step.position.notation != text and step.events


# --- every documented check -------------------------------------------------------------------------------


def table_rows(page: str, heading: str) -> list[list[str]]:
    """The body rows of the first table under ``heading`` in a docs page, as cell texts (``\\|`` unescaped)."""
    section = page.split(heading, 1)[1]
    rows = []
    for line in section.splitlines()[1:]:
        if line.startswith("#"):
            break
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        rows.append(cells)
    assert len(rows) > 2 and set(rows[1][0]) <= set("-"), f"no table under {heading!r}"
    return rows[2:]


def code(cell: str) -> str:
    match = re.fullmatch(r"`([^`]*)`", cell)
    assert match, f"expected one code span, got {cell!r}"
    return match.group(1)


def refusal(call, request) -> tuple[grpc.StatusCode, str, list[str]]:
    """(code, ErrorInfo reason, BadRequest fields) of a call that must fail."""
    with pytest.raises(grpc.RpcError) as caught:
        call(request, timeout=10)
    error = caught.value
    status = status_pb2.Status.FromString(dict(error.trailing_metadata())["grpc-status-details-bin"])
    reason, fields = "", []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields += [violation.field for violation in bad.field_violations]
    return error.code(), reason, fields


def documented(game: str, heading: str) -> list[list[str]]:
    return table_rows((DOCS / "games" / f"{game}.md").read_text(encoding="utf-8"), heading)


NOTATION_CHECKS = [(game, row) for game in GAME_IDS for row in documented(game, "### Checks on the notation")]
STRUCTURED_CHECKS = [(game, row) for game in GAME_IDS for row in documented(game, "### The structured form")]


def test_every_game_documents_its_checks() -> None:
    for game in GAME_IDS:
        assert sum(1 for g, _ in NOTATION_CHECKS if g == game) >= 10
        assert sum(1 for g, _ in STRUCTURED_CHECKS if g == game) >= 4


@pytest.mark.parametrize(("game", "row"), NOTATION_CHECKS, ids=lambda v: v if isinstance(v, str) else v[0][:40])
def test_each_documented_notation_check_fails_as_promised(stub, game: str, row: list[str]) -> None:
    rule, example, reason = row[0], code(row[1]), code(row[2])
    request = pb.ScoreRequest(game=game, position=pb.Position(notation=example))
    assert refusal(stub.Score, request) == (grpc.StatusCode.INVALID_ARGUMENT, reason, ["position.notation"]), rule


@pytest.mark.parametrize(("game", "row"), STRUCTURED_CHECKS, ids=lambda v: v if isinstance(v, str) else v[0][:40])
def test_each_documented_structured_check_fails_as_promised(stub, game: str, row: list[str]) -> None:
    rule, example, reason, field = row[0], json.loads(code(row[1])), code(row[2]), code(row[3])
    position = json_format.ParseDict({game.replace("-", "_"): example}, pb.Position())
    request = pb.ScoreRequest(game=game, position=position)
    assert refusal(stub.Score, request) == (grpc.StatusCode.INVALID_ARGUMENT, reason, [field]), rule


@pytest.mark.parametrize("game", GAME_IDS)
def test_the_pages_worked_examples_are_positions(stub, game: str) -> None:
    """Every position in a code block of a game's page is read and written back unchanged."""
    page = (DOCS / "games" / f"{game}.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\n(.*?)```", page, flags=re.S)
    examples = [line for block in blocks for line in block.splitlines() if " " in line and "/" in line]
    assert len(examples) >= 3
    for text in examples:
        score = stub.Score(pb.ScoreRequest(game=game, position=pb.Position(notation=text)), timeout=10)
        assert score.position.notation == text
