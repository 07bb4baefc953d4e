"""Builds the service's wheel (``pip install .``): the ``service`` packages, the client and its ``gamerules``
command (``clients/python``), and what ``make install`` builds in a checkout, built here the same way:

- the ``gamerules.v1`` code and the descriptor set with the proto comments (the OpenAPI document's prose),
  generated from ``proto/`` by ``clients/python/build_protos.py`` into the same layout as ``service/gen``;
- the native search engine (``service/native/search/*.c``, the core and every game's kernel, as one library)
  in ``service/gen/``, where ``service.native`` loads it; without a C compiler the wheel has none and the
  levels search in Python, as in a checkout.

The rest of the metadata is in ``pyproject.toml``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Distribution, find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
CLIENT = Path("clients") / "python"
sys.path.insert(0, str(HERE / CLIENT))
import build_protos  # noqa: E402  (beside the client's setup.py, not an installed module)

# The Makefile's flags: no fused multiply-add, so a kernel's doubles are its Python twin's on every machine.
KERNEL_FLAGS = ["-O2", "-ffp-contract=off", "-shared", "-fPIC"]


def _package_data() -> dict[str, list[str]]:
    """The service's data files (the OpenAPI examples, the playground's pages...) under the package they sit in:
    every file under ``service/`` that is neither Python nor a kernel's C source nor built (``service/gen``)."""
    data: dict[str, list[str]] = {}
    for path in sorted((HERE / "service").rglob("*")):
        parts = path.relative_to(HERE).parts
        if path.is_dir() or path.suffix in (".py", ".pyc", ".c") or parts[1] == "gen" or "__pycache__" in parts:
            continue
        package = path.parent
        while not (package / "__init__.py").exists():  # a folder of data (playground/) belongs to its package
            package = package.parent
        name = ".".join(package.relative_to(HERE).parts)
        data.setdefault(name, []).append(path.relative_to(package).as_posix())
    return data


def _compiler() -> str | None:
    """The C compiler Python was built with (``cc`` if it does not say), if this machine has it."""
    return shutil.which((sysconfig.get_config_var("CC") or "cc").split()[0])


ENGINE_LIBRARY = "gamerules_native"  # the native search engine: service/native/search/*.c in one library


def _kernels() -> list[tuple[str, list[Path]]]:
    """(library name, its sources): the search engine's sources together, as the Makefile builds them."""
    return [(ENGINE_LIBRARY, sorted((HERE / "service" / "native" / "search").glob("*.c")))]


def _compile_kernels(gen: Path) -> list[Path]:
    """Each library of ``_kernels`` as ``gen/<name>.so``; none without a C compiler (the engines then run in
    Python)."""
    compiler = _compiler()
    if compiler is None:
        print(f"no C compiler ({compiler}): the native kernels are left out, the engines search in Python")
        return []
    built = []
    gen.mkdir(parents=True, exist_ok=True)
    for name, sources in _kernels():
        target = gen / f"{name}.so"
        done = subprocess.run([compiler, *KERNEL_FLAGS, "-o", str(target), *map(str, sources), "-lm"], check=False)
        if done.returncode == 0:
            built.append(target)
        else:
            print(f"{name} did not compile: it runs in Python")
    return built


class BuildService(build_py):
    """``build_py``, then the generated code and the native kernels into the build tree. An editable install
    gets neither: a checkout has them in ``service/gen`` (``make install``)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        build_protos.generate(Path(self.build_lib), descriptor_set=True)
        _compile_kernels(Path(self.build_lib) / "service" / "gen")


class ServiceDistribution(Distribution):
    """With native kernels the wheel is platform-specific: tagged for this platform, not ``py3-none-any``."""

    def has_ext_modules(self) -> bool:
        return _compiler() is not None and bool(_kernels())


setup(
    distclass=ServiceDistribution,
    cmdclass={"build_py": BuildService},
    packages=[*find_packages(include=["service", "service.*"]), "gamerules_client"],
    package_dir={"gamerules_client": str(CLIENT / "gamerules_client")},
    package_data={"gamerules_client": ["py.typed"], **_package_data()},
)
