"""m,n,k tic-tac-toe, a sixth game kept outside the service's tree: its rules (``position``, ``notation``,
``game``), levels, drawing, page (``page.md``), win-chance model (``data/``) and registration all live in this
package, which ``GAMERULES_EXTRA_GAMES=tests.tictactoe`` registers (``REGISTRATION``, re-exported here).

``REGISTRATION`` is read on first use (a module ``__getattr__``), and ``service.games`` is imported before
anything else of the package: the registry imports this package to read ``REGISTRATION`` while it is itself
being imported, and the registration needs the registry's ``Registration``. Whichever of the two is imported
first, the registry finds this package importable and ``REGISTRATION`` buildable."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.games.registration import Registration


def __getattr__(name: str) -> Registration:
    if name == "REGISTRATION":
        from tests.tictactoe.registration import REGISTRATION

        return REGISTRATION
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# After ``__getattr__``: the registry, imported here first, asks this half-imported package for REGISTRATION.
import service.games  # noqa: E402, F401

__all__ = ["REGISTRATION"]
