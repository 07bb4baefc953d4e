"""JSON values, the documents the service builds and hands on: a position's or a move's structured form
(``to_fields``), an option's default, a message as its proto3 JSON object, a fitted model's file.

The containers are read-only (``Sequence``, ``Mapping``), so a document may hold the lists and tuples of strings
and numbers an engine already has, as they are, without a copy; ``JSONObject`` is the mutable dict a builder
fills in. A document read back field by field is ``object`` until checked (or a ``TypedDict`` of its shape).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JSON: TypeAlias = "bool | int | float | str | Sequence[JSON] | Mapping[str, JSON] | None"
JSONObject: TypeAlias = "dict[str, JSON]"
