"""What each setting accepts, checked once at start-up: the kinds of value, the one-line refusal, the flags' parser.

Every setting of the server (``rpc/server.py``'s ``parse_args``), the gateway (``rest/gateway_config.py`` and
``rest/gateway_server.py``'s ``check``) and ``make run`` (``service/run.py``) is read through ``value`` (an
environment variable) or a flag whose type is ``flag`` (the same kind): a value it cannot use stops the
process before anything starts, exit 2, with one line naming the variable (or flag), the value and what to
send: ``GAMERULES_WORKERS='none': send a whole number from 1 to 128``. Harmful values are refused, not
clamped: zero or negative times, slots and sizes, NaN and infinity, counts past their bound, a file that is
not there. ``docs/operations.md`` lists every setting with its range and default.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import socket
import sys
from collections.abc import Callable, Mapping
from typing import NoReturn, TypeVar

from service.api import environment

T = TypeVar("T")
Kind = Callable[[str], T]  # a raw value to the setting's value; ValueError("send ...") when it is none

# Bounds (docs/operations.md's settings table quotes them).
MAX_WORKERS = 128
MAX_THREADS = 1024
MAX_SECONDS = 3600.0
MIN_REQUEST_BYTES = 1024
MAX_REQUEST_BYTES = 64 << 20


class SettingError(ValueError):
    """A setting's value the process cannot use; the message, one line, names it and says what to send."""


def whole(least: int, most: int) -> Kind[int]:
    def parse(raw: str) -> int:
        try:
            number = int(raw)
        except ValueError:
            number = least - 1
        if not least <= number <= most:
            raise ValueError(f"send a whole number from {least} to {most}")
        return number

    return parse


def seconds(least: float = 0.0, most: float = MAX_SECONDS, zero: bool = False) -> Kind[float]:
    """A time in seconds (or any finite number): above ``least`` (at ``least`` too when ``zero``), at most
    ``most``."""

    def parse(raw: str) -> float:
        try:
            number = float(raw)
        except ValueError:
            number = math.nan
        if not (math.isfinite(number) and (number >= least if zero else number > least) and number <= most):
            floor = f"from {least:g}" if zero else f"above {least:g}"
            raise ValueError(f"send a number {floor} to {most:g}")
        return number

    return parse


def port(least: int = 0) -> Kind[int]:
    parse = whole(least, 65535)

    def port_number(raw: str) -> int:
        try:
            return parse(raw)
        except ValueError:
            raise ValueError(f"send a port from {least} to 65535" + (" (0: none)" if least == 0 else "")) from None

    return port_number


def choice(*names: str) -> Kind[str]:
    """One of ``names``, in any case; the value as it is written in ``names``."""
    folded = {name.lower(): name for name in names}

    def parse(raw: str) -> str:
        if raw.strip().lower() not in folded:
            raise ValueError(f"send one of {', '.join(names)}")
        return folded[raw.strip().lower()]

    return parse


_HOST = re.compile(r"^[A-Za-z0-9._:%\[\]-]+$")


def host(raw: str) -> str:
    """An address or a name this host resolves."""
    if not _HOST.match(raw):
        raise ValueError("send an address or a host name, such as localhost or 0.0.0.0")
    try:
        socket.getaddrinfo(raw.removeprefix("[").removesuffix("]"), None, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError):
        raise ValueError("send an address or a host name that resolves here") from None
    return raw


def target(raw: str) -> str:
    """A gRPC target: ``host:port`` (or a gRPC name such as ``dns:///host:port``)."""
    if not raw or any(c.isspace() for c in raw) or ":" not in raw:
        raise ValueError("send host:port, such as localhost:50051")
    return raw


def readable_file(raw: str) -> str:
    """The path of a file this process may read ("": none, as a flag's default)."""
    if not raw:
        return raw
    if not os.path.isfile(raw):
        raise ValueError("send the path of a file (there is no file there)")
    if not os.access(raw, os.R_OK):
        raise ValueError("send the path of a file this process may read (it may not)")
    return raw


def pem_file(raw: str) -> str:
    """A readable PEM file (a certificate, a key, a CA): the path ("": none)."""
    if not readable_file(raw):
        return raw
    with open(raw, "rb") as file:
        if b"-----BEGIN " not in file.read(1 << 20):
            raise ValueError("send the path of a PEM file (it holds no -----BEGIN line)")
    return raw


def secret_file(raw: str) -> str:
    """A readable file holding something (a token, a secret): the path ("": none)."""
    if not readable_file(raw):
        return raw
    with open(raw, "rb") as file:
        if not file.read().strip():
            raise ValueError("send the path of a file holding the secret (it is empty)")
    return raw


def directory(raw: str) -> str:
    """A directory this process may write in, or a path where one can be made."""
    if os.path.exists(raw) and not os.path.isdir(raw):
        raise ValueError("send the path of a directory (it is a file)")
    if os.path.isdir(raw) and not os.access(raw, os.W_OK | os.X_OK):
        raise ValueError("send a directory this process may write in")
    return raw


def text(raw: str) -> str:
    if any(not c.isprintable() for c in raw):
        raise ValueError("send printable text")
    return raw


_ORIGIN = re.compile(r"^https?://[^/\s?#]+$")


def origins(raw: str) -> tuple[str, ...]:
    """CORS origins: ``*``, or ``scheme://host[:port]`` entries, comma-separated."""
    found = tuple(origin.strip().rstrip("/") for origin in raw.split(",") if origin.strip())
    for origin in found:
        if origin != "*" and not _ORIGIN.match(origin):
            raise ValueError(f"send origins such as https://portal.example or *, comma-separated ({origin!r} is none)")
    return found


def value(variable: str, kind: Kind[T], default: T, environ: Mapping[str, str] | None = None) -> T:
    """The variable's value read by ``kind`` (an old name too, ``environment.env``); unset or empty:
    ``default``. SettingError naming the variable, the value and what to send."""
    raw = environment.env(variable, environ=environ).strip()
    if not raw:
        return default
    try:
        return kind(raw)
    except ValueError as why:
        raise SettingError(f"{variable}={raw!r}: {why}") from None


def flag(kind: Kind[T]) -> Callable[[str], T]:
    """``kind`` as an argparse type: a flag's value it refuses says what to send."""

    def parse(raw: str) -> T:
        try:
            return kind(raw)
        except ValueError as why:
            raise argparse.ArgumentTypeError(f"{raw!r}: {why}") from None

    parse.__name__ = getattr(kind, "__name__", "value")
    return parse


class Parser(argparse.ArgumentParser):
    """argparse, whose refusal is one line (``prog: error: ...``) and exit 2, without the usage."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {' '.join(message.split())}", file=sys.stderr)
        raise SystemExit(2)


def checked(parser: argparse.ArgumentParser, read: Callable[[], T]) -> T:
    """``read()``, or the parser's one-line refusal of the setting it refused."""
    try:
        return read()
    except SettingError as refused:
        parser.error(str(refused))


LOG_LEVEL = choice("DEBUG", "INFO", "WARNING", "ERROR")
LOG_FORMAT = choice("json", "text")


def log_settings(environ: Mapping[str, str] | None = None) -> tuple[str, str]:
    """``GAMERULES_LOG_LEVEL`` and ``GAMERULES_LOG_FORMAT`` (both processes)."""
    return (
        value("GAMERULES_LOG_LEVEL", LOG_LEVEL, "INFO", environ),
        value("GAMERULES_LOG_FORMAT", LOG_FORMAT, "json", environ),
    )


def metrics_access(environ: Mapping[str, str] | None = None) -> tuple[str, str, str]:
    """The metrics' token (``GAMERULES_METRICS_TOKEN``, else the file ``GAMERULES_METRICS_TOKEN_FILE``) and the
    server's metrics listener's TLS files (``GAMERULES_METRICS_TLS_CERT``, ``_KEY``)."""
    token = value("GAMERULES_METRICS_TOKEN", text, "", environ)
    token_file = value("GAMERULES_METRICS_TOKEN_FILE", secret_file, "", environ)
    if not token and token_file:
        with open(token_file, encoding="utf-8") as file:
            token = file.read().strip()
    cert = value("GAMERULES_METRICS_TLS_CERT", pem_file, "", environ)
    key = value("GAMERULES_METRICS_TLS_KEY", pem_file, "", environ)
    if key and not cert:
        raise SettingError(f"GAMERULES_METRICS_TLS_KEY={key!r}: send GAMERULES_METRICS_TLS_CERT with it")
    return token, cert, key


def multiproc_dir(environ: Mapping[str, str] | None = None) -> str:
    """``PROMETHEUS_MULTIPROC_DIR``, checked (``multiproc.prepare`` uses it)."""
    environ = os.environ if environ is None else environ
    raw = environ.get("PROMETHEUS_MULTIPROC_DIR", "").strip()
    try:
        return directory(raw) if raw else ""
    except ValueError as why:
        raise SettingError(f"PROMETHEUS_MULTIPROC_DIR={raw!r}: {why}") from None
