"""The native kernels: small C files in this package, compiled by the Makefile into ``service/gen/`` (built
code lives with the generated code) and loaded here with ctypes on first use.

Each kernel has a pure-Python twin it is tested against and that runs when the kernel is not there: no C
compiler when ``make install`` ran, another platform, or ``GAMERULES_NO_NATIVE=1``. A kernel only ever
computes what the Python would, faster; it never reads user input (Python validates, the kernel computes).
The levels (``service/levels``) plug kernels into the search.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

LIBRARY_DIR = Path(__file__).resolve().parent.parent / "gen"  # the Makefile's target directory

_loaded: dict[tuple[str, str], Any] = {}
_wanted = [os.environ.get("GAMERULES_NO_NATIVE", "") in ("", "0")]


def library_path(name: str) -> Path:
    """Where the Makefile puts the kernel ``name`` (``service/native/<name>.c``)."""
    return LIBRARY_DIR / f"{name}.so"


def kernel(name: str, symbol: str, argtypes: Sequence[Any], restype: Any) -> Any | None:
    """The function ``symbol`` of the kernel ``name``, typed; None when it is not built or kernels are turned
    off (``GAMERULES_NO_NATIVE=1``, ``use_native(False)``)."""
    if not _wanted[0]:
        return None
    key = (name, symbol)
    if key not in _loaded:  # two threads racing here load the same library twice: harmless
        try:
            library = ctypes.CDLL(str(library_path(name)))
        except OSError:  # not built, or not loadable here
            _loaded[key] = None
        else:
            function = getattr(library, symbol)
            function.argtypes = tuple(argtypes)
            function.restype = restype
            _loaded[key] = function
    return _loaded[key]


def use_native(enabled: bool) -> bool:
    """Turn every kernel on or off in this process (tests and benchmarks compare both paths); returns the
    previous setting. Turning them on still needs them built."""
    previous = _wanted[0]
    _wanted[0] = enabled
    return previous
