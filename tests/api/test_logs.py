"""The two log formats carry the same fields: JSON for machines, ``key=value`` text for a terminal."""

from __future__ import annotations

import json
import logging
import re
import sys

import pytest

from service.api import logs


def _record(message: str, *, fields: dict | None = None, extra: dict | None = None, exc: bool = False):
    record = logging.LogRecord("gamerules.access", logging.INFO, __file__, 1, message, (), None)
    if fields is not None:
        record.fields = fields
    for key, value in (extra or {}).items():
        setattr(record, key, value)
    if exc:
        try:
            raise ValueError("boom")
        except ValueError:
            record.exc_info = sys.exc_info()
    return record


def _parse_text(line: str) -> dict:
    """``ts level logger msg`` then ``key=value`` (the message and values JSON-quoted when they have spaces)."""
    ts, level, logger, rest = line.split(" ", 3)
    msg, rest = re.match(r'("(?:[^"\\]|\\.)*"|\S*) ?(.*)', rest).groups()
    fields = {"ts": ts, "level": level, "logger": logger, "msg": json.loads(msg) if msg.startswith('"') else msg}
    for key, value in re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|\S*)', rest):
        fields[key] = json.loads(value) if value.startswith('"') else value
    return fields


@pytest.mark.parametrize(
    "record",
    [
        _record("call", fields={"method": "LegalMoves", "game": "games/reversi", "code": "OK", "duration_ms": 0.25}),
        _record("request", fields={"method": "GET", "route": "/v1/{name=games/*}", "game": "", "status": 200}),
        _record("worker serving", extra={"address": "127.0.0.1:1", "note": 'two words "quoted" a=b'}),
    ],
)
def test_text_lines_have_the_same_fields_as_json_lines(record):
    as_json = json.loads(logs.JsonFormatter().format(record))
    as_text = _parse_text(logs.TextFormatter().format(record))
    assert as_text.keys() == as_json.keys()
    assert {key: str(value) for key, value in as_json.items()} == {key: str(v) for key, v in as_text.items()}
    assert {"ts", "level", "logger", "pid", "msg"} <= as_text.keys()


def test_a_traceback_follows_the_text_line():
    record = _record("failed", extra={"method": "Score"}, exc=True)
    first, *rest = logs.TextFormatter().format(record).splitlines()
    assert first.endswith(" INFO gamerules.access failed pid=" + str(record.process) + " method=Score")
    assert rest[0] == "Traceback (most recent call last):" and rest[-1] == "ValueError: boom"
    assert json.loads(logs.JsonFormatter().format(record))["exc"].endswith("ValueError: boom")


def test_configure_picks_the_format(monkeypatch):
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        logs.configure("INFO", "text")
        assert type(root.handlers[0].formatter) is logs.TextFormatter
        monkeypatch.setenv("GAMERULES_LOG_FORMAT", "json")
        logs.configure()
        assert type(root.handlers[0].formatter) is logs.JsonFormatter
    finally:
        root.handlers[:], _ = saved[0], root.setLevel(saved[1])
