"""Real examples for the OpenAPI document: for every method, one request per game and the gateway's answer.

``examples.json`` (beside this module) holds them; the OpenAPI document (``service/api/openapi.py``) shows
them as each operation's request and response examples. They are recorded, never written by hand:
``python -m service.api.examples`` (``make examples``) builds the requests from the engines (a small start
position per game, its first legal moves, a finished game), sends each through the gateway app to a gRPC
server started in this process, and writes the answers. ``tests/api/test_examples.py`` sends every recorded
request to a running gateway and server and compares the answer with the recorded one (all but the
best-move search's ``elapsedMs``, which is a measurement).
"""

from __future__ import annotations

import functools
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from service.games import GAMES

PATH = Path(__file__).with_name("examples.json")
# Answer fields that are measurements, not results: left out of the comparison.
MEASURED = frozenset({"elapsedMs"})
# Small boards keep the answers short; seeds make random boards repeatable.
OPTIONS: dict[str, dict[str, Any]] = {
    "reversi": {"size": 6},
    "kalah": {"seedsPerPit": 3},
    "dots-and-boxes": {"rows": 2, "cols": 2},
    "petak-sawah": {"rows": 4, "cols": 4, "rocks": 2},
    "strands": {"layout": "side4"},
}
SEED = "7"


@dataclass(frozen=True)
class Example:
    method: str  # the RPC's name, e.g. "LegalMoves"
    game: str  # the game id in the path; "" for ListGames
    summary: str
    request: dict[str, Any] | None  # the JSON body; None for a GET
    response: dict[str, Any]

    @property
    def name(self) -> str:
        return self.game or "all"

    @property
    def http(self) -> tuple[str, str]:
        """(verb, path) of the call."""
        if self.method == "ListGames":
            return "GET", "/v1/games"
        if self.method == "GetGame":
            return "GET", f"/v1/games/{self.game}"
        return "POST", f"/v1/games/{self.game}:{self.method[0].lower()}{self.method[1:]}"


@functools.cache
def load() -> tuple[Example, ...]:
    """The recorded examples (none if the file is missing: the document then has none)."""
    try:
        raw = json.loads(PATH.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ()
    return tuple(Example(**entry) for entry in raw)


def for_method(method: str) -> list[Example]:
    return [example for example in load() if example.method == method]


def comparable(answer: Any) -> Any:
    """``answer`` without its measured fields, at any depth."""
    if isinstance(answer, dict):
        return {key: comparable(value) for key, value in answer.items() if key not in MEASURED}
    if isinstance(answer, list):
        return [comparable(value) for value in answer]
    return answer


# --- recording ---------------------------------------------------------------------------------------------


def requests() -> list[tuple[str, str, str, dict[str, Any] | None]]:
    """(method, game, summary, request body) for every example, built from the engines."""
    from google.protobuf import struct_pb2

    from service.api.codec import decode_options
    from service.games import base

    calls: list[tuple[str, str, str, dict[str, Any] | None]] = [("ListGames", "", "Every game", None)]
    for game_id, game in GAMES.items():
        options = struct_pb2.Struct()
        options.update(OPTIONS[game_id])
        start = game.new_position(decode_options(game, options), SEED)
        moves = [start.legal_moves()[0]]
        after_one = start.play(moves[0])
        moves.append(after_one.legal_moves()[0])
        after_two = after_one.play(moves[1])
        line = [start.move_notation(moves[0]), after_one.move_notation(moves[1])]
        end: base.Position = after_two
        while end.outcome() is None:  # the first legal move each turn, to the end
            end = end.play(end.legal_moves()[0])

        def at(position: base.Position) -> dict[str, str]:
            return {"notation": position.to_notation()}

        title = game.title
        calls += [
            ("GetGame", game_id, f"{title}: rules, options, levels, notation", None),
            ("NewGame", game_id, f"{title}: a small board", {"options": OPTIONS[game_id], "seed": SEED}),
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
        ]
    return calls


def record() -> list[Example]:
    """Every request sent through the gateway app to a gRPC server in this process; their answers."""
    from service.api.gateway import create_app
    from service.api.server import ServerConfig, create_server

    running = create_server(ServerConfig(), address="127.0.0.1:0")
    try:
        client = create_app(backend=f"127.0.0.1:{running.port}", timeout_s=30).test_client()
        recorded = []
        for method, game, summary, body in requests():
            example = Example(method, game, summary, body, {})
            verb, path = example.http
            answer = client.open(path, method=verb, json=body)
            if answer.status_code != 200:
                raise RuntimeError(f"{verb} {path}: {answer.status_code} {answer.get_data(as_text=True)[:300]}")
            recorded.append(Example(method, game, summary, body, answer.get_json()))
        return recorded
    finally:
        running.shutdown(1)


def main() -> None:
    recorded = record()
    PATH.write_text(json.dumps([asdict(example) for example in recorded], indent=1) + "\n", encoding="utf-8")
    print(f"{len(recorded)} examples written to {PATH.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
