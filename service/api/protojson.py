"""Messages as their proto3 JSON objects, the way ``json_format.MessageToDict`` writes them with
``always_print_fields_with_no_presence=True``, at a fraction of its cost.

``json_format`` looks up every field's type and name again for every message it writes; a LegalMoves answer
is a dozen small messages, and writing it was a fifth of the gateway's own time per request. Here each
message type is planned once (its fields, their JSON names, how each value is written) and every later
message of that type only reads values. The plans cover the field types our protos use
(32-bit integers, bools, strings, doubles, nested and repeated messages, oneofs, ``optional``, well-known
types such as ``Value`` through ``json_format``); a message type with anything else (64-bit integers, enums,
bytes, maps) goes to ``json_format`` as a whole, so the output is the same for every message. One
difference from ``json_format``: whole doubles are written as integers (``8``, not ``8.0``), as JSON has it.
``tests/api/test_protojson.py`` checks that against ``json_format`` on every answer of random games in all
five games.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from service.core.jsonvalue import JSON, JSONObject

_PLAIN = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SFIXED32,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_FIXED32,
        FieldDescriptor.TYPE_BOOL,
        FieldDescriptor.TYPE_STRING,
    }
)

# A message type's plan: the fields written even when unset, in declaration order (JSON key, default, whether
# it is repeated: a new empty list each time), and for each field its JSON key, whether it is repeated, and how
# to write one value (None: as is).
_Writer = Callable[[Any], Any] | None
_Plan = tuple[tuple[tuple[str, Any, bool], ...], dict[FieldDescriptor, tuple[str, bool, _Writer]]]

_plans: dict[tuple[str, bool], _Plan | None] = {}


def to_dict(message: Message, proto_names: bool = False) -> JSONObject:
    """``message`` as a JSON object: camelCase keys (the proto field names with ``proto_names``), every field
    without presence written even at its default, whole doubles as integers, doubles that are not finite as
    ``"NaN"``/``"Infinity"``."""
    key = (message.DESCRIPTOR.full_name, proto_names)
    try:
        plan = _plans[key]
    except KeyError:  # the first message of its type
        plan = _plans[key] = _make_plan(message.DESCRIPTOR, proto_names)
    if plan is None:
        whole: JSONObject = json_format.MessageToDict(
            message, preserving_proto_field_name=proto_names, always_print_fields_with_no_presence=True
        )
        _whole(whole)  # in place
        return whole
    defaults, fields = plan
    out: JSONObject = {}
    # ListFields (in C) gives just the fields that are set, in field-number order; the others follow at their
    # defaults (json_format's order, so the objects read the same).
    for field, value in message.ListFields():
        name, repeated, write = fields[field]
        if write is None:
            out[name] = list(value) if repeated else value
        elif repeated:
            out[name] = [write(item) for item in value]
        else:
            out[name] = write(value)
    if len(out) < len(fields):
        for name, default, repeated in defaults:
            if name not in out:
                out[name] = [] if repeated else default
    return out


# A whole double is written as an integer (``8``, not ``8.0``): the same JSON number, as every other proto3
# JSON writer and JavaScript write it. Beyond 2**53 a double is no longer exact, so it stays a float.
_EXACT = 2.0**53


def _double(value: float) -> float | int | str:
    if math.isfinite(value):
        return int(value) if value.is_integer() and abs(value) <= _EXACT else value
    return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"


def _well_known(value: Message) -> JSON:
    """A well-known type's own JSON form (a ``Value``'s, a ``Struct``'s), its whole numbers as integers."""
    return _whole(json_format.MessageToDict(value))


def _whole(out: JSON) -> JSON:
    """``json_format``'s output with every whole double an integer (``_double``): its dicts and lists changed in
    place."""
    if isinstance(out, float):
        return _double(out)
    stack = [out] if isinstance(out, dict | list) else []
    while stack:  # not recursive: a Struct may nest deep
        holder = stack.pop()
        if isinstance(holder, dict):
            stack += _whole_items(holder, holder.items())
        else:
            stack += _whole_items(holder, enumerate(holder))
    return out


_Key = TypeVar("_Key")
_KeyIn = TypeVar("_KeyIn", contravariant=True)


class _Holder(Protocol[_KeyIn]):
    """A dict of ``json_format``'s output (keys ``str``) or a list (indexes ``int``)."""

    def __setitem__(self, key: _KeyIn, value: JSON, /) -> None: ...


def _whole_items(holder: _Holder[_Key], items: Iterable[tuple[_Key, JSON]]) -> list[dict[str, JSON] | list[JSON]]:
    """Each whole double among ``holder``'s ``items`` made an integer; the dicts and lists among them."""
    inner: list[dict[str, JSON] | list[JSON]] = []
    for key, item in items:
        if isinstance(item, float):
            holder[key] = _double(item)
        elif isinstance(item, dict | list):
            inner.append(item)
    return inner


def _make_plan(descriptor: Descriptor, proto_names: bool) -> _Plan | None:
    defaults: list[tuple[str, Any, bool]] = []
    fields: dict[FieldDescriptor, tuple[str, bool, _Writer]] = {}
    for field in descriptor.fields:
        name = field.name if proto_names else field.json_name
        repeated = field.is_repeated
        write: _Writer
        if field.type in _PLAIN:
            write = None
        elif field.type == FieldDescriptor.TYPE_DOUBLE:
            write = _double
        elif field.type == FieldDescriptor.TYPE_MESSAGE and not field.message_type.GetOptions().map_entry:
            if field.message_type.full_name.startswith("google.protobuf."):
                write = _well_known  # Value, Struct, Timestamp...: each has a JSON form of its own
            else:
                # Planned when first written, not here: a message type may contain itself.
                write = functools.partial(to_dict, proto_names=proto_names)
        else:
            return None
        fields[field] = (name, repeated, write)
        if repeated or not field.has_presence:
            default = _double(field.default_value) if field.type == FieldDescriptor.TYPE_DOUBLE else field.default_value
            defaults.append((name, None if repeated else default, repeated))
    return tuple(defaults), fields


def snake_case(name: str) -> str:
    """A JSON field name as the proto field it stands for (``pieLines`` -> ``pie_lines``)."""
    return "".join("_" + c.lower() if c.isupper() else c for c in name)
