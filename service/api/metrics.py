"""Prometheus metrics: the gRPC server's (under go-grpc-prometheus's names and labels, so existing dashboards
work), the gateway's HTTP metrics, and what best-move searches did per game.

Several processes serve (the server's workers, the gateway's workers), so the metrics are kept in
prometheus-client's multi-process mode: each process writes its values to files in
``PROMETHEUS_MULTIPROC_DIR`` and whoever exposes them sums the files (``exposition``). prometheus-client
decides on its storage when it is first imported, so the directory must be in the environment before this
module is imported: ``service/api/multiproc.py`` (used by the server's and the gateway's parent
processes) does that.
Without it (tests, a single process) the metrics live in the process's default registry.

Every label value is bounded: methods and routes come from the protos, games and levels from the registry,
codes from the gRPC code list; anything else is ``other``.
"""

from __future__ import annotations

import hmac
import http.server
import os
import socket
import socketserver
import ssl
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import grpc
import prometheus_client
from google.protobuf import descriptor
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from service.api import settings
from service.api.calls import Call
from service.api.version import VERSION
from service.core.values import SearchResult

prometheus_client.disable_created_metrics()

# Names of the codes as go-grpc-prometheus writes them (Go's codes.Code.String()).
GRPC_CODE_NAMES: dict[grpc.StatusCode, str] = {
    code: {"OK": "OK", "CANCELLED": "Canceled"}.get(code.name, code.name.title().replace("_", ""))
    for code in grpc.StatusCode
}
UNARY = "unary"
SERVER_STREAM = "server_stream"
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_HTTP_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})

GRPC_STARTED = Counter(
    "grpc_server_started_total",
    "RPCs started on the server.",
    ["grpc_type", "grpc_service", "grpc_method"],
)
GRPC_HANDLED = Counter(
    "grpc_server_handled_total",
    "RPCs completed on the server, whatever their code.",
    ["grpc_type", "grpc_service", "grpc_method", "grpc_code"],
)
GRPC_HANDLING = Histogram(
    "grpc_server_handling_seconds",
    "How long RPCs took to handle, until the server answered.",
    ["grpc_type", "grpc_service", "grpc_method"],
    buckets=_LATENCY_BUCKETS,
)

HTTP_REQUESTS = Counter(
    "http_requests_total",
    "HTTP requests the gateway answered, by method, route (the proto's path template) and status code.",
    ["method", "route", "code"],
)
HTTP_DURATION = Histogram(
    "http_request_duration_seconds",
    "How long the gateway took to answer, by method and route.",
    ["method", "route"],
    buckets=_LATENCY_BUCKETS,
)

BEST_MOVE_DEPTH = Histogram(
    "gamerules_best_move_depth",
    "Depth a best-move search reached (plies; MCTS: the principal variation's length).",
    ["game", "level"],
    buckets=(1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 30, 40, 60),
)
BEST_MOVE_NODES = Histogram(
    "gamerules_best_move_nodes",
    "Nodes (or MCTS iterations) a best-move search visited.",
    ["game", "level"],
    buckets=(10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000),
)
BEST_MOVE_SECONDS = Histogram(
    "gamerules_best_move_seconds",
    "How long a best-move search ran.",
    ["game", "level"],
    buckets=_LATENCY_BUCKETS,
)
BEST_MOVES = Counter(
    "gamerules_best_move_total",
    "Best-move searches, by whether the value was proved exact.",
    ["game", "level", "exact"],
)
HELD_REFUSALS = Counter(
    "gamerules_gateway_held_refusals_total",
    "Refused best moves the gateway held a while before answering 429.",
)
SEARCHES_REFUSED = Counter(
    "gamerules_best_move_refused_total",
    "Best moves refused for want of a search slot (RESOURCE_EXHAUSTED), by the caller's class: key (an API "
    "key), forwarded (named by a trusted backend or the gateway) or address.",
    ["caller"],
)
SLOW_CLIENTS = Counter(
    "gamerules_gateway_slow_clients_total",
    "Requests the gateway closed before their body was whole: stage body_chunk (a pause between chunks), body "
    "(the whole body's time) or refused (too many bodies arriving at once).",
    ["stage"],
)

DOOR_CLOSED = Counter(
    "gamerules_gateway_door_closed_total",
    "Connections the gateway closed before or between requests: reason first-byte (no byte within the header "
    "timeout), idle (no request within it between requests) or per-address (too many silent connections of one "
    "client address).",
    ["reason"],
)


# Each process's own CPU, memory and file descriptors. A single process exposes them through
# prometheus-client's default process collector; in multi-process mode that collector would describe only the
# process answering the scrape, so every worker writes its own into these (one series per worker, label
# ``pid``; a worker's series go when it is marked dead). Not registered: the multi-process files expose them.
_PROCESS_GAUGES = {
    name: Gauge(name, text, registry=None, multiprocess_mode="liveall")
    for name, text in (
        ("process_cpu_seconds_total", "Total user and system CPU time the worker spent, in seconds."),
        ("process_resident_memory_bytes", "Resident memory size of the worker, in bytes."),
        ("process_virtual_memory_bytes", "Virtual memory size of the worker, in bytes."),
        ("process_open_fds", "File descriptors the worker has open."),
        ("process_max_fds", "The worker's limit on open file descriptors."),
        ("process_start_time_seconds", "When the worker started, in seconds since the epoch."),
    )
}
PROCESS_INTERVAL_S = 5.0


def record_process_metrics() -> None:
    """In multi-process mode, write this process's ``process_*`` values now and every ``PROCESS_INTERVAL_S``
    (a daemon thread; call it in each worker, after the fork)."""
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return  # the default registry's process collector has them
    reader = prometheus_client.ProcessCollector(registry=None)

    def record() -> None:
        for family in reader.collect():
            for sample in family.samples:
                gauge = _PROCESS_GAUGES.get(sample.name)
                if gauge is not None:
                    gauge.set(sample.value)

    def loop() -> None:
        while True:
            record()
            time.sleep(PROCESS_INTERVAL_S)

    record()
    threading.Thread(target=loop, name="process-metrics", daemon=True).start()


class _BuildInfo(Collector):
    """``gamerules_build_info{version="..."} 1``: the release that serves, as ``*_build_info`` series
    conventionally say it. Written at exposition, not kept in a gauge: in multi-process mode each worker's gauge
    would be a series of its own (or vanish with its worker), and the release is the same in all of them."""

    def collect(self) -> Iterable[GaugeMetricFamily]:
        info = GaugeMetricFamily("gamerules_build_info", "The release of gamerules serving: 1.", labels=["version"])
        info.add_metric([VERSION], 1)
        yield info


BUILD_INFO = _BuildInfo()
prometheus_client.REGISTRY.register(BUILD_INFO)  # exposed from the default registry by a single process


def exposition_registry() -> CollectorRegistry:
    """The registry to expose: every process's values summed in multi-process mode, else this process's; the
    build info once either way."""
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return prometheus_client.REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    registry.register(BUILD_INFO)
    return registry


def exposition(accept: str = "") -> tuple[bytes, str]:
    """The text format body and its content type (OpenMetrics when the scraper asks for it)."""
    from prometheus_client.exposition import choose_encoder

    encoder, content_type = choose_encoder(accept)
    return encoder(exposition_registry()), content_type


@dataclass(frozen=True)
class MetricsAccess:
    """Who may read the metrics: ``token`` (``Authorization: Bearer TOKEN``) when set; over TLS when
    ``tls_cert`` and ``tls_key`` name PEM files (the server's listener only: the gateway's ``/metrics`` has
    its own port's TLS). ``docs/operations.md`` says how Prometheus scrapes with either."""

    token: str = ""
    tls_cert: str = ""
    tls_key: str = ""

    def allows(self, authorization: str | None) -> bool:
        if not self.token:
            return True
        scheme, _, presented = (authorization or "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(presented.strip().encode(), self.token.encode())


def metrics_access(environ: Mapping[str, str] | None = None) -> MetricsAccess:
    """The access of ``GAMERULES_METRICS_TOKEN`` (or the file ``GAMERULES_METRICS_TOKEN_FILE`` names) and
    ``GAMERULES_METRICS_TLS_CERT`` / ``_KEY``, as ``settings.metrics_access`` reads and checks them."""
    return MetricsAccess(*settings.metrics_access(environ))


# How long a scrape's connection may stay silent (its TLS handshake, its request) before it is closed.
SCRAPE_IDLE_S = 10.0


class _MetricsServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a scraper that left, timed out or failed its handshake: not worth a traceback on stderr


def start_metrics_server(host: str, port: int, access: MetricsAccess = MetricsAccess()) -> socketserver.BaseServer:
    """Serve ``/metrics`` on ``host:port`` from a background thread, to whom ``access`` allows (401 else)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        timeout = SCRAPE_IDLE_S

        def setup(self) -> None:
            super().setup()
            if isinstance(self.request, ssl.SSLSocket):
                # Here, in the connection's own thread: in the accepting thread one idle connection held
                # every scrape behind its handshake.
                self.request.do_handshake()

        def do_GET(self) -> None:
            if self.path.partition("?")[0] not in ("/metrics", "/"):
                self.send_error(404)
                return
            if not access.allows(self.headers.get("Authorization")):
                self.send_response(401)
                self.send_header("WWW-Authenticate", "Bearer")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body, content_type = exposition(self.headers.get("Accept", ""))
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # scrapes are not worth a log line each

    server = _MetricsServer((host, port), Handler, bind_and_activate=False)
    if ":" in host:  # an IPv6 address
        server.address_family = socket.AF_INET6
        server.socket = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    try:
        server.server_bind()
        server.server_activate()
    except OSError:
        server.server_close()
        raise
    if access.tls_cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(access.tls_cert, access.tls_key or None)
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server


def mark_process_dead(pid: int) -> None:
    """A worker exited: its counters stay (totals must not drop), its live values go."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(pid)


# --- the gRPC server ---------------------------------------------------------------------------------------


class GrpcMetrics:
    """The observer (``service/api/calls.py``) that counts and times calls, with every series of the
    given services created up front so dashboards see zeros, not gaps. A call is counted before its answer
    is sent."""

    after_answer = False

    def __init__(self, services: Iterable[descriptor.ServiceDescriptor]) -> None:
        self._started: dict[tuple[str, str], Counter] = {}
        self._handling: dict[tuple[str, str], Histogram] = {}
        self._handled: dict[tuple[str, str, grpc.StatusCode], Counter] = {}  # filled as codes occur
        self._types: dict[tuple[str, str], str] = {}  # grpc_type: unary, or server_stream (AnalyzePosition)
        for service in services:
            for method in service.methods:
                key = (service.full_name, method.name)
                kind = self._types[key] = SERVER_STREAM if method.server_streaming else UNARY
                self._started[key] = GRPC_STARTED.labels(kind, *key)
                self._handling[key] = GRPC_HANDLING.labels(kind, *key)
                for code_name in GRPC_CODE_NAMES.values():
                    GRPC_HANDLED.labels(kind, *key, code_name)

    def started(self, service: str, method: str) -> None:
        child = self._started.get((service, method))
        (child or GRPC_STARTED.labels(UNARY, service, method)).inc()

    def finished(self, call: Call) -> None:
        key = (call.service, call.method)
        kind = self._types.get(key, UNARY)
        handled = self._handled.get((*key, call.code))
        if handled is None:
            handled = self._handled[(*key, call.code)] = GRPC_HANDLED.labels(kind, *key, GRPC_CODE_NAMES[call.code])
        handled.inc()
        (self._handling.get(key) or GRPC_HANDLING.labels(kind, *key)).observe(call.seconds)


# --- games -------------------------------------------------------------------------------------------------


class SearchMetrics:
    """The servicer's ``observe_search`` hook: depth, nodes, time and exact-or-not per game and level."""

    def __init__(self, levels: Mapping[str, Iterable[str]]) -> None:
        """``levels``: each game's level names (the label values; any other level counts as ``other``)."""
        self._levels = {game_id: set(names) for game_id, names in levels.items()}
        for game_id, names in self._levels.items():
            for level in names:
                for metric in (BEST_MOVE_DEPTH, BEST_MOVE_NODES, BEST_MOVE_SECONDS):
                    metric.labels(game_id, level)
                for exact in ("true", "false"):
                    BEST_MOVES.labels(game_id, level, exact)

    def __call__(self, game_id: str, level: str, result: SearchResult) -> None:
        if game_id not in self._levels:
            return
        if level not in self._levels[game_id]:
            level = "other"
        BEST_MOVE_DEPTH.labels(game_id, level).observe(result.depth)
        BEST_MOVE_NODES.labels(game_id, level).observe(result.nodes)
        BEST_MOVE_SECONDS.labels(game_id, level).observe(result.elapsed_ms / 1000)
        BEST_MOVES.labels(game_id, level, "true" if result.exact else "false").inc()


# --- the gateway -------------------------------------------------------------------------------------------


def observe_http(method: str, route: str, status: int, seconds: float) -> None:
    """One answered HTTP request; ``route`` must already be bounded (a proto template or a fixed path)."""
    method = method if method in _HTTP_METHODS else "other"
    HTTP_REQUESTS.labels(method, route, str(status)).inc()
    HTTP_DURATION.labels(method, route).observe(seconds)


def observe_search_refused(caller_class: str) -> None:
    """A best move refused for want of a slot (``searches.Overloaded``), by its caller's class."""
    SEARCHES_REFUSED.labels(caller_class).inc()


def observe_slow_client(stage: str) -> None:
    """A request closed by the gateway's front before its body was whole (``gateway_asgi``)."""
    SLOW_CLIENTS.labels(stage).inc()


def observe_door(reason: str) -> None:
    """A connection the gateway's door shut (``gateway_door``): ``first-byte``, ``idle`` or ``per-address``."""
    DOOR_CLOSED.labels(reason).inc()


def observe_held_refusal() -> None:
    """A refused best move whose 429 the gateway holds (counted as the hold starts)."""
    HELD_REFUSALS.inc()
