"""The container image, checked without a Docker engine: the Dockerfile's stages, user, health check and
copies; the files it copies exist and the ignore file lets them through; the runtime dependencies it derives
are pinned; and its entry point really starts the server and the gateway (run here on loopback ports), which
its health check then finds healthy."""

from __future__ import annotations

import fnmatch
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from service import native
from service.native import engine
from tests.api.conftest import free_port, wait_http

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


INSTRUCTIONS = _instructions()


def _stages() -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = []
    for instruction in INSTRUCTIONS:
        if instruction[0] == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(instruction)
    return stages


def test_a_multi_stage_build_with_a_non_root_final_stage():
    stages = _stages()
    assert len(stages) >= 2
    assert stages[0][0][1].endswith(" AS builder")
    final = dict(stages[-1])
    user = final["USER"].split(":")[0]
    assert user not in ("root", "0") and int(user) >= 1000
    assert final["HEALTHCHECK"].startswith("--interval") and "CMD" in final["HEALTHCHECK"]
    assert "ENTRYPOINT" in final and "EXPOSE" in final
    # The final stage installs nothing: it copies the builder's venv and generated code.
    assert not any(word == "RUN" and "pip" in args for word, args in stages[-1])


def test_the_build_generates_the_protobuf_code_like_the_makefile():
    """One generator (``clients/python/build_protos.py``, also the wheels'), called the same way by both."""
    run = " ".join(args for word, args in _stages()[0] if word == "RUN")
    makefile = (ROOT / "Makefile").read_text()
    assert "clients/python/build_protos.py service/gen --descriptor-set" in run
    assert "clients/python/build_protos.py $(GEN_DIR) --descriptor-set" in makefile


def test_the_build_compiles_the_native_engine_like_the_makefile():
    """The native search engine (``service/native/search/*.c``, every kernel with the core in one library): the
    same sources, flags and target as the Makefile's rule, so the image searches as fast as a checkout does
    (``service.native`` loads ``service/gen/gamerules_native.so``)."""
    run = " ".join(args for word, args in _stages()[0] if word == "RUN")
    makefile = (ROOT / "Makefile").read_text()
    assert "ENGINE_SOURCES := $(wildcard service/native/search/*.c)" in makefile
    assert "$(CC) -O2 -ffp-contract=off -shared -fPIC -o $@ $(ENGINE_SOURCES) -lm" in makefile
    assert (
        "cc -O2 -ffp-contract=off -shared -fPIC -o service/gen/gamerules_native.so service/native/search/*.c -lm" in run
    )
    assert "gcc" in run  # the compiler is installed in the builder stage, and only there
    assert not any("gcc" in args for word, args in _stages()[-1] if word == "RUN")
    assert native.library_path(engine.LIBRARY).relative_to(ROOT).as_posix() == "service/gen/gamerules_native.so"


def test_the_runtime_dependencies_are_pyprojects_pinned_by_the_lock():
    run = " ".join(args for word, args in INSTRUCTIONS if word == "RUN")
    assert "tomllib" in run and "-c requirements.lock" in run
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pinned = {
        re.sub(r"[-_.]+", "-", line.split("==")[0]).lower()
        for line in (ROOT / "requirements.lock").read_text().splitlines()
        if "==" in line
    }
    for requirement in [*dependencies, "grpcio-tools", "googleapis-common-protos"]:
        name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
        assert re.sub(r"[-_.]+", "-", name).lower() in pinned, name


def _ignored(path: str) -> bool:
    """Whether Dockerfile.dockerignore (last matching pattern wins) leaves ``path`` out of the context."""
    ignored = False
    for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate, pattern = line.startswith("!"), line.lstrip("!").rstrip("/")
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if pattern == "**" or any(fnmatch.fnmatch(p, pattern) for p in prefixes):
            ignored = not negate
    return ignored


def test_every_copied_file_exists_and_is_in_the_build_context():
    copies = [shlex.split(args) for word, args in INSTRUCTIONS if word == "COPY"]
    sources = [src for argv in copies if not argv[0].startswith("--from") for src in argv[:-1]]
    assert sources
    for source in sources:
        path = ROOT / source
        assert path.exists(), source
        files = [path] if path.is_file() else [p for p in path.rglob("*.py") if "__pycache__" not in p.parts][:50]
        for file in files:
            relative = file.relative_to(ROOT).as_posix()
            if not relative.startswith("service/gen/"):
                assert not _ignored(relative), relative
    assert _ignored("service/gen/gamerules/v1/gamerules_pb2.py") and _ignored("tests/api/conftest.py")
    assert not _ignored("service/api/rpc/server.py")


def test_the_entry_point_names_modules_that_exist():
    script = (DEPLOY / "entrypoint.sh").read_text()
    modules = re.findall(r"python -m ([\w.]+)", script)
    assert modules == ["service.api.rpc.server", "service.api.rest.gateway_server"], modules
    for module in modules:
        assert importlib.util.find_spec(module) is not None, module
    from service.api.rest import gateway_server
    from service.api.rpc import server

    assert callable(gateway_server.main) and callable(server.main)
    final = dict(_stages()[-1])
    assert "/app/healthcheck.py" in final["HEALTHCHECK"] and "/app/entrypoint.sh" in final["ENTRYPOINT"]
    copied = [shlex.split(args)[-1] for word, args in _stages()[-1] if word == "COPY"]
    assert "/app/" in copied  # where entrypoint.sh and healthcheck.py land


# --- the entry point, run for real ---------------------------------------------------------------------------


def _env(**extra: str) -> dict[str, str]:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path, "GAMERULES_HOST": "127.0.0.1", "GAMERULES_LOG_LEVEL": "WARNING", **extra}


def _healthcheck(env: dict[str, str]) -> int:
    done = subprocess.run(
        [sys.executable, str(DEPLOY / "healthcheck.py")],
        env=env,
        cwd=ROOT,
        capture_output=True,
        timeout=30,
        check=False,
    )
    return done.returncode


@pytest.fixture(scope="module")
def roles() -> Iterator[dict[str, str]]:
    """The server and the gateway, each started by the image's entry point on loopback ports."""
    grpc_port, metrics_port, http_port = free_port(), free_port(), free_port()
    env = _env(
        GAMERULES_GRPC_PORT=str(grpc_port),
        GAMERULES_METRICS_PORT=str(metrics_port),
        GAMERULES_WORKERS="1",
        GAMERULES_HTTP_PORT=str(http_port),
        GAMERULES_GATEWAY_WORKERS="1",
        GAMERULES_GRPC_TARGET=f"127.0.0.1:{grpc_port}",
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    processes = [
        subprocess.Popen(["/bin/sh", str(DEPLOY / "entrypoint.sh"), role], env=env, cwd=ROOT)
        for role in ("server", "gateway")
    ]
    try:
        wait_http(f"http://127.0.0.1:{metrics_port}/metrics")
        wait_http(f"http://127.0.0.1:{http_port}/readyz")
        yield {"grpc": str(grpc_port), "http": str(http_port), "metrics": str(metrics_port)}
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


def test_the_entry_point_runs_both_roles_and_the_health_check_sees_them(roles):
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{roles['http']}/v1/games/reversi", timeout=10) as answer:
        assert answer.status == 200
    with urllib.request.urlopen(f"http://127.0.0.1:{roles['metrics']}/metrics", timeout=10) as answer:
        assert b"grpc_server_handled_total" in answer.read()
    unused = str(free_port())
    # The server's container: gRPC health answers SERVING.
    assert _healthcheck(_env(GAMERULES_GRPC_PORT=roles["grpc"])) == 0
    # The gateway's container: no gRPC server there, so /healthz.
    assert _healthcheck(_env(GAMERULES_GRPC_PORT=unused, GAMERULES_HTTP_PORT=roles["http"])) == 0
    # The same with release 0.1.0's variable, still read for one release.
    assert _healthcheck(_env(GAMERULES_GRPC_PORT=unused, GAMERULES_GATEWAY_BIND=f"0.0.0.0:{roles['http']}")) == 0
    # Nothing running: unhealthy.
    assert _healthcheck(_env(GAMERULES_GRPC_PORT=unused, GAMERULES_HTTP_PORT=str(free_port()))) == 1


def test_the_entry_point_runs_any_other_command():
    done = subprocess.run(
        ["/bin/sh", str(DEPLOY / "entrypoint.sh"), "python", "-c", "print('hello')"],
        env=_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == "hello\n"


def test_the_build_compiles_the_native_search_engine_like_the_makefile():
    """The native search engine (``service/native/search/*.c``): one library from all its sources, with the
    kernels' flags, in the image as in a checkout (``service.native.engine`` loads
    ``service/gen/gamerules_native.so``)."""
    run = " ".join(args for word, args in _stages()[0] if word == "RUN")
    makefile = (ROOT / "Makefile").read_text()
    assert "ENGINE := $(GEN_DIR)/gamerules_native.so" in makefile
    assert "ENGINE_SOURCES := $(wildcard service/native/search/*.c)" in makefile
    assert "$(CC) -O2 -ffp-contract=off -shared -fPIC -o $@ $(ENGINE_SOURCES) -lm" in makefile
    engine_build = "cc -O2 -ffp-contract=off -shared -fPIC -o service/gen/gamerules_native.so service/native/search/*.c"
    assert engine_build + " -lm" in run
    assert native.library_path(engine.LIBRARY).relative_to(ROOT).as_posix() == "service/gen/gamerules_native.so"
