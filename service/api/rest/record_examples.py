"""Records the OpenAPI document's examples (``service/api/rest/examples.py``) from real answers: ``make examples``.

It builds the requests from the engines (a small start position per game, its first legal moves, a finished
game), sends each through the gateway app to a gRPC server started in this process, and writes the answers to
``examples.json``. Kept apart from ``examples.py`` so that the gateway, which only reads the file, loads no
engine.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from google.protobuf import struct_pb2

from service.api.codec import decode_options
from service.api.rest.examples import PATH, SEED, STREAMED, Example
from service.api.rest.gateway_local import local_client
from service.api.rpc.server import ServerConfig, create_server
from service.core.contract import MoveT, Position
from service.core.jsonvalue import JSONObject
from service.games import BUILT_IN, Registration


def requests(
    registrations: Sequence[Registration] = BUILT_IN, listing: bool = True
) -> list[tuple[str, str, str, JSONObject | None]]:
    """(method, game, summary, request body) for every example of ``registrations`` (the service's own games:
    the document's examples; a game registered from outside the tree keeps none), built from the engines, after
    ListGames' when ``listing``."""
    calls: list[tuple[str, str, str, JSONObject | None]] = [("ListGames", "", "Every game", None)] * listing
    for registration in registrations:
        game_id, game = registration.id, registration.game
        options = struct_pb2.Struct()
        options.update(registration.example_options)
        start = game.new_position(decode_options(game, options), SEED)
        moves = [start.legal_moves()[0]]
        after_one = start.play(moves[0])
        moves.append(after_one.legal_moves()[0])
        after_two = after_one.play(moves[1])
        line = [start.move_notation(moves[0]), after_one.move_notation(moves[1])]
        end: Position[Any] = after_two
        while end.outcome() is None:  # the first legal move each turn, to the end
            end = end.play(end.legal_moves()[0])

        def at(position: Position[MoveT]) -> dict[str, str]:
            return {"notation": position.to_notation()}

        title = game.title
        calls += [
            ("GetGame", game_id, f"{title}: rules, options, levels, notation", None),
            ("NewGame", game_id, f"{title}: a small board", {"options": registration.example_options, "seed": SEED}),
            ("LegalMoves", game_id, f"{title}: the moves at the start", {"position": at(start)}),
            (
                "ApplyMove",
                game_id,
                f"{title}: the first move",
                {"position": at(start), "move": {"notation": line[0]}},
            ),
            (
                "ApplyMoves",
                game_id,
                f"{title}: two moves",
                {"position": at(start), "moves": [{"notation": notation} for notation in line]},
            ),
            ("Score", game_id, f"{title}: a finished game", {"position": at(end)}),
            (
                "BatchScore",
                game_id,
                f"{title}: the start and two moves in",
                {"positions": [at(start), at(after_two)]},
            ),
            (
                "BestMove",
                game_id,
                f"{title}: a 2-ply search with the two best moves",
                {"position": at(after_two), "limits": {"maxDepth": 2}, "seed": SEED, "topN": 2},
            ),
            (
                "ReviewGame",
                game_id,
                f"{title}: two moves reviewed, two plies deep each",
                {
                    "position": at(start),
                    "moves": [{"notation": notation} for notation in line],
                    **registration.example_review,
                },
            ),
        ]
    return calls


def record(registrations: Sequence[Registration] = BUILT_IN, listing: bool = True) -> list[Example]:
    """Every request of ``requests(registrations, listing)`` sent through the gateway app to a gRPC server in
    this process; their answers."""
    running = create_server(ServerConfig(), address="127.0.0.1:0")
    try:
        with local_client(f"127.0.0.1:{running.port}", timeout_s=30) as client:
            recorded = []
            for method, game, summary, body in requests(registrations, listing):
                example = Example(method, game, summary, body, {})
                verb, path = example.http
                answer = client.open(path, method=verb, json=body)
                if answer.status_code != 200:
                    raise RuntimeError(f"{verb} {path}: {answer.status_code} {answer.text[:300]}")
                recorded.append(Example(method, game, summary, body, _answer(method, answer.text)))
            return recorded
    finally:
        running.shutdown(1)


def _answer(method: str, text: str) -> JSONObject:
    """The JSON answer, or a stream's results in order (``examples.STREAMED``)."""
    if method in STREAMED:
        return {"stream": [json.loads(line)["result"] for line in text.splitlines() if line.strip()]}
    answer: JSONObject = json.loads(text)
    return answer


def main() -> None:
    recorded = record()
    PATH.write_text(json.dumps([asdict(example) for example in recorded], indent=1) + "\n", encoding="utf-8")
    print(f"{len(recorded)} examples written to {PATH.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
