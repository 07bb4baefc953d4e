"""Structured logs: one JSON object per line on stderr, and one such line per call.

Every record carries ``ts`` (UTC, ISO 8601), ``level``, ``logger``, ``pid`` and ``msg``; a call's line
(logger ``gamerules.access``, at INFO) adds ``method``, ``game``, ``code``, ``duration_ms`` and, when the
caller sent one, ``request_id`` — over gRPC from the server, over HTTP from the gateway (with ``route`` and
``status`` in place of ``code``). ``GAMERULES_LOG_LEVEL=WARNING`` silences the per-call lines;
``GAMERULES_LOG_FORMAT=text`` prints the same fields as ``key=value`` text, for a person at a terminal.

What other code writes to the process's stderr (gRPC's C core, the interpreter's own warnings) becomes JSON
lines too, with logger ``stderr`` (``capture_stderr``), so a log pipeline never meets a line it cannot parse.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import select
import sys
import threading
import time
from typing import Any

from service.api import environment
from service.api.calls import Call

ACCESS = logging.getLogger("gamerules.access")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
FORMATS = ("json", "text")

# LogRecord attributes that are not the caller's ``extra`` fields.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON: the standard fields, then whatever was passed as ``extra``."""

    _second = -1
    _second_text = ""

    def fields(self, record: logging.LogRecord) -> dict[str, object]:
        """The record's fields, in the order they are written, in either format."""
        second = int(record.created)
        if second != self._second:  # one strftime per second, not per line
            self._second, self._second_text = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        line: dict[str, object] = {
            "ts": f"{self._second_text}.{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "pid": record.process,
            "msg": record.getMessage(),
        }
        fields = record.__dict__.get("fields")
        if fields is not None:  # the per-call lines: their fields, nothing to search for
            line.update(fields)
        else:
            for key, value in record.__dict__.items():
                if key not in _STANDARD and not key.startswith("_"):
                    line[key] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return line

    def format(self, record: logging.LogRecord) -> str:
        return _ENCODER.encode(self.fields(record))


class TextFormatter(JsonFormatter):
    """The same fields as the JSON lines, for a person at a terminal: ``ts level logger msg`` and then
    ``key=value`` for the rest (the message or a value with spaces, quotes or ``=`` in JSON quotes); a traceback
    on lines of its own.

    ``2026-05-01T12:00:00.123Z INFO gamerules.access call pid=7 method=LegalMoves game=reversi code=OK ...``
    """

    def format(self, record: logging.LogRecord) -> str:
        fields = self.fields(record)
        exc = fields.pop("exc", None)
        head = " ".join(str(fields.pop(key)) for key in ("ts", "level", "logger"))
        head += " " + _text_value(fields.pop("msg"))
        line = " ".join([head, *(f"{key}={_text_value(value)}" for key, value in fields.items())])
        return f"{line}\n{exc}" if exc else line


def _text_value(value: object) -> str:
    text = value if isinstance(value, str) else _ENCODER.encode(value)
    if text and not any(c.isspace() or c in '"=' for c in text):
        return text
    return json.dumps(text, ensure_ascii=False)


_ENCODER = json.JSONEncoder(separators=(",", ":"), default=str)


def configure(level: str | None = None, fmt: str | None = None) -> None:
    """Log to stderr at ``level`` in ``fmt`` (default: ``GAMERULES_LOG_LEVEL`` / ``GAMERULES_LOG_FORMAT``,
    else INFO and JSON)."""
    level = (level or environment.env("GAMERULES_LOG_LEVEL", "INFO")).upper()
    fmt = (fmt or environment.env("GAMERULES_LOG_FORMAT", "json")).lower()
    # No caller lookup per record (file, line, function): the lines do not print it, and at thousands of
    # calls a second it costs more than the rest of the line (the logging HOWTO's "Optimization").
    logging._srcfile = None
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


class CallLog:
    """The observer (``service/api/calls.py``) that writes one line per finished gRPC call, once its answer
    has been sent."""

    after_answer = True

    def started(self, service: str, method: str) -> None:
        pass

    def finished(self, call: Call) -> None:
        if not ACCESS.isEnabledFor(logging.INFO):
            return
        fields: dict[str, Any] = {
            "method": call.method,
            "game": call.game,
            "code": call.code.name,
            "duration_ms": round(call.seconds * 1000, 3),
        }
        if call.request_id:
            fields["request_id"] = call.request_id
        ACCESS.info("call", extra={"fields": fields})


def log_http(method: str, route: str, status: int, seconds: float, game: str, request_id: str) -> None:
    """One line per answered HTTP request (the gateway's)."""
    if not ACCESS.isEnabledFor(logging.INFO):
        return
    fields: dict[str, Any] = {
        "method": method[:16],
        "route": route,
        "game": game[:64],
        "status": status,
        "duration_ms": round(seconds * 1000, 3),
    }
    if request_id:
        fields["request_id"] = request_id[:64]
    ACCESS.info("request", extra={"fields": fields})


# gRPC's C core logs as absl does: "E1201 11:33:10.287306   31100 file.cc:1517] message".
_NATIVE_LINE = re.compile(r"^([EWIF])\d{4} [\d:.]+\s+\d+ ([^\]]+)\] ?(.*)$")
_NATIVE_LEVELS = {"E": "ERROR", "W": "WARNING", "I": "INFO", "F": "CRITICAL"}
_captured = False


def capture_stderr() -> None:
    """Send file descriptor 2 through a pipe whose reader passes JSON lines on as they are and writes any
    other line as one JSON line. Call it once, in the parent process, before it forks: its children write
    into the same pipe, and this process's reader thread forwards their lines too."""
    global _captured
    if _captured:
        return
    _captured = True
    real = os.dup(2)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)
    # Never blocking: the reader thread and the drain at exit both read, and one may find the other took
    # the lines it was told were there.
    os.set_blocking(read_end, False)
    owner = os.getpid()
    lock = threading.Lock()
    pending = [b""]

    def forward(data: bytes) -> None:
        lines = (pending[0] + data).split(b"\n")
        pending[0] = lines.pop()
        out = [line if line.startswith(b"{") else _wrapped(line) for line in lines if line.strip()]
        if out:
            os.write(real, b"\n".join(out) + b"\n")

    def pump(timeout: float | None) -> bool:
        """Forward what the pipe holds; False once it is closed or nothing came within ``timeout``."""
        if not select.select([read_end], [], [], timeout)[0]:
            return False
        with lock:
            try:
                data = os.read(read_end, 1 << 16)
            except BlockingIOError:
                return True  # the other reader was first
            if not data:
                return False
            forward(data)
        return True

    def reader() -> None:
        while pump(None):
            pass

    def drain() -> None:
        """At exit: forward what was written last (the reader thread dies with the process). Only in this
        process: a forked child inherits the handler, not the reader."""
        if os.getpid() != owner:
            return
        sys.stderr.flush()
        while pump(0.05):
            pass

    threading.Thread(target=reader, name="stderr-lines", daemon=True).start()
    atexit.register(drain)


def _wrapped(raw: bytes) -> bytes:
    text = raw.decode("utf-8", "replace").rstrip("\r")
    match = _NATIVE_LINE.match(text)
    level, source, message = (_NATIVE_LEVELS[match[1]], match[2], match[3]) if match else ("ERROR", "", text)
    line: dict[str, Any] = {
        "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z",
        "level": level,
        "logger": "stderr",
        "pid": os.getpid(),
        "msg": message,
    }
    if source:
        line["source"] = source
    return _ENCODER.encode(line).encode()
