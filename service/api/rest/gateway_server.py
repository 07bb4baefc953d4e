"""The REST gateway's process: ``python -m service.api.rest.gateway_server`` serves the gateway from N worker
processes under granian, an HTTP server written in Rust: in each, the front of ``gateway_asgi`` and the one
request path of ``gateway_path``, in the worker's event loop.

Why granian and not gunicorn: the gateway's job is one HTTP hop in front of one gRPC hop, so its own cost is
the point (``python -m bench --only load`` measures it against direct gRPC): gunicorn parses HTTP and hands
each request between threads in Python; granian parses it in Rust. Why its ASGI interface and not its WSGI
one: under WSGI a request held a thread while its client sent the body, with no timeout, and the interface
said nothing of a client that left; the front reads bodies in the event loop with a timeout per stage and
hears of every disconnect (``gateway_asgi``'s docstring). Everything is set through granian's public
options: the headers' and keep-alive's timeout, the connections per worker.

The main process sets up what the workers share before it forks them, as the gRPC server's parent does: the
metrics directory (prometheus-client picks its storage at import, ``service/api/multiproc.py``) and the JSON
logs, into which granian's own messages go too. It creates no gRPC object: each worker makes its own channels
in its event loop. SIGTERM or SIGINT stops taking connections, lets requests in flight finish within
``--grace-s`` and exits 0; a worker that dies is replaced.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import logging
import os
import select
import signal
import socket
import sys
import threading
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from service.api import cpus, environment, listeners, logs, multiproc, settings
from service.api.rest import gateway_pacing
from service.api.rest.gateway_config import _KINDS, GatewayConfig

if TYPE_CHECKING:
    from service.api.rest.gateway_asgi import Front

# The stages of a request the front does not time itself: granian's public options (``docs/operations.md``).
DEFAULT_HEADER_S = 10.0  # the request line and headers, and a keep-alive connection's wait for its next request
DEFAULT_MAX_CONNECTIONS = 2048  # connections a worker serves at once (granian's backpressure)


def parse_bind(bind: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:8080`` for IPv6) as (IP address, port): granian binds to an address, so a host
    name (``localhost``) is resolved here, to its first IPv4 address if it has one."""
    host, sep, port = bind.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected host:port, got {bind!r}")
    host = host.removeprefix("[").removesuffix("]")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        try:
            found = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
        except OSError as error:
            raise argparse.ArgumentTypeError(f"cannot resolve {host!r}: {error}") from None
        found.sort(key=lambda entry: entry[0] != socket.AF_INET)
        host = str(found[0][4][0])
    return host, int(port)


S = settings
WORKERS = S.whole(1, S.MAX_WORKERS)
HEADER_TIMEOUT_S = S.seconds(0, S.MAX_SECONDS)
MAX_CONNECTIONS = S.whole(1, 100_000)
# Read by granian's main process from the flags and handed to the workers in these variables: the door
# (``gateway_door``) bounds the connections granian does not.
HEADER_TIMEOUT_VARIABLE = "GAMERULES_GATEWAY_HEADER_TIMEOUT_S"
LISTEN_BACKLOG = 65_535
MAX_CONNECTIONS_VARIABLE = "GAMERULES_GATEWAY_MAX_CONNECTIONS"
GRACE_S = S.seconds(0, S.MAX_SECONDS)


def _cores(raw: str) -> str:
    usable = cpus.usable()
    if raw.strip().lower() != cpus.ALL and not cpus.parse(raw) & usable:  # parse: a ValueError saying what to send
        raise ValueError(f"send all, or a core list naming some of this process's cores ({cpus.text(usable)})")
    return raw


def _bind(raw: str) -> tuple[str, int]:
    try:
        return parse_bind(raw)
    except argparse.ArgumentTypeError as why:
        raise ValueError(f"send host:port ({why})") from None


def parser(config: GatewayConfig | None = None) -> argparse.ArgumentParser:
    """The flags, their defaults ``config``'s (None: the environment's, ``GatewayConfig.from_env``) or their
    variables' (checked here: a SettingError names one the gateway cannot use)."""
    config = config or GatewayConfig.from_env()
    add = (parser := S.Parser(prog="gamerules-gateway", description="Run the gamerules REST gateway.")).add_argument
    S.value("GAMERULES_HOST", S.host, environment.DEFAULT_HOST)
    S.value("GAMERULES_HTTP_PORT", S.port(1), environment.DEFAULT_HTTP_PORT)
    bind = environment.gateway_bind()
    try:
        default_bind = _bind(bind)
    except ValueError as why:  # the old GAMERULES_GATEWAY_BIND: the new variables were checked above
        raise S.SettingError(f"{environment.OLD_GATEWAY_BIND}={bind!r}: {why}") from None
    add("--bind", type=S.flag(_bind), default=default_bind, help="host:port to listen on")
    add(
        "--grpc-target",
        "--backend",  # its name in release 0.1.0
        dest="grpc_target",
        type=S.flag(S.target),
        default=config.grpc_target,
        help="the gRPC server, host:port",
    )
    workers = S.value("GAMERULES_GATEWAY_WORKERS", WORKERS, min(os.cpu_count() or 1, S.MAX_WORKERS))
    add("--workers", type=S.flag(WORKERS), default=workers, help=f"worker processes (at most {S.MAX_WORKERS})")
    add(
        "--threads",
        type=S.flag(_KINDS["threads"]),
        default=config.threads,
        help="ignored: every request is served in the worker's event loop (accepted so old settings start)",
    )
    add(
        "--waiting-best-moves",
        type=S.flag(_KINDS["waiting_best_moves"]),
        default=gateway_pacing.DEFAULT_SLOTS if config.waiting_best_moves is None else config.waiting_best_moves,
        help="refused best moves a worker holds at once before their 429 (--refusal-hold-s); more are answered "
        "at once; 0: none held",
    )
    add(
        "--max-queue-wait-s",
        type=S.flag(_KINDS["max_queue_wait_s"]),
        default=config.max_queue_wait_s,
        help="ignored: a best move is sent on to the server's fair queue at once (accepted so old settings start)",
    )
    add(
        "--refusal-hold-s",
        type=S.flag(_KINDS["refusal_hold_s"]),
        default=config.refusal_hold_s,
        help="how long a refused best move waits for its 429 (less near its deadline); 0: at once",
    )
    add(
        "--cpus",
        type=S.flag(_cores),
        default=S.value("GAMERULES_GATEWAY_CPUS", _cores, cpus.ALL),
        help="the cores the gateway runs on: all, or a list such as 0 or 0-1 (on the server's host: its rules "
        "cores, away from the searches)",
    )
    add(
        "--header-timeout-s",
        type=S.flag(HEADER_TIMEOUT_S),
        default=S.value(HEADER_TIMEOUT_VARIABLE, HEADER_TIMEOUT_S, DEFAULT_HEADER_S),
        help="a request's line and headers arrive within this, and a keep-alive connection's next request",
    )
    add(
        "--body-timeout-s",
        type=S.flag(_KINDS["body_s"]),
        default=config.body_s,
        help="a request's whole body arrives within this (else 408, the connection closed)",
    )
    add(
        "--body-chunk-timeout-s",
        type=S.flag(_KINDS["body_chunk_s"]),
        default=config.body_chunk_s,
        help="each chunk of a body arrives within this of the one before (else 408)",
    )
    add(
        "--max-bodies",
        type=S.flag(_KINDS["max_bodies"]),
        default=config.max_bodies,
        help="bodies a worker receives at once; one more is answered 503 with Retry-After",
    )
    add(
        "--max-connections",
        type=S.flag(MAX_CONNECTIONS),
        default=S.value(MAX_CONNECTIONS_VARIABLE, MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS),
        help="connections a worker serves at once; more wait to be accepted",
    )
    grace = S.value("GAMERULES_GRACE_S", GRACE_S, 15.0)
    add("--grace-s", type=S.flag(GRACE_S), default=grace, help="on SIGTERM, for requests")
    cert = S.value("GAMERULES_GATEWAY_TLS_CERT", S.pem_file, "")
    add("--tls-cert", type=S.flag(S.pem_file), default=cert, help="PEM certificate: serve HTTPS")
    key = S.value("GAMERULES_GATEWAY_TLS_KEY", S.pem_file, "")
    add("--tls-key", type=S.flag(S.pem_file), default=key, help="PEM key of --tls-cert")
    return parser


def check(argv: list[str]) -> tuple[argparse.Namespace, GatewayConfig]:
    """Every setting of the gateway read and checked once (its flags and variables): the flags and the config
    the workers get. A value it cannot use ends the process (exit 2) with one line naming it."""
    refusal = S.Parser(prog="gamerules-gateway")
    from_env = S.checked(refusal, GatewayConfig.from_env)
    S.checked(refusal, lambda: (S.log_settings(), S.metrics_access(), S.multiproc_dir()))
    flags = S.checked(refusal, lambda: parser(from_env))
    args = flags.parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        flags.error("GAMERULES_GATEWAY_TLS_CERT and GAMERULES_GATEWAY_TLS_KEY (--tls-cert, --tls-key): send both")
    config = dataclasses.replace(
        from_env,
        grpc_target=args.grpc_target,
        threads=args.threads,
        waiting_best_moves=args.waiting_best_moves,
        refusal_hold_s=args.refusal_hold_s,
        max_queue_wait_s=args.max_queue_wait_s,
        body_s=args.body_timeout_s,
        body_chunk_s=args.body_chunk_timeout_s,
        max_bodies=args.max_bodies,
    )
    return args, config


def worker_app() -> Front:
    """The ASGI app of one granian worker: the front (``gateway_asgi``), which reads each request's body and
    hears when a client leaves, before the one request path (``gateway_path``). (Imported here: the metrics
    library must not be imported before ``main`` has set up the workers' metrics directory.)"""
    from service.api.rest.gateway_asgi import Front
    from service.api.rest.gateway_door import Door, DoorConfig, per_address
    from service.api.rest.gateway_path import GatewayPath

    config = worker_config()
    header_s = S.value(HEADER_TIMEOUT_VARIABLE, HEADER_TIMEOUT_S, DEFAULT_HEADER_S)
    connections = S.value(MAX_CONNECTIONS_VARIABLE, MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS)
    door = Door(DoorConfig(first_byte_s=header_s, idle_s=header_s, per_address=per_address(connections)))
    door.start()
    return Front(GatewayPath(config), config.front(), door)


def worker_config() -> GatewayConfig:
    """The config ``main`` handed the workers in the environment (``GatewayConfig.to_env``)."""
    return GatewayConfig.from_env()


# How a stop signal reaches granian's main process, whatever thread the kernel hands it to (see
# ``_relay_stop_signals``). A worker's stop goes through its event loop (granian's ASGI workers set
# ``loop.add_signal_handler``), which the interpreter wakes from whichever thread caught the signal.
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _end_before_serving(number: int, frame: FrameType | None) -> None:
    """A forked worker's stop handler until granian installs its own: the worker serves nothing yet (granian
    accepts connections in it only once it listens), so it ends at once and granian's main process sees it
    stop. It used to keep the signal until granian listened, so a worker whose start outlasted the grace
    period (imports and set-up on a loaded host) was killed then: "Killing worker-1 after it refused to
    gracefully stop". Before that it ran the handler inherited from the main process, which only marks the
    main process's server object as stopping: the signal was lost and the worker served on until killed."""
    os._exit(0)  # nothing to flush or finish: no request, and every log line is written when it is logged


def ended(process: BaseProcess) -> bool:
    """Whether a ``multiprocessing`` process has ended: its sentinel is ready (public, and true once it exits,
    whichever thread collects its exit status)."""
    from multiprocessing.connection import wait

    return bool(wait([process.sentinel], timeout=0))


PATCHED_GRANIAN = "2.8.9"


def _see_workers_end() -> None:
    """Make granian's main process see a stopped worker as ended once it has exited.

    After a stop granian joins each worker and asks ``is_alive()``, while a watcher thread of its own joins the
    same process: both collect the exit status with ``waitpid``, the second gets "no such child", and
    ``multiprocessing`` then reports the process alive until the first thread has stored the status. When that
    took more than the 1 ms granian waits (a loaded host, workers ending together), it logged "Killing worker-2
    after it refused to gracefully stop" about a worker that had already exited, and killed nothing.

    The one patch of granian's internals left: applied to the version it was written against
    (``PATCHED_GRANIAN``, the one requirements.lock pins, as its test checks) and skipped, with a warning, on
    any other, which may have fixed the race or moved the class."""
    import granian
    from granian.server.mp import WorkerProcess

    if granian.__version__ != PATCHED_GRANIAN:
        logging.getLogger(__name__).warning(
            "granian %s is not %s: its workers' ending is not patched", granian.__version__, PATCHED_GRANIAN
        )
        return

    def is_alive(worker: WorkerProcess) -> bool:
        return not ended(worker.inner)

    # Declared on granian's base class, whose workers may lack ``inner``; set on the class whose workers have it.
    WorkerProcess.is_alive = is_alive  # type: ignore[method-assign,assignment]


def _relay_stop_signals() -> None:
    """Make sure granian's main process runs its handler for SIGTERM and SIGINT in its main thread.

    granian's main process waits for its stop signal in the main thread without a timeout, and Python runs
    signal handlers only in the main thread. The kernel hands a signal to any thread of the process, and there
    are several (granian's, the threads that watch the workers): when the signal lands on another thread, its
    handler waits until the main thread wakes, which is never. granian then killed the workers at the end of
    the grace period, in about one stop of `make run` in three. The interpreter writes every signal's number
    to its wakeup fd from whichever thread caught it, so a thread reading that fd sends the signal on to the
    main thread, once per signal. A forked worker ends at once on a stop that comes before granian listens
    in it (``_end_before_serving``): it serves nothing yet."""
    if threading.current_thread() is not threading.main_thread():
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)

    def forget_in_child() -> None:
        # A forked worker must not write its signals into this process's pipe (they would be relayed here);
        # it ends on a stop until granian listens in it, and then stops through its event loop.
        # In a process group of its own, a terminal's Ctrl-C (SIGINT to the whole foreground group) reaches
        # the main process alone, which stops the workers: a worker stopped by the same Ctrl-C before its main
        # process heard it was logged as an "Unexpected exit" ERROR and the gateway exited 1.
        os.setpgid(0, 0)
        signal.set_wakeup_fd(-1)
        os.close(read_end)
        os.close(write_end)
        for number in _STOP_SIGNALS:
            signal.signal(number, _end_before_serving)

    os.register_at_fork(after_in_child=forget_in_child)
    main_thread = threading.main_thread().ident
    assert main_thread is not None

    def relay() -> None:
        relayed: set[int] = set()

        def deliver(number: int) -> None:
            if number in _STOP_SIGNALS and number not in relayed:
                relayed.add(number)  # once: the relayed signal comes back through the fd
                signal.pthread_kill(main_thread, number)  # granian's handler there

        while True:
            select.select([read_end], [], [])
            data = os.read(read_end, 64)
            if not data:
                return
            for number in data:
                deliver(number)

    threading.Thread(target=relay, name="stop-signal-relay", daemon=True).start()


def warn_old_flags(argv: list[str]) -> None:
    """Log that a flag of release 0.1.0 is deprecated (it still works for one release)."""
    if any(arg == "--backend" or arg.startswith("--backend=") for arg in argv):
        environment.deprecated("--backend", "--grpc-target")


def main(argv: list[str] | None = None) -> int:
    try:
        level, log_format = S.log_settings()
    except S.SettingError as refused:
        print(f"gamerules-gateway: error: {refused}", file=sys.stderr)
        return 2
    logs.configure(level, log_format)  # before the rest: reading it may log that an old name is deprecated
    argv = sys.argv[1:] if argv is None else argv
    warn_old_flags(argv)
    try:
        args, config = check(argv)
    except SystemExit as refused:
        return int(refused.code or 0)
    for variable in config.ignored():
        logging.getLogger(__name__).warning(
            "%s (or its flag) is ignored: the gateway serves every request in its event loop; drop it", variable
        )
    if args.cpus.strip().lower() != cpus.ALL:
        cores = cpus.parse(args.cpus) & cpus.usable()
        try:
            cpus.pin_process(cores)  # before granian starts its threads and workers: they inherit it
        except OSError as error:  # a platform that refuses: the gateway runs on every core
            logging.getLogger(__name__).warning("cannot move the gateway to cores %s: %s", cpus.text(cores), error)
    host, port = args.bind
    if listeners.in_use(host, port):  # granian would bind beside it (SO_REUSEPORT) or fail in each worker
        print(listeners.taken(listeners.HTTP, host, port), file=sys.stderr)
        return 2
    os.environ.update(config.to_env())  # what each worker's ``worker_config`` reads back
    os.environ[HEADER_TIMEOUT_VARIABLE] = repr(args.header_timeout_s)  # and its door (``worker_app``)
    os.environ[MAX_CONNECTIONS_VARIABLE] = str(args.max_connections)
    metrics_dir, owned = multiproc.prepare("gamerules-gateway-metrics-")
    if log_format == "json":
        logs.capture_stderr()

    from granian import Granian
    from granian.constants import Interfaces, SSLProtocols
    from granian.http import HTTP1Settings
    from granian.log import LogLevels

    level = level.lower()
    server = Granian(
        "service.api.rest.gateway_server:worker_app",
        factory=True,
        # ASGI: the front (``gateway_asgi``) reads bodies in the worker's event loop, with timeouts, and hears
        # of disconnects; the request path (``gateway_path``) answers every route in the same loop.
        interface=Interfaces.ASGI,
        address=host,
        port=port,
        workers=args.workers,
        # Connections beyond the bound wait in the listen backlog. (A bound as low as the old request threads
        # left whole keep-alive connections unaccepted: the load benchmark's p99 rose to seconds with many
        # clients.)
        backpressure=args.max_connections,
        # A listen queue as long as the kernel allows (net.core.somaxconn caps it): a flood of connections fills
        # a short one, and a client's connection beyond it is dropped and retried a second later; the door
        # (``gateway_door``) closes the flood's silent ones once accepted.
        backlog=LISTEN_BACKLOG,
        http1_settings=HTTP1Settings(header_read_timeout=max(1, round(args.header_timeout_s * 1000))),
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
    _relay_stop_signals()
    _see_workers_end()
    try:
        server.serve()
    finally:
        if owned:
            multiproc.remove(metrics_dir)
    return 0


if __name__ == "__main__":
    # Run the module's own copy: under ``python -m`` this file is also ``__main__``, a second module object,
    # and the workers import ``service.api.rest.gateway_server``: one copy of its state.
    from service.api.rest import gateway_server

    sys.exit(gateway_server.main())
