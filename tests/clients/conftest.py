"""The client tests run against the same real servers as the transport tests: an in-process gRPC server on a
loopback port and a real gateway in front of it (``tests/api/conftest.py``)."""

from __future__ import annotations

from tests.api.conftest import gateway_url, grpc_address

__all__ = ["gateway_url", "grpc_address"]
