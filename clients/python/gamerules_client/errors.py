"""Errors of the GameRules API as Python exceptions, one class per gRPC code, carrying the Status details.

Every failed call raises a ``GameRulesError`` subclass: ``code`` (a ``grpc.StatusCode``), ``message``, and
what the server's ``google.rpc.Status`` details say — ``reason`` and ``metadata`` from ``ErrorInfo``
(``ILLEGAL_MOVE``, ``INVALID_NOTATION``...), ``field_violations`` from ``BadRequest`` (the field a bad
input is about: ``position.notation``, ``moves[3]``), ``precondition_violations`` from
``PreconditionFailure`` (what an illegal move broke), and ``retry_after_s`` for RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status


@dataclass(frozen=True)
class FieldViolation:
    """A bad field of the request (``BadRequest.FieldViolation``)."""

    field: str
    description: str


@dataclass(frozen=True)
class PreconditionViolation:
    """A rule the request broke (``PreconditionFailure.Violation``): ``type`` is the reason, ``subject`` the
    field (``move``, ``moves[2]``)."""

    type: str
    subject: str
    description: str


class GameRulesError(Exception):
    """A call the server (or the channel) answered with an error."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str = "",
        domain: str = "",
        metadata: dict[str, str] | None = None,
        field_violations: tuple[FieldViolation, ...] = (),
        precondition_violations: tuple[PreconditionViolation, ...] = (),
        status: status_pb2.Status | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.domain = domain
        self.metadata = metadata or {}
        self.field_violations = field_violations
        self.precondition_violations = precondition_violations
        self.status = status

    @property
    def fields(self) -> list[str]:
        """Every field the error is about (field violations, then precondition subjects)."""
        return [v.field for v in self.field_violations] + [v.subject for v in self.precondition_violations]

    @property
    def retry_after_s(self) -> float | None:
        """How long the server asks to wait before retrying (RESOURCE_EXHAUSTED), if it said: its
        ``google.rpc.RetryInfo``, else ErrorInfo's ``retry_after_seconds``."""
        if self.status is not None:
            for detail in self.status.details:
                if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                    info = error_details_pb2.RetryInfo()
                    detail.Unpack(info)
                    return info.retry_delay.seconds + info.retry_delay.nanos / 1e9
        value = self.metadata.get("retry_after_seconds")
        try:
            return float(value) if value is not None else None
        except ValueError:
            return None

    def __str__(self) -> str:
        reason = f" [{self.reason}]" if self.reason else ""
        return f"{self.code.name}{reason}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r}, reason={self.reason!r}, fields={self.fields!r})"


class InvalidArgumentError(GameRulesError):
    """Malformed input: a bad notation, an impossible position, an unknown option or level (400 over REST)."""


class FailedPreconditionError(GameRulesError):
    """A well-formed move that this position does not allow, or any move after the end."""


class NotFoundError(GameRulesError):
    """An unknown game."""


class ResourceExhaustedError(GameRulesError):
    """The server is busy with best-move searches; wait ``retry_after_s`` and try again."""


class UnavailableError(GameRulesError):
    """The server could not be reached (already retried by the channel's retry policy)."""


class DeadlineExceededError(GameRulesError):
    """The call's deadline passed before the answer arrived."""


class UnauthenticatedError(GameRulesError):
    """A missing or wrong API key."""


_CLASSES: dict[grpc.StatusCode, type[GameRulesError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
}


def from_rpc_error(error: grpc.RpcError) -> GameRulesError:
    """The exception for a failed call, with the details of its ``google.rpc.Status`` (if it sent one)."""
    code: grpc.StatusCode = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    message: str = (error.details() if hasattr(error, "details") else "") or ""
    status = None
    try:
        status = rpc_status.from_call(error)
    except ValueError:  # a Status whose code or message disagrees with the call's: keep the call's
        status = None
    reason, domain, metadata = "", "", {}
    fields: list[FieldViolation] = []
    preconditions: list[PreconditionViolation] = []
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason, domain, metadata = info.reason, info.domain, dict(info.metadata)
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields += [FieldViolation(v.field, v.description) for v in bad.field_violations]
        elif detail.Is(error_details_pb2.PreconditionFailure.DESCRIPTOR):
            failure = error_details_pb2.PreconditionFailure()
            detail.Unpack(failure)
            preconditions += [PreconditionViolation(v.type, v.subject, v.description) for v in failure.violations]
    return _CLASSES.get(code, GameRulesError)(
        code,
        message,
        reason=reason,
        domain=domain,
        metadata=metadata,
        field_violations=tuple(fields),
        precondition_violations=tuple(preconditions),
        status=status,
    )
