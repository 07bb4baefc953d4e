"""The REST gateway's process: ``python -m service.api.gateway_server`` serves ``gateway.create_app()`` from
N worker processes under granian, a WSGI server whose HTTP side is written in Rust.

Why granian and not gunicorn: the gateway's job is one HTTP hop in front of one gRPC hop, so its own cost is
the point. In the load benchmark (``python -m bench --only load``, one client at a time) the gateway added
2.3-3.0 ms at p50 over direct gRPC under gunicorn's threaded workers and 1.3-1.7 ms under granian (with
the JSON of ``protojson``): gunicorn parses HTTP and hands each request between threads in Python; granian
does both in Rust and calls the app once per request.

The main process sets up what the workers share before it forks them, as the gRPC server's parent does: the
metrics directory (prometheus-client picks its storage at import, ``service/api/multiproc.py``) and the JSON
logs, into which granian's own messages go too. It creates no gRPC object: each worker makes its own channel
when it builds the app. SIGTERM or SIGINT stops taking connections, lets requests in flight finish within
``--grace-s`` and exits 0; a worker that dies is replaced.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from service.api import logs, multiproc

DEFAULT_BIND = "localhost:8080"
# Each request holds a thread while it waits on its gRPC call, with the GIL released; granian's own advice
# (it warns above this) is at most two per core and one more.
DEFAULT_THREADS = 2 * (os.cpu_count() or 1) + 1


def _env(name: str, default: str) -> str:
    return os.environ.get(name) or default


def parse_bind(bind: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:8080`` for IPv6) as (host, port)."""
    host, sep, port = bind.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected host:port, got {bind!r}")
    return host.removeprefix("[").removesuffix("]"), int(port)


def parser() -> argparse.ArgumentParser:
    add = (parser := argparse.ArgumentParser(description="Run the gamerules REST gateway.")).add_argument
    add("--bind", type=parse_bind, default=_env("GAMERULES_GATEWAY_BIND", DEFAULT_BIND), help="host:port to listen on")
    add("--backend", default=_env("GAMERULES_BACKEND", "localhost:50051"), help="the gRPC server, host:port")
    add("--workers", type=int, default=int(_env("GAMERULES_GATEWAY_WORKERS", str(os.cpu_count() or 1))))
    add(
        "--threads",
        type=int,
        default=int(_env("GAMERULES_GATEWAY_THREADS", str(DEFAULT_THREADS))),
        help="requests one worker handles at once (each waits on its gRPC call); more wait in line",
    )
    add("--grace-s", type=float, default=float(_env("GAMERULES_GRACE_S", "15")), help="on SIGTERM, for requests")
    add("--tls-cert", default=os.environ.get("GAMERULES_GATEWAY_TLS_CERT"), help="PEM certificate: serve HTTPS")
    add("--tls-key", default=os.environ.get("GAMERULES_GATEWAY_TLS_KEY"), help="PEM key of --tls-cert")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        print("--tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    host, port = args.bind
    os.environ["GAMERULES_BACKEND"] = args.backend  # read by create_app in each worker
    metrics_dir, owned = multiproc.prepare("gamerules-gateway-metrics-")
    logs.configure()

    from granian import Granian
    from granian.constants import Interfaces, SSLProtocols
    from granian.log import LogLevels

    level = _env("GAMERULES_LOG_LEVEL", "INFO").lower()
    threads = max(1, args.threads)
    server = Granian(
        "service.api.gateway:create_app",
        factory=True,
        interface=Interfaces.WSGI,
        address=host,
        port=port,
        workers=max(1, args.workers),
        # The Python threads per worker; connections beyond them are still accepted and their requests wait
        # for a thread. (A backpressure as low as the threads would leave whole keep-alive connections
        # unaccepted: the load benchmark then saw p99 of 3 s at 32 and 128 clients, SYN retries.)
        blocking_threads=threads,
        websockets=False,
        respawn_failed_workers=True,
        workers_kill_timeout=max(1, round(args.grace_s)),
        log_level=LogLevels(level if level in {"debug", "info", "warning", "error"} else "info"),
        # granian's messages go to the root logger, whose handler writes our JSON lines (logs.configure).
        log_dictconfig={"loggers": {"_granian": {"handlers": [], "propagate": True}}},
        ssl_cert=Path(args.tls_cert) if args.tls_cert else None,
        ssl_key=Path(args.tls_key) if args.tls_key else None,
        ssl_protocol_min=SSLProtocols.tls12,
    )
    try:
        server.serve()
    finally:
        if owned:
            multiproc.remove(metrics_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
