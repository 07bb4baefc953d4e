"""Writing answers as JSON: ``service/api/protojson.py`` against protobuf's own ``json_format`` on the same
messages, in the same run (``python -m bench.json_answers``).

The messages are real answers from the servicer (no network): a Reversi LegalMoves and ApplyMove from the
start, a Strands LegalMoves page of 100 moves, and ListGames. Each is written the way the gateway writes it,
``json.dumps(protojson.to_dict(m))`` against ``json_format.MessageToJson(m)``; the best of several timed
rounds, in microseconds, and the ratio. The two must give equal objects (a mismatch fails the run).
"""

from __future__ import annotations

import argparse
import json
import sys
import timeit
from typing import Any

from google.protobuf import json_format

from gamerules.v1 import gamerules_pb2 as pb
from service.api import protojson
from service.api.rpc.servicer import GameRulesServicer
from service.games import GAMES


class _Context:
    """Enough of a ``grpc.ServicerContext`` for the cheap calls."""

    def invocation_metadata(self) -> tuple[()]:
        return ()

    def time_remaining(self) -> None:
        return None

    def is_active(self) -> bool:
        return True


def answers() -> list[tuple[str, Any]]:
    servicer, context = GameRulesServicer(), _Context()
    reversi = GAMES["reversi"].new_position().to_notation()
    strands = servicer.NewGame(pb.NewGameRequest(game="strands", seed="bench"), context).position
    return [
        (
            "reversi LegalMoves",
            servicer.LegalMoves(pb.LegalMovesRequest(game="reversi", position=pb.Position(notation=reversi)), context),
        ),
        (
            "reversi ApplyMove",
            servicer.ApplyMove(
                pb.ApplyMoveRequest(
                    game="reversi", position=pb.Position(notation=reversi), move=pb.Move(notation="d3")
                ),
                context,
            ),
        ),
        (
            "strands LegalMoves (100)",
            servicer.LegalMoves(pb.LegalMovesRequest(game="strands", position=strands, page_size=100), context),
        ),
        ("ListGames", servicer.ListGames(pb.ListGamesRequest(), context)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=300, help="writes per timed round")
    args = parser.parse_args(argv)
    print(f"{'answer':26} {'json_format us':>15} {'protojson us':>13} {'ratio':>7}")
    failed = False
    for name, message in answers():
        ours = protojson.to_dict(message)
        theirs = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
        if ours != theirs:
            print(f"{name}: the objects differ", file=sys.stderr)
            failed = True

        def baseline(m: Any = message) -> str:
            return json_format.MessageToJson(m, always_print_fields_with_no_presence=True, indent=None)

        def candidate(m: Any = message) -> str:
            return json.dumps(protojson.to_dict(m), separators=(",", ":"))

        times = [min(timeit.repeat(f, number=args.number, repeat=5)) / args.number * 1e6 for f in (baseline, candidate)]
        print(f"{name:26} {times[0]:15.1f} {times[1]:13.1f} {times[1] / times[0]:7.2f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
