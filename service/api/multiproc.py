"""Where several processes' metrics meet: prometheus-client's multi-process directory.

prometheus-client picks its storage when it is first imported, so the directory goes into the environment
(``PROMETHEUS_MULTIPROC_DIR``) before that, in the parent process: the server's (``service/api/rpc/server.py``)
and the gateway's (``service/api/rest/gateway_server.py``). This module therefore imports nothing of it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare(prefix: str) -> tuple[str, bool]:
    """Point prometheus-client at ``$PROMETHEUS_MULTIPROC_DIR`` (emptied of an earlier run's files) or, when it
    is unset, at a new temporary directory; (the directory, whether it was made here and is to be removed)."""
    if "prometheus_client" in sys.modules:
        raise RuntimeError("prometheus_client was imported before the multi-process directory was set")
    given = os.environ.get(ENV)
    path = given or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if name.endswith(".db"):
            os.remove(os.path.join(path, name))
    os.environ[ENV] = path
    return path, not given


def remove(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
