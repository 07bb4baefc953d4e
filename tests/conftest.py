"""The suite's sixth game: m,n,k tic-tac-toe (``tests/tictactoe/``), registered the way a game kept outside the
service's tree is (``GAMERULES_EXTRA_GAMES``, ``docs/development.md`` "Adding a game"), so every generic test
runs on a game that none of their files names. pytest reads this file before any test module, so the registry
sees the setting when it is first imported; the servers, gateways and commands the tests start inherit it."""

from __future__ import annotations

import os

TEST_GAME = "tests.tictactoe"

_named = [name for name in os.environ.get("GAMERULES_EXTRA_GAMES", "").split(",") if name.strip()]
os.environ["GAMERULES_EXTRA_GAMES"] = ",".join([*_named, TEST_GAME] if TEST_GAME not in _named else _named)
