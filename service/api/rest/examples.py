"""Real examples for the OpenAPI document: for every method, one request per game and the gateway's answer.

``examples.json`` (beside this module) holds them; the OpenAPI document (``service/api/rest/openapi.py``) shows
them as each operation's request and response examples. They are recorded, never written by hand:
``python -m service.api.rest.record_examples`` (``make examples``) builds the requests from the engines (a small start
position per game, its first legal moves, a finished game), sends each through the gateway app to a gRPC
server started in this process, and writes the answers. ``tests/api/test_examples.py`` sends every recorded
request to a running gateway and server and compares the answer with the recorded one (all but the
best-move search's ``elapsedMs``, which is a measurement, and the release).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from service.core.jsonvalue import JSON, JSONObject

PATH = Path(__file__).with_name("examples.json")
# The methods whose answer is one JSON message, so an example can show it: not AnalyzePosition and ReviewGame
# (streams of them) nor RenderPosition (an image); docs/api.md and the README show those.
NOT_JSON = frozenset({"AnalyzePosition", "RenderPosition", "ReviewGame"})
# Streams recorded all the same: ``response`` is ``{"stream": [every message's result, in order]}``; the
# document shows their requests and the stream's last message.
STREAMED = frozenset({"ReviewGame"})
# The HTTP verb after the colon where it is not the method's name in lowerCamelCase.
_VERBS = {"AnalyzePosition": "analyze", "ReviewGame": "review", "RenderPosition": "render"}
# Answer fields that are measurements, not results: left out of the comparison. ``nodes`` counts the search's
# work, which a native kernel counts in its own units: the answer (move, value, line) is the same on both paths.
# ``serviceVersion`` (ListGames) is the release that answered, which changes with every release.
MEASURED = frozenset({"elapsedMs", "nodes", "serviceVersion"})
# The games' example options (each registration's ``example_options``: small boards keep the answers short);
# the seed makes random boards repeatable.
SEED = "7"


@dataclass(frozen=True)
class Example:
    method: str  # the RPC's name, e.g. "LegalMoves"
    game: str  # the game id in the path; "" for ListGames
    summary: str
    request: JSONObject | None  # the JSON body; None for a GET
    response: JSONObject

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
        verb = _VERBS.get(self.method, self.method[0].lower() + self.method[1:])
        return "POST", f"/v1/games/{self.game}:{verb}"


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


def comparable(answer: JSON) -> JSON:
    """``answer`` without its measured fields, at any depth."""
    if isinstance(answer, dict):
        return {key: comparable(value) for key, value in answer.items() if key not in MEASURED}
    if isinstance(answer, list):
        return [comparable(value) for value in answer]
    return answer
