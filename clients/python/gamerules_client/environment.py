"""The environment variables the client reads: the service's one family, ``GAMERULES_*`` (its README:
Configuration), on the client's side.

``GAMERULES_GRPC_TARGET`` is where the gRPC server is (``host:port``, default ``localhost:50051``): the default
target of ``GameRulesClient``, ``AsyncGameRulesClient`` and the ``gamerules`` command, as it is the gateway's.
``GAMERULES_GRPC_TARGET_CA`` is the PEM certificate authority to trust over TLS, ``GAMERULES_API_KEY`` the key
the command sends. The name of release 0.1.0 that this replaced, ``GAMERULES_TARGET``, still works for one
release with a ``FutureWarning`` naming its successor; the new name wins when both are set.
"""

from __future__ import annotations

import os
import warnings

DEFAULT_TARGET = "localhost:50051"
# Old name -> new name. Kept for one release (0.2.x), then removed.
RENAMED: dict[str, str] = {"GAMERULES_TARGET": "GAMERULES_GRPC_TARGET"}


def env(name: str, default: str = "") -> str:
    """The value of the variable ``name``, else of the old name it replaced (with a ``FutureWarning``), else
    ``default``. An empty value counts as unset."""
    value = os.environ.get(name)
    if value:
        return value
    for old, new in RENAMED.items():
        if new == name and os.environ.get(old):
            message = f"{old} is deprecated and will stop working in the next release: use {new}"
            warnings.warn(message, FutureWarning, stacklevel=2)
            return os.environ[old]
    return default


def default_target() -> str:
    """``GAMERULES_GRPC_TARGET``, else ``localhost:50051``."""
    return env("GAMERULES_GRPC_TARGET", DEFAULT_TARGET)
