"""gunicorn settings for the REST gateway: ``gunicorn -c python:service.api.gunicorn_conf
'service.api.gateway:create_app()'`` (flags given after ``-c`` still win).

The workers are separate processes, so their metrics go to one multi-process directory that the master sets
up before any worker imports prometheus-client (``$PROMETHEUS_MULTIPROC_DIR``, emptied, or a temporary one),
and ``/metrics`` in any worker answers for all of them. Logs are the gateway's own JSON lines
(``service/api/logs.py``), so gunicorn's access log is off.
"""

from __future__ import annotations

import os
from typing import Any

from service.api import logs, multiproc

bind = os.environ.get("GAMERULES_GATEWAY_BIND", "localhost:8080")
workers = int(os.environ.get("GAMERULES_GATEWAY_WORKERS") or os.cpu_count() or 1)
worker_class = "gthread"
threads = int(os.environ.get("GAMERULES_GATEWAY_THREADS") or 8)
graceful_timeout = int(float(os.environ.get("GAMERULES_GRACE_S") or 15))
accesslog = None

_metrics_dir, _owned = multiproc.prepare("gamerules-gateway-metrics-")
logs.configure()  # the root logger, which the workers inherit; gunicorn's own loggers keep their handlers


def child_exit(server: Any, worker: Any) -> None:
    from service.api import metrics

    metrics.mark_process_dead(worker.pid)


def on_exit(server: Any) -> None:
    if _owned:
        multiproc.remove(_metrics_dir)
