"""The release this service is, read once: ``pyproject.toml``'s ``version``.

Everything that shows the release reads ``VERSION`` from here: ListGames' ``serviceVersion``, the gRPC
server's initial metadata and the gateway's ``Gamerules-Version`` header (``RELEASE_HEADER``), the
``gamerules_build_info`` metric and the OpenAPI document's ``info.version``.

A checkout (``make run``, the container image, which copies ``pyproject.toml`` beside ``service/``) reads the
file beside the ``service`` package: the code that runs is that file's, even where an older build of the
package is installed too. An installed wheel has no such file and reads its own metadata.
"""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

DISTRIBUTION = "gamerules"
RELEASE_HEADER = "Gamerules-Version"
RELEASE_METADATA = "gamerules-version"  # the gRPC initial metadata key: lower case, as gRPC requires
UNKNOWN = "0+unknown"
_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def read_version(pyproject: Path = _PYPROJECT) -> str:
    """The checkout's ``pyproject.toml`` version when ``pyproject`` is the project's, else the installed
    distribution's, else ``UNKNOWN``."""
    try:
        with pyproject.open("rb") as file:
            project = tomllib.load(file).get("project", {})
        if project.get("name") == DISTRIBUTION and isinstance(project.get("version"), str):
            return str(project["version"])
    except (OSError, tomllib.TOMLDecodeError):
        pass
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return UNKNOWN


VERSION = read_version()
