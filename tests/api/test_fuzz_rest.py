"""schemathesis against the gateway's own OpenAPI document (``/openapi.json``, generated from the protos): every
phase (the document's recorded examples, the coverage phase's boundary cases, fuzzing, stateful sequences)
with every check schemathesis has (server errors, status codes, headers and bodies against the document,
schema-invalid requests refused, schema-valid ones accepted...), through a real gateway in front of a real gRPC
server, with the settings of ``schemathesis.toml``. On top: an error is always a ``google.rpc.Status`` with an
ErrorInfo, and a request the document calls valid is refused only by a game's rules (the document cannot know
that a notation belongs to another game), never as malformed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from service.api.errors import HTTP_STATUS
from service.api.rest.openapi import openapi_document
from service.api.rpc.server import ServerConfig, create_server
from service.api.rpc.servicer import ServiceConfig
from tests.api.conftest import FUZZ_SCALE, http, running_gateway

ROOT = Path(__file__).resolve().parents[2]
# The reasons of a game's rules: a schema-valid request may break one. Any other 400 (INVALID_JSON, a REQUIRED
# field reported missing, INVALID_ARGUMENT) answering a schema-valid request means the document and the
# service disagree.
RULES_REASONS = frozenset(
    {
        "INVALID_NOTATION",
        "INVALID_POSITION",
        "INVALID_MOVE",
        "INVALID_OPTION",
        "ILLEGAL_MOVE",
        "GAME_OVER",
        "UNKNOWN_LEVEL",
        "INVALID_PAGE_TOKEN",
    }
)


@pytest.fixture(scope="module")
def fuzzed_gateway() -> Iterator[str]:
    """A gateway (two workers) in front of a server whose searches are capped at 100 ms."""
    config = ServerConfig(service=ServiceConfig(max_think_ms=100, search_slots=2, search_queue=4))
    running = create_server(config, address="127.0.0.1:0")
    try:
        with running_gateway(f"127.0.0.1:{running.port}", workers=2) as url:
            yield url
    finally:
        running.shutdown(1)


# The document the gateway serves at /openapi.json (checked below), loaded when the tests are collected: the
# lazy loading from a fixture (schemathesis.pytest.from_fixture) does not work with this pytest version.
schema = schemathesis.openapi.from_dict(
    openapi_document(), config=SchemathesisConfig.from_path(ROOT / "schemathesis.toml")
)
schema.config.phases.update(phases=["examples", "coverage", "fuzzing", "stateful"])


@pytest.fixture(scope="module", autouse=True)
def count_answers() -> Iterator[None]:
    yield
    print(f"REST fuzz: {sum(ANSWERS.values())} answers checked, by class {dict(sorted(ANSWERS.items()))}")


def test_the_fuzzed_document_is_the_served_one(fuzzed_gateway):
    status, served, _ = http(fuzzed_gateway, "/openapi.json")
    assert status == 200 and served == json.loads(json.dumps(openapi_document()))


def _reason(body: dict) -> str:
    infos = [d for d in body.get("details", []) if d.get("@type", "").endswith("google.rpc.ErrorInfo")]
    assert len(infos) == 1 and infos[0]["domain"] == "gamerules.v1" and infos[0]["reason"], body
    return infos[0]["reason"]


ANSWERS: dict[int, int] = {}  # the answers checked, by class (2 for 2xx ...): the run's count, printed


@schemathesis.check
def success_or_a_client_error_with_a_status(ctx, response, case) -> None:
    """The brief's rule for every answer, and the only 400 a schema-valid request may get."""
    code = response.status_code
    ANSWERS[code // 100] = ANSWERS.get(code // 100, 0) + 1
    if 200 <= code < 300:
        return
    assert 400 <= code < 500, f"{case.method} {case.formatted_path}: {code} {response.text[:300]}"
    body = response.json()
    assert isinstance(body, dict) and set(body) <= {"code", "message", "details"}, body
    # grpc-gateway's mapping, but for a verb a path does not take: 405 with UNIMPLEMENTED, as grpc-gateway v2.
    assert HTTP_STATUS[body["code"]] == code or (code, body["code"]) == (405, 12), body
    assert isinstance(body.get("message"), str) and body["message"], body
    reason = _reason(body)
    if case.meta is not None and case.meta.generation.mode.is_positive and code == 400:
        assert reason in RULES_REASONS, f"a schema-valid request refused as malformed: {body}"


# Examples per operation: 12 in make test (a thousand and more with GAMERULES_FUZZ_SCALE, docs/development.md);
# at 25 the REST fuzz took 23 s of a suite at its time bound.
@schema.parametrize()
@settings(
    max_examples=12 * FUZZ_SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
def test_the_gateway_answers_as_the_document_says(case, fuzzed_gateway):
    case.call_and_validate(
        base_url=fuzzed_gateway, timeout=30, additional_checks=[success_or_a_client_error_with_a_status]
    )
