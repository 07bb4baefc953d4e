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

Each request carries a way to know whether its client is still connected (``ClientWatch``): granian's WSGI
interface offers none, and a best move whose client left must stop its search.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import logging
import os
import select
import signal
import socket
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.api import cpus, environment, gateway_pacing, logs, multiproc

# Each request holds a thread while it waits on its gRPC call, with the GIL released; granian's own advice
# (it warns above this) is at most two per core and one more. Best moves, which wait longest (in the server's
# queue, up to their deadline), may hold all but two of them (``gateway._search_share``).
DEFAULT_THREADS = 2 * (os.cpu_count() or 1) + 1


_env = environment.env


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


def parser() -> argparse.ArgumentParser:
    add = (parser := argparse.ArgumentParser(description="Run the gamerules REST gateway.")).add_argument
    add("--bind", type=parse_bind, default=environment.gateway_bind(), help="host:port to listen on")
    add(
        "--grpc-target",
        "--backend",  # its name in release 0.1.0
        dest="grpc_target",
        default=_env("GAMERULES_GRPC_TARGET", environment.DEFAULT_GRPC_TARGET),
        help="the gRPC server, host:port",
    )
    add("--workers", type=int, default=int(_env("GAMERULES_GATEWAY_WORKERS", str(os.cpu_count() or 1))))
    add(
        "--threads",
        type=int,
        default=int(_env("GAMERULES_GATEWAY_THREADS", str(DEFAULT_THREADS))),
        help="requests one worker handles at once (each waits on its gRPC call); more wait in line",
    )
    add(
        "--waiting-best-moves",
        type=int,
        default=int(_env("GAMERULES_GATEWAY_WAITING_BEST_MOVES", str(gateway_pacing.DEFAULT_SLOTS))),
        help="best moves a worker keeps waiting at once (for a thread, or for their 429), each on a thread "
        "beyond --threads; 0: none wait",
    )
    add(
        "--refusal-hold-s",
        type=float,
        default=float(_env("GAMERULES_GATEWAY_REFUSAL_HOLD_S", str(gateway_pacing.DEFAULT_HOLD_S))),
        help="how long a refused best move waits for its 429 (less near its deadline); 0: at once",
    )
    add(
        "--cpus",
        default=_env("GAMERULES_GATEWAY_CPUS", cpus.ALL),
        help="the cores the gateway runs on: all, or a list such as 0 or 0-1 (on the server's host: its rules "
        "cores, away from the searches)",
    )
    add("--grace-s", type=float, default=float(_env("GAMERULES_GRACE_S", "15")), help="on SIGTERM, for requests")
    add("--tls-cert", default=_env("GAMERULES_GATEWAY_TLS_CERT", ""), help="PEM certificate: serve HTTPS")
    add("--tls-key", default=_env("GAMERULES_GATEWAY_TLS_KEY", ""), help="PEM key of --tls-cert")
    return parser


def worker_app() -> Any:
    """The app in one granian worker: ``gateway.create_app()``, after ``_relay_stop_signals``, told of each
    request's client by ``watch_clients``."""
    from service.api.gateway import create_app

    _relay_stop_signals(worker=True)
    return watch_clients(create_app())


# --- whether a request's client is still connected -----------------------------------------------------------

_TCP_ESTABLISHED = 1  # the state in tcp_info's first byte (Linux's include/net/tcp_states.h)
_FDS = "/proc/self/fd"


def _address(text: str) -> str:
    """An IP address as one text whoever wrote it (granian's ``REMOTE_ADDR``, ``getpeername``): an IPv4 client
    of an IPv6 socket (``::ffff:10.0.0.1``) as its IPv4 address, IPv6 in its compressed form."""
    if ":" not in text:
        return text  # IPv4: one way to write it
    try:
        ip = ipaddress.IPv6Address(text.partition("%")[0])
    except ValueError:
        return text
    return str(ip.ipv4_mapped or ip)


def _sockets() -> list[tuple[int, int]]:
    """(descriptor, inode) of each socket this process holds (none where there is no ``/proc``)."""
    found: list[tuple[int, int]] = []
    try:
        names = os.listdir(_FDS)
    except OSError:
        return found
    for name in names:
        try:
            target = os.readlink(f"{_FDS}/{name}")
        except OSError:
            continue
        if target.startswith("socket:["):
            found.append((int(name), int(target[8:-1])))
    return found


def _inspect(fd: int, inode: int, port: int, peer: str) -> bool | None:
    """For the TCP connection on this process's ``fd``, if it still is socket ``inode`` and connects ``peer``
    to the local ``port``: whether it is established. None for any other socket, a descriptor closed since, or
    a connection reset; OSError when it cannot tell (out of descriptors). Read on a duplicate of the
    descriptor, closed at once: the server's own descriptor is never touched."""
    try:
        duplicate = os.dup(fd)
    except OSError as error:
        if error.errno == errno.EBADF:  # closed since
            return None
        raise
    try:
        found = os.fstat(duplicate)
        sock = socket.socket(fileno=duplicate) if stat.S_ISSOCK(found.st_mode) and found.st_ino == inode else None
    except BaseException:
        os.close(duplicate)
        raise
    if sock is None:
        os.close(duplicate)
        return None
    with sock:  # closes the duplicate
        if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.getsockname()[1] != port:
            return None
        try:
            address = sock.getpeername()[0]
        except OSError as error:
            if error.errno == errno.ENOTCONN:  # listening, or reset
                return None
            raise
        if _address(address) != peer:
            return None
        return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] == _TCP_ESTABLISHED)


class ClientWatch:
    """Whether the client of one request has gone, as far as this worker's own sockets tell: called, True once
    it has (``gateway.CLIENT_WATCH``: the gateway cancels a best move's call, or a stream's, then).

    granian's WSGI interface (2.x) tells the app nothing of the connection: no disconnect flag or callback in
    the environ, no way to its socket, and of the client's address ``REMOTE_ADDR`` alone, without its port
    (only its RSGI and ASGI interfaces report a disconnect). So the worker looks at its own sockets, on the
    first call (the gateway's first look, once a call has run ``gateway.HANGUP_POLL_S``: quicker calls cost
    nothing): the connections it holds from that address to its port (``SERVER_PORT``) are the candidates,
    one of them the request's; the client has gone once none is established any more (closed by the client:
    CLOSE_WAIT until granian closes it, then no longer there). A client still waiting is never taken for gone,
    since its own connection is one of them and stays established. But a client that holds other connections
    to the same worker open (a browser's, a proxy's pool) is seen go only once they have all closed, and one
    that left before the first look is not seen (nor anything where there is no ``/proc``): their searches
    run on, as before."""

    def __init__(self, remote_addr: str, server_port: str) -> None:
        self._peer = _address(remote_addr)
        self._port = int(server_port) if server_port.isdigit() else -1
        self._candidates: dict[int, int] | None = None  # descriptor: socket inode, from the first call
        self._watched = False

    def __call__(self) -> bool:
        if self._candidates is None:
            self._candidates = {}
            if self._peer and hasattr(socket, "TCP_INFO"):
                try:
                    for fd, inode in _sockets():
                        if _inspect(fd, inode, self._port, self._peer) is not None:
                            self._candidates[fd] = inode
                except OSError:  # one not looked at could be the request's: nothing to go by
                    self._candidates = {}
            self._watched = bool(self._candidates)
        if not self._watched:
            return False
        for fd, inode in list(self._candidates.items()):
            try:
                if _inspect(fd, inode, self._port, self._peer):
                    return False
            except OSError:  # cannot tell now: not gone
                return False
            del self._candidates[fd]  # closed, for good (a new socket on the descriptor is another inode)
        return True


def watch_clients(app: Callable[..., Any]) -> Callable[..., Any]:
    """``app`` with ``environ[gateway.CLIENT_WATCH]``: called, a ``ClientWatch`` of the request's client (from
    the environ's address and port as granian set them, before any middleware)."""
    from service.api.gateway import CLIENT_WATCH

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        remote_addr, server_port = str(environ.get("REMOTE_ADDR", "")), str(environ.get("SERVER_PORT", ""))
        environ[CLIENT_WATCH] = lambda: ClientWatch(remote_addr, server_port)
        return app(environ, start_response)

    return serve


# How a stop signal reaches granian, in its main process and in each worker, whatever thread the kernel hands
# it to and whenever it comes (see ``_relay_stop_signals``).
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
_handled = threading.Event()  # set in a worker once granian's own stop handler has run
RESEND_S = 0.1  # a worker's stop signal goes to its main thread again this often until granian handled it


def _end_before_serving(number: int, frame: Any) -> None:
    """A forked worker's stop handler until granian installs its own: the worker serves nothing yet (granian
    accepts connections in it only once it listens), so it ends at once and granian's main process sees it
    stop. It used to keep the signal until granian listened, so a worker whose start outlasted the grace
    period (imports and set-up on a loaded host) was killed then: "Killing worker-1 after it refused to
    gracefully stop". Before that it ran the handler inherited from the main process, which only marks the
    main process's server object as stopping: the signal was lost and the worker served on until killed."""
    os._exit(0)  # nothing to flush or finish: no request, and every log line is written when it is logged


def ended(process: Any) -> bool:
    """Whether a ``multiprocessing`` process has ended: its sentinel is ready (public, and true once it exits,
    whichever thread collects its exit status)."""
    from multiprocessing.connection import wait

    return bool(wait([process.sentinel], timeout=0))


def _see_workers_end() -> None:
    """Make granian's main process see a stopped worker as ended once it has exited.

    After a stop granian joins each worker and asks ``is_alive()``, while a watcher thread of its own joins the
    same process: both collect the exit status with ``waitpid``, the second gets "no such child", and
    ``multiprocessing`` then reports the process alive until the first thread has stored the status. When that
    took more than the 1 ms granian waits (a loaded host, workers ending together), it logged "Killing worker-2
    after it refused to gracefully stop" about a worker that had already exited, and killed nothing."""
    from granian.server.mp import WorkerProcess

    def is_alive(worker: Any) -> bool:
        return not ended(worker.inner)

    WorkerProcess.is_alive = is_alive  # type: ignore[method-assign]


def _see_granian_handle_stops() -> None:
    """Wrap the handlers granian installs in a worker (``granian._signals.set_sync_signals``, which the
    worker looks up when it starts) so that ``_handled`` tells when one of them ran."""
    from granian import _signals

    install = _signals.set_sync_signals

    def set_sync_signals() -> Any:
        event = install()
        for number in _STOP_SIGNALS:
            granian_handler = signal.getsignal(number)
            if callable(granian_handler):

                def handler(signum: int, frame: Any, granian_handler: Any = granian_handler) -> None:
                    if _handled.is_set():  # once: a second stop during the graceful drain cut requests short
                        return
                    _handled.set()
                    granian_handler(signum, frame)

                signal.signal(number, handler)
        return event

    _signals.set_sync_signals = set_sync_signals


def _relay_stop_signals(worker: bool = False) -> None:
    """Make sure this process's main thread runs granian's handler for SIGTERM and SIGINT (in granian's main
    process; in a worker, ``worker=True``, from ``worker_app``).

    granian waits for its stop signal in the main thread without a timeout (the main process for its
    workers, a worker for its requests), and Python runs signal handlers only in the main thread. The kernel
    hands a signal to any thread of the process, and there are many (granian's, gRPC's, the threads that
    watch the workers): when the signal lands on another thread, its handler waits until the main thread
    wakes, which is never. granian then killed the workers at the end of the grace period, in about one stop
    of `make run` in three. The interpreter writes every signal's number to its wakeup fd from whichever
    thread caught it, so a thread reading that fd sends the signal on to the main thread, once per signal.

    A worker needs two more things. A stop that comes before granian listens in it ends it at once
    (``_end_before_serving``): it serves nothing yet. And a signal sent on to the main thread just as it
    enters granian's server loop (in Rust) is seen there only when another signal comes, so in a worker the
    relay sends it again every ``RESEND_S`` until granian's handler has run (``_see_granian_handle_stops``).
    Not after: a second stop during a graceful shutdown cut the requests in flight."""
    if threading.current_thread() is not threading.main_thread():
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    if worker:
        _see_granian_handle_stops()

    def forget_in_child() -> None:
        # A forked worker must not write its signals into this process's pipe (they would be relayed here);
        # the worker sets up its own relay when it builds its app, and ends on a stop until granian listens.
        signal.set_wakeup_fd(-1)
        os.close(read_end)
        os.close(write_end)
        for number in _STOP_SIGNALS:
            signal.signal(number, _end_before_serving)

    os.register_at_fork(after_in_child=forget_in_child)
    main_thread = threading.main_thread().ident
    assert main_thread is not None

    def send_on(number: int) -> None:
        signal.pthread_kill(main_thread, number)  # granian's handler there, or a starting worker's end
        while worker and not _handled.wait(RESEND_S):
            signal.pthread_kill(main_thread, number)

    def relay() -> None:
        relayed: set[int] = set()

        def deliver(number: int) -> None:
            if number in _STOP_SIGNALS and number not in relayed:
                relayed.add(number)  # once: the relayed signal comes back through the fd
                threading.Thread(target=send_on, args=(number,), name="stop-signal-send", daemon=True).start()

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
    logs.configure()  # first: reading the environment may log that an old variable name is deprecated
    argv = sys.argv[1:] if argv is None else argv
    warn_old_flags(argv)
    args = parser().parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        print("--tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    if args.cpus.strip().lower() != cpus.ALL:
        try:
            cores = cpus.parse(args.cpus) & cpus.usable()
        except ValueError as error:
            print(f"--cpus: {error}", file=sys.stderr)
            return 2
        if not cores:
            print(f"--cpus {args.cpus!r} names none of the cores this process may use", file=sys.stderr)
            return 2
        try:
            cpus.pin_process(cores)  # before granian starts its threads and workers: they inherit it
        except OSError as error:  # a platform that refuses: the gateway runs on every core
            logging.getLogger(__name__).warning("cannot move the gateway to cores %s: %s", cpus.text(cores), error)
    host, port = args.bind
    os.environ["GAMERULES_GRPC_TARGET"] = args.grpc_target  # read by create_app in each worker
    os.environ["GAMERULES_GATEWAY_THREADS"] = str(max(1, args.threads))  # so is this: best moves get a share
    waiting = max(0, args.waiting_best_moves)
    os.environ["GAMERULES_GATEWAY_WAITING_BEST_MOVES"] = str(waiting)  # and these: how best moves are paced
    os.environ["GAMERULES_GATEWAY_REFUSAL_HOLD_S"] = str(max(0.0, args.refusal_hold_s))
    metrics_dir, owned = multiproc.prepare("gamerules-gateway-metrics-")
    if _env("GAMERULES_LOG_FORMAT", "json").lower() == "json":
        logs.capture_stderr()

    from granian import Granian
    from granian.constants import Interfaces, SSLProtocols
    from granian.log import LogLevels

    level = _env("GAMERULES_LOG_LEVEL", "INFO").lower()
    threads = max(1, args.threads)
    server = Granian(
        "service.api.gateway_server:worker_app",
        factory=True,
        interface=Interfaces.WSGI,
        address=host,
        port=port,
        workers=max(1, args.workers),
        # The Python threads per worker; connections beyond them are still accepted and their requests wait
        # for a thread. (A backpressure as low as the threads would leave whole keep-alive connections
        # unaccepted: the load benchmark then saw p99 of 3 s at 32 and 128 clients, SYN retries.)
        # Waiting best moves (``gateway_pacing``) sleep on threads of their own, on top of the request threads.
        blocking_threads=threads + waiting,
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
    # and the workers import ``service.api.gateway_server``. One copy keeps one ``_handled``.
    from service.api import gateway_server

    sys.exit(gateway_server.main())
