"""Positions written by hand from the documentation alone, sent to a real in-process server.

Per game, a mid-game position is written following only the rules GetGame's ``positionNotation`` states
(each rule is quoted from the text the server answers, so the test fails when the text stops saying it; the
comments say which rule each character follows): the server must read it, write it back unchanged, list
legal moves for it, and apply a move written from GetGame's ``moveNotation``. Each game's registration holds
its hand-written position, move and the rules they follow (``checks.handwritten``, in
``service/games/<game>.py``). Then every check that the game's page (``docs/games/<game>.md``) documents is
sent, in notation and in the structured form, and must fail with exactly the reason and field the page
promises.
"""

from __future__ import annotations

import json
import re

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.games import BY_ID, REGISTRATIONS

GAME_IDS = [game.id for game in REGISTRATIONS]


def notation_help(stub: pb_grpc.GameRulesStub, game: str) -> str:
    return stub.GetGame(pb.GetGameRequest(name=f"games/{game}"), timeout=10).position_notation


def follows(text: str, rule: str) -> str:
    """``rule``, after checking GetGame's text states it: a position or move may rely on nothing else."""
    assert rule in text, f"GetGame's positionNotation no longer says {rule!r}"
    return rule


# --- one hand-written position per game ---------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_IDS)
def test_a_handwritten_position_is_read_written_back_and_has_moves(stub, game: str) -> None:
    written = BY_ID[game].checks.handwritten
    if written is None:
        pytest.skip(f"{game} declares no hand-written position (its checks.handwritten)")
    position_help = notation_help(stub, game)
    for rule in written.position_rules:
        follows(position_help, rule)
    text = written.position
    position = pb.Position(notation=text)
    score = stub.Score(pb.ScoreRequest(game=game, position=position), timeout=10)
    assert score.position.notation == text  # written back exactly as written
    assert not score.game_over and score.to_move in (1, 2)
    moves = stub.LegalMoves(pb.LegalMovesRequest(game=game, position=position, page_size=5), timeout=10)
    assert moves.total_size > 0 and moves.moves and moves.to_move == score.to_move
    # A move written from GetGame's moveNotation applies: the rules continue from the hand-written position.
    help_text = stub.GetGame(pb.GetGameRequest(name=game), timeout=10).move_notation
    for rule in written.move_rules:
        follows(help_text, rule)
    move = written.move
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
    return table_rows(BY_ID[game].page.read_text(encoding="utf-8"), heading)


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


def structured_field(game: str) -> str:
    """The Position field of the game's structured form: its own message, or the generic ``fields`` for a game the
    contract has no message of."""
    own = game.replace("-", "_")
    return own if own in pb.Position.DESCRIPTOR.fields_by_name else "fields"


@pytest.mark.parametrize(("game", "row"), STRUCTURED_CHECKS, ids=lambda v: v if isinstance(v, str) else v[0][:40])
def test_each_documented_structured_check_fails_as_promised(stub, game: str, row: list[str]) -> None:
    rule, example, reason, field = row[0], json.loads(code(row[1])), code(row[2]), code(row[3])
    position = json_format.ParseDict({structured_field(game): example}, pb.Position())
    request = pb.ScoreRequest(game=game, position=position)
    assert refusal(stub.Score, request) == (grpc.StatusCode.INVALID_ARGUMENT, reason, [field]), rule


@pytest.mark.parametrize("game", GAME_IDS)
def test_the_pages_worked_examples_are_positions(stub, game: str) -> None:
    """Every position in a code block of a game's page is read and written back unchanged."""
    page = BY_ID[game].page.read_text(encoding="utf-8")
    blocks = re.findall(r"```\n(.*?)```", page, flags=re.S)
    examples = [line for block in blocks for line in block.splitlines() if " " in line and "/" in line]
    assert len(examples) >= 3
    for text in examples:
        score = stub.Score(pb.ScoreRequest(game=game, position=pb.Position(notation=text)), timeout=10)
        assert score.position.notation == text
