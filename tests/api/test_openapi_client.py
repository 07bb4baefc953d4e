"""A client generated from the served ``/openapi.json`` by an OpenAPI code generator (openapi-python-client,
a dev dependency): it generates without a warning, and its typed calls work against a real gateway in front of
a real gRPC server — a success, parsed into the game's own structured position, and an error, parsed into the
google.rpc.Status."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api.conftest import http

PACKAGE = "gamerules_openapi_client"
START = "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"


def _generator() -> str:
    found = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("openapi-python-client is not installed (make install installs the dev packages)")
    return found


@pytest.fixture(scope="module")
def generated(gateway_url: str, tmp_path_factory: pytest.TempPathFactory):
    generator = _generator()
    root = tmp_path_factory.mktemp("openapi-client")
    status, document, _ = http(gateway_url, "/openapi.json")
    assert status == 200
    (root / "openapi.json").write_text(json.dumps(document))
    # The board image (RenderPosition) is bytes to the generator, which reads no image type of its own.
    (root / "config.json").write_text(
        json.dumps({"content_type_overrides": {"image/svg+xml": "application/octet-stream"}})
    )
    # The generator formats its output with ruff, which it looks for on the PATH.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run(
        [generator, "generate", "--path", "openapi.json", "--meta", "none", "--output-path", PACKAGE,
         "--config", "config.json"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    # Anything it could not understand is a warning, and a missing model or endpoint.
    assert "warning" not in output.lower() and "skipping" not in output.lower(), output
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def test_the_generated_client_calls_the_gateway(generated, gateway_url):
    models = importlib.import_module(f"{PACKAGE}.models")
    apply_move = importlib.import_module(f"{PACKAGE}.api.game_rules.game_rules_apply_move")
    client = generated.Client(base_url=gateway_url, raise_on_unexpected_status=True)
    body = models.GamerulesV1GameRulesApplyMoveBody(
        position=models.PositionByNotation(notation=START), move=models.MoveByNotation(notation="d3")
    )
    answer = apply_move.sync_detailed(models.GameRulesApplyMoveGame.REVERSI, client=client, body=body)
    assert answer.status_code == 200
    step = answer.parsed
    assert isinstance(step, models.GamerulesV1ApplyMoveResponse)
    assert isinstance(step.position, models.PositionAsReversi)  # the answer's structured form is kept
    assert step.position.reversi.board[2] == "...B...." and step.to_move == 2
    assert [event.type_ for event in step.events] == [
        models.GamerulesV1EventType.PLACE,
        models.GamerulesV1EventType.FLIP,
    ]

    illegal = models.GamerulesV1GameRulesApplyMoveBody(
        position=models.PositionByNotation(notation=START), move=models.MoveByNotation(notation="a1")
    )
    refused = apply_move.sync_detailed(models.GameRulesApplyMoveGame.REVERSI, client=client, body=illegal)
    assert refused.status_code == 400
    assert isinstance(refused.parsed, models.GoogleRpcStatus) and refused.parsed.code == 9  # FAILED_PRECONDITION
