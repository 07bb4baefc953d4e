"""The search path a levels test runs on: the native kernels, or the Python search (``native.use_native``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service import native


def on_path(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Switch the search to the requested path for one test, and back after it."""
    previous = native.use_native(request.param)
    try:
        yield request.param
    finally:
        native.use_native(previous)


@pytest.fixture(params=[True, False], ids=["native", "python"])
def path(request: pytest.FixtureRequest) -> Iterator[bool]:
    yield from on_path(request)
