"""Conversion between engines' plain values and protobuf, generic over the registry.

Each game's structured position and move messages are the oneof fields named after the game id
(``dots-and-boxes`` -> ``dots_and_boxes``) of ``Position`` and ``Move``, or their ``fields`` (a JSON object)
for a game without messages of its own; the field names are the keys of the engine's ``to_fields`` /
``move_to_fields`` dicts, so no game needs a codec of its own.
Protobuf is touched here, once per call, and nowhere in the engines.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message

from gamerules.v1 import gamerules_pb2 as pb
from service import core
from service.api import protojson
from service.api.errors import from_rules_error, invalid
from service.api.limits import MAX_NOTATION
from service.api.required import check_required
from service.core.contract import Game, MoveT, PositionT, option_value
from service.core.jsonvalue import JSONObject
from service.levels.driver import GameLevels

# The oneof field of a game the contract has no message of its own for: its engine's fields as a JSON object.
GENERIC = "fields"


def oneof_name(game: Game) -> str:
    """The field of ``Position.game`` and ``Move.game`` holding ``game``'s structured form: the one named after
    its id, or ``fields`` for a game registered from outside the service's tree (``GAMERULES_EXTRA_GAMES``)."""
    own = game.id.replace("-", "_")
    return own if own != GENERIC and own in pb.Position.DESCRIPTOR.fields_by_name else GENERIC


def _fields_of(message: Message) -> JSONObject:
    return protojson.to_dict(message, proto_names=True)


def _checked_notation(text: str, field: str) -> str:
    if len(text) > MAX_NOTATION:
        raise invalid(field, f"notation is {len(text)} characters long; at most {MAX_NOTATION}", "INVALID_NOTATION")
    return text


# --- positions -------------------------------------------------------------------------------------


def decode_position(game: Game, message: pb.Position, field: str = "position") -> core.Position[Any]:
    """The engine position a request names, by notation, structured form, or both (which must agree)."""
    which = message.WhichOneof("game")
    own = oneof_name(game)
    if which is not None and which != own:
        raise invalid(f"{field}.{which}", f"a {which} position was sent to the {game.id} game", "INVALID_POSITION")
    from_text = from_struct = None
    try:
        if message.notation:
            from_text = game.parse_position(_checked_notation(message.notation, f"{field}.notation"))
    except core.RulesError as error:
        raise from_rules_error(error, f"{field}.notation", text=True) from None
    if which is not None:
        check_required(getattr(message, own), f"{field}.{own}")
    try:
        if which is not None:
            from_struct = game.position_from_fields(_fields_of(getattr(message, own)))
    except core.RulesError as error:
        raise from_rules_error(error, f"{field}.{own}") from None
    if from_text is None and from_struct is None:
        raise invalid(field, "a position is required: give its notation or its structured form", "INVALID_POSITION")
    if from_text is not None and from_struct is not None and from_text != from_struct:
        raise invalid(
            field,
            f"notation and {own} describe different positions ({from_struct.to_notation()!r} vs notation)",
            "INVALID_POSITION",
        )
    found = from_text if from_text is not None else from_struct
    assert found is not None  # one of the two was given (checked above)
    return found


def encode_position(game: Game, position: core.Position[MoveT]) -> pb.Position:
    # The message constructor takes the fields dict directly: ten times faster than json_format.ParseDict,
    # which matters when a page holds a thousand moves.
    return pb.Position(notation=position.to_notation(), **{oneof_name(game): position.to_fields()})


# --- moves -----------------------------------------------------------------------------------------


def decode_move(game: Game, position: core.Position[MoveT], message: pb.Move, field: str = "move") -> MoveT:
    which = message.WhichOneof("game")
    own = oneof_name(game)
    if which is not None and which != own:
        raise invalid(f"{field}.{which}", f"a {which} move was sent to the {game.id} game", "INVALID_MOVE")
    from_text = from_struct = None
    try:
        if message.notation:
            from_text = position.parse_move(_checked_notation(message.notation, f"{field}.notation"))
    except core.RulesError as error:
        raise from_rules_error(error, f"{field}.notation", text=True) from None
    if which is not None:
        check_required(getattr(message, own), f"{field}.{own}")
    try:
        if which is not None:
            from_struct = position.move_from_fields(_fields_of(getattr(message, own)))
    except core.RulesError as error:
        raise from_rules_error(error, f"{field}.{own}") from None
    if from_text is not None and from_struct is not None and from_text != from_struct:
        raise invalid(field, f"notation and {own} describe different moves", "INVALID_MOVE")
    move = from_text if from_text is not None else from_struct
    if move is None:
        raise invalid(field, "a move is required: give its notation or its structured form", "INVALID_MOVE")
    return move


def encode_move(game: Game, position: core.Position[MoveT], move: MoveT) -> pb.Move:
    return pb.Move(notation=position.move_notation(move), **{oneof_name(game): position.move_to_fields(move)})


def encode_chance(chance: float) -> float:
    """A win chance as answers carry it: to a hundredth of a percent (the models are not finer)."""
    return round(chance, 4)


def encode_line(game: Game, position: core.Position[MoveT], moves: Sequence[MoveT]) -> list[pb.Move]:
    """A line of moves (a principal variation), each encoded in the position it is played from."""
    encoded = []
    for move in moves:
        if position.outcome() is not None:
            break
        encoded.append(encode_move(game, position, move))
        position = position.play(move)
    return encoded


def encode_event(event: core.Event) -> pb.Event:
    return pb.Event(type=event.type, seat=event.seat, cells=event.cells, count=event.count, detail=event.detail)


# --- game descriptions and options -----------------------------------------------------------------


def encode_limits(limits: core.Limits) -> pb.SearchLimits:
    return pb.SearchLimits(
        max_time_ms=limits.max_time_ms or 0, max_depth=limits.max_depth or 0, max_nodes=limits.max_nodes or 0
    )


def encode_game(game: Game, levels: GameLevels[PositionT, MoveT]) -> pb.Game:
    message = pb.Game(
        name=f"games/{game.id}",
        id=game.id,
        title=game.title,
        description=game.description,
        seat_names=list(game.seat_names),
        default_level=levels.default,
        position_notation=game.position_notation_help,
        move_notation=game.move_notation_help,
    )
    for spec in game.options:
        option = message.options.add(name=spec.name, type=spec.type, description=spec.description)
        option.choices.extend(spec.choices)
        if spec.minimum is not None:
            option.minimum = spec.minimum
        if spec.maximum is not None:
            option.maximum = spec.maximum
        json_format.ParseDict(spec.default, option.default_value)
    rungs = {name: place for place, name in enumerate(levels.ladder, start=1)}
    for level in levels.levels:
        listed = message.levels.add(
            name=level.name,
            description=level.description,
            limits=encode_limits(level.limits),
            think_ms=level.think_ms,
            rung=rungs.get(level.name, 0),
        )
        rating = levels.rating(level.name)
        if rating is not None:  # measured: the old names too, placed on the ladder's scale
            listed.rating, listed.rating_low, listed.rating_high = rating.value, rating.low, rating.high
    return message


def _non_finite(options: struct_pb2.Struct, field: str) -> str:
    """The path of the first NaN or infinite number in ``options`` (nested structs and lists too), or ""."""
    stack = [(f"{field}.{key[:64]}", value) for key, value in options.fields.items()]
    while stack:
        path, value = stack.pop()
        kind = value.WhichOneof("kind")
        if kind == "number_value" and not math.isfinite(value.number_value):
            return path
        if kind == "struct_value":
            stack.extend((f"{path}.{key[:64]}", inner) for key, inner in value.struct_value.fields.items())
        elif kind == "list_value":
            stack.extend((f"{path}[{index}]", inner) for index, inner in enumerate(value.list_value.values))
    return ""


def decode_options(game: Game, options: struct_pb2.Struct, field: str = "options") -> JSONObject:
    """The caller's options, by their JSON names (camelCase or snake_case), checked against the game's specs
    (``Game.checked_options``: names, types, ranges, choices); missing ones take their defaults. How options
    combine is the engine's to check, in ``new_position``."""
    specs = {spec.name: spec for spec in game.options}
    where = _non_finite(options, field)
    if where:  # protobuf's JSON conversion refuses NaN and the infinities; a Struct can carry them
        raise invalid(where, "must be a finite number (NaN and Infinity are no JSON numbers)", "INVALID_OPTION")
    given = json_format.MessageToDict(options)
    if len(given) > len(specs):
        raise invalid(field, f"{len(given)} options given; {game.id} has {len(specs)}", "INVALID_OPTION")
    values = game.default_options()
    for raw_name, value in given.items():
        name = protojson.snake_case(raw_name)
        where = f"{field}.{raw_name[:64]}"
        spec = specs.get(name)
        if spec is None:
            known = ", ".join(specs) or "none"
            raise invalid(where, f"{game.id} has no option {raw_name[:64]!r} (options: {known})", "INVALID_OPTION")
        try:
            values[name] = option_value(spec, value)
        except core.InvalidOption as error:
            raise invalid(where, error.message, "INVALID_OPTION") from None
    return values
