"""Every setting checked once at start-up (``service/api/settings.py``): each malformed or harmful value below,
given to the real entry point (the server, the gateway, ``make run``), ends it before anything starts with exit
2 and one line on stderr naming the variable (or flag), and no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.api import auth, settings

ENTRIES = {
    "server": ["-m", "service.api.rpc.server"],
    "gateway": ["-m", "service.api.rest.gateway_server"],
    "run": ["-m", "service.run"],
}
# (entry, variables, flags, the name the line must hold). "{empty}" and the like are files made below.
SERVER_VARIABLES = [
    ("GAMERULES_WORKERS", "none"),
    ("GAMERULES_WORKERS", "0"),
    ("GAMERULES_WORKERS", "2.5"),
    ("GAMERULES_WORKERS", "100000"),
    ("GAMERULES_THREADS", "-1"),
    ("GAMERULES_THREADS", "5"),  # not above the search slots and queue
    ("GAMERULES_MAX_REQUEST_BYTES", "0"),
    ("GAMERULES_MAX_REQUEST_BYTES", "1e9"),
    ("GAMERULES_MAX_CONCURRENT_RPCS", "0"),
    ("GAMERULES_MAX_THINK_MS", "0"),
    ("GAMERULES_MAX_THINK_MS", "-5"),
    ("GAMERULES_MAX_THINK_MS", "soon"),
    ("GAMERULES_SEARCH_SLOTS", "0"),
    ("GAMERULES_SEARCH_SLOTS", "many"),
    ("GAMERULES_SEARCH_QUEUE", "-1"),
    ("GAMERULES_MAX_QUEUE_WAIT_S", "NaN"),
    ("GAMERULES_MAX_QUEUE_WAIT_S", "-1"),
    ("GAMERULES_TRUSTED_PEERS", "gateway-pod"),
    ("GAMERULES_SEARCH_MODE", "fiber"),
    ("GAMERULES_SEARCH_CPUS", "nonsense"),
    ("GAMERULES_PAGE_TOKEN_KEY_FILE", "{missing}"),
    ("GAMERULES_PAGE_TOKEN_KEY_FILE", "{empty}"),
    ("GAMERULES_GIL_SWITCH_MS", "0"),
    ("GAMERULES_GRACE_S", "NaN"),
    ("GAMERULES_GRACE_S", "0"),
    ("GAMERULES_GRACE_S", "-1"),
    ("GAMERULES_GRACE_S", "inf"),
    ("GAMERULES_METRICS_PORT", "70000"),
    ("GAMERULES_METRICS_PORT", "-1"),
    ("GAMERULES_GRPC_PORT", "http"),
    ("GAMERULES_HOST", "bad host"),
    ("GAMERULES_METRICS_HOST", "bad host"),
    ("GAMERULES_TLS_CERT", "{missing}"),
    ("GAMERULES_TLS_CERT", "{pem}"),  # without its key
    ("GAMERULES_TLS_KEY", "{comments}"),  # no PEM
    ("GAMERULES_TLS_CLIENT_CA", "{pem}"),  # without the server's certificate
    ("GAMERULES_API_KEYS_FILE", "{missing}"),
    ("GAMERULES_API_KEYS_FILE", "{empty}"),
    ("GAMERULES_API_KEYS_FILE", "{comments}"),
    ("GAMERULES_API_KEYS_FILE", "{pem}"),
    ("GAMERULES_API_KEYS", ","),
    ("GAMERULES_LOG_LEVEL", "LOUD"),
    ("GAMERULES_LOG_FORMAT", "xml"),
    ("GAMERULES_METRICS_TOKEN_FILE", "{missing}"),
    ("GAMERULES_METRICS_TOKEN_FILE", "{empty}"),
    ("GAMERULES_METRICS_TLS_CERT", "{missing}"),
    ("PROMETHEUS_MULTIPROC_DIR", "{empty}"),  # a file, not a directory
    ("GAMERULES_EXTRA_GAMES", "no.such.module"),
    ("GAMERULES_EXTRA_GAMES", "service.api.settings"),  # a module, but no game's registration
    ("GAMERULES_EXTRA_GAMES", "service.games.kalah"),  # a game already served
]
GATEWAY_VARIABLES = [
    ("GAMERULES_GATEWAY_WORKERS", "0"),
    ("GAMERULES_GATEWAY_WORKERS", "none"),
    ("GAMERULES_GATEWAY_THREADS", "0"),
    ("GAMERULES_GATEWAY_WAITING_BEST_MOVES", "-1"),
    ("GAMERULES_GATEWAY_REFUSAL_HOLD_S", "NaN"),
    ("GAMERULES_GATEWAY_MAX_QUEUE_WAIT_S", "-1"),
    ("GAMERULES_GATEWAY_HEADER_TIMEOUT_S", "0"),
    ("GAMERULES_GATEWAY_BODY_TIMEOUT_S", "inf"),
    ("GAMERULES_GATEWAY_BODY_CHUNK_TIMEOUT_S", "-2"),
    ("GAMERULES_GATEWAY_MAX_BODIES", "0"),
    ("GAMERULES_GATEWAY_MAX_CONNECTIONS", "0"),
    ("GAMERULES_GATEWAY_CPUS", "4096"),
    ("GAMERULES_GATEWAY_TIMEOUT_S", "0"),
    ("GAMERULES_GATEWAY_MAX_BODY_BYTES", "0"),
    ("GAMERULES_GRPC_TARGET", "server"),
    ("GAMERULES_GRPC_TARGET_CONNECTIONS", "0"),
    ("GAMERULES_GRPC_TARGET_CA", "{missing}"),
    ("GAMERULES_GRPC_TARGET_CERT", "{pem}"),  # without its key
    ("GAMERULES_GATEWAY_TLS_CERT", "{missing}"),
    ("GAMERULES_GATEWAY_TLS_KEY", "{pem}"),  # without its certificate
    ("GAMERULES_CORS_ORIGINS", "portal.example"),
    ("GAMERULES_GATEWAY_TRUSTED_CLIENTS", "10.0.0.0/8,portal"),
    ("GAMERULES_HTTP_PORT", "70000"),
    ("GAMERULES_HTTP_PORT", "0"),
    ("GAMERULES_HOST", "bad host"),
    ("GAMERULES_API_KEYS_FILE", "{missing}"),
    ("GAMERULES_API_KEYS_FILE", "{empty}"),
    ("GAMERULES_API_KEYS_FILE", "{pem}"),
    ("GAMERULES_LOG_LEVEL", "LOUD"),
    ("GAMERULES_LOG_FORMAT", "xml"),
    ("GAMERULES_GRACE_S", "NaN"),
    ("GAMERULES_METRICS_TOKEN_FILE", "{missing}"),
    ("GAMERULES_EXTRA_GAMES", "no.such.module"),
]
RUN_VARIABLES = [
    ("GAMERULES_GRPC_PORT", "70000"),
    ("GAMERULES_HTTP_PORT", "none"),
    ("GAMERULES_METRICS_PORT", "70000"),
    ("GAMERULES_HOST", "bad host"),
    # The server's and the gateway's, checked by make run before it starts either.
    ("GAMERULES_WORKERS", "none"),
    ("GAMERULES_MAX_THINK_MS", "0"),
    ("GAMERULES_GATEWAY_TIMEOUT_S", "0"),
    ("GAMERULES_API_KEYS_FILE", "{comments}"),
    ("GAMERULES_LOG_LEVEL", "LOUD"),
    ("GAMERULES_GRACE_S", "NaN"),
    ("GAMERULES_EXTRA_GAMES", "no.such.module"),
]
FLAGS = [
    ("server", ["--workers", "none"]),
    ("server", ["--grace-s", "nan"]),
    ("server", ["--max-think-ms", "0"]),
    ("server", ["--max-request-bytes", "0"]),
    ("gateway", ["--workers", "0"]),
    ("gateway", ["--body-timeout-s", "0"]),
    ("gateway", ["--bind", "localhost"]),
    ("run", ["--gateway-workers", "0"]),
    ("run", ["--grpc-port", "0"]),
    ("run", ["--metrics-port", "70000"]),
]
PROBES = [
    *(("server", {variable: value}, [], variable) for variable, value in SERVER_VARIABLES),
    *(("gateway", {variable: value}, [], variable) for variable, value in GATEWAY_VARIABLES),
    *(("run", {variable: value}, [], variable) for variable, value in RUN_VARIABLES),
    *((entry, {}, flags, flags[0]) for entry, flags in FLAGS),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("settings")
    contents = {
        "empty": "",
        "comments": "# the keys\n\n# none yet\n",
        "pem": "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n",
    }
    paths = {name: folder / name for name in contents}
    for name, text in contents.items():
        paths[name].write_text(text)
    return {**{name: str(path) for name, path in paths.items()}, "missing": str(folder / "missing")}


def _environment(given: dict[str, str]) -> dict[str, str]:
    """This process's environment without any setting of ours, and ``given``."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GAMERULES_") and k != "PROMETHEUS_MULTIPROC_DIR"}
    return {**clean, "GAMERULES_NO_NATIVE": os.environ.get("GAMERULES_NO_NATIVE", ""), **given}


def test_the_probe_covers_server_gateway_and_make_run():
    assert len(PROBES) >= 66
    assert {entry for entry, *_ in PROBES} == set(ENTRIES)
    assert {entry for entry, *_ in PROBES[::QUICK_EVERY]} == set(ENTRIES)  # make test's share reaches each


# Each probe starts a real process (about 0.4 s): every fourth runs in make test, one of each entry among them,
# and the whole list under ``pytest -m slow``.
QUICK_EVERY = 4


@pytest.mark.parametrize(
    ("entry", "variables", "flags", "named"),
    [
        pytest.param(*probe, marks=() if index % QUICK_EVERY == 0 else pytest.mark.slow)
        for index, probe in enumerate(PROBES)
    ],
    ids=[
        f"{entry}:{' '.join(f'{k}={v}' for k, v in variables.items()) or ' '.join(flags)}"
        for entry, variables, flags, _ in PROBES
    ],
)
def test_a_malformed_setting_is_refused_in_one_line(entry, variables, flags, named, files):
    variables = {variable: value.format(**files) for variable, value in variables.items()}
    try:
        done = subprocess.run(
            [sys.executable, *ENTRIES[entry], *flags],
            env=_environment(variables),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{entry} started with {variables or flags}")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(lines) == 1, done.stderr
    assert named in lines[0] and "send" in lines[0], lines[0]


def test_an_api_key_file_must_hold_keys(files):
    for path in (files["empty"], files["comments"], files["pem"], files["missing"]):
        with pytest.raises(settings.SettingError, match=auth.ENV_KEYS_FILE):
            auth.load(path, {})
    keys = Path(files["empty"]).with_name("keys")
    keys.write_text("# a key\nk-1\n")
    assert auth.load(str(keys), {}).accepts("k-1")


@pytest.mark.parametrize(
    ("kind", "raw", "value"),
    [
        (settings.whole(1, 8), "8", 8),
        (settings.seconds(0, 10), "0.5", 0.5),
        (settings.seconds(0, 10, zero=True), "0", 0.0),
        (settings.port(0), "0", 0),
        (settings.choice("DEBUG", "INFO"), "info", "INFO"),
        (settings.origins, "https://a.example/, *", ("https://a.example", "*")),
        (settings.target, "dns:///server:50051", "dns:///server:50051"),
    ],
)
def test_a_good_value_is_read(kind, raw, value):
    assert kind(raw) == value


def test_every_probed_setting_is_in_the_operations_guide():
    guide = (Path(__file__).parents[2] / "docs" / "operations.md").read_text()
    variables = {variable for _, given, _, _ in PROBES for variable in given}
    assert not {variable for variable in variables if f"`{variable}`" not in guide}
