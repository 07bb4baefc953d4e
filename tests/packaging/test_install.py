"""Both packages install as a user installs them, into fresh virtual environments, offline: the client with
``pip install clients/python`` (its wheel generates the gamerules.v1 code from the protos) runs the README's
examples against a real server and type-checks; the service with ``pip install .`` has working entry points.

Every package comes from the wheelhouse ``make install`` fills from requirements.lock's pins (build requirements
included), with ``--no-index``: no registry is asked. Each install builds from a copy of the sources, so nothing
of the checkout (its ``service/gen``, its ``.pth``) is on the path and no build files land in it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.api.conftest import free_port, wait_http

ROOT = Path(__file__).resolve().parents[2]
WHEELHOUSE = ROOT / "build" / "wheelhouse"
# What a source tree of the repository holds besides its files: environments, built and cached things.
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "build", "gen", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "*.so"
)

pytestmark = pytest.mark.skipif(
    not (WHEELHOUSE / ".complete").exists(), reason="no wheelhouse: `make install` downloads it (build/wheelhouse)"
)


def _clean_environ(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: no virtual environment, no checkout on the path, no pip settings of
    this machine, no GAMERULES_* variables."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "PIP_", "GAMERULES_", "PROMETHEUS_MULTIPROC_DIR")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    return {**environ, "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **extra}


def _fresh_venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=120, env=_clean_environ())
    return where / "bin"


def _pip_install(bin_dir: Path, source: Path) -> None:
    command = [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--no-index", "--find-links"]
    done = subprocess.run(
        [*command, str(WHEELHOUSE), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        env=_clean_environ(),
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _run(bin_dir: Path, *argv: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / argv[0]), *argv[1:]],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=_clean_environ(**env),
        check=False,
    )


def readme_examples(section: str) -> list[str]:
    """The ```python blocks of the clients' page's section ``## <section>`` (``docs/clients.md``, which the
    README links for the client)."""
    text = (ROOT / "docs" / "clients.md").read_text()
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, flags=re.DOTALL)


def test_the_client_wheel_alone_runs_the_readme_examples(tmp_path, grpc_address):
    source = tmp_path / "src"
    shutil.copytree(ROOT / "proto", source / "proto", ignore=NOT_SOURCES)
    shutil.copytree(ROOT / "clients" / "python", source / "clients" / "python", ignore=NOT_SOURCES)
    bin_dir = _fresh_venv(tmp_path / "venv")
    _pip_install(bin_dir, source / "clients" / "python")
    work = tmp_path / "work"
    work.mkdir()

    where = _run(
        bin_dir, "python", "-c", "import gamerules_client, gamerules.v1; print(gamerules_client.__file__)", cwd=work
    )
    assert where.returncode == 0, where.stderr
    assert where.stdout.startswith(str(tmp_path / "venv")), where.stdout

    examples = readme_examples("The Python client")
    assert len(examples) >= 2 and any("AsyncGameRulesClient" in example for example in examples)
    for number, example in enumerate(examples):
        script = work / f"example_{number}.py"
        script.write_text(example)
        done = _run(bin_dir, "python", str(script), cwd=work, GAMERULES_GRPC_TARGET=grpc_address)
        assert done.returncode == 0 and not done.stderr, example + done.stdout + done.stderr
        assert "ILLEGAL_MOVE ['move']" in done.stdout, done.stdout

    # The wheel's types are complete for a user's type checker: py.typed, the generated .pyi files.
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--python-executable", str(bin_dir / "python"), "--no-incremental", "--strict"]
        + [str(path) for path in sorted(work.glob("example_*.py"))],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=work,
        env=_clean_environ(),
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # And its command, against the same server.
    games = _run(bin_dir, "gamerules", "games", cwd=work, GAMERULES_GRPC_TARGET=grpc_address)
    assert games.returncode == 0 and "reversi: Reversi" in games.stdout, games.stderr


def test_the_service_installs_with_pip_and_its_entry_points_run(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    bin_dir = _fresh_venv(tmp_path / "venv")
    _pip_install(bin_dir, source)
    work = tmp_path / "work"
    work.mkdir()

    for command, words in (
        ("gamerules-server", "--search-slots"),
        ("gamerules-gateway", "--grpc-target"),
        ("gamerules", "COMMAND"),
    ):
        done = _run(bin_dir, command, "--help", cwd=work)
        assert done.returncode == 0 and words in done.stdout and not done.stderr, done.stdout + done.stderr

    # What make install builds in a checkout is in the wheel: the descriptors with the proto comments (the
    # OpenAPI document's prose) and, with a C compiler, the native kernels.
    probe = (
        "from service.api.rest import openapi; import service.native as native; "
        "print(openapi.DESCRIPTOR_SET.exists(), all(native.library_path(n).exists() "
        "for n in ('gamerules_native',)), native.__file__)"
    )
    done = _run(bin_dir, "python", "-c", probe, cwd=work)
    assert done.returncode == 0, done.stderr
    descriptors, kernels, where = done.stdout.split()
    assert descriptors == "True" and where.startswith(str(tmp_path / "venv"))
    if shutil.which("cc"):
        assert kernels == "True"

    # The installed server serves: started by its entry point, asked by the installed command, stopped by SIGTERM.
    port = free_port()
    command = ["gamerules-server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1", "--metrics-port", "0"]
    server = subprocess.Popen(
        [str(bin_dir / command[0]), *command[1:], "--log-level", "WARNING"],
        cwd=work,
        env=_clean_environ(),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            moves = _run(bin_dir, "gamerules", "moves", "reversi", "start", "--target", f"127.0.0.1:{port}", cwd=work)
            if moves.returncode == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert moves.returncode == 0 and "4 legal moves for seat 1" in moves.stdout, moves.stderr
        _check_the_installed_gateway(bin_dir, work, f"127.0.0.1:{port}")
    finally:
        server.send_signal(signal.SIGTERM)
        _, stderr = server.communicate(timeout=60)
    assert server.returncode == 0 and "Traceback" not in stderr, stderr


def _check_the_installed_gateway(bin_dir: Path, work: Path, grpc_target: str) -> None:
    """The installed gateway answers over REST, its OpenAPI document has the proto comments (the wheel's
    descriptor set), it serves the playground (the wheel's data files), and it stops cleanly."""
    port = free_port()
    command = ["gamerules-gateway", "--bind", f"127.0.0.1:{port}", "--workers", "1"]
    gateway = subprocess.Popen(
        [str(bin_dir / command[0]), *command[1:]],
        cwd=work,
        env=_clean_environ(GAMERULES_GRPC_TARGET=grpc_target),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/readyz")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/games/kalah", timeout=10) as answer:
            assert json.load(answer)["id"] == "kalah"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json", timeout=10) as answer:
            document = json.load(answer)
        operations = [operation for path in document["paths"].values() for operation in path.values()]
        assert operations and any(operation.get("description") for operation in operations)
        # The package's data files: the playground's page and its scripts.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as answer:
            assert answer.status == 200 and "<html" in answer.read().decode().lower()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/playground/playground.js", timeout=10) as answer:
            assert answer.status == 200
    finally:
        gateway.send_signal(signal.SIGTERM)
        _, stderr = gateway.communicate(timeout=60)
    assert gateway.returncode == 0, stderr
    for alarming in ("Traceback", "Killing", "refused to gracefully stop"):
        assert alarming not in stderr, stderr
