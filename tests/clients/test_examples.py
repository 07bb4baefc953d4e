"""The examples in clients/examples/ run, so they never rot.

``curl.sh`` runs as it is (bash and curl) against a real gateway, and every answer is checked. grpcurl is not
installable on these machines, so each ``grpcurl`` command of ``grpcurl.sh`` is done the way grpcurl does it:
the server's reflection service supplies the descriptors, the ``-d`` JSON is parsed into the request type it
names and sent to the method, and ``list``/``describe`` are answered from reflection.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import grpc
import pytest
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

EXAMPLES = Path(__file__).resolve().parents[2] / "clients" / "examples"


def _sections(text: str) -> dict[str, str]:
    """``## title`` then output, for each example."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return {title.strip(): body.strip() for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def _json_and_status(body: str) -> tuple[dict, int]:
    status = 200
    match = re.search(r"\nHTTP (\d{3})$", body)
    if match:
        status, body = int(match.group(1)), body[: match.start()]
    return json.loads(body), status


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_curl_examples_run_against_a_real_gateway(gateway_url):
    env = {**os.environ, "GAMERULES_HTTP_URL": gateway_url}
    done = subprocess.run(
        ["bash", str(EXAMPLES / "curl.sh")], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    sections = _sections(done.stdout)
    assert len(sections) == (EXAMPLES / "curl.sh").read_text().count('echo "## ')
    answers = {}
    for title, body in sections.items():
        if title.startswith("health"):
            live, ready = body.splitlines()
            assert json.loads(live)["status"] == "ok" and json.loads(ready)["status"] == "ready"
            continue
        if title.startswith("a board image"):
            image = ElementTree.fromstring(body)
            assert image.tag == "{http://www.w3.org/2000/svg}svg" and image.get("width") == "320"
            continue
        if title.startswith("the analysis streamed"):
            lines = [json.loads(line)["result"] for line in body.splitlines()]
            assert [line["analysis"]["depth"] for line in lines] == [1, 2, 3, 4, 5, 6, 6] and lines[-1]["final"]
            continue
        if title.startswith("a game reviewed"):
            lines = [json.loads(line)["result"] for line in body.splitlines()]
            assert lines[0]["plan"]["enoughTime"] is True
            assert [line["ply"]["move"]["notation"] for line in lines[1:-1]] == ["f5", "d6", "c3", "d3"]
            assert lines[-1]["summary"]["reviewedPlies"] == 4
            continue
        answers[title.split(":")[0].split(" (")[0]] = _json_and_status(body)

    def ok(prefix: str) -> dict:
        (answer, status), *_ = [value for key, value in answers.items() if key.startswith(prefix)]
        assert status == 200, (prefix, answer)
        return answer

    assert "reversi" in [game["id"] for game in ok("list the games")["games"]]
    assert ok("one game")["name"] == "games/reversi"
    assert ok("a new game")["toMove"] == 1
    assert ok("the legal moves")["totalSize"] == 4
    paged = ok("paged")
    assert len(paged["moves"]) == 2 and paged["nextPageToken"]
    assert ok("play a move")["move"]["notation"] == "d3"
    assert len(ok("replay")["steps"]) == 3
    assert ok("the structured form")["scores"] == [4, 1]
    assert [s["scores"] for s in ok("scores of several")["scores"]] == [[2, 2], [4, 1]]
    assert len(ok("the best move at a level")["alternatives"]) == 3
    assert ok("the best move within")["depth"] <= 3
    assert ok("the OpenAPI document")["openapi"].startswith("3.")
    (illegal, status), *_ = [value for key, value in answers.items() if key.startswith("an illegal move")]
    assert status == 400 and illegal["code"] == 9  # FAILED_PRECONDITION
    assert any(detail.get("reason") == "ILLEGAL_MOVE" for detail in illegal["details"])
    (unknown, status), *_ = [value for key, value in answers.items() if key.startswith("an unknown game")]
    assert status == 404 and unknown["code"] == 5


def _grpcurl_commands() -> list[list[str]]:
    text = (EXAMPLES / "grpcurl.sh").read_text().replace("\\\n", " ")
    return [shlex.split(line) for line in text.splitlines() if line.strip().startswith("grpcurl ")]


def test_the_grpcurl_examples_through_reflection(grpc_address):
    commands = _grpcurl_commands()
    assert len(commands) >= 8
    with grpc.insecure_channel(grpc_address) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        pool = descriptor_pool.DescriptorPool(database)
        for argv in commands:
            assert argv[1] == "-plaintext" and "$GRPC" in argv  # the address from the environment
            words = [word for word in argv[1:] if word not in ("-plaintext", "$GRPC")]
            if words == ["list"]:
                services = set(database.get_services())
                assert {"gamerules.v1.GameRules", "grpc.health.v1.Health"} <= services
                continue
            if words[0] == "describe":
                service = pool.FindServiceByName(words[1])
                assert {"NewGame", "LegalMoves", "ApplyMove", "BestMove"} <= set(service.methods_by_name)
                continue
            timeout = 10.0
            if words[0] == "-max-time":
                timeout, words = float(words[1]), words[2:]
            assert words[0] == "-d" and len(words) == 3, argv
            body, target = json.loads(words[1]), words[2]
            service_name, method_name = target.split("/")
            method = pool.FindServiceByName(service_name).methods_by_name[method_name]
            request = json_format.ParseDict(body, message_factory.GetMessageClass(method.input_type)())
            response_class = message_factory.GetMessageClass(method.output_type)
            if method.server_streaming:  # grpcurl prints each message of the stream
                stream = channel.unary_stream(
                    f"/{service_name}/{method_name}",
                    request_serializer=lambda message: message.SerializeToString(),
                    response_deserializer=response_class.FromString,
                )
                messages = [json_format.MessageToDict(message) for message in stream(request, timeout=timeout)]
                if method_name == "ReviewGame":  # the plan, a message per move, then the summary
                    assert "plan" in messages[0]
                    assert [message["ply"]["move"]["notation"] for message in messages[1:-1]] == ["f5", "d6", "c3"]
                    assert messages[-1]["summary"]["reviewedPlies"] == 3
                    continue
                assert len(messages) > 1 and messages[-1]["final"] and not messages[0].get("final"), target
                continue
            call = channel.unary_unary(
                f"/{service_name}/{method_name}",
                request_serializer=lambda message: message.SerializeToString(),
                response_deserializer=response_class.FromString,
            )
            answer = json_format.MessageToDict(call(request, timeout=timeout))
            assert answer, (target, body)
            if method_name == "BestMove":
                assert answer["move"]["notation"] and len(answer["alternatives"]) == 2
            if method_name == "RenderPosition":
                assert answer["contentType"] == "image/svg+xml" and answer["data"]
            if method_name == "Check":
                assert answer["status"] == "SERVING"


@pytest.mark.parametrize(
    ("script", "variable", "new", "old", "default"),
    [
        ("curl.sh", "HTTP", "GAMERULES_HTTP_URL", "GAMERULES_HTTP", "http://localhost:8080"),
        ("grpcurl.sh", "GRPC", "GAMERULES_GRPC_TARGET", "GAMERULES_GRPC", "localhost:50051"),
    ],
)
def test_the_examples_find_the_service_by_the_new_name_and_the_old_one_for_one_release(
    script, variable, new, old, default
):
    """The scripts' own lines up to the address they call, run with each combination of the two names."""
    text = (EXAMPLES / script).read_text()
    start = text.index(f"\n{variable}=") + 1
    preamble = text[: text.index("\n", start)]
    environ = {k: v for k, v in os.environ.items() if k not in (new, old)}

    def address(**names: str) -> tuple[str, str]:
        done = subprocess.run(
            ["bash", "-c", f'{preamble}\necho "${variable}"'],
            env={**environ, **names},
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return done.stdout.strip(), done.stderr.strip()

    assert address() == (default, "")
    assert address(**{new: "a:1"}) == ("a:1", "")
    assert address(**{new: "a:1", old: "b:2"}) == ("a:1", "")
    assert address(**{old: "b:2"}) == (
        "b:2",
        f"{script}: {old} is deprecated and will stop working in the next release: use {new}",
    )
