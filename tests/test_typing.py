"""``Any`` in the signatures of ``service/`` only where nothing better can be said (``docs/development.md``,
"Tests"): the C boundary (``service/native/``) and "a position of whichever game", ``Position[Any]``, which
the registry returns for a game known only at run time (``Position`` is invariant in its move type, and Python
has no existential type). The ASGI dicts go through one named alias (``gateway_asgi.ASGIMessage``), which this
check does not see. ``mypy --strict service`` (``make lint``) checks the rest.

Read from the source with ``ast``, as the layer checks are.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service"
BOUNDARY = SERVICE / "native"
# ``Position[Any]`` (``core.Position[Any]`` too): the one spelling of Any allowed outside the C boundary.
EXISTENTIAL = re.compile(r"\b(?:\w+\.)?Position\[Any\]")


def _annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, ast.expr]]:
    arguments = node.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    for argument in every:
        if argument is not None and argument.annotation is not None:
            yield argument.arg, argument.annotation
    if node.returns is not None:
        yield "return", node.returns


def untyped(source: str, where: str) -> list[str]:
    """The signatures in ``source`` that say ``Any`` other than as ``Position[Any]``: ``where:line name: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for name, annotation in _annotations(node):
            text = ast.unparse(annotation)
            if re.search(r"\bAny\b", EXISTENTIAL.sub("", text)):
                found.append(f"{where}:{node.lineno} {node.name}: {name}: {text}")
    return found


def test_any_only_at_the_boundaries() -> None:
    found = []
    for path in sorted(SERVICE.rglob("*.py")):
        if path.name.endswith(("_pb2.py", "_pb2_grpc.py")) or BOUNDARY in path.parents:
            continue
        found += untyped(path.read_text(), str(path.relative_to(ROOT)))
    assert not found, "Any in a signature: give the real type (object for a value not yet checked)\n" + "\n".join(found)


def test_the_check_catches_any() -> None:
    """The check above can fail, and lets the existential position through."""
    source = (
        "def a(x: Any) -> None: ...\n"
        "def b() -> dict[str, Any]: ...\n"
        "async def c(*rest: Any) -> None: ...\n"
        "def d() -> Position[Any]: ...\n"
        "def e(p: core.Position[Any]) -> list[Position[Any]]: ...\n"
        "def f(anything: AnyStr) -> None: ...\n"
    )
    assert [line.split(" ", 1)[1] for line in untyped(source, "probe")] == [
        "a: x: Any",
        "b: return: dict[str, Any]",
        "c: rest: Any",
    ]
