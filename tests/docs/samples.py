"""The curl samples of the README and ``docs/``: each answer shown is the service's real answer, abbreviated.

A sample is a ``sh`` block under a line ``<!-- sample: KEY KEY ... -->``: its ``curl`` command (a POST with
``-d`` or a GET) and, after it, the answer as ``#`` lines. The keys are the JSON keys the answer shows, at
any depth; every other key is elided as ``...``, and a stream of more than four lines shows its first two,
``# ...`` and its last. ``python -m tests.docs.samples`` sends every sample's request through the gateway to
a server in this process and writes the answers into the pages; ``test_samples.py`` checks that the pages
still show what the service answers.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.api.rest.gateway_local import local_client
from service.api.rpc.server import ServerConfig, create_server

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(r"^<!-- sample: ([\w ]+) -->$")
WIDTH = 116  # an answer line's characters after its "# "
STREAM_SHOWN = 4  # a stream of more lines shows its first two, "...", and its last


@dataclass(frozen=True)
class Sample:
    page: Path
    keys: frozenset[str]
    command: list[str]  # the block's lines up to the answer
    answer: list[str]  # the answer's "#" lines as the page has them
    start: int  # the index of the block's first command line in the page's lines

    def request(self) -> tuple[str, str, Any]:
        """(verb, path, JSON body or None) of the curl command."""
        words = shlex.split(" ".join(line.rstrip("\\").strip() for line in self.command))
        if not words or words[0] != "curl":
            raise ValueError(f"{self.page.name}: a sample is a curl command, not {self.command[0]!r}")
        body = json.loads(words[words.index("-d") + 1]) if "-d" in words else None
        url = next(word for word in words[1:] if not word.startswith("-") and "localhost" in word)
        path = "/" + url.split("/", 1)[1]
        return ("POST" if body is not None else "GET"), path, body


def samples(page: Path) -> Iterator[Sample]:
    lines = page.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        found = MARKER.match(line)
        if not found:
            continue
        if lines[index + 1] != "```sh":
            raise ValueError(f"{page.name}:{index + 2}: a sample marker stands right above a ```sh block")
        start = end = index + 2
        while not lines[end].startswith("```"):
            end += 1
        block = lines[start:end]
        command = [line for line in block if not line.startswith("#")]
        answer = block[len(command) :]
        yield Sample(page, frozenset(found[1].split()), command, answer, start)


def abbreviated(value: Any, keys: frozenset[str]) -> str:
    """``value`` as compact JSON with only ``keys`` (at any depth), the rest elided as ``...``."""
    if isinstance(value, dict):
        shown = [f"{json.dumps(key)}:{abbreviated(item, keys)}" for key, item in value.items() if key in keys]
        if len(shown) < len(value):
            shown.append("...")
        return "{" + ",".join(shown) + "}"
    if isinstance(value, list):
        return "[" + ",".join(abbreviated(item, keys) for item in value) + "]"
    return json.dumps(value)


def wrapped(text: str) -> list[str]:
    """One answer as "#" lines of at most ``WIDTH`` characters, broken after commas."""
    lines, rest = [], text
    while len(rest) > WIDTH:
        cut = rest.rfind(",", 0, WIDTH) + 1 or WIDTH
        lines.append(rest[:cut])
        rest = rest[cut:]
    lines.append(rest)
    return ["# " + lines[0], *("#  " + line for line in lines[1:])]


def answer_lines(text: str, keys: frozenset[str]) -> list[str]:
    """The "#" lines a page shows for the answer ``text`` (one JSON object, or a stream of them)."""
    answers = [json.loads(line) for line in text.splitlines() if line.strip()]
    if len(answers) > STREAM_SHOWN:
        answers = [*answers[:2], None, answers[-1]]
    out: list[str] = []
    for answer in answers:
        out += ["# ..."] if answer is None else wrapped(abbreviated(answer, keys))
    return out


def recorded() -> dict[tuple[Path, int], list[str]]:
    """Every sample's answer lines as the service answers them now, by (page, block start)."""
    running = create_server(ServerConfig(), address="127.0.0.1:0")
    try:
        with local_client(f"127.0.0.1:{running.port}", timeout_s=30) as client:
            out = {}
            for page in PAGES:
                for sample in samples(page):
                    verb, path, body = sample.request()
                    answer = client.open(path, method=verb, json=body)
                    text = answer.text
                    if answer.status_code != 200:
                        raise RuntimeError(f"{page.name}: {verb} {path}: {answer.status_code} {text[:300]}")
                    out[(page, sample.start)] = answer_lines(text, sample.keys)
            return out
    finally:
        running.shutdown(1)


def main() -> None:
    answers = recorded()
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        for sample in reversed(list(samples(page))):  # from the end: earlier blocks keep their places
            at = sample.start + len(sample.command)
            lines[at : at + len(sample.answer)] = answers[(page, sample.start)]
        page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(answers)} samples written", file=sys.stderr)


if __name__ == "__main__":
    main()
