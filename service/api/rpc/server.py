"""The gRPC server: GameRules, health, reflection, limits, metrics, call logs, TLS, API keys, graceful shutdown.

``create_server`` builds a started server on an address and returns it with its port (tests bind port 0 and
run it in process); ``serve`` is the command line: ``python -m service.api.rpc.server --port 50051 --workers 2``.

Python runs one thread of CPU work at a time, so ``serve`` runs several worker processes on one port
(``SO_REUSEPORT``), forked before any gRPC object exists, as in gRPC's own multiprocessing example. The
parent process creates no gRPC object at all: it holds the port, exposes the workers' summed metrics on the
metrics port, replaces a worker that dies, and passes SIGTERM on. On SIGTERM each worker marks itself
NOT_SERVING, stops taking calls, lets in-flight calls finish within the grace period and exits 0; then the
parent exits 0.

Each worker runs at most ``--search-slots`` best-move searches at once (``service/api/rpc/searches.py``: in search
processes at a lower scheduling priority and, by default, on cores of their own, ``cpus.py``, so the rules
calls come first) and lets up to ``--search-queue`` more calls wait for a slot, each until its own deadline;
past that BestMove is RESOURCE_EXHAUSTED at once, and the request threads left over (``--threads`` must leave
some) keep serving the cheap calls.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import os
import secrets
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass, field, replace

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.api import auth, callers, cpus, environment, listeners, logs, multiproc, settings
from service.api.calls import ObservingInterceptor
from service.api.rpc import searches
from service.api.rpc.servicer import GameRulesServicer, ServiceConfig
from service.games import LEVELS

_log = logging.getLogger(__name__)
# Each game's level names: the label values of the best-move metrics.
LEVEL_NAMES = {game_id: [level.name for level in levels.levels] for game_id, levels in LEVELS.items()}

SERVICE = pb.DESCRIPTOR.services_by_name["GameRules"]
SERVICE_NAME = SERVICE.full_name
_EXIT_CANNOT_START = 3  # a worker that cannot listen: the parent gives up rather than re-forking forever
_EXIT_PORT_TAKEN = 2  # a port in use before anything started: the message names the variable to set
_RESPAWN_PAUSE_S = 1.0
_STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}


@contextlib.contextmanager
def signals_to_this_thread() -> Iterator[None]:
    """Start threads in here: they keep SIGTERM and SIGINT blocked, so the kernel hands a stop signal to this
    (the main) thread, which alone runs Python's handlers. A signal a thread of gRPC's took used to leave the
    handler waiting for the main thread to wake, which it never did while it waited on a lock: about one
    Ctrl-C of ``make run`` in three left a worker serving."""
    signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)


@dataclass(frozen=True)
class TlsConfig:
    """Files of the server's certificate chain and key; with ``client_ca``, clients must present a
    certificate it signed (mutual TLS)."""

    cert: str
    key: str
    client_ca: str | None = None

    def credentials(self) -> grpc.ServerCredentials:
        def read(path: str) -> bytes:
            with open(path, "rb") as file:
                return file.read()

        ca = read(self.client_ca) if self.client_ca else None
        return grpc.ssl_server_credentials(
            [(read(self.key), read(self.cert))], root_certificates=ca, require_client_auth=ca is not None
        )


@dataclass(frozen=True)
class ServerConfig:
    """How the server serves (flags and environment variables in ``parse_args``)."""

    host: str = "localhost"
    port: int = 50051
    workers: int = 1  # processes on the port
    threads: int = 16  # request threads per process
    max_request_bytes: int = 1 << 20
    max_concurrent_rpcs: int = 1000  # per process; past it gRPC answers RESOURCE_EXHAUSTED at once
    grace_s: float = 15.0  # how long in-flight calls may run on after SIGTERM
    metrics_port: int = environment.DEFAULT_METRICS_PORT  # 0: no metrics port
    # Loopback unless told otherwise: the metrics say much about the load (docs/operations.md: how Prometheus
    # reaches them in Kubernetes, with a token and TLS).
    metrics_host: str = "127.0.0.1"
    tls: TlsConfig | None = None
    api_keys: auth.ApiKeys = field(default_factory=auth.ApiKeys)
    gil_switch_ms: float = 1.0  # sys.setswitchinterval in the workers
    log_level: str = "INFO"
    log_format: str = "json"
    service: ServiceConfig = field(default_factory=ServiceConfig)
    # The cores the workers (the rules calls) run on, the searches on ``service.search_cores`` (``cpus.py``);
    # None: every core the server may use.
    rules_cores: frozenset[int] | None = None


@dataclass
class Running:
    """A started server and what shuts it down cleanly."""

    server: grpc.Server
    port: int
    health: health.HealthServicer
    servicer: pb_grpc.GameRulesServicer

    def shutdown(self, grace_s: float) -> None:
        """NOT_SERVING first (load balancers stop sending), then stop and let in-flight calls finish."""
        self.health.enter_graceful_shutdown()
        self.server.stop(grace_s).wait()
        close = getattr(self.servicer, "close", None)
        if close is not None:
            close()


def create_server(
    config: ServerConfig,
    address: str | None = None,
    reuse_port: bool = False,
    servicer: pb_grpc.GameRulesServicer | None = None,
) -> Running:
    """A started server on ``address`` (default ``host:port`` of the config; port 0 picks a free one).
    ``servicer`` replaces GameRules' (the benchmark's empty-handler baseline uses that)."""
    # Imported here, not at the top: prometheus-client picks its storage when first imported, and ``serve``
    # must first point it at the directory the workers share.
    from service.api import metrics

    interceptors: list[grpc.ServerInterceptor] = [
        ObservingInterceptor([metrics.GrpcMetrics([SERVICE]), logs.CallLog()], [SERVICE, _HEALTH_SERVICE])
    ]
    if config.api_keys:
        interceptors.append(auth.ApiKeyInterceptor(config.api_keys))
    options = [
        ("grpc.max_receive_message_length", config.max_request_bytes),
        ("grpc.so_reuseport", 1 if reuse_port else 0),
    ]
    server = grpc.server(
        # The request threads, and the threads refusals are held on (``ServiceConfig.held_refusals``).
        futures.ThreadPoolExecutor(max_workers=config.threads + config.service.held_refusals, thread_name_prefix="rpc"),
        interceptors=interceptors,
        options=options,
        maximum_concurrent_rpcs=config.max_concurrent_rpcs,
    )
    if servicer is None:
        servicer = GameRulesServicer(
            config=config.service,
            observe_search=metrics.SearchMetrics(LEVEL_NAMES),
            observe_refusal=metrics.observe_search_refused,
        )
    pb_grpc.add_GameRulesServicer_to_server(servicer, server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    target = address or f"{config.host}:{config.port}"
    if config.tls is None:
        port = server.add_insecure_port(target)
    else:
        port = server.add_secure_port(target, config.tls.credentials())
    if port == 0:
        raise OSError(f"could not listen on {target}")
    server.start()
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return Running(server, port, health_servicer, servicer)


_HEALTH_SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"]


def _run_worker(config: ServerConfig, servicer_factory: Callable[[], pb_grpc.GameRulesServicer] | None) -> int:
    """One worker process: serve until SIGTERM / SIGINT, then drain; the exit code."""
    # A search thread holds the interpreter lock until another thread has waited this long for it: short,
    # so the request threads of cheap calls get it back quickly (the default 5 ms would add up to tens of
    # milliseconds per call while searches run).
    sys.setswitchinterval(config.gil_switch_ms / 1000)
    drained = threading.Event()
    draining = threading.Lock()
    started: list[Running] = []
    # The main thread waits on this pipe, not on a lock: whichever thread the kernel hands a stop signal to
    # writes its number here (the wakeup fd), and the main thread wakes to run the handler. Waiting on a lock,
    # it slept through a signal a gRPC thread took: about one Ctrl-C of ``make run`` in three left a worker
    # serving. The drain writes here too, once it is done.
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)

    def drain() -> None:
        started[0].shutdown(config.grace_s)
        drained.set()
        with contextlib.suppress(BlockingIOError):
            os.write(wake_write, b"\0")

    def on_signal(signum: int, frame: object) -> None:
        if not draining.acquire(blocking=False):
            return  # already draining (SIGINT from the terminal and SIGTERM from the parent)
        _log.info("draining", extra={"signal": signum, "grace_s": config.grace_s})
        threading.Thread(target=drain, daemon=True).start()

    with signals_to_this_thread():  # a stop that comes meanwhile waits for the handlers below
        try:
            running = create_server(
                config, reuse_port=True, servicer=servicer_factory() if servicer_factory is not None else None
            )
        except Exception:
            _log.exception("worker %d could not start", os.getpid())
            return _EXIT_CANNOT_START
        started.append(running)
        from service.api import metrics

        metrics.record_process_metrics()
        start_searches = getattr(running.servicer, "start_searches", None)
        if start_searches is not None:
            start_searches()
        signal.set_wakeup_fd(wake_write, warn_on_full_buffer=False)
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
    _log.info("worker serving", extra={"service": SERVICE_NAME, "host": config.host, "port": running.port})
    while not drained.is_set():
        select.select([wake_read], [], [])  # a signal (its handler runs on the way out) or the drain's end
        os.read(wake_read, 512)
    running.server.wait_for_termination()
    _log.info("worker stopped")
    return 0


@contextlib.contextmanager
def _reserve_port(host: str, port: int) -> Iterator[int]:
    """Hold the port with SO_REUSEPORT so the workers can all bind it (and port 0 resolves once)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
        yield sock.getsockname()[1]
    finally:
        sock.close()


@contextlib.contextmanager
def _metrics_dir() -> Iterator[str]:
    path, owned = multiproc.prepare("gamerules-metrics-")
    try:
        yield path
    finally:
        if owned:
            multiproc.remove(path)


def _split_cores(config: ServerConfig) -> ServerConfig:
    """Move this process to the rules cores, if any, before the workers are forked (they and their threads
    inherit them); where the platform refuses, every core stays shared: ``config`` without the split."""
    if not config.rules_cores:
        return config
    try:
        cpus.pin_process(config.rules_cores)
    except OSError as error:
        _log.warning("cannot split the cores between searches and rules calls: every core shared", exc_info=error)
        return replace(config, rules_cores=None, service=replace(config.service, search_cores=None))
    return config


def serve(config: ServerConfig, servicer_factory: Callable[[], pb_grpc.GameRulesServicer] | None = None) -> int:
    """Run ``config.workers`` worker processes on one port until SIGTERM; the exit code (0: a clean stop)."""
    for listener, host, wanted in (
        (listeners.GRPC, config.host, config.port),
        (listeners.METRICS, config.metrics_host, config.metrics_port),
    ):
        if wanted and listeners.in_use(host, wanted):
            _log.error(listeners.taken(listener, host, wanted))  # at once: before any worker is forked
            return _EXIT_PORT_TAKEN
    config = _split_cores(config)
    with _metrics_dir(), _reserve_port(config.host, config.port) as port:
        worker_config = replace(config, port=port)
        workers: set[int] = set()
        exporter: list[socket.socket] = []  # the metrics port's socket, closed in each worker
        stopping = threading.Event()

        def on_signal(signum: int, frame: object) -> None:
            stopping.set()
            _stop_workers(workers)

        def fork_worker() -> None:
            # Signals wait while the child is forked: it must not run the parent's handler.
            signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
            pid = os.fork()
            if pid != 0:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
            else:  # the child: its own gRPC runtime, created after the fork
                code = 1
                try:
                    for signum in _STOP_SIGNALS:  # blocked until the worker sets its own handlers
                        signal.signal(signum, signal.SIG_DFL)
                    for sock in exporter:
                        sock.close()
                    code = _run_worker(worker_config, servicer_factory)
                except BaseException:
                    _log.exception("worker failed")
                finally:
                    logging.shutdown()
                    os._exit(code)
            workers.add(pid)

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        for _ in range(config.workers):
            fork_worker()

        from service.api import metrics  # after the fork: the workers need none of it

        status = 0
        if config.metrics_port:
            try:
                with signals_to_this_thread():
                    server = metrics.start_metrics_server(
                        config.metrics_host, config.metrics_port, metrics.metrics_access()
                    )
            except OSError as error:  # taken since the check, or another cause
                host, port = config.metrics_host, config.metrics_port
                taken = error.errno == errno.EADDRINUSE
                _log.error(
                    listeners.taken(listeners.METRICS, host, port)
                    if taken
                    else f"cannot listen for metrics on {host}:{port}: {error}"
                )
                status = 1
                on_signal(signal.SIGTERM, None)
            else:
                exporter.append(server.socket)  # type: ignore[attr-defined]
        if status == 0:  # every listener is up: the workers' port is held, the metrics' open
            _log.info(
                "serving",
                extra={
                    "host": config.host,
                    "port": port,
                    "workers": config.workers,
                    "metrics_port": config.metrics_port,
                    "rules_cores": cpus.text(config.rules_cores) if config.rules_cores else "all",
                    "search_cores": cpus.text(config.service.search_cores) if config.service.search_cores else "all",
                },
            )
        while workers:
            pid, wait_status = os.wait()
            workers.discard(pid)
            metrics.mark_process_dead(pid)
            code = os.waitstatus_to_exitcode(wait_status)
            if stopping.is_set():
                continue
            if code == _EXIT_CANNOT_START:
                _log.error("a worker could not start: stopping", extra={"worker": pid})
                status = 1
                on_signal(signal.SIGTERM, None)
                continue
            _log.error("worker died: starting another", extra={"worker": pid, "exit_code": code})
            time.sleep(_RESPAWN_PAUSE_S)
            if not stopping.is_set():
                fork_worker()
        return status


def _stop_workers(workers: set[int]) -> None:
    for pid in list(workers):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


# --- configuration -----------------------------------------------------------------------------------------


S = settings
# Each flag's setting: its variable and what it accepts (docs/operations.md's table quotes the ranges).
WORKERS = S.whole(1, S.MAX_WORKERS)
THREADS = S.whole(2, S.MAX_THREADS)
REQUEST_BYTES = S.whole(S.MIN_REQUEST_BYTES, S.MAX_REQUEST_BYTES)
CONCURRENT_RPCS = S.whole(1, 100_000)
THINK_MS = S.whole(10, 600_000)
SEARCH_SLOTS = S.whole(1, 64)
SEARCH_QUEUE = S.whole(0, 1024)
QUEUE_WAIT_S = S.seconds(0, 60, zero=True)
GIL_SWITCH_MS = S.seconds(0.05, 100, zero=True)
GRACE_S = S.seconds(0, S.MAX_SECONDS)


def _search_cpus(raw: str) -> str:
    try:
        cpus.plan(raw)
    except ValueError as why:
        raise ValueError(f"send auto, all, or a core list such as 1 or 2-7 ({why})") from None
    return raw


def _trusted_peers(raw: str) -> str:
    callers.networks_setting(raw)
    return raw


def _flags(parser: argparse.ArgumentParser) -> None:
    """The flags, each defaulting to its environment variable (checked here), then to a built-in value.
    A flat table, one flag a line: longer than most functions, and clearer whole than split."""
    add, value = parser.add_argument, S.value

    def setting(flag: str, variable: str, kind: S.Kind[object], default: object, **more: object) -> None:
        add(flag, type=S.flag(kind), default=value(variable, kind, default), **more)  # type: ignore[arg-type]

    setting("--host", "GAMERULES_HOST", S.host, environment.DEFAULT_HOST, help="address to listen on")
    setting("--port", "GAMERULES_GRPC_PORT", S.port(0), environment.DEFAULT_GRPC_PORT)
    setting(
        "--workers", "GAMERULES_WORKERS", WORKERS, min(os.cpu_count() or 1, S.MAX_WORKERS),
        help=f"worker processes on the port (default: one per core; at most {S.MAX_WORKERS})",
    )  # fmt: skip
    setting("--threads", "GAMERULES_THREADS", THREADS, 16, help="request threads per worker")
    setting("--max-request-bytes", "GAMERULES_MAX_REQUEST_BYTES", REQUEST_BYTES, 1 << 20)
    setting("--max-concurrent-rpcs", "GAMERULES_MAX_CONCURRENT_RPCS", CONCURRENT_RPCS, 1000)
    setting("--max-think-ms", "GAMERULES_MAX_THINK_MS", THINK_MS, 10000)
    setting(
        "--search-slots", "GAMERULES_SEARCH_SLOTS", SEARCH_SLOTS, searches.default_capacity(),
        help="best-move searches at once per worker",
    )  # fmt: skip
    setting(
        "--search-queue", "GAMERULES_SEARCH_QUEUE", SEARCH_QUEUE, 8,
        help="best-move calls that may wait for a slot (each until its deadline) per worker",
    )  # fmt: skip
    setting(
        "--max-queue-wait-s", "GAMERULES_MAX_QUEUE_WAIT_S", QUEUE_WAIT_S, searches.DEFAULT_MAX_WAIT_S,
        help="the longest a best move waits for a slot before RESOURCE_EXHAUSTED (never past its deadline)",
    )  # fmt: skip
    setting(
        "--trusted-peers", callers.ENV_TRUSTED_PEERS, _trusted_peers, callers.DEFAULT_TRUSTED_PEERS,
        help="addresses or networks whose gamerules-caller metadata names the caller (the gateway's)",
    )  # fmt: skip
    setting(
        "--search-mode", "GAMERULES_SEARCH_MODE", S.choice(*searches.MODES), "process",
        help="searches in niced search processes, or in niced threads of the worker",
    )  # fmt: skip
    setting(
        "--search-cpus", "GAMERULES_SEARCH_CPUS", _search_cpus, cpus.AUTO,
        help="the cores searches run on, the workers on the others: auto (all but the first quarter of the "
        "cores, when the server owns two or more), all (no split) or a list such as 1 or 2-7",
    )  # fmt: skip
    setting(
        "--page-token-key-file", "GAMERULES_PAGE_TOKEN_KEY_FILE", S.secret_file, "",
        help=f"the secret that signs page tokens (else ${PAGE_TOKEN_KEY_ENV}; else random per server)",
    )  # fmt: skip
    setting("--gil-switch-ms", "GAMERULES_GIL_SWITCH_MS", GIL_SWITCH_MS, 1.0)
    setting("--grace-s", "GAMERULES_GRACE_S", GRACE_S, 15.0, help="how long in-flight calls may finish on SIGTERM")
    setting("--metrics-port", "GAMERULES_METRICS_PORT", S.port(0), environment.DEFAULT_METRICS_PORT, help="0: none")
    setting(
        "--metrics-host", "GAMERULES_METRICS_HOST", S.host, "127.0.0.1",
        help="address of the metrics listener (GAMERULES_METRICS_TOKEN and _TLS_CERT/_KEY protect it)",
    )  # fmt: skip
    setting("--tls-cert", "GAMERULES_TLS_CERT", S.pem_file, "", help="PEM certificate chain; enables TLS")
    setting("--tls-key", "GAMERULES_TLS_KEY", S.pem_file, "", help="PEM private key of --tls-cert")
    setting("--tls-client-ca", "GAMERULES_TLS_CLIENT_CA", S.pem_file, "", help="PEM CA; requires client certificates")
    setting("--api-keys-file", auth.ENV_KEYS_FILE, S.readable_file, "", help="accepted API keys, one per line")
    setting("--log-level", "GAMERULES_LOG_LEVEL", S.LOG_LEVEL, "INFO")
    setting("--log-format", "GAMERULES_LOG_FORMAT", S.LOG_FORMAT, "json")


def parse_args(argv: Sequence[str] | None = None) -> ServerConfig:
    """The configuration from flags, each defaulting to its environment variable, then to a built-in value
    (docs/operations.md lists them). A value it cannot use ends the process (exit 2) with one line naming
    the variable or flag, the value and what to send."""
    parser = S.Parser(prog="gamerules-server", description="The gamerules gRPC server.")
    S.checked(parser, lambda: _flags(parser))
    args = parser.parse_args(argv)
    slots, queue = args.search_slots, args.search_queue
    if args.threads <= slots + queue:
        parser.error(
            f"GAMERULES_THREADS (--threads) {args.threads}: send more than GAMERULES_SEARCH_SLOTS + "
            f"GAMERULES_SEARCH_QUEUE ({slots} + {queue}), so cheap calls always find a thread"
        )
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("GAMERULES_TLS_CERT and GAMERULES_TLS_KEY (--tls-cert, --tls-key) go together: send both")
    if args.tls_client_ca and not args.tls_cert:
        parser.error(
            "GAMERULES_TLS_CLIENT_CA (--tls-client-ca) needs TLS: send GAMERULES_TLS_CERT and GAMERULES_TLS_KEY too"
        )
    api_keys = S.checked(parser, lambda: auth.load(args.api_keys_file or None))
    page_token_key = S.checked(parser, lambda: _page_token_key(args.page_token_key_file))
    S.checked(parser, S.metrics_access)
    S.checked(parser, S.multiproc_dir)
    split = cpus.plan(args.search_cpus)
    return ServerConfig(
        host=args.host,
        port=args.port,
        workers=args.workers,
        threads=args.threads,
        max_request_bytes=args.max_request_bytes,
        max_concurrent_rpcs=args.max_concurrent_rpcs,
        grace_s=args.grace_s,
        gil_switch_ms=args.gil_switch_ms,
        metrics_port=args.metrics_port,
        metrics_host=args.metrics_host,
        tls=TlsConfig(args.tls_cert, args.tls_key, args.tls_client_ca or None) if args.tls_cert else None,
        api_keys=api_keys,
        log_level=args.log_level,
        log_format=args.log_format,
        service=ServiceConfig(
            max_think_ms=args.max_think_ms,
            search_slots=slots,
            search_queue=queue,
            search_mode=args.search_mode,
            max_queue_wait_s=args.max_queue_wait_s,
            trusted_peers=callers.trusted_networks(args.trusted_peers),
            search_cores=split.search if split else None,
            page_token_key=page_token_key,
        ),
        rules_cores=split.rules if split else None,
    )


PAGE_TOKEN_KEY_ENV = "GAMERULES_PAGE_TOKEN_KEY"


def _page_token_key(path: str) -> bytes:
    """The page-token secret: the file's bytes, else ``$GAMERULES_PAGE_TOKEN_KEY``, else random bytes drawn
    here, in the parent, so that every worker shares them (replicas then need the configured secret)."""
    if path:
        with open(path, "rb") as file:
            return file.read().strip()  # not empty: ``settings.secret_file`` checked it
    given = settings.value(PAGE_TOKEN_KEY_ENV, settings.text, "")
    return given.encode() if given else secrets.token_bytes(32)


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_args(argv)
    logs.configure(config.log_level, config.log_format)
    if config.log_format == "json":
        with signals_to_this_thread():  # its reader thread
            logs.capture_stderr()
    return serve(config)


if __name__ == "__main__":
    sys.exit(main())
