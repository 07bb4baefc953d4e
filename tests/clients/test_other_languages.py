"""The Node (TypeScript) and Go examples in clients/examples/ play against real servers, and every answer they
print is checked against the same call made here through the Python stubs.

``make test-examples`` (CI runs it after ``make test``) installs their toolchains, generates their stubs with
buf.gen.yaml, builds them (``make client-examples``) and runs these tests with ``GAMERULES_REQUIRE_EXAMPLES=1``:
an example not built (why goes to build/examples.skip: no Node, Debian's packages not installable) fails there.
Without it (``make test``, which installs no toolchain) these tests skip, saying that ``make test-examples`` runs
them and, where the examples are not built, why: examples built earlier may be older than the service they would
be checked against (their stubs and REST types are made from it), and only make rebuilds them.

Each example plays every game over gRPC and over REST (new game, legal moves, the first move applied, the score,
a best move at a fixed depth and seed), then handles an illegal move on each transport, printing
``GAME TRANSPORT STEP: ...`` per step.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import urllib.request
from pathlib import Path

import grpc
import pytest

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.games import EXTRA_GAMES, GAMES
from tests.api.conftest import running_gateway

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / "clients" / "examples" / "node"
GO_BINARY = ROOT / "build" / "gamerules-example-go"
SKIPPED = ROOT / "build" / "examples.skip"
LINE = re.compile(r"^(\S+) (grpc|rest) ([a-z-]+): (.*)$")
SHOWN = 6  # legal moves the examples print


# Set by `make test-examples`, once it has built the examples: they run, and one not built fails its test.
REQUIRED = os.environ.get("GAMERULES_REQUIRE_EXAMPLES") == "1"


def _need(artifact: Path, tool: str | None = None) -> None:
    """Go on under GAMERULES_REQUIRE_EXAMPLES=1 if ``artifact`` is built (and ``tool`` installed), else fail
    saying why; without it, skip saying how to run the test (and why the example is not built, if it is not)."""
    why = None
    if tool is not None and shutil.which(tool) is None:
        why = f"{tool} is not installed (the Node example needs Node 20)"
    elif not artifact.exists():
        why = SKIPPED.read_text().strip() if SKIPPED.exists() else f"{artifact.relative_to(ROOT)} is not built"
    if REQUIRED and why:
        pytest.fail(f"GAMERULES_REQUIRE_EXAMPLES=1, and {why}", pytrace=False)
    if not REQUIRED:
        how = "the Go and Node examples run in `make test-examples` (it installs their toolchains and builds them)"
        pytest.skip(f"{how}: {why}" if why else how)


def _run(command: list[str]) -> dict[tuple[str, str, str], str]:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    steps = {}
    for line in done.stdout.splitlines():
        match = LINE.match(line)
        assert match, line
        game, transport, step, text = match.groups()
        steps[game, transport, step] = text
    return steps


def _check(steps: dict[tuple[str, str, str], str], grpc_address: str) -> None:
    with grpc.insecure_channel(grpc_address) as channel:
        stub = pb_grpc.GameRulesStub(channel)
        games = [game.id for game in stub.ListGames(pb.ListGamesRequest()).games]
        assert sorted(games) == sorted(GAMES)
        assert steps["all", "grpc", "games"].split() == games
        for game in games:
            start = stub.NewGame(pb.NewGameRequest(game=game, seed="1")).position
            position = pb.Position(notation=start.notation)
            legal = stub.LegalMoves(pb.LegalMovesRequest(game=game, position=position))
            moves = [move.notation for move in legal.moves]
            first = pb.Move(notation=moves[0])
            step = stub.ApplyMove(pb.ApplyMoveRequest(game=game, position=position, move=first))
            after = pb.Position(notation=step.position.notation)
            score = stub.Score(pb.ScoreRequest(game=game, position=after))
            limits = pb.SearchLimits(max_depth=2)
            best = stub.BestMove(pb.BestMoveRequest(game=game, position=after, limits=limits, seed="1"))
            to_move = str(score.to_move) if score.HasField("to_move") else "none"
            shown = " ".join(moves[:SHOWN]) + (" ..." if len(moves) > SHOWN else "")
            for transport in ("grpc", "rest"):
                said = {key[2]: text for key, text in steps.items() if key[:2] == (game, transport)}
                assert said["new-game"] == start.notation, (game, transport)
                assert said["legal-moves"] == f"{legal.total_size} ({shown})", (game, transport)
                assert said["apply"] == f"{first.notation} -> {after.notation}", (game, transport)
                assert said["score"] == f"{'-'.join(map(str, score.scores))} (to move: {to_move})", (game, transport)
                move, depth, value = re.fullmatch(r"(\S+) \(depth (\d+), value (\S+)\)", said["best-move"]).groups()
                assert (move, int(depth)) == (best.move.notation, best.depth), (game, transport)
                assert float(value) == pytest.approx(best.value), (game, transport)
    grpc_error = steps["error", "grpc", "illegal-move"]
    assert re.match(r"(FAILED_PRECONDITION|FailedPrecondition) ILLEGAL_MOVE \[move\] move: ", grpc_error), grpc_error
    rest_error = steps["error", "rest", "illegal-move"]
    assert rest_error.startswith("400 ILLEGAL_MOVE [move] move: "), rest_error


def test_the_node_example_plays_every_game_over_grpc_and_rest(grpc_address, gateway_url):
    _need(NODE / "dist" / "main.js", tool="node")
    steps = _run(["node", str(NODE / "dist" / "main.js"), "--grpc", grpc_address, "--http", gateway_url])
    assert steps["all", "rest", "games"] == steps["all", "grpc", "games"]
    _check(steps, grpc_address)
    _check_review(steps, grpc_address)


def _check_review(steps: dict[tuple[str, str, str], str], grpc_address: str) -> None:
    """The example's review of f5 d6 c3 says what the service's own review says, on both transports."""
    moves = [pb.Move(notation=notation) for notation in ("f5", "d6", "c3")]
    with grpc.insecure_channel(grpc_address) as channel:
        answers = list(pb_grpc.GameRulesStub(channel).ReviewGame(pb.ReviewGameRequest(game="reversi", moves=moves)))
    assert answers[0].HasField("plan")
    plies = ", ".join(f"{answer.ply.move.notation} {answer.ply.judgement}" for answer in answers[1:-1])
    accuracies = [seat.accuracy for seat in answers[-1].summary.seats]
    for transport in ("grpc", "rest"):
        judged, said = steps["reversi", transport, "review"].split("; accuracy ")
        assert judged == plies, transport
        assert [float(number) for number in said.split()] == pytest.approx(accuracies), transport


def test_the_node_rest_types_come_from_the_document_the_gateway_serves(grpc_address):
    """make makes them from the service's own games: a gateway without the suite's test game (tests/conftest.py)."""
    generated = NODE / "src" / "gen" / "openapi.json"
    _need(generated)
    with (
        running_gateway(grpc_address, env={EXTRA_GAMES: ""}) as url,
        urllib.request.urlopen(url + "/openapi.json", timeout=10) as answer,
    ):
        served = json.load(answer)
    assert json.loads(generated.read_text()) == served
    assert "/v1/games/{game}:newGame" in (NODE / "src" / "gen" / "openapi.ts").read_text()


def test_the_go_example_plays_every_game_over_grpc_and_rest(grpc_address, gateway_url):
    _need(GO_BINARY)
    _check(_run([str(GO_BINARY), "-grpc", grpc_address, "-http", gateway_url]), grpc_address)


def test_the_stubs_of_every_language_carry_the_packages_the_protos_name():
    """buf.gen.yaml's output: each language's package from the protos' file options."""
    _need(ROOT / "gen")
    go = (ROOT / "gen" / "go" / "gamerules" / "v1" / "gamerules_grpc.pb.go").read_text()
    assert "package gamerulesv1" in go and "func NewGameRulesClient(" in go
    java = (ROOT / "gen" / "java" / "com" / "gamerules" / "v1" / "GameRulesGrpc.java").read_text()
    assert "package com.gamerules.v1;" in java
    assert (ROOT / "gen" / "java" / "com" / "gamerules" / "v1" / "KalahPosition.java").exists()  # multiple files
    php = (ROOT / "gen" / "php" / "Gamerules" / "V1" / "GameRulesClient.php").read_text()
    assert "namespace Gamerules\\V1;" in php
    assert (ROOT / "gen" / "php" / "Gamerules" / "V1" / "GPBMetadata" / "Gamerules.php").exists()
    typescript = (NODE / "src" / "gen" / "gamerules" / "v1" / "gamerules.ts").read_text()
    assert 'makeGenericClientConstructor(GameRulesService, "gamerules.v1.GameRules")' in typescript
