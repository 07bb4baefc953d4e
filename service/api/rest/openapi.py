"""The OpenAPI 3.1 document of the REST gateway, generated at run time from the proto descriptors.

The paths and schemas come from the protos: every ``google.api.http`` rule of the GameRules service becomes a
path (``/v1/{game=games/*}:newGame`` is written ``/v1/games/{game}:newGame``, the variable's ``*`` becoming
the path parameter), every message reachable from the service becomes a schema under ``components``, in the
proto3 JSON mapping the gateway speaks (lowerCamelCase names, 64-bit integers as strings, ``Struct`` and
``Value`` free-form, ``Any`` as an object with ``@type``, unknown fields refused). ``required`` comes from the
fields' ``google.api.field_behavior`` (REQUIRED, which the servicer enforces; OUTPUT_ONLY is ``readOnly``) and,
in messages only answers carry, from what the servicer always fills. Descriptions come from the proto comments
when the descriptor set with source info that ``make proto`` writes next to the generated code
(``service/gen/gamerules.binpb``) is there; without it the document is the same less the prose.

What the protos cannot say is added here, each from its one source: the closed word sets as enums
(``service/core/values.py``), ranges and lengths (the servicer's limits), a position or move as ``oneOf`` its
notation or a game's structured form, the recorded examples (``service/api/rest/examples.py``), each error status
grpc-gateway's mapping can give with its ``google.rpc.Status`` body and headers, the API-key schemes of
``service/api/auth.py``, and ``servers``.

The schemas describe the canonical JSON, which is what responses carry; requests may also use the original
snake_case names, as proto3 JSON allows (but not its ``null`` for "unset", nor 32-bit integers in quotes).
A GET rule's request fields not bound by the path are its query parameters (dotted paths of the scalar
fields, lowerCamelCase; the structured alternatives inside a oneof are left out). A method answering
``google.api.HttpBody`` answers bytes of the type it names; a server-streaming method answers
newline-delimited JSON (``{"result": message}`` or ``{"error": Status}`` a line) or Server-Sent Events.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from google.api import annotations_pb2, field_behavior_pb2
from google.protobuf import descriptor, descriptor_pb2
from google.rpc import error_details_pb2, status_pb2

from gamerules.v1 import gamerules_pb2 as pb
from service.api.limits import (
    MAX_ARROW_CHARS,
    MAX_ARROWS,
    MAX_BATCH,
    MAX_IMAGE_SIZE,
    MAX_LAST_MOVE_CHARS,
    MAX_LEVEL_CHARS,
    MAX_MOVES_PER_CALL,
    MAX_NOTATION,
    MAX_PAGE_TOKEN_CHARS,
    MAX_QUERY_CHARS,
    MAX_RATING,
    MAX_SEED_CHARS,
    MAX_TOP_N,
    MIN_IMAGE_SIZE,
    MIN_RATING,
)
from service.api.required import behaviors
from service.api.rest import examples
from service.api.rest.mapping import Answer, json_answer
from service.api.version import VERSION
from service.core.jsonvalue import JSON, JSONObject
from service.core.values import EVENT_TYPES, OPTION_TYPES, PURPOSES, RENDER_THEMES, RESULT_REASONS, STOP_REASONS

if TYPE_CHECKING:
    from service.games import Registration

SERVICE = pb.DESCRIPTOR.services_by_name["GameRules"]
OPENAPI_VERSION = "3.1.0"
# Made by the Makefile's protoc call with --include_source_info: the proto comments.
DESCRIPTOR_SET = Path(pb.__file__).resolve().parents[2] / "gamerules.binpb"
_STATUS = "google.rpc.Status"
# Error details the service sends inside Status.details; listed so clients can see their shape.
_ERROR_DETAILS = (
    error_details_pb2.ErrorInfo.DESCRIPTOR,
    error_details_pb2.BadRequest.DESCRIPTOR,
    error_details_pb2.PreconditionFailure.DESCRIPTOR,
)

_STRUCT = "google.protobuf.Struct"  # the generic structured form's type


def _outside_games() -> tuple[Registration, ...]:
    """The registrations of games from outside the service's tree (``GAMERULES_EXTRA_GAMES``, read by
    ``service/games/__init__.py``); none, and no engine loaded, when the setting is not given."""
    if not os.environ.get("GAMERULES_EXTRA_GAMES"):
        return ()
    from service.games import BUILT_IN, REGISTRATIONS  # late: the engines load only when asked for

    return REGISTRATIONS[len(BUILT_IN) :]


def game_ids() -> list[str]:
    """The game ids, from the ``game`` oneof of ``Position`` (one field per game, named after its id, besides the
    generic ``fields``): the gateway serves the document without loading any engine, unless games from outside
    the service's tree are registered, whose ids only their registrations know."""
    forms = pb.Position.DESCRIPTOR.oneofs_by_name["game"].fields
    ids = [field.name.replace("_", "-") for field in forms if field.message_type.full_name != _STRUCT]
    return sorted(ids + [registration.id for registration in _outside_games()])


def result_reasons() -> list[str]:
    """Score's ``reason`` words: the shared vocabulary, then those a game from outside the tree adds."""
    reasons = list(RESULT_REASONS)
    for registration in _outside_games():
        reasons += [reason for reason in registration.game.result_reasons if reason not in reasons]
    return reasons


# Messages given as their notation or their structured form (see _Builder._alternatives).
NOTATION_OR_STRUCTURED = frozenset({"gamerules.v1.Position", "gamerules.v1.Move"})
_SEAT: JSONObject = {"minimum": 1, "maximum": 2}
# What the proto types cannot say: closed string sets (enums; the tuples in service/core/values.py are their one
# source), ranges and lengths (the limits the servicer enforces, by its own constants). By field full name; for
# a repeated field, the array keywords apply to the array, the others to its items.
FIELD_SCHEMAS: dict[str, JSONObject] = {
    "gamerules.v1.Event.type": {"enum": list(EVENT_TYPES)},
    "gamerules.v1.Event.seat": {"minimum": 0, "maximum": 2},
    "gamerules.v1.ScoreResponse.reason": {"enum": ["", *result_reasons()]},
    "gamerules.v1.ScoreResponse.winner": _SEAT,
    "gamerules.v1.BestMoveResponse.stop_reason": {"enum": list(STOP_REASONS)},
    "gamerules.v1.GameOption.type": {"enum": list(OPTION_TYPES)},
    "gamerules.v1.GroupSizes.seat": _SEAT,
    "gamerules.v1.NewGameResponse.to_move": _SEAT,
    "gamerules.v1.LegalMovesResponse.to_move": _SEAT,
    "gamerules.v1.ApplyMoveResponse.to_move": _SEAT,
    "gamerules.v1.ApplyMovesResponse.to_move": _SEAT,
    "gamerules.v1.ScoreResponse.to_move": _SEAT,
    "gamerules.v1.Position.notation": {"maxLength": MAX_NOTATION},
    "gamerules.v1.Move.notation": {"maxLength": MAX_NOTATION},
    "gamerules.v1.NewGameRequest.seed": {"maxLength": MAX_SEED_CHARS},
    "gamerules.v1.LegalMovesRequest.page_size": {"minimum": 0},
    "gamerules.v1.LegalMovesRequest.page_token": {"maxLength": MAX_PAGE_TOKEN_CHARS},
    "gamerules.v1.ApplyMovesRequest.moves": {"maxItems": MAX_MOVES_PER_CALL},
    "gamerules.v1.BatchScoreRequest.positions": {"maxItems": MAX_BATCH},
    "gamerules.v1.BestMoveRequest.level": {"maxLength": MAX_LEVEL_CHARS},
    "gamerules.v1.BestMoveRequest.seed": {"maxLength": MAX_SEED_CHARS},
    "gamerules.v1.BestMoveRequest.top_n": {"minimum": 0, "maximum": MAX_TOP_N},
    "gamerules.v1.BestMoveRequest.purpose": {"enum": ["", *PURPOSES]},
    "gamerules.v1.BestMoveRequest.rating": {"minimum": MIN_RATING, "maximum": MAX_RATING},
    "gamerules.v1.AnalyzePositionRequest.level": {"maxLength": MAX_LEVEL_CHARS},
    "gamerules.v1.AnalyzePositionRequest.seed": {"maxLength": MAX_SEED_CHARS},
    "gamerules.v1.AnalyzePositionRequest.top_n": {"minimum": 0, "maximum": MAX_TOP_N},
    "gamerules.v1.AnalyzePositionRequest.purpose": {"enum": ["", *PURPOSES]},
    "gamerules.v1.AnalyzePositionRequest.rating": {"minimum": MIN_RATING, "maximum": MAX_RATING},
    "gamerules.v1.GameLevel.think_ms": {"minimum": 0},
    "gamerules.v1.GameLevel.rung": {"minimum": 0},
    "gamerules.v1.ReviewGameRequest.moves": {"minItems": 1, "maxItems": MAX_MOVES_PER_CALL},
    "gamerules.v1.ReviewGameRequest.level": {"maxLength": MAX_LEVEL_CHARS},
    "gamerules.v1.ReviewGameRequest.seed": {"maxLength": MAX_SEED_CHARS},
    # 0 is the default width; else MIN_IMAGE_SIZE..MAX_IMAGE_SIZE pixels.
    "gamerules.v1.RenderPositionRequest.size": {
        "minimum": 0,
        "maximum": MAX_IMAGE_SIZE,
        "not": {"minimum": 1, "maximum": MIN_IMAGE_SIZE - 1},
    },
    "gamerules.v1.RenderPositionRequest.last_move": {"maxLength": MAX_LAST_MOVE_CHARS},
    "gamerules.v1.RenderPositionRequest.arrows": {"maxItems": MAX_ARROWS, "maxLength": MAX_ARROW_CHARS},
    "gamerules.v1.RenderPositionRequest.theme": {"enum": ["", *RENDER_THEMES]},
    "gamerules.v1.SearchLimits.max_time_ms": {"minimum": 0},
    "gamerules.v1.SearchLimits.max_depth": {"minimum": 0},
    "gamerules.v1.SearchLimits.max_nodes": {"minimum": 0},
}
_ARRAY_KEYWORDS = frozenset({"minItems", "maxItems", "uniqueItems"})

_INT32: JSONObject = {"type": "integer", "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}
_UINT32: JSONObject = {"type": "integer", "format": "int64", "minimum": 0, "maximum": 2**32 - 1}
_INT64: JSONObject = {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"}
_UINT64: JSONObject = {"type": "string", "format": "uint64", "pattern": "^[0-9]+$"}
_FD = descriptor.FieldDescriptor
_SCALARS: dict[int, JSONObject] = {
    _FD.TYPE_INT32: _INT32,
    _FD.TYPE_SINT32: _INT32,
    _FD.TYPE_SFIXED32: _INT32,
    _FD.TYPE_UINT32: _UINT32,
    _FD.TYPE_FIXED32: _UINT32,
    _FD.TYPE_INT64: _INT64,
    _FD.TYPE_SINT64: _INT64,
    _FD.TYPE_SFIXED64: _INT64,
    _FD.TYPE_UINT64: _UINT64,
    _FD.TYPE_FIXED64: _UINT64,
    _FD.TYPE_DOUBLE: {"type": "number", "format": "double"},
    _FD.TYPE_FLOAT: {"type": "number", "format": "float"},
    _FD.TYPE_BOOL: {"type": "boolean"},
    _FD.TYPE_STRING: {"type": "string"},
    _FD.TYPE_BYTES: {"type": "string", "format": "byte", "contentEncoding": "base64"},
}
# Well-known types have their own JSON forms (the proto3 JSON mapping).
_WELL_KNOWN: dict[str, JSONObject] = {
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True, "description": "Any JSON object."},
    "google.protobuf.Value": {"description": "Any JSON value."},
    "google.protobuf.ListValue": {"type": "array", "items": {}, "description": "Any JSON array."},
    "google.protobuf.Any": {
        "type": "object",
        "properties": {"@type": {"type": "string", "description": "type.googleapis.com/ and the message's full name."}},
        "required": ["@type"],
        "additionalProperties": True,
        "description": "A message of the type named by @type, its fields beside @type.",
    },
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]{1,9})?s$", "examples": ["1.5s"]},
    "google.protobuf.FieldMask": {"type": "string", "description": "Comma-separated lowerCamelCase field paths."},
    "google.protobuf.Empty": {"type": "object"},
    "google.protobuf.DoubleValue": {"type": "number", "format": "double"},
    "google.protobuf.FloatValue": {"type": "number", "format": "float"},
    "google.protobuf.Int64Value": _INT64,
    "google.protobuf.UInt64Value": _UINT64,
    "google.protobuf.Int32Value": _INT32,
    "google.protobuf.UInt32Value": _UINT32,
    "google.protobuf.BoolValue": {"type": "boolean"},
    "google.protobuf.StringValue": {"type": "string"},
    "google.protobuf.BytesValue": _SCALARS[_FD.TYPE_BYTES],
}


def _ref(name: str) -> JSONObject:
    return {"$ref": f"#/components/schemas/{name}"}


def _name_message(
    names: dict[tuple[int, ...], str], message: descriptor_pb2.DescriptorProto, path: tuple[int, ...], scope: str
) -> None:
    """Record the full names of a message, its fields, nested messages and enums by source path."""
    name = f"{scope}.{message.name}"
    names[path] = name
    for i, field in enumerate(message.field):
        names[(*path, 2, i)] = f"{name}.{field.name}"
    for i, nested in enumerate(message.nested_type):
        _name_message(names, nested, (*path, 3, i), name)
    for i, enum in enumerate(message.enum_type):
        _name_enum(names, enum, (*path, 4, i), name)


def _name_enum(
    names: dict[tuple[int, ...], str], enum: descriptor_pb2.EnumDescriptorProto, path: tuple[int, ...], scope: str
) -> None:
    names[path] = f"{scope}.{enum.name}"
    for i, value in enumerate(enum.value):
        names[(*path, 2, i)] = f"{scope}.{enum.name}.{value.name}"


def _comments() -> dict[str, str]:
    """Leading comments by element full name (``gamerules.v1.Position``, ``gamerules.v1.Position.notation``,
    ``gamerules.v1.GameRules.NewGame``) from the descriptor set with source info, if it was generated.
    Source paths are field numbers of descriptor.proto: 4 message_type, 5 enum_type, 6 service; in a
    message 2 field, 3 nested_type, 4 enum_type; in a service 2 method; in an enum 2 value."""
    try:
        files = descriptor_pb2.FileDescriptorSet.FromString(DESCRIPTOR_SET.read_bytes())
    except (OSError, ValueError):
        return {}
    found: dict[str, str] = {}
    for file in files.file:
        names: dict[tuple[int, ...], str] = {}
        for i, message in enumerate(file.message_type):
            _name_message(names, message, (4, i), file.package)
        for i, enum in enumerate(file.enum_type):
            _name_enum(names, enum, (5, i), file.package)
        for i, service in enumerate(file.service):
            names[(6, i)] = f"{file.package}.{service.name}"
            for j, method in enumerate(service.method):
                names[(6, i, 2, j)] = f"{file.package}.{service.name}.{method.name}"
        for location in file.source_code_info.location:
            name = names.get(tuple(location.path))
            text = "\n".join(line.removeprefix(" ") for line in location.leading_comments.strip("\n").split("\n"))
            if name and text.strip():
                found[name] = text.strip()
    return found


class _Builder:
    """Collects the component schemas while walking the messages the service uses.

    ``outputs`` are the messages only answers carry: the servicer sets every field of theirs but the
    ``optional`` ones, and the gateway writes fields without presence even at their defaults, so the rest
    are ``required`` there. In messages requests use,
    ``required`` lists the REQUIRED fields (``google.api.field_behavior``), which the servicer enforces."""

    def __init__(self, comments: dict[str, str], outputs: frozenset[str]) -> None:
        self.comments = comments
        self.outputs = outputs
        self.schemas: dict[str, JSONObject] = {}

    def _described(self, schema: JSONObject, full_name: str) -> JSONObject:
        text = self.comments.get(full_name)
        return {**schema, "description": text} if text else schema

    def _description(self, full_name: str) -> str:
        """The description ``_described`` gives a schema of ``full_name``, "" for none."""
        return self.comments.get(full_name) or ""

    def message(self, message: descriptor.Descriptor) -> JSONObject:
        """A ``$ref`` to the message's schema, adding it (and what it uses) to the components."""
        name = message.full_name
        if name not in self.schemas:
            if name in _WELL_KNOWN:
                self.schemas[name] = dict(_WELL_KNOWN[name])
            else:
                self.schemas[name] = {}  # placeholder: recursive messages refer to themselves
                self.schemas[name] = self.object_schema(message)
        return _ref(name)

    def object_schema(self, message: descriptor.Descriptor, exclude: frozenset[str] = frozenset()) -> JSONObject:
        if message.full_name in NOTATION_OR_STRUCTURED:
            return self._alternatives(message)
        fields = [field for field in message.fields if field.name not in exclude]
        properties = {field.json_name: self.field(field) for field in fields}
        # The gateway's JSON parser refuses unknown fields.
        schema: JSONObject = {"type": "object", "properties": properties, "additionalProperties": False}
        required = [field.json_name for field in fields if self._required(message, field)]
        if required:
            schema["required"] = required
        schema = self._described(schema, message.full_name)
        real_oneofs = [o for o in message.oneofs if not (len(o.fields) == 1 and o.name == "_" + o.fields[0].name)]
        notes = [
            f"At most one of {', '.join(f'`{f.json_name}`' for f in oneof.fields)} (oneof `{oneof.name}`)."
            for oneof in real_oneofs
        ]
        if notes:
            schema["description"] = "\n\n".join([self._description(message.full_name), *notes]).strip()
        return schema

    def _required(self, message: descriptor.Descriptor, field: descriptor.FieldDescriptor) -> bool:
        if field_behavior_pb2.REQUIRED in behaviors(field):
            return True
        # The servicer fills every field of an answer but the `optional` ones (and any oneof's).
        return message.full_name in self.outputs and field.containing_oneof is None

    def _alternatives(self, message: descriptor.Descriptor) -> JSONObject:
        """Position and Move: the notation alone, or one game's structured form with the notation optional
        (both given must agree). Answers carry both, so each matches its game's branch: exactly one."""
        notation = message.fields_by_name["notation"]
        forms = message.oneofs_by_name["game"].fields
        # The structured forms come first: a client trying the branches in order must not read an answer
        # (which carries both) as the notation alone.
        branches: list[JSONObject] = []
        for form in forms:
            branches.append(
                {
                    "title": f"{message.name} as {form.json_name}",
                    "type": "object",
                    "properties": {notation.json_name: self.field(notation), form.json_name: self.field(form)},
                    "required": [form.json_name],
                    "additionalProperties": False,
                }
            )
        branches.append(
            {
                "title": f"{message.name} by notation",
                "type": "object",
                "properties": {notation.json_name: self.field(notation)},
                "required": [notation.json_name],
                "additionalProperties": False,
            }
        )
        # Each branch is a component of its own (code generators name a type after it).
        refs: list[JSONObject] = []
        for branch in branches:
            name = f"{message.full_name}.{str(branch['title']).rsplit(' ', 1)[1]}"
            self.schemas[name] = branch
            refs.append(_ref(name))
        schema = self._described({"type": "object", "oneOf": refs}, message.full_name)
        note = (
            f"One game's structured form ({', '.join(f'`{f.json_name}`' for f in forms)}), optionally with "
            f"`{notation.json_name}` (the two must then agree), or `{notation.json_name}` alone; answers carry "
            "both."
        )
        schema["description"] = "\n\n".join([self._description(message.full_name), note]).strip()
        return schema

    def enum(self, enum: descriptor.EnumDescriptor) -> JSONObject:
        if enum.full_name == "google.protobuf.NullValue":
            return {"type": "null"}
        if enum.full_name not in self.schemas:
            self.schemas[enum.full_name] = self._described(
                {"type": "string", "enum": [value.name for value in enum.values]}, enum.full_name
            )
        return _ref(enum.full_name)

    def field(self, field: descriptor.FieldDescriptor) -> JSONObject:
        items: JSONObject | None = None  # a list's items (a map is a repeated field too, without them)
        if field.type == _FD.TYPE_MESSAGE and field.message_type.GetOptions().map_entry:
            value = self.single(field.message_type.fields_by_name["value"])
            schema: JSONObject = {"type": "object", "additionalProperties": value}
        elif field.is_repeated:
            items = self.single(field)
            schema = {"type": "array", "items": items}
        else:
            schema = self.single(field)
        if field.is_repeated:
            schema.update({k: v for k, v in FIELD_SCHEMAS.get(field.full_name, {}).items() if k in _ARRAY_KEYWORDS})
            if field.full_name in FIELD_SCHEMAS and items is not None and items.keys().isdisjoint({"$ref"}):
                items.update({k: v for k, v in FIELD_SCHEMAS[field.full_name].items() if k not in _ARRAY_KEYWORDS})
        else:
            schema.update(FIELD_SCHEMAS.get(field.full_name, {}))
        if field_behavior_pb2.OUTPUT_ONLY in behaviors(field):
            schema["readOnly"] = True
        text = self.comments.get(field.full_name)
        return {**schema, "description": text} if text else schema  # 3.1 allows siblings of $ref

    def single(self, field: descriptor.FieldDescriptor) -> JSONObject:
        if field.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
            return self.message(field.message_type)
        if field.type == _FD.TYPE_ENUM:
            return self.enum(field.enum_type)
        return dict(_SCALARS[field.type])


def _reachable(roots: list[descriptor.Descriptor]) -> frozenset[str]:
    """The full names of the messages ``roots`` use, themselves included."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        message = stack.pop()
        if message.full_name in seen:
            continue
        seen.add(message.full_name)
        stack.extend(f.message_type for f in message.fields if f.type == _FD.TYPE_MESSAGE)
    return frozenset(seen)


def _path_and_parameters(template: str) -> tuple[str, list[str]]:
    """``/v1/{game=games/*}:newGame`` -> (``/v1/games/{game}:newGame``, ``["game"]``). A variable whose
    pattern is literal segments and one ``*`` keeps the literals in the path; any other pattern becomes one
    parameter for the whole (its value may then hold slashes, sent percent-encoded)."""
    path, fields, done = [], [], 0
    while (start := template.find("{", done)) >= 0:
        end = template.index("}", start)
        field, _, pattern = template[start + 1 : end].partition("=")
        path.append(template[done:start])
        segments = (pattern or "*").split("/")
        if segments.count("*") == 1 and segments[-1] == "*" and "**" not in segments:
            path.append("/".join([*segments[:-1], f"{{{field}}}"]))
        else:
            path.append(f"{{{field}}}")
        fields.append(field)
        done = end + 1
    path.append(template[done:])
    return "".join(path), fields


def _parameter(field: str, template: str) -> JSONObject:
    schema: JSONObject = {"type": "string", "pattern": "^[^/]+$"}
    description = f"The `{field}` of the request (bound from the path `{template}`)."
    if "games/*" in template:
        # The registry is the list of games this build serves (ListGames answers the same).
        schema = {"type": "string", "enum": game_ids()}
        description = "The game id (the `games/{id}` resource name without its prefix)."
    return {"name": field, "in": "path", "required": True, "schema": schema, "description": description}


_HTTP_BODY = "google.api.HttpBody"
# What each method answering a google.api.HttpBody sends (its proto comment says the same).
_BODY_TYPES = {"RenderPosition": "image/svg+xml"}


def _query_parameters(
    builder: _Builder, message: descriptor.Descriptor, bound: frozenset[str], prefix: str = "", depth: int = 0
) -> list[JSONObject]:
    """The query parameters of a GET rule: every scalar (or repeated scalar) field not bound by the path, by
    its dotted lowerCamelCase path, descending into message fields that are not a oneof's alternatives."""
    found: list[JSONObject] = []
    for field in message.fields:
        if field.name in bound:
            continue
        name = prefix + field.json_name
        if field.type == _FD.TYPE_MESSAGE:
            in_oneof = field.containing_oneof is not None and len(field.containing_oneof.fields) > 1
            if not field.is_repeated and not in_oneof and depth < 3 and field.message_type.full_name not in _WELL_KNOWN:
                found += _query_parameters(builder, field.message_type, frozenset(), name + ".", depth + 1)
            continue
        schema = builder.field(field)
        scalar = schema["items"] if field.is_repeated else schema
        # The gateway reads no longer query value (a URL stays short). A scalar's schema (``_Builder.single``) is
        # an object, its length a number.
        if isinstance(scalar, dict) and scalar.get("type") == "string":
            target: JSONObject = scalar
            length = target.get("maxLength", MAX_QUERY_CHARS)
            target["maxLength"] = min(length, MAX_QUERY_CHARS) if isinstance(length, int) else MAX_QUERY_CHARS
        parameter: JSONObject = {"name": name, "in": "query", "required": False}
        text = schema.pop("description", None)
        if text:
            parameter["description"] = text
        parameter["schema"] = schema
        if field.is_repeated:
            parameter["explode"] = True  # ?arrows=d3&arrows=c5
        found.append(parameter)
    return found


def _answers(builder: _Builder, method: descriptor.MethodDescriptor, answer: JSONObject) -> dict[str, JSONObject]:
    """The 200 response's content, by media type: JSON, a stream of JSON lines or events, or an HttpBody's
    bytes."""
    if method.output_type.full_name == _HTTP_BODY:
        kind = _BODY_TYPES[method.name]
        return {kind: {"schema": {"type": "string", "description": f"The `{kind}` bytes."}}}
    if method.server_streaming:
        line: JSONObject = {
            "type": "object",
            "properties": {"result": answer, "error": _ref(_STATUS)},
            "description": "One message of the stream, or the error that ended it.",
        }
        events: JSONObject = {
            "schema": {"type": "string", "description": "`event: result` or `event: error`, a line's JSON as data."}
        }
        return {"application/x-ndjson": {"schema": line}, "text/event-stream": events}
    return {"application/json": {"schema": answer}}


# The answers an operation may give besides 200: grpc-gateway v2's HTTP status for each gRPC code the service
# sends (service/api/errors.py), every body a google.rpc.Status. docs/api.md explains each.
_ERRORS: dict[str, tuple[str, str]] = {
    "400": (
        "BadRequest",
        "INVALID_ARGUMENT: malformed input (a missing REQUIRED field, bad JSON, a notation or structured form "
        "the game does not accept, an option out of range), with a `BadRequest` naming the field; or "
        "FAILED_PRECONDITION: a well-formed move the position does not allow, or any move once the game is "
        "over, with a `PreconditionFailure` about it. The `ErrorInfo` reason says which.",
    ),
    "401": ("Unauthenticated", "UNAUTHENTICATED: API keys are configured and the call presented none that is valid."),
    "404": ("NotFound", "NOT_FOUND: no game with that id (`UNKNOWN_GAME`), or no such path."),
    "429": (
        "TooManyRequests",
        "RESOURCE_EXHAUSTED (`OVERLOADED`): the best-move queue is full, or no search slot freed in time for "
        "the call's deadline; the gateway sends it after a short hold of up to `Retry-After`. Retry after the "
        "seconds in the `Retry-After` header.",
    ),
    "500": ("InternalError", "INTERNAL: a failure of the service itself; it has been logged."),
    "503": ("Unavailable", "UNAVAILABLE: the gateway cannot reach the gRPC server. Nothing ran: retrying is safe."),
    "504": (
        "GatewayTimeout",
        "DEADLINE_EXCEEDED: the call's deadline (the `Grpc-Timeout` header, or the gateway's default) passed "
        "before the answer. BestMove answers before its deadline with the best move found so far instead.",
    ),
}
_HEADERS: dict[str, JSONObject] = {
    "401": {
        "WWW-Authenticate": {
            "description": "`Bearer`: how to present a key (when the gateway itself checked it).",
            "schema": {"type": "string"},
        }
    },
    "429": {
        "Retry-After": {
            "description": "Seconds to wait before retrying.",
            "required": True,
            "schema": {"type": "integer", "minimum": 0},
        }
    },
}
_SECURITY_SCHEMES = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "An API key as `Authorization: Bearer KEY` (docs/api.md, keys).",
    },
    "apiKey": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Api-Key",
        "description": "An API key as `X-Api-Key: KEY` (docs/api.md, keys).",
    },
}


def _error_responses() -> JSONObject:
    responses: JSONObject = {}
    for code, (name, text) in _ERRORS.items():
        response: JSONObject = {"description": text, "content": {"application/json": {"schema": _ref(_STATUS)}}}
        if code in _HEADERS:
            response["headers"] = _HEADERS[code]
        responses[name] = response
    return responses


def _with_examples(
    method: str, parameters: list[JSONObject], request: JSONObject | None, answers: dict[str, JSONObject]
) -> None:
    """The recorded real requests and answers of ``method`` (``service/api/rest/examples.py``), one per game,
    added to an operation's ``parameters``, its request body's JSON (``request``, if it takes one) and its 200
    response's content (``answers``)."""
    recorded = examples.for_method(method)
    if not recorded:
        return
    for parameter in parameters:
        parameter["examples"] = {e.name: {"value": e.game} for e in recorded if e.game}
    if request is not None:
        request["examples"] = {e.name: {"summary": e.summary, "value": e.request} for e in recorded}
    if method in examples.STREAMED:  # the stream's last message, as its line reads
        answers["application/x-ndjson"]["examples"] = {
            e.name: {"summary": e.summary, "value": {"result": _last(e.response)}} for e in recorded
        }
        return
    if "application/json" not in answers:  # a stream or an image: no recorded JSON answer to show
        return
    answers["application/json"]["examples"] = {e.name: {"summary": e.summary, "value": e.response} for e in recorded}


def _last(streamed: JSONObject) -> JSON:
    """The last message of a recorded stream's answer (``{"stream": [every message's result]}``)."""
    stream = streamed["stream"]
    if isinstance(stream, str) or not isinstance(stream, Sequence):
        raise ValueError(f"a recorded stream's answer is no list of messages: {stream!r:.100}")
    return stream[-1]


def openapi_document(api_keys: bool = False) -> JSONObject:
    """The OpenAPI 3.1 document of every HTTP rule of the GameRules service. With ``api_keys`` (the gateway
    checks keys) every operation needs one; without, a key is optional."""
    # The document's sections in the order OpenAPI lists them: longer than most functions, read as one.
    comments = _comments()
    rules = [(m, m.GetOptions().Extensions[annotations_pb2.http]) for m in SERVICE.methods]
    rules = [(m, rule) for m, rule in rules if rule.WhichOneof("pattern") not in (None, "custom")]
    inputs = _reachable([m.input_type for m, _ in rules])
    outputs = _reachable([m.output_type for m, _ in rules]) - inputs
    builder = _Builder(comments, outputs)
    builder.message(status_pb2.Status.DESCRIPTOR)
    for detail in _ERROR_DETAILS:
        builder.message(detail)
    paths: dict[str, JSONObject] = {}
    for method, rule in rules:
        verb = rule.WhichOneof("pattern")
        template = getattr(rule, verb)
        path, path_fields = _path_and_parameters(template)
        operation: JSONObject = {
            "operationId": f"{SERVICE.name}_{method.name}",
            "tags": [SERVICE.name],
            "summary": method.name,
        }
        text = comments.get(method.full_name)
        if text:
            operation["description"] = text
        parameters = [_parameter(field, template) for field in path_fields]
        if verb == "get" and not rule.body:
            bound = frozenset(field.split(".")[0] for field in path_fields)
            parameters += _query_parameters(builder, method.input_type, bound)
        if parameters:
            operation["parameters"] = parameters
        request: JSONObject | None = None  # the request body's JSON, for a rule with a body
        if rule.body:
            if rule.body == "*":
                bound = frozenset(field.split(".")[0] for field in path_fields)
                if bound:
                    name = f"{SERVICE.full_name}.{method.name}Body"
                    builder.schemas[name] = builder.object_schema(method.input_type, bound)
                    schema = _ref(name)
                else:
                    schema = builder.message(method.input_type)
            else:
                schema = builder.field(method.input_type.fields_by_name[rule.body])
            # An empty body is the empty message: the gateway accepts it unless the message has REQUIRED fields.
            required = any(
                field_behavior_pb2.REQUIRED in behaviors(field) and field.name not in path_fields
                for field in method.input_type.fields
            )
            request = {"schema": schema}
            operation["requestBody"] = {"required": required, "content": {"application/json": request}}
        answer: JSONObject
        if method.output_type.full_name == _HTTP_BODY:
            answer = {}  # bytes, not a message: _answers describes them
        elif rule.response_body:
            answer = builder.field(method.output_type.fields_by_name[rule.response_body])
        else:
            answer = builder.message(method.output_type)
        answers = _answers(builder, method, answer)
        operation["responses"] = {
            "200": {"description": "OK", "content": answers},
            **{code: {"$ref": f"#/components/responses/{name}"} for code, (name, _) in _ERRORS.items()},
        }
        _with_examples(method.name, parameters, request, answers)
        paths.setdefault(path, {})[verb] = operation
    keys: list[dict[str, list[str]]] = [{name: []} for name in _SECURITY_SCHEMES]
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "gamerules",
            "version": VERSION,  # the release; the contract's major version is the package's, `gamerules.v1`
            "description": (
                (comments.get(SERVICE.full_name, "") + "\n\n").lstrip()
                + "Generated from the protos (package `gamerules.v1`): the JSON is the proto3 JSON mapping. "
                "A `Grpc-Timeout` header (`500m`, `2S`) sets the call's deadline; 429 answers carry "
                "`Retry-After`. docs/api.md is the guide to the API; docs/games/<game-id>.md describes each game."
            ),
        },
        "servers": [
            {"url": "/", "description": "The gateway serving this document."},
            {
                "url": "http://{host}:{port}",
                "description": "A gateway by address (`make run` serves localhost:8080).",
                "variables": {"host": {"default": "localhost"}, "port": {"default": "8080"}},
            },
        ],
        "security": keys if api_keys else [{}, *keys],
        "tags": [{"name": SERVICE.name, "description": f"The {SERVICE.full_name} service."}],
        "paths": paths,
        "components": {
            "schemas": dict(sorted(builder.schemas.items())),
            "responses": _error_responses(),
            "securitySchemes": _SECURITY_SCHEMES,
        },
    }


@functools.cache
def openapi_json(api_keys: bool = False) -> str:
    """The document as JSON text, built once per process."""
    return json.dumps(openapi_document(api_keys), indent=1, sort_keys=False)


@functools.cache
def _encoded(api_keys: bool) -> bytes:
    """The document's UTF-8 bytes, once per process."""
    return openapi_json(api_keys).encode()


@functools.cache
def _gzipped(api_keys: bool) -> bytes:
    """The document gzip-compressed, once per process (``mtime=0``: the same bytes every time)."""
    return gzip.compress(_encoded(api_keys), mtime=0)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (by name or ``*``, at a quality above 0)."""
    qualities: dict[str, float] = {}
    for item in accept_encoding.split(","):
        name, _, parameters = item.partition(";")
        quality = 1.0
        key, _, value = parameters.strip().partition("=")
        if key.strip().lower() == "q":
            try:
                quality = float(value)
            except ValueError:
                quality = 0.0
        qualities[name.strip().lower()] = quality
    return qualities.get("gzip", qualities.get("*", 0.0)) > 0


def serve_openapi(api_keys: bool, accept_encoding: str) -> Answer:
    """The ``/openapi.json`` answer: gzip-compressed for a client that accepts it (the document is large,
    mostly examples, and compresses well)."""
    headers = {"Vary": "Accept-Encoding"}
    if accepts_gzip(accept_encoding):
        return json_answer(200, _gzipped(api_keys), {**headers, "Content-Encoding": "gzip"})
    return json_answer(200, _encoded(api_keys), headers)
