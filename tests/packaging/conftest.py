"""The install tests run the installed packages against the same real server as the transport tests."""

from __future__ import annotations

from tests.api.conftest import grpc_address

__all__ = ["grpc_address"]
