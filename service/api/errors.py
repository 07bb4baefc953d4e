"""Errors as the API reports them: a gRPC code plus a ``google.rpc.Status`` with ErrorInfo and BadRequest.

One place maps engine errors (``service/core/errors.py``) to codes, so both transports agree: malformed
input is INVALID_ARGUMENT, a well-formed move that the position does not allow (or any move after the end)
is FAILED_PRECONDITION, an unknown game NOT_FOUND, overload RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable

import grpc
from google.protobuf import any_pb2, duration_pb2, json_format
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2

from service import core

DOMAIN = "gamerules.v1"
# Messages and field names may quote the caller's input. gRPC sends the message twice (percent-encoded, and in
# the Status), and a client drops answers whose metadata passes 8 KiB: cut to these many UTF-8 bytes.
MAX_MESSAGE_BYTES = 512
MAX_FIELD_BYTES = 256

_CODES: dict[type[core.RulesError], grpc.StatusCode] = {
    core.IllegalMove: grpc.StatusCode.FAILED_PRECONDITION,
    core.GameOverError: grpc.StatusCode.FAILED_PRECONDITION,
}


class ApiError(Exception):
    """An answer that is an error. ``field`` (if any) becomes a BadRequest field violation."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        field: str = "",
        metadata: dict[str, str] | None = None,
    ) -> None:
        message = _bounded(message, MAX_MESSAGE_BYTES)
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.field = _bounded(field, MAX_FIELD_BYTES)
        self.metadata = metadata or {}

    def to_status(self) -> status_pb2.Status:
        info = error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN, metadata=self.metadata)
        details: list[Message] = [info]
        if self.field and self.code == grpc.StatusCode.FAILED_PRECONDITION:
            # AIP-193: a rule that the request breaks is a precondition failure about its subject.
            failure = error_details_pb2.PreconditionFailure.Violation(
                type=self.reason, subject=self.field, description=self.message
            )
            details.append(error_details_pb2.PreconditionFailure(violations=[failure]))
        elif self.field:
            violation = error_details_pb2.BadRequest.FieldViolation(field=self.field, description=self.message)
            details.append(error_details_pb2.BadRequest(field_violations=[violation]))
        retry_after = self.metadata.get("retry_after_seconds")
        if self.code == grpc.StatusCode.RESOURCE_EXHAUSTED and retry_after:
            # google.rpc.RetryInfo: how a gRPC client is told when to try again (AIP-194).
            details.append(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=int(retry_after))))
        packed = []
        for detail in details:
            any_detail = any_pb2.Any()
            any_detail.Pack(detail)
            packed.append(any_detail)
        return status_pb2.Status(code=self.code.value[0], message=self.message, details=packed)


_CODE_OF_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


def error_status(code: int, message: str, reason: str = "", field: str = "") -> status_pb2.Status:
    """The ``google.rpc.Status`` of an error the transport finds itself (``code``: a ``google.rpc.Code``
    number), built as every other error is (``ApiError.to_status``)."""
    return ApiError(_CODE_OF_NUMBER.get(code, grpc.StatusCode.UNKNOWN), reason, message, field).to_status()


def status_json(status: status_pb2.Status) -> bytes:
    """A Status as the REST gateway writes it: its proto3 JSON, compact."""
    return json.dumps(json_format.MessageToDict(status), separators=(",", ":")).encode()


def _bounded(text: str, limit: int) -> str:
    encoded = text.encode("utf-8", "replace")
    if len(encoded) <= limit:
        return text
    return encoded[: limit - 3].decode("utf-8", "ignore") + "…"


def invalid(field: str, message: str, reason: str = "INVALID_ARGUMENT") -> ApiError:
    """Malformed input in ``field``."""
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, reason, f"{field}: {message}" if field else message, field)


def join_field(prefix: str, field: str) -> str:
    """``position.reversi`` + ``board`` -> ``position.reversi.board``; indexes stay attached (``rocks[2]``)."""
    if not field:
        return prefix
    if not prefix:
        return field
    return prefix + ("" if field.startswith("[") else ".") + field


def from_rules_error(error: core.RulesError, prefix: str, text: bool = False) -> ApiError:
    """An engine's error about the thing at ``prefix`` (``position.reversi``, ``move``, ``options``).
    With ``text``, ``prefix`` is a notation string: the field is the string itself, whatever part of it
    the engine found wrong (the message says which)."""
    code = _CODES.get(type(error), grpc.StatusCode.INVALID_ARGUMENT)
    field = prefix if text else join_field(prefix, error.field)
    message = f"{field}: {error.message}" if field else error.message
    return ApiError(code, error.reason, message, field)


def unknown_game(game: str, field: str = "game", known: Iterable[str] = ()) -> ApiError:
    """NOT_FOUND for ``game``, naming the id among ``known`` it most likely meant (``dots_and_boxes``:
    ``dots-and-boxes``)."""
    meant = closest(game.removeprefix("games/").lower().replace("_", "-").replace(" ", "-"), known)
    hint = f"did you mean {meant!r}? " if meant else ""
    return ApiError(
        grpc.StatusCode.NOT_FOUND,
        "UNKNOWN_GAME",
        f"{field}: no game named {game!r}; {hint}ListGames lists the games",
        "",
        {"game": game[:100]},
    )


def closest(sent: str, names: Iterable[str]) -> str:
    """The one of ``names`` that ``sent`` most likely misspells: equal but for letter case, else a close
    match (``difflib``); "" when none is close."""
    by_case = {name.lower(): name for name in names}
    if sent.lower() in by_case:
        return by_case[sent.lower()]
    close = difflib.get_close_matches(sent.lower()[:100], list(by_case), n=1, cutoff=0.75)
    return by_case[close[0]] if close else ""


def overloaded(message: str, retry_after_s: int = 1) -> ApiError:
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "OVERLOADED",
        message,
        "",
        {"retry_after_seconds": str(retry_after_s)},
    )


# grpc-gateway v2's mapping from gRPC codes to HTTP statuses (runtime.HTTPStatusFromCode).
HTTP_STATUS: dict[int, int] = {
    code_pb2.OK: 200,
    code_pb2.CANCELLED: 499,
    code_pb2.UNKNOWN: 500,
    code_pb2.INVALID_ARGUMENT: 400,
    code_pb2.DEADLINE_EXCEEDED: 504,
    code_pb2.NOT_FOUND: 404,
    code_pb2.ALREADY_EXISTS: 409,
    code_pb2.PERMISSION_DENIED: 403,
    code_pb2.UNAUTHENTICATED: 401,
    code_pb2.RESOURCE_EXHAUSTED: 429,
    code_pb2.FAILED_PRECONDITION: 400,
    code_pb2.ABORTED: 409,
    code_pb2.OUT_OF_RANGE: 400,
    code_pb2.UNIMPLEMENTED: 501,
    code_pb2.INTERNAL: 500,
    code_pb2.UNAVAILABLE: 503,
    code_pb2.DATA_LOSS: 500,
}
