"""Builds the client with its ``gamerules.v1`` code, generated from the protos at build time (``build_protos.py``).

The rest of the metadata is in ``pyproject.toml``. An editable install (the checkout's ``make install``) gets no
copy: there the Makefile's ``service/gen`` is on the path, generated from the same protos.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_protos  # beside this file, not an installed module


class BuildWithProtos(build_py):
    """``build_py``, and the generated ``gamerules/v1`` modules beside the client's package."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            build_protos.generate(Path(self.build_lib))


class SdistWithProtos(sdist):
    """A source distribution carries the protos it builds from (in a checkout they are two folders up)."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        source = build_protos.find_protos()
        shutil.copytree(source / build_protos.PACKAGE, Path(base_dir) / "proto" / build_protos.PACKAGE)


setup(cmdclass={"build_py": BuildWithProtos, "sdist": SdistWithProtos})
