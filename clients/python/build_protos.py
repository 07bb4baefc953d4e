"""Generate the ``gamerules.v1`` protobuf and gRPC code from the protos: the one place that knows how.

Used at build time by ``setup.py`` here (the client's wheel), by the service's ``setup.py`` (its wheel) and by
the Makefile (``service/gen`` in a checkout). Generated code is never committed or edited: every copy comes
from the ``.proto`` files it is built with, by the protoc of the pinned ``grpcio-tools``, so a wheel cannot
carry code older than its contract. Run as a script: ``python build_protos.py OUT [--descriptor-set]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = Path("gamerules") / "v1"
DESCRIPTOR_SET = "gamerules.binpb"


def find_protos() -> Path:
    """The proto root: ``proto/`` beside this file in a source distribution, the repository's in a checkout."""
    for root in (HERE / "proto", HERE.parent.parent / "proto"):
        if (root / PACKAGE).is_dir():
            return root
    raise FileNotFoundError(f"no {PACKAGE}/*.proto beside {HERE} nor in the repository's proto/ folder")


def _include_root(package: str, depth: int) -> str:
    """The folder to pass as ``-I`` for the ``.proto`` files an installed package ships."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"{package} is needed to generate the gamerules.v1 code")
    return str(Path(next(iter(spec.submodule_search_locations))).parents[depth])


def generate(out: Path, *, descriptor_set: bool = False, protos: Path | None = None) -> list[Path]:
    """Write the ``gamerules/v1`` modules (``_pb2``, ``.pyi``, ``_pb2_grpc``) under ``out``, and with
    ``descriptor_set`` the descriptors with the proto comments (``gamerules.binpb``, read by the service's
    OpenAPI document). Returns the files written."""
    from grpc_tools import protoc

    root = protos or find_protos()
    sources = sorted(str(path.relative_to(root)) for path in (root / PACKAGE).glob("*.proto"))
    out.mkdir(parents=True, exist_ok=True)
    arguments = [
        "protoc",
        f"-I{root}",
        f"-I{_include_root('google.api', 1)}",  # google/api/*.proto, from googleapis-common-protos
        f"-I{Path(protoc.__file__).parent / '_proto'}",  # google/protobuf/*.proto, from grpcio-tools
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
    ]
    if descriptor_set:
        arguments += ["--include_imports", "--include_source_info", f"--descriptor_set_out={out / DESCRIPTOR_SET}"]
    if protoc.main([*arguments, *sources]) != 0:
        raise RuntimeError(f"protoc failed on {root / PACKAGE}")
    (out / PACKAGE / "py.typed").touch()  # the .pyi files are the types (PEP 561: in the namespace's package)
    written = sorted((out / PACKAGE).glob("*"))
    return written + ([out / DESCRIPTOR_SET] if descriptor_set else [])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder that gets gamerules/v1/")
    parser.add_argument("--descriptor-set", action="store_true", help=f"also write {DESCRIPTOR_SET}")
    args = parser.parse_args()
    generate(args.out, descriptor_set=args.descriptor_set)
    sys.exit(0)
