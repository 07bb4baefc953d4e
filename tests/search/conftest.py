"""What the search's tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service import native


@pytest.fixture
def python_search() -> Iterator[None]:
    """The engines' Python twins (no native kernel anywhere below the search): a module's tests take it with
    ``pytestmark = pytest.mark.usefixtures("python_search")``."""
    previous = native.use_native(False)
    try:
        yield
    finally:
        native.use_native(previous)
