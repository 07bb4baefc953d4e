"""Where a game's measured data lives when the game is kept outside the service's tree: its levels module names
its folder with ``ship``, and ``winchance.path_of`` and ``ladder.path_of`` read ``<folder>/<kind>.json`` from it
(``kind``: ``winchance``, ``ladder``) instead of the service's own ``data/<kind>/<game-id>.json``, so the game's
files stay in its own package."""

from __future__ import annotations

from pathlib import Path

_OWN: dict[str, Path] = {}


def ship(game_id: str, folder: Path) -> None:
    """Read ``game_id``'s data files from ``folder`` (``winchance.json``, ``ladder.json``)."""
    _OWN[game_id] = folder


def own_file(kind: str, game_id: str) -> Path | None:
    """``game_id``'s ``kind`` file in the folder it ships its data in, or None for the service's own games."""
    folder = _OWN.get(game_id)
    return None if folder is None else folder / f"{kind}.json"
