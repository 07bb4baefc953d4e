"""The ``google.api.field_behavior`` annotations of the protos, enforced: a request whose REQUIRED field is
missing is INVALID_ARGUMENT with a BadRequest field violation naming it (``position``, ``move``,
``positions[2]``...), before any method runs. The same annotations make the OpenAPI document's ``required``
lists (``service/api/rest/openapi.py``), so the contract and the check cannot drift apart.

A field is missing when it is unset: a message field without a value, an empty repeated field, a scalar at
its proto3 default (``""``, ``0``). Set message fields are checked inside, with the field's path as prefix,
but for positions and moves: their structured forms are checked by ``service/api/codec.py`` once it knows
the form is the game's own (a Kalah position sent to Reversi is reported as that, not as a missing field).
"""

from __future__ import annotations

import functools

from google.api import field_behavior_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from service.api.errors import ApiError, invalid

# Checked by the codec, after it has matched the structured form to the game.
DECODED = frozenset({"gamerules.v1.Position", "gamerules.v1.Move"})
# The reason a missing field is reported with: the one its kind of value has elsewhere in the API.
_REASONS = {
    "position": "INVALID_POSITION",
    "positions": "INVALID_POSITION",
    "move": "INVALID_MOVE",
    "moves": "INVALID_MOVE",
}


def behaviors(field: FieldDescriptor) -> frozenset[int]:
    """The field's ``google.api.field_behavior`` values (``field_behavior_pb2.REQUIRED``...)."""
    return frozenset(field.GetOptions().Extensions[field_behavior_pb2.field_behavior])


@functools.cache
def _plan(message: Descriptor) -> tuple[tuple[FieldDescriptor, ...], tuple[FieldDescriptor, ...]]:
    """(the REQUIRED fields, the message fields that may hold REQUIRED fields of their own)."""
    required = tuple(f for f in message.fields if field_behavior_pb2.REQUIRED in behaviors(f))
    nested = tuple(
        f
        for f in message.fields
        if f.type == FieldDescriptor.TYPE_MESSAGE
        and f.message_type.full_name not in DECODED
        and _holds_required(f.message_type)
    )
    return required, nested


@functools.cache
def _holds_required(message: Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    if message.full_name in seen:
        return False
    inner = seen | {message.full_name}
    return any(
        field_behavior_pb2.REQUIRED in behaviors(f)
        or (f.type == FieldDescriptor.TYPE_MESSAGE and _holds_required(f.message_type, inner))
        for f in message.fields
    )


def _missing(message: Message, field: FieldDescriptor) -> bool:
    if field.is_repeated:
        return len(getattr(message, field.name)) == 0
    if field.has_presence:
        return not message.HasField(field.name)
    return bool(getattr(message, field.name) == field.default_value)


def check_required(message: Message, prefix: str = "") -> None:
    """Raise INVALID_ARGUMENT naming the first REQUIRED field ``message`` leaves unset."""
    required, nested = _plan(message.DESCRIPTOR)
    for field in required:
        if _missing(message, field):
            path = f"{prefix}.{field.name}" if prefix else field.name
            raise _required(path)
    for field in nested:
        path = f"{prefix}.{field.name}" if prefix else field.name
        if field.is_repeated:
            for index, item in enumerate(getattr(message, field.name)):
                check_required(item, f"{path}[{index}]")
        elif message.HasField(field.name):
            check_required(getattr(message, field.name), path)


def _required(path: str) -> ApiError:
    top = path.split(".")[0].split("[")[0]
    return invalid(path, "is required", _REASONS.get(top, "INVALID_ARGUMENT"))
