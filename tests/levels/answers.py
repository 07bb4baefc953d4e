"""Recorded BestMove answers: 100 per game over every level, from random positions early and late in a game,
with node budgets (so the answers do not depend on the machine's speed) and seeds.

``python -m tests.levels.answers`` records them again into ``tests/levels/data/`` (with the native kernels and,
with ``GAMERULES_NO_NATIVE=1``, without); ``test_recorded_answers.py`` checks that the service still gives
exactly these answers. A change meant to change answers (a stronger level) records them again in the same
commit. Everything goes through the servicer, so the recording does not depend on how the inside is laid out.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from google.protobuf import json_format, struct_pb2

from gamerules.v1 import gamerules_pb2 as pb
from service.api.rpc.servicer import GameRulesServicer, ServiceConfig
from service.games import REGISTRATIONS

DATA = Path(__file__).parent / "data"
PER_GAME = 100
OPTIONS = {game.id: game.answer_options for game in REGISTRATIONS}  # each game's registration declares its sets


class Context:
    """The little of a gRPC context the servicer asks for: no deadline, never cancelled."""

    def time_remaining(self) -> None:
        return None

    def is_active(self) -> bool:
        return True

    def invocation_metadata(self) -> tuple[()]:
        return ()

    def peer(self) -> str:
        return ""

    def abort_with_status(self, status: Any) -> None:
        raise RuntimeError(f"{status.code} {status.details}")

    def abort(self, code: Any, details: str) -> None:
        raise RuntimeError(f"{code} {details}")


def path(native: bool) -> Path:
    return DATA / f"answers-{'native' if native else 'python'}.json"


def native_on() -> bool:
    return os.environ.get("GAMERULES_NO_NATIVE", "") in ("", "0")


def _position(servicer: GameRulesServicer, context: Context, game: str, rng: random.Random, late: bool) -> str:
    """A position of random play: early (up to 40 plies in), or late (a few plies before the end)."""
    struct = struct_pb2.Struct()
    struct.update(rng.choice(OPTIONS[game]))
    request = pb.NewGameRequest(game=game, options=struct, seed=str(rng.randrange(10**6)))
    notation = servicer.NewGame(request, context).position.notation
    line = [notation]
    for _ in range(10**6 if late else rng.randrange(0, 40)):
        listing = servicer.LegalMoves(
            pb.LegalMovesRequest(game=game, position=pb.Position(notation=notation), page_size=50), context
        )
        if listing.game_over or not listing.moves:
            break
        move = pb.Move(notation=rng.choice(list(listing.moves)).notation)
        step = pb.ApplyMoveRequest(game=game, position=pb.Position(notation=notation), move=move)
        notation = servicer.ApplyMove(step, context).position.notation
        line.append(notation)
    return line[max(0, len(line) - 1 - rng.randrange(1, 16))] if late else notation


def _compact(answer: pb.BestMoveResponse) -> dict[str, Any]:
    return {
        "move": answer.move.notation,
        "value": answer.value,
        "exact": answer.exact,
        "depth": answer.depth,
        "nodes": answer.nodes,
        "stop": answer.stop_reason,
        "pv": [move.notation for move in answer.pv],
        "alternatives": [[a.move.notation, a.value, a.exact] for a in answer.alternatives],
        "level": answer.level,
    }


def recorded_games() -> list[str]:
    """The games whose answers are recorded (``checks.recorded_answers``), in the registry's order."""
    return [game.id for game in REGISTRATIONS if game.checks.recorded_answers]


def record(games: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """The answers of ``games`` (every recorded game unless given), in a fixed order from a fixed seed."""
    # Searches in this process (thread mode): the test switches the native kernels on and off here.
    servicer = GameRulesServicer(config=ServiceConfig(max_think_ms=10**7, search_mode="thread"))
    context = Context()
    rng = random.Random(20261201)
    rows = []
    for game in recorded_games() if games is None else games:
        levels = [level.name for level in servicer.GetGame(pb.GetGameRequest(name=f"games/{game}"), context).levels]
        made = 0
        while made < PER_GAME:
            notation = _position(servicer, context, game, rng, late=made % 2 == 1)
            if servicer.Score(pb.ScoreRequest(game=game, position=pb.Position(notation=notation)), context).game_over:
                continue
            request = pb.BestMoveRequest(
                game=game,
                position=pb.Position(notation=notation),
                level=levels[made % len(levels)],
                seed=str(rng.randrange(1000)),
                top_n=rng.choice([1, 1, 3]),
                limits=pb.SearchLimits(max_nodes=rng.choice([200, 1000, 3000]), max_time_ms=10**6),
            )
            answer = _compact(servicer.BestMove(request, context))
            rows.append({"request": json_format.MessageToDict(request), "answer": answer})
            made += 1
    return rows


if __name__ == "__main__":
    DATA.mkdir(exist_ok=True)
    target = path(native_on())
    target.write_text(json.dumps(record(), indent=0, sort_keys=True) + "\n")
    print(f"wrote {target}", file=sys.stderr)
