"""m,n,k tic-tac-toe, a sixth game kept outside the service's tree: its rules (``position``, ``notation``,
``game``), levels, drawing, page (``page.md``), win-chance model (``data/``) and registration all live in this
package, which ``GAMERULES_EXTRA_GAMES=tests.tictactoe`` registers (``REGISTRATION``, re-exported here)."""

from __future__ import annotations

from tests.tictactoe.registration import REGISTRATION

__all__ = ["REGISTRATION"]
