"""The layers of ``service/`` import one way (``service/core/__init__.py`` has the map), with no cycles and no
imports tucked inside functions to dodge one.

Read from the source with ``ast``, so a violation fails here before it can hide behind import order.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service"

# Each package's rank, and the packages it may import (itself included).
LAYERS = {
    "service.core": 0,
    "service.engines": 1,
    "service.search": 1,
    "service.native": 1,
    "service.levels": 2,
    "service.render": 2,
    "service.games": 3,
    "service.api": 4,
    "service.run": 4,
    "service.learn": 4,
}
MAY_IMPORT = {
    "service.core": {"service.core"},
    "service.engines": {"service.core", "service.engines"},
    "service.search": {"service.core", "service.search"},
    "service.native": {"service.core", "service.native"},
    "service.render": {"service.core", "service.render"},
    "service.levels": {"service.core", "service.engines", "service.search", "service.native", "service.levels"},
    # A game's registration names its parts from every layer below the transport.
    "service.games": {
        "service.core",
        "service.engines",
        "service.search",
        "service.native",
        "service.levels",
        "service.render",
        "service.games",
    },
    # Offline training drives everything below the transport (the registry's games), and nothing imports it.
    "service.learn": {
        "service.core",
        "service.engines",
        "service.search",
        "service.native",
        "service.levels",
        "service.games",
        "service.learn",
    },
}
# Third-party packages only the transport may use: the engines, the search and the levels know no gRPC,
# protobuf or HTTP.
TRANSPORT_ONLY = ("grpc", "grpc_status", "grpc_health", "grpc_reflection", "google", "gamerules", "granian")
# Imports inside functions that are not about layering, each with its reason: prometheus-client chooses its
# storage when first imported, so the metrics module may only be imported once the server has pointed
# PROMETHEUS_MULTIPROC_DIR at the directory its workers share, and a gateway worker builds its app after the fork.
LATE_IMPORTS = {
    ("service.api.rpc.server", "service.api.metrics"),
    ("service.api.rest.gateway_server", "service.api.rest.gateway_asgi"),  # imports the metrics: after their directory
    ("service.api.rest.gateway_server", "service.api.rest.gateway_path"),  # likewise
    ("service.api.rest.gateway_server", "service.api.rest.gateway_door"),  # likewise
    # The gateway loads engines only to learn the ids of games registered from outside the tree.
    ("service.api.rest.openapi", "service.games"),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(SERVICE.rglob("*.py")):
        if "gen" not in path.relative_to(SERVICE).parts[:1]:
            found[module_name(path)] = path
    return found


MODULES = modules()


def package(name: str) -> str | None:
    for prefix in LAYERS:
        if name == prefix or name.startswith(prefix + "."):
            return prefix
    return None


def layer(name: str) -> int | None:
    found = package(name)
    return None if found is None else LAYERS[found]


def name_of(path: Path) -> str:
    """The module ``path`` holds: its name in ``MODULES`` (a test's probe, kept out of the source tree, too)."""
    return next((name for name, found in MODULES.items() if found == path), None) or module_name(path)


def imports(path: Path) -> Iterator[tuple[str, ast.AST, bool]]:
    """(imported module, node, inside a function) for every import in the file; ``from package import
    submodule`` counts as an import of the submodule."""
    tree = ast.parse(path.read_text(), str(path))
    own = name_of(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    parents: dict[ast.AST, ast.AST] = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}

    def in_function(node: ast.AST) -> bool:
        while node in parents:
            node = parents[node]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                return True
        return False

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node, in_function(node)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            for alias in node.names:
                child = f"{base}.{alias.name}"
                yield (child if child in MODULES else base), node, in_function(node)


def project_imports(path: Path) -> Iterator[tuple[str, ast.AST, bool]]:
    for name, node, late in imports(path):
        if name == "service" or name.startswith("service."):
            yield name, node, late


def test_every_module_has_a_layer() -> None:
    assert [name for name in MODULES if name != "service" and layer(name) is None] == []


def test_layers_import_one_way() -> None:
    upward = []
    for name, path in MODULES.items():
        mine = package(name)
        for target, node, _ in project_imports(path):
            theirs = package(target)
            allowed = MAY_IMPORT.get(mine or "", set(LAYERS))
            if mine is not None and (theirs is None or theirs not in allowed):
                upward.append(f"{name}:{node.lineno} imports {target}")
    assert upward == []


def test_engines_import_no_other_engine() -> None:
    crossing = []
    for name, path in MODULES.items():
        if name.count(".") >= 2 and name.startswith("service.engines."):
            own = ".".join(name.split(".")[:3])
            for target, node, _ in project_imports(path):
                if target.startswith("service.engines.") and not target.startswith(own):
                    crossing.append(f"{name}:{node.lineno} imports {target}")
    assert crossing == []


def test_only_the_transport_uses_grpc_protobuf_and_http() -> None:
    found = []
    for name, path in MODULES.items():
        if (layer(name) or 0) < LAYERS["service.api"]:
            for target, node, _ in imports(path):
                if target.split(".")[0] in TRANSPORT_ONLY:
                    found.append(f"{name}:{node.lineno} imports {target}")
    assert found == []


def test_no_project_imports_inside_functions() -> None:
    late = []
    for name, path in MODULES.items():
        for target, node, inside in project_imports(path):
            if inside and (name, target) not in LATE_IMPORTS:
                late.append(f"{name}:{node.lineno} imports {target} inside a function")
    assert late == []


def test_no_import_cycles() -> None:
    # A module that imports itself (``gateway_server`` under ``python -m`` runs its importable copy) is no cycle.
    graph = {
        name: {t for t, _, inside in project_imports(path) if not inside and t in MODULES and t != name}
        for name, path in MODULES.items()
    }
    state: dict[str, int] = {}  # 1 on the path, 2 done
    cycles = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("from service.api import codec\n", "imports service.api.codec"),
        ("def f():\n    from service.search import search\n", "inside a function"),
    ],
)
def test_the_checks_catch_violations(
    tmp_path: Path, source: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks above can fail: an engine module importing the transport, and a function-local import."""
    # Outside the source tree: the tests that read it (these, the install tests) may run meanwhile in another
    # worker, and must not see the probe.
    bad = tmp_path / "_layer_check_probe.py"
    bad.write_text(source)
    monkeypatch.setitem(MODULES, "service.engines._layer_check_probe", bad)
    failures = []
    for check in (test_layers_import_one_way, test_no_project_imports_inside_functions):
        try:
            check()
        except AssertionError as error:
            failures.append(str(error))
    assert any(message in failure for failure in failures)


def test_the_gateway_loads_no_engine() -> None:
    """The REST gateway only forwards to the gRPC server: its process needs no rules engine, search or level."""
    code = (
        "import sys, service.api.rest.gateway_server, service.api.rest.gateway, service.api.rest.openapi; "
        "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('service.') and m.count('.') >= 1}))"
    )
    # Unless games from outside the tree are registered, whose ids and words only their registrations know.
    env = {name: value for name, value in os.environ.items() if name != "GAMERULES_EXTRA_GAMES"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    assert out.stdout.strip() == "['api', 'core']"
