"""``gamerules``: the command line tool — list the games, draw positions, ask for moves, and play.

::

    gamerules games                             # the games, their options and levels
    gamerules new reversi                       # the start position, drawn, and its notation
    gamerules moves kalah start                 # the legal moves ("start" = the default start position)
    gamerules apply reversi start d3 c5         # play moves, print what happened and the board
    gamerules best strands "<notation>" --level hard --top 3
    gamerules best kalah start --rating 600 --purpose play    # the rung of the rated ladder nearest 600
    gamerules review reversi start f5 d6 c3 d3  # every move judged, then each side's accuracy
    gamerules play dots-and-boxes --level easy  # you against the service (you are seat 1)
    gamerules play petak-sawah --auto           # the service against itself
    gamerules render reversi start --legal -o board.svg   # the board as an SVG image

The server is ``--target`` (``GAMERULES_GRPC_TARGET``, default ``localhost:50051``). The options of the tool
(``--target``, ``--json``, ``--ascii``...) go before or after the command. A POSITION is a notation (quote it:
it has spaces) or ``start``. Exit status: 0, 1 for an error answer of the service (printed with its reason and
fields), 2 for a usage mistake, 141 when the output's reader went away (``| head``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from . import board
from . import notations as nt
from ._stubs import pb
from .client import DEFAULT_TIMEOUT_S, GameRulesClient
from .environment import DEFAULT_TARGET, env
from .errors import GameRulesError

# Games whose legal moves are marked on the board when it is the human's turn (the others would be all marks).
_MARK_LEGAL = frozenset({"reversi"})
_MAX_PLIES = 10_000  # no game here is near this long; it only bounds a runaway loop


class _Quit(Exception):
    """The human left the game (``quit`` or the end of the input)."""


class Cli:
    """One run of the tool: the client, the output and the drawing style."""

    def __init__(self, client: GameRulesClient, out: TextIO, style: board.Style, as_json: bool) -> None:
        self.client = client
        self.out = out
        self.style = style
        self.as_json = as_json
        self._games: dict[str, pb.Game] = {}

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def json(self, message: Message) -> None:
        self.say(json_format.MessageToJson(message, always_print_fields_with_no_presence=True, indent=2))

    def game(self, game: str) -> pb.Game:
        game = nt.game_id(game)
        if game not in self._games:
            self._games[game] = self.client.get_game(game)
        return self._games[game]

    def position(self, game: str, text: str) -> pb.Position:
        """A POSITION argument: a notation, or ``start`` for the default start position."""
        if text == "start":
            return self.client.new_game(game).position
        return nt.position(text)

    def seat(self, game: str, seat: int, fields: dict[str, Any] | None = None) -> str:
        """``Black (seat 1)``: the game's name for the seat, where it has one."""
        names = list(self.game(game).seat_names)
        if nt.game_id(game) == "reversi" and fields and int(fields.get("black_seat") or 1) == 2:
            names = names[::-1]
        name = names[seat - 1] if 0 < seat <= len(names) else ""
        return f"{name} (seat {seat})" if name and name.lower() != f"seat {seat}" else f"seat {seat}"

    def draw(self, game: str, position: pb.Position, marks: Sequence[str] = ()) -> None:
        self.say(board.draw(game, nt.fields(position), position.notation, style=self.style, marks=marks))

    def status(self, game: str, score: pb.ScoreResponse) -> str:
        fields = nt.fields(score.position)
        scores = "   ".join(f"{self.seat(game, i + 1, fields)}: {value}" for i, value in enumerate(score.scores))
        if score.game_over:
            return f"{scores}   — game over"
        return f"{scores}   — {self.seat(game, score.to_move, fields)} to move"

    def result(self, game: str, score: pb.ScoreResponse) -> str:
        fields = nt.fields(score.position)
        detail = f": {score.detail}" if score.detail else ""
        if score.HasField("winner"):
            return f"{self.seat(game, score.winner, fields)} wins ({score.reason}){detail}"
        return f"a draw{detail}"

    def show(self, game: str, position: pb.Position, marks: Sequence[str] = ()) -> pb.ScoreResponse:
        """Draw the position with its scores and whose turn it is; the Score answer."""
        score = self.client.score(game, position)
        self.draw(game, score.position, marks)
        self.say(self.status(game, score))
        return score

    # --- commands ----------------------------------------------------------------------------------

    def cmd_games(self, args: argparse.Namespace) -> int:
        games = [self.game(args.game)] if args.game else self.client.list_games()
        if self.as_json:
            for described in games:
                self.json(described)
            return 0
        for described in games:
            self.say(f"{described.id}: {described.title} — seats: {', '.join(described.seat_names)}")
            if args.game:
                self.say(f"  {described.description}")
                self.say(f"  position notation: {described.position_notation}")
                self.say(f"  move notation: {described.move_notation}")
            for option in described.options:
                default = _plain(json_format.MessageToDict(option.default_value))
                bounds = ""
                if option.HasField("minimum") or option.HasField("maximum"):
                    bounds = f" {option.minimum if option.HasField('minimum') else ''}..{option.maximum}"
                choices = f" one of {', '.join(option.choices)}" if option.choices else ""
                self.say(f"  option {option.name} ({option.type}{bounds}{choices}) = {default}")
                if args.game:
                    self.say(f"      {option.description}")
            if args.game:
                for level in described.levels:
                    self.say(f"  level {_level_line(level, described.default_level)}")
                    self.say(f"      {level.description}")
            else:
                levels = ", ".join(_level_name(level, described.default_level) for level in described.levels)
                self.say(f"  levels: {levels}")
        return 0

    def cmd_new(self, args: argparse.Namespace) -> int:
        options = dict(nt.parse_option(text) for text in args.option)
        response = self.client.new_game(args.game, options, args.seed)
        if self.as_json:
            self.json(response)
            return 0
        self.show(args.game, response.position)
        self.say(f"position: {response.position.notation}")
        seed = getattr(response, "seed", "")  # the seed the server used (a random one when none was given)
        if seed:
            self.say(f"seed: {seed}")
        return 0

    def cmd_show(self, args: argparse.Namespace) -> int:
        position = self.position(args.game, args.position)
        if self.as_json:
            self.json(self.client.score(args.game, position))
            return 0
        score = self.show(args.game, position)
        if score.game_over:
            self.say(self.result(args.game, score))
        self.say(f"position: {score.position.notation}")
        return 0

    def cmd_score(self, args: argparse.Namespace) -> int:
        return self.cmd_show(args)

    def cmd_moves(self, args: argparse.Namespace) -> int:
        position = self.position(args.game, args.position)
        page = self.client.legal_moves(args.game, position, page_size=min(args.limit, 1000))
        if self.as_json:
            self.json(page)
            return 0
        if page.game_over:
            self.say("the game is over: no moves")
            return 0
        moves = [move.notation for move in page.moves]
        self.say(f"{page.total_size} legal move{'s' if page.total_size != 1 else ''} for seat {page.to_move}:")
        self.say("  " + "  ".join(moves) + ("  ..." if page.next_page_token else ""))
        for group in page.move_space:
            count = (
                f"{group.min_count}" if group.min_count == group.max_count else f"{group.min_count}..{group.max_count}"
            )
            self.say(f"  label {group.label}: cover {count} of {' '.join(group.cells)}")
        return 0

    def cmd_apply(self, args: argparse.Namespace) -> int:
        position = self.position(args.game, args.position)
        response = self.client.apply_moves(args.game, position, args.moves)
        if self.as_json:
            self.json(response)
            return 0
        for step in response.steps:
            self.say(f"{step.move.notation}: " + " ".join(event.detail or event.type for event in step.events))
        score = self.show(args.game, response.position)
        if score.game_over:
            self.say(self.result(args.game, score))
        self.say(f"position: {response.position.notation}")
        return 0

    def cmd_best(self, args: argparse.Namespace) -> int:
        position = self.position(args.game, args.position)
        answer = self.client.best_move(
            args.game,
            position,
            args.level,
            max_time_ms=args.max_time_ms,
            max_depth=args.max_depth,
            max_nodes=args.max_nodes,
            seed=args.seed,
            top_n=args.top,
            purpose=args.purpose,
            rating=args.rating,
        )
        if self.as_json:
            self.json(answer)
            return 0
        proved = "proved" if answer.exact else "estimate"
        self.say(
            f"best: {answer.move.notation}   value {answer.value:+g} ({proved}){_chance(answer)}   "
            f"level {answer.level}   depth {answer.depth}, {answer.nodes} nodes, {answer.elapsed_ms} ms, "
            f"stopped: {answer.stop_reason}"
        )
        if answer.pv:
            self.say("line: " + _line(answer.pv))
        if len(answer.alternatives) > 1:
            self.say("alternatives:")
            for scored in answer.alternatives:
                self.say(f"  {scored.move.notation:<10} {scored.value:+g}{_chance(scored)}   {_line(scored.pv)}")
        return 0

    def cmd_review(self, args: argparse.Namespace) -> int:
        stream = self.client.review_game(
            args.game,
            args.moves,
            self.position(args.game, args.position),
            level=args.level,
            max_time_ms=args.max_time_ms,
            max_depth=args.max_depth,
            max_nodes=args.max_nodes,
        )
        for response in stream:
            if self.as_json:
                self.json(response)
            elif response.HasField("ply"):
                self.say(_ply_line(response.ply))
            elif response.HasField("plan"):
                if not response.plan.enough_time:
                    self.say(f"warning: {response.plan.detail}")
            else:
                for line in _summary_lines(response.summary):
                    self.say(line)
        return 0

    def cmd_render(self, args: argparse.Namespace) -> int:
        image = self.client.render_position(
            args.game,
            self.position(args.game, args.position),
            size=args.size,
            last_move=args.last_move,
            show_legal_moves=args.legal,
            arrows=args.arrow,
            coordinates=not args.no_coordinates,
            flip=args.flip,
            theme=args.theme,
        )
        if args.output in ("", "-"):
            self.say(image.decode("utf-8").rstrip("\n"))
        else:
            with open(args.output, "wb") as file:
                file.write(image)
            print(f"wrote {args.output} ({len(image)} bytes)", file=sys.stderr)
        return 0

    # --- play ----------------------------------------------------------------------------------------

    def cmd_play(self, args: argparse.Namespace, stdin: TextIO) -> int:
        game = nt.game_id(args.game)
        described = self.game(game)
        level = args.level or described.default_level
        if args.position:
            position = self.position(game, args.position)
        else:
            options = dict(nt.parse_option(text) for text in args.option)
            started = self.client.new_game(game, options, args.seed)
            position = started.position
            if getattr(started, "seed", "") and not args.seed:
                self.say(f"seed: {started.seed} (play the same start again with --seed {started.seed})")
        human = 0 if args.auto else args.seat
        who = "the service plays both seats" if not human else f"you are {self.seat(game, human)}"
        if args.rating is not None:  # the server chooses the rung (and refuses a --level given too)
            self.say(f"{described.title}: {who}; the service plays the rung of its ladder nearest {args.rating}")
            level = args.level
        else:
            self.say(f"{described.title}: {who}; the service plays at level {level}")
        if human:
            self.say("type a move, or: moves, hint, board, quit")
        played: list[str] = []
        for ply in range(_MAX_PLIES):
            turn = self.client.legal_moves(game, position, page_size=64)
            marks = [m.notation for m in turn.moves] if human == turn.to_move and game in _MARK_LEGAL else []
            score = self.show(game, position, marks)
            self.say(f"position: {score.position.notation}")
            if score.game_over:
                self.say(self.result(game, score))
                self.say(f"moves: {' '.join(played)}")
                return 0
            if human and turn.to_move == human:
                try:
                    step = self._human_turn(game, position, level, args.rating, stdin)
                except _Quit:
                    self.say(f"game left after {len(played)} moves; position: {position.notation}")
                    return 0
            else:
                best = self.client.best_move(game, position, level, seed=f"{args.seed}:{ply}", rating=args.rating)
                level_note = f" ({best.level})" if args.rating is not None else ""
                step = self.client.apply_move(game, position, best.move)
                self.say(f"{self.seat(game, turn.to_move, nt.fields(position))} plays {step.move.notation}{level_note}")
            for event in step.events:
                if event.detail:
                    self.say(f"  {event.detail}")
            played.append(step.move.notation)
            position = step.position
        self.say("stopped: the game ran longer than any game of these rules can")
        return 1

    def _human_turn(
        self, game: str, position: pb.Position, level: str, rating: int | None, stdin: TextIO
    ) -> pb.ApplyMoveResponse:
        while True:
            self.out.write("your move> ")
            self.out.flush()
            line = stdin.readline()
            if not line:
                self.say()
                raise _Quit
            text = line.strip()
            if text in ("quit", "exit", "q"):
                raise _Quit
            if not text:
                continue
            if text in ("moves", "?", "help"):
                page = self.client.legal_moves(game, position, page_size=200)
                self.say(f"{page.total_size} legal moves: " + " ".join(m.notation for m in page.moves))
                for group in page.move_space:
                    self.say(
                        f"  label {group.label}: cover {group.min_count}..{group.max_count} of {' '.join(group.cells)}"
                    )
                self.say("other commands: hint, board, quit")
                continue
            if text == "hint":
                hint = self.client.best_move(game, position, level, purpose="analysis", rating=rating)
                self.say(f"hint: {hint.move.notation} (value {hint.value:+g})")
                continue
            if text == "board":
                self.show(game, position)
                continue
            try:
                return self.client.apply_move(game, position, text)
            except GameRulesError as error:
                self.say(f"not played: {error.message}")


def _plain(value: Any) -> str:
    """A JSON value as a person writes it: ``8`` rather than ``8.0`` (Struct numbers are doubles)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value or '""'
    return json.dumps(value)


def _add_global_options(parser: argparse.ArgumentParser, defaults: dict[str, Any] | None) -> None:
    """The options of every command, with ``defaults`` from the environment. They go on the tool and on each
    command, so they are accepted before the command and after it; on a command (``defaults`` None) they
    default to nothing (``SUPPRESS``), so one given before the command is not reset by the command's parser."""

    def add(*names: str, **settings: Any) -> None:
        if defaults is None:
            settings["default"] = argparse.SUPPRESS
        parser.add_argument(*names, **settings)

    environ = defaults or {}
    add(
        "--target",
        default=environ.get("target"),
        help="the gRPC server, host:port (env GAMERULES_GRPC_TARGET; default localhost:50051)",
    )
    add("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="deadline of each call in seconds")
    add("--tls", action="store_true", default=False, help="use TLS (with --ca for a private certificate authority)")
    add(
        "--ca",
        default=environ.get("ca"),
        help="PEM file of the certificate authority to trust (implies --tls; env GAMERULES_GRPC_TARGET_CA)",
    )
    add("--api-key", default=environ.get("api_key"), help="sent as x-api-key (env GAMERULES_API_KEY)")
    add("--ascii", action="store_true", default=False, help="draw with plain ASCII characters")
    add("--json", action="store_true", default=False, help="print the answers as JSON (not for play)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gamerules", description="Play and query the gamerules service from the terminal."
    )
    environ = {
        "target": env("GAMERULES_GRPC_TARGET", DEFAULT_TARGET),
        "ca": env("GAMERULES_GRPC_TARGET_CA") or None,
        "api_key": env("GAMERULES_API_KEY"),
    }
    _add_global_options(parser, environ)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add_command(name: str, **settings: Any) -> argparse.ArgumentParser:
        command = commands.add_parser(name, **settings)
        _add_global_options(command, None)
        return command

    games = add_command("games", help="list the games, or describe one")
    games.add_argument("game", nargs="?")

    def with_position(name: str, text: str) -> argparse.ArgumentParser:
        command = add_command(name, help=text)
        command.add_argument("game", help="reversi, kalah, dots-and-boxes, petak-sawah or strands")
        command.add_argument("position", help="a position notation (quoted), or `start`")
        return command

    new = add_command("new", help="the start position of a game")
    new.add_argument("game")
    new.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    new.add_argument("--seed", default="", help="feeds random rocks and layouts")

    with_position("show", "draw a position with its scores")
    with_position("score", "the scores, and the result once the game is over")
    moves = with_position("moves", "the legal moves")
    moves.add_argument("--limit", type=int, default=200, help="list at most this many (default %(default)s)")
    apply = with_position("apply", "play moves and show what happened")
    apply.add_argument("moves", nargs="+", metavar="MOVE")
    best = with_position("best", "the service's best move")
    best.add_argument("--level", default="", help="a level of the game (see `gamerules games GAME`)")
    best.add_argument(
        "--rating",
        type=int,
        default=None,
        metavar="N",
        help="instead of --level: the rung of the game's rated ladder nearest this rating (see `gamerules games GAME`)",
    )
    best.add_argument("--max-time-ms", type=int, default=0)
    best.add_argument("--max-depth", type=int, default=0)
    best.add_argument("--max-nodes", type=int, default=0)
    best.add_argument("--seed", default="")
    best.add_argument("--top", type=int, default=0, help="score this many moves")
    best.add_argument(
        "--purpose",
        choices=("analysis", "play"),
        default="analysis",
        help="analysis: the strongest move (the default); play: a bot's move, with the level's seeded variety",
    )

    review = with_position("review", "judge every move of a game played from POSITION")
    review.add_argument("moves", nargs="+", metavar="MOVE")
    review.add_argument("--level", default="", help="the level that searches each ply (default: the strongest)")
    review.add_argument("--max-time-ms", type=int, default=0, help="each ply's search time")
    review.add_argument("--max-depth", type=int, default=0)
    review.add_argument("--max-nodes", type=int, default=0)

    render = with_position("render", "the board as an SVG image")
    render.add_argument("-o", "--output", default="", help="write it to this file (default: print it)")
    render.add_argument("--size", type=int, default=0, help="width in pixels, 64..2048 (default 480)")
    render.add_argument("--legal", action="store_true", help="mark the legal moves")
    render.add_argument("--last-move", default="", help="highlight this move (the one that led here)")
    render.add_argument("--arrow", action="append", default=[], metavar="MOVE", help="draw a move; repeat for a line")
    render.add_argument("--no-coordinates", action="store_true", help="leave out the coordinates")
    render.add_argument("--flip", action="store_true", help="turn the board round (as seat 2 sees it)")
    render.add_argument("--theme", default="", help="classic (default), dark or print")

    play = add_command("play", help="play a whole game against the service")
    play.add_argument("game")
    play.add_argument("--level", default="", help="the service's level (default: the game's default level)")
    play.add_argument(
        "--rating", type=int, default=None, metavar="N", help="instead of --level: the rung nearest this rating"
    )
    play.add_argument("--seat", type=int, choices=(1, 2), default=1, help="your seat (default 1)")
    play.add_argument("--auto", action="store_true", help="the service plays both seats")
    play.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    play.add_argument("--seed", default="", help="for the start position and the service's choices")
    play.add_argument("--position", default="", help="start from this position instead")
    return parser


def _ply_line(ply: pb.PlyReview) -> str:
    """One reviewed ply: its number, the move, the judgement, and what the best move was worth."""
    head = f"{ply.ply + 1:>4}. seat {ply.seat}  {ply.move.notation:<10}"
    if not ply.reviewed:
        return f"{head} unreviewed (no time left)"
    if ply.forced:
        return f"{head} {ply.judgement:<10} (forced)"
    proved = "proved" if ply.exact else "estimate"
    line = f"{head} {ply.judgement:<10} value {ply.played_value:+g}"
    if ply.HasField("win_chance_after"):
        line += f" (win chance {ply.win_chance_after:.0%})"
    if ply.loss > 0:
        line += f", best {ply.best_move.notation} {ply.best_value:+g}"
        if ply.HasField("win_chance_before"):
            line += f" ({ply.win_chance_before:.0%})"
        line += f" (loses {ply.loss:g} and {ply.win_chance_loss:.1%} of win chance, {proved})"
        line += "   line: " + _line(ply.pv)
    return line


def _rating(rating: float) -> str:
    """A rating as a person reads it: a whole number."""
    return f"{rating:.0f}"


def _level_name(level: pb.GameLevel, default: str) -> str:
    """``ladder-5 (1350)``: a level's name with its measured rating, and whether it is the default."""
    notes = [_rating(level.rating)] if level.HasField("rating") else []
    if level.name == default:
        notes.append("default")
    return level.name + (f" ({', '.join(notes)})" if notes else "")


def _level_line(level: pb.GameLevel, default: str) -> str:
    """A level's line in a game's description: its rating with the interval, its rung, its think-time hint."""
    parts = [level.name + (" (default)" if level.name == default else "")]
    if level.HasField("rating"):
        parts.append(f"rating {_rating(level.rating)} ({_rating(level.rating_low)} to {_rating(level.rating_high)})")
    if level.rung:
        parts.append(f"rung {level.rung}")
    if level.think_ms:
        parts.append(f"think {level.think_ms} ms")
    return ", ".join(parts)


def _chance(answer: pb.BestMoveResponse | pb.ScoredMove) -> str:
    """A value's win chance, as a short note (empty when the answer has none)."""
    return f", win chance {answer.win_chance:.0%}" if answer.HasField("win_chance") else ""


def _line(moves: Iterable[pb.Move]) -> str:
    return " ".join(move.notation for move in moves)


def _summary_lines(summary: pb.ReviewSummary) -> list[str]:
    lines = []
    for seat in summary.seats:
        counts = ", ".join(f"{count} {name}" for name, count in json_format.MessageToDict(seat.counts).items() if count)
        accuracy = f"accuracy {seat.accuracy:.1f}" if seat.HasField("accuracy") else "no move judged"
        if seat.HasField("rating"):
            accuracy += (
                f", performance rating {_rating(seat.rating)} "
                f"({_rating(seat.rating_low)} to {_rating(seat.rating_high)})"
            )
        lines.append(
            f"seat {seat.seat}: {accuracy}, mean loss {seat.mean_loss:.2f} "
            f"({seat.mean_win_chance_loss:.1%} of win chance) over {seat.moves} moves"
            + (f" ({counts})" if counts else "")
        )
    if summary.swings:
        lines.append("largest swings at plies " + ", ".join(str(ply + 1) for ply in summary.swings))
    if summary.unreviewed_plies:
        lines.append(f"{summary.unreviewed_plies} plies unreviewed: the deadline came first")
    lines.append(f"level {summary.level}, {summary.elapsed_ms} ms")
    return lines


def _credentials(args: argparse.Namespace) -> grpc.ChannelCredentials | None:
    if not (args.tls or args.ca):
        return None
    if args.ca:
        with open(args.ca, "rb") as file:
            return grpc.ssl_channel_credentials(root_certificates=file.read())
    return grpc.ssl_channel_credentials()


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    with warnings.catch_warnings(record=True) as deprecations:
        warnings.simplefilter("always", FutureWarning)
        args = build_parser().parse_args(argv)
    for warning in deprecations:  # an old environment variable: one plain line each
        print(f"gamerules: warning: {warning.message}", file=sys.stderr)
    out = stdout or sys.stdout
    try:
        return _run(args, out, stdin or sys.stdin)
    except BrokenPipeError:
        # The reader went away (``gamerules --json moves ... | head -1``): stop quietly, as a tool killed by
        # SIGPIPE does, and point stdout at /dev/null so the interpreter's last flush does not fail again.
        if out is sys.stdout:
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


def _run(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    encoding = getattr(out, "encoding", None) or "utf-8"
    try:
        "●○·".encode(encoding)
        style = board.ASCII if args.ascii else board.UNICODE
    except (UnicodeEncodeError, LookupError):
        style = board.ASCII
    metadata = [("x-api-key", args.api_key)] if args.api_key else []
    with GameRulesClient(
        args.target, timeout=args.timeout, credentials=_credentials(args), metadata=metadata
    ) as client:
        cli = Cli(client, out, style, args.json)
        try:
            if args.command == "play":
                return cli.cmd_play(args, stdin)
            handler = getattr(cli, f"cmd_{args.command}")
            return int(handler(args))
        except GameRulesError as error:
            print(f"error: {error}", file=sys.stderr)
            for field in error.fields:
                print(f"  field: {field}", file=sys.stderr)
            return 1
        except ValueError as error:  # a malformed option on the command line
            print(f"error: {error}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main())
