"""The search path a levels test runs on (the native kernels, or the Python search: ``native.use_native``), and a
budget that keeps a level quick on either."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service import native
from service.core import Level, Limits


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


def small_limits(level: Level, native_path: bool) -> Limits:
    """A small node budget that keeps a level quick on either path: a few hundred iterations for a Python tree
    search (its iterations cost some thirty-five times the native ones'), 4,000 nodes otherwise."""
    return Limits(max_nodes=300 if tree_search(level) and not native_path else 4_000)


def tree_search(level: Level) -> bool:
    """Whether ``level`` searches with a Monte Carlo tree search (Strands' ``hard`` and the rungs on it)."""
    return "Monte Carlo" in level.description or "tree search" in level.description
