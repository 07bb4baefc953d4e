"""Notation helpers: text in, protobuf out, and back.

Every position and move of the API has a one-line notation (``d3``, ``4``, ``a1-b1``, ``e5,f6``, a FEN-like
position line); these build the request messages from it and read it (and the structured form) back::

    position("......../......../......../...WB.../...BW.../......../......../........ 1 black=1")
    move("d3")
    notation(response.position)      # the text again
    fields(response.position)        # {"board": [...], "to_move": 1, "black_seat": 1}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, TypeAlias

from google.protobuf import json_format, struct_pb2

from ._stubs import pb

PositionLike: TypeAlias = str | pb.Position
MoveLike: TypeAlias = str | pb.Move


def game_name(game: str) -> str:
    """``reversi`` or ``games/reversi`` -> ``games/reversi`` (the resource name the API takes)."""
    return game if game.startswith("games/") else f"games/{game}"


def game_id(game: str) -> str:
    """``games/reversi`` or ``reversi`` -> ``reversi``."""
    return game.removeprefix("games/")


def position(value: PositionLike) -> pb.Position:
    """A ``Position`` message from its notation (a message is passed through)."""
    return value if isinstance(value, pb.Position) else pb.Position(notation=value)


def move(value: MoveLike) -> pb.Move:
    """A ``Move`` message from its notation (a message is passed through)."""
    return value if isinstance(value, pb.Move) else pb.Move(notation=value)


def moves(values: Iterable[MoveLike]) -> list[pb.Move]:
    return [move(value) for value in values]


def notation(value: PositionLike | MoveLike) -> str:
    """The notation of a position or move message (a string is passed through)."""
    return value if isinstance(value, str) else value.notation


def fields(value: pb.Position | pb.Move) -> dict[str, Any]:
    """The structured form of a position or move (its game's oneof member) as a dict with the proto field
    names, every field present (defaults included); empty when the message has only a notation."""
    which = value.WhichOneof("game")
    if which is None:
        return {}
    structured: dict[str, Any] = json_format.MessageToDict(
        getattr(value, which), preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return structured


def options(values: Mapping[str, Any] | None) -> struct_pb2.Struct:
    """NewGame options as the ``Struct`` the API takes."""
    struct = struct_pb2.Struct()
    if values:
        struct.update(dict(values))
    return struct


def parse_option(text: str) -> tuple[str, Any]:
    """``size=6`` -> ``("size", 6)``; the value is read as JSON when it is JSON (numbers, true/false, lists),
    else as a string: ``layout=standard``, ``rock_cells=["a1","c3"]``."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"an option is NAME=VALUE, not {text!r}")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value
