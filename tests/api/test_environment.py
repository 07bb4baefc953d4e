"""One configuration scheme (``service/api/environment.py``): the names of release 0.1.0 still work for one
release, each with a warning naming its successor; the new name wins when both are set. A real gateway started
with only the old names serves, says so in its logs and stops cleanly."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import urllib.request

import pytest

from service.api import environment
from service.api.rest import gateway_server
from tests.api.conftest import free_port, wait_http


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    monkeypatch.setattr(environment, "_warned", set())


def test_every_old_name_maps_to_a_name_of_the_family():
    assert environment.RENAMED == {
        "GAMERULES_BACKEND": "GAMERULES_GRPC_TARGET",
        "GAMERULES_BACKEND_CA": "GAMERULES_GRPC_TARGET_CA",
        "GAMERULES_BACKEND_CERT": "GAMERULES_GRPC_TARGET_CERT",
        "GAMERULES_BACKEND_KEY": "GAMERULES_GRPC_TARGET_KEY",
    }


@pytest.mark.parametrize(("old", "new"), sorted(environment.RENAMED.items()))
def test_an_old_name_works_with_a_warning_and_the_new_one_wins(old, new, caplog):
    env = environment.env
    with caplog.at_level(logging.WARNING, logger="gamerules.config"):
        assert env(new, "default", {}) == "default"
        assert env(new, "default", {new: "new"}) == "new"
        assert env(new, "default", {new: "new", old: "old"}) == "new"
        assert env(new, "default", {new: "", old: "old"}) == "old"  # empty counts as unset
        assert env(new, "default", {old: "old"}) == "old"
    assert caplog.messages == [f"{old} is deprecated and will stop working in the next release: use {new}"]


def test_the_gateway_listens_on_the_host_and_http_port_or_the_old_bind(caplog):
    bind = environment.gateway_bind
    with caplog.at_level(logging.WARNING, logger="gamerules.config"):
        assert bind({}) == "localhost:8080"
        assert bind({"GAMERULES_HOST": "0.0.0.0"}) == "0.0.0.0:8080"
        assert bind({"GAMERULES_HTTP_PORT": "9000"}) == "localhost:9000"
        assert bind({"GAMERULES_HTTP_PORT": "9000", "GAMERULES_GATEWAY_BIND": "0.0.0.0:1"}) == "localhost:9000"
        assert not caplog.messages
        # The image sets GAMERULES_HOST for both roles: an old bind still counts while no HTTP port is given.
        assert bind({"GAMERULES_HOST": "0.0.0.0", "GAMERULES_GATEWAY_BIND": "0.0.0.0:9100"}) == "0.0.0.0:9100"
    assert caplog.messages == [
        "GAMERULES_GATEWAY_BIND is deprecated and will stop working in the next release: "
        "use GAMERULES_HOST and GAMERULES_HTTP_PORT"
    ]


def test_the_gateways_old_flag_works_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="gamerules.config"):
        gateway_server.warn_old_flags(["--grpc-target", "a:1"])
        assert not caplog.messages
        assert gateway_server.parser().parse_args(["--backend", "b:2"]).grpc_target == "b:2"
        gateway_server.warn_old_flags(["--backend", "b:2"])
    assert caplog.messages == ["--backend is deprecated and will stop working in the next release: use --grpc-target"]


def test_a_gateway_configured_by_the_old_names_serves_logs_text_and_stops_cleanly(grpc_address):
    """Only the old names (no flags), text logs: the deprecations are logged, every request line has the same
    fields as a JSON line, and SIGTERM ends it with exit 0 and no alarming line."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMERULES_")}
    env.update(
        GAMERULES_BACKEND=grpc_address,
        GAMERULES_GATEWAY_BIND=f"127.0.0.1:{port}",
        GAMERULES_GATEWAY_WORKERS="1",
        GAMERULES_LOG_FORMAT="text",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "service.api.rest.gateway_server"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/games/reversi", timeout=10) as answer:
            assert json.load(answer)["id"] == "reversi"
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    lines = stderr.splitlines()
    warnings = [line for line in lines if " WARNING gamerules.config " in line]
    assert len(warnings) == 2 and all("is deprecated" in line for line in warnings), stderr
    assert any("GAMERULES_BACKEND is deprecated" in line and "GAMERULES_GRPC_TARGET" in line for line in warnings)
    (request,) = [line for line in lines if " gamerules.access request " in line and 'route="/v1/' in line]
    for key in ("pid=", "method=GET", 'route="/v1/{name=games/*}"', "game=reversi", "status=200"):
        assert key in request, request
    assert "duration_ms=" in request
    assert "Granian shutdown completed" in stderr
    for alarming in ("Killing", "refused to gracefully stop", "Traceback", "ERROR"):
        assert alarming not in stderr, stderr
