"""The ``gamerules`` command line tool against a real server: every command, whole games (the service against
itself, and a human typing moves), the entry points, and the board drawings of all five games."""

from __future__ import annotations

import io
import json
import os
import random
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gamerules_client import GameRulesClient, board, cli
from service.games import GAMES, LEVELS

START = GAMES["reversi"].new_position().to_notation()


def run(grpc_address: str, *argv: str, stdin: io.StringIO | None = None) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(["--target", grpc_address, *argv], stdin=stdin, stdout=out)
    return code, out.getvalue()


def test_games(grpc_address):
    code, out = run(grpc_address, "games")
    assert code == 0
    for game_id in GAMES:
        assert out.count(f"{game_id}: ") == 1
    # The default level is marked (beside its measured rating, where it has one).
    assert "option size (int 4..16) = 8" in out and re.search(r"expert \((-?\d+, )?default\)", out)
    code, out = run(grpc_address, "games", "reversi")
    assert code == 0 and "move notation:" in out and "Board side" in out


def test_new_show_moves_apply_best(grpc_address):
    code, out = run(grpc_address, "new", "reversi", "-o", "size=6")
    assert code == 0 and "position: ....../....../..WB../..BW../....../...... 1 black=1" in out
    assert out.count("●") == 3 and out.count("○") == 3  # two discs each, and the legend

    code, out = run(grpc_address, "--ascii", "show", "reversi", START)
    assert code == 0 and "4  . . . W B . . .  4" in out and "Black (seat 1) to move" in out

    code, out = run(grpc_address, "moves", "reversi", "start")
    assert code == 0 and "4 legal moves for seat 1:" in out
    assert {"c4", "d3", "e6", "f5"} <= set(out.split())

    code, out = run(grpc_address, "apply", "reversi", "start", "d3", "c5")
    assert code == 0 and out.startswith("d3: Black (seat 1) places a disc on d3.")
    assert "position: ......../......../...B..../...BB.../..WWW.../......../......../........ 1 black=1" in out

    code, out = run(grpc_address, "best", "reversi", START, "--level", "expert", "--max-depth", "2", "--top", "2")
    assert code == 0 and out.startswith("best: ") and "depth 2" in out and "win chance" in out
    # Each alternative on a line of its own: the move, its value and win chance, then its own line from the move.
    scored = out.split("alternatives:\n")[1].splitlines()
    assert len(scored) == 2 and all(row.split("%")[1].split()[0] == row.split()[0] for row in scored)
    # An analysis by default: the best move is the first alternative, its line more than the move alone.
    kalah = "4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4"
    for seed in ("1", "2", "3"):
        code, out = run(grpc_address, "best", "kalah", kalah, "--max-depth", "6", "--top", "3", "--seed", seed)
        best = out.split()[1]
        line = out.split("line: ")[1].split("\n")[0].split()
        assert code == 0 and f"alternatives:\n  {best} " in out and len(line) > 1

    code, out = run(grpc_address, "--json", "moves", "reversi", START)
    assert code == 0 and '"totalSize": 4' in out


def test_errors_exit_1_with_the_reason_and_field(grpc_address, capsys):
    code, _ = run(grpc_address, "apply", "reversi", "start", "a1")
    assert code == 1
    err = capsys.readouterr().err
    assert "FAILED_PRECONDITION [ILLEGAL_MOVE]" in err and "field: moves[0]" in err
    code, _ = run(grpc_address, "new", "chess")
    assert code == 1 and "UNKNOWN_GAME" in capsys.readouterr().err
    code, _ = run(grpc_address, "new", "reversi", "-o", "size")
    assert code == 2


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_service_plays_a_whole_game_against_itself(grpc_address, game_id):
    fastest = LEVELS[game_id].levels[0].name
    code, out = run(grpc_address, "play", game_id, "--auto", "--level", fastest, "--seed", "3")
    assert code == 0, out
    assert "game over" in out and ("wins (" in out or "a draw" in out)
    final = out.rsplit("position: ", 1)[1].split("\n", 1)[0]
    with GameRulesClient(grpc_address) as client:
        assert client.score(game_id, final).game_over
        moves = out.rsplit("moves: ", 1)[1].split()
        start = client.new_game(game_id, seed="3").position
        assert client.apply_moves(game_id, start, moves).position.notation == final


class _Human(io.StringIO):
    """A player at the keyboard: tries an illegal move, asks for the moves and a hint, then always plays the
    first legal move of the position the tool last printed."""

    def __init__(self, out: io.StringIO, client: GameRulesClient, game: str) -> None:
        super().__init__()
        self.out, self.client, self.game = out, client, game
        self.script = ["zz9", "moves", "hint", ""]

    def readline(self, size: int | None = -1) -> str:
        if self.script:
            return self.script.pop(0) + "\n"
        position = self.out.getvalue().rsplit("position: ", 1)[1].split("\n", 1)[0]
        return self.client.legal_moves(self.game, position, page_size=1).moves[0].notation + "\n"


def test_a_human_plays_a_whole_game_from_stdin(grpc_address):
    out = io.StringIO()
    with GameRulesClient(grpc_address) as client:
        human = _Human(out, client, "reversi")
        code = cli.main(
            ["--target", grpc_address, "play", "reversi", "-o", "size=4", "--level", "beginner", "--seed", "1"],
            stdin=human,
            stdout=out,
        )
    text = out.getvalue()
    assert code == 0, text
    assert "you are Black (seat 1)" in text and "not played: " in text and "hint: " in text
    assert "legal moves: " in text and "game over" in text and "White (seat 2) plays" in text


def test_quitting_leaves_the_game(grpc_address):
    code, out = run(grpc_address, "play", "reversi", "--seat", "2", "--level", "beginner", stdin=io.StringIO("quit\n"))
    assert code == 0 and "Black (seat 1) plays" in out and "game left after 1 moves" in out
    code, out = run(grpc_address, "play", "reversi", stdin=io.StringIO(""))  # end of input
    assert code == 0 and "game left after 0 moves" in out


def _without_target_variables() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("GAMERULES_TARGET", "GAMERULES_GRPC_TARGET")}


def test_the_entry_points(grpc_address):
    env = {**_without_target_variables(), "GAMERULES_GRPC_TARGET": grpc_address}
    script = Path(sys.executable).parent / "gamerules"
    for command in ([str(script), "games"], [sys.executable, "-m", "gamerules_client", "games"]):
        answer = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=False)
        assert answer.returncode == 0, answer.stderr
        assert "reversi: Reversi" in answer.stdout and not answer.stderr


def test_the_old_target_variable_works_for_one_release_with_a_warning(grpc_address):
    script = str(Path(sys.executable).parent / "gamerules")
    env = {**_without_target_variables(), "GAMERULES_TARGET": grpc_address}
    answer = subprocess.run([script, "games"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert answer.returncode == 0 and "reversi: Reversi" in answer.stdout
    assert answer.stderr == (
        "gamerules: warning: GAMERULES_TARGET is deprecated and will stop working in the next release: "
        "use GAMERULES_GRPC_TARGET\n"
    )
    # The new name wins, silently, when both are set.
    env["GAMERULES_GRPC_TARGET"], env["GAMERULES_TARGET"] = grpc_address, "127.0.0.1:1"
    answer = subprocess.run([script, "games"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert answer.returncode == 0 and not answer.stderr


def test_the_tools_options_go_before_or_after_the_command(grpc_address):
    before = cli.build_parser().parse_args(["--json", "--target", "h:1", "--ascii", "moves", "reversi", "start"])
    after = cli.build_parser().parse_args(["moves", "reversi", "start", "--json", "--target", "h:1", "--ascii"])
    mixed = cli.build_parser().parse_args(["--target", "h:1", "moves", "--json", "reversi", "start", "--ascii"])
    assert vars(before) == vars(after) == vars(mixed)
    assert before.target == "h:1" and before.json and before.ascii and before.command == "moves"
    # Given before the command, an option is not reset by the command's own parser.
    assert cli.build_parser().parse_args(["--timeout", "3", "best", "kalah", "start"]).timeout == 3
    out = io.StringIO()
    assert cli.main(["moves", "reversi", START, "--json", "--target", grpc_address], stdout=out) == 0
    assert json.loads(out.getvalue())["totalSize"] == 4


def test_a_closed_pipe_ends_the_tool_quietly(grpc_address):
    """``gamerules --json moves ... | head -1``: the reader leaves after one line; no traceback, the status
    of a tool stopped by SIGPIPE (141). The answer (Strands after Black's opening stone: 58,472 moves, some MB
    of JSON) is far larger than a pipe holds, so the tool is still writing when the reader leaves."""
    strands = GAMES["strands"]
    start = strands.new_position()
    after, *_ = start.apply(start.legal_moves()[0])
    position = shlex.quote(after.to_notation())
    script = shlex.quote(str(Path(sys.executable).parent / "gamerules"))
    env = {**_without_target_variables(), "GAMERULES_GRPC_TARGET": grpc_address}
    pipeline = f"{script} --json moves strands {position} --limit 100000 | head -1; echo ${{PIPESTATUS[0]}}"
    answer = subprocess.run(["bash", "-c", pipeline], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert answer.stdout.splitlines() == ["{", "141"], answer.stdout
    assert answer.stderr == "", answer.stderr


# --- drawings ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_registered_game_draws_from_the_service(grpc_address, game_id):
    """A game the client has a drawer for is drawn from its fields; any other game (the client cannot know every
    game the server registers) is still shown: its notation and fields (``board.draw_fields``)."""
    code, out = run(grpc_address, "new", game_id, "--seed", "5")
    drawing, notation = out.rsplit("position: ", 1)
    notation = notation.splitlines()[0]
    assert code == 0 and "to move" in drawing
    if game_id in board.DRAWERS:
        assert notation not in drawing  # drawn from the fields, not printed as the fallback
    else:
        assert drawing.startswith(notation + "\n  ")  # the fallback: the notation, then the fields


def _positions(module_name: str) -> list:
    """A start position and a few positions of random play, from the engine itself (no server needed)."""
    game = GAMES[module_name.replace("_", "-")]
    position = game.new_position(game.default_options(), "7")
    positions, rng = [position], random.Random(module_name)
    for _ in range(12):
        moves = position.legal_moves_page(0, 60)
        if not moves:
            break
        position = position.play(rng.choice(moves))
        positions.append(position)
    return [game, positions]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_draws_from_its_fields_and_from_its_notation_alike(game_id):
    game, positions = _positions(game_id.replace("-", "_"))
    if game_id not in board.DRAWERS:  # the fallback: the notation, then the fields (their own picture)
        for position in positions:
            fields, notation = position.to_fields(), position.to_notation()
            assert board.draw(game_id, fields, notation).splitlines() == board.draw_fields(
                fields, notation, board.UNICODE, frozenset()
            )
        return
    for position in positions:
        fields, notation = position.to_fields(), position.to_notation()
        drawn = board.draw(game.id, fields, notation)
        assert drawn == board.draw(game.id, {}, notation)  # the notation alone gives the same picture
        assert drawn == board.draw(game.id, {**fields, "added_later": [1, 2]}, notation)  # new fields change nothing
        assert notation not in drawn  # a real drawing, not the fallback
        assert board.draw(game.id, fields, notation, style=board.ASCII).isascii()


def test_the_drawings_show_the_position():
    game, positions = _positions("reversi")
    start = board.draw(game.id, positions[0].to_fields(), style=board.ASCII)
    assert "4  . . . W B . . .  4" in start and "5  . . . B W . . .  5" in start

    game, (kalah, *_) = _positions("kalah")
    lines = board.draw(game.id, kalah.to_fields()).splitlines()
    assert lines[1].split() == ["6", "5", "4", "3", "2", "1"] and lines[2].split() == ["4"] * 6
    assert lines[3].split() == ["[", "0]", "[", "0]"] and lines[5].split() == ["1", "2", "3", "4", "5", "6"]

    game, (petak, *_) = _positions("petak_sawah")
    fields = petak.to_fields()
    drawn = board.draw(game.id, fields)
    assert drawn.count("#") == len(fields["rocks"]) + 1  # the rocks, and the legend's

    game, dots = _positions("dots_and_boxes")
    fields = dots[-1].to_fields()
    drawn = board.draw(game.id, fields)
    assert drawn.count("+") == (fields["rows"] + 1) * (fields["cols"] + 1)
    horizontal = [line for line in fields["lines"] if line[0] != line[line.index("-") + 1]]
    assert drawn.count("---") == len(horizontal)
    assert drawn.count("|") == len(fields["lines"]) - len(horizontal)

    game, strands = _positions("strands")
    fields = strands[-1].to_fields()
    rows = board.draw(game.id, fields, style=board.ASCII).splitlines()[:-1]
    labels = fields["labels"].split("/")
    assert len(rows) == len(labels)
    indents = [len(row) - len(row[1:].lstrip()) for row in rows]
    assert indents[len(labels) // 2] == min(indents) and indents[0] == max(indents)  # the hexagon's rows
    text = "\n".join(rows)
    assert text.count("B") == len(fields["black"]) and text.count("W") == len(fields["white"])


def test_an_unknown_game_prints_its_notation_and_fields():
    assert board.draw("go", {"stones": 3}, "xyz") == "xyz\n  stones: 3"
