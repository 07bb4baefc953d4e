"""An in-process gRPC server on a free loopback port: the docs tests ask the service itself, as a user would."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.api.rpc.server import ServerConfig, create_server


@pytest.fixture(scope="module")
def stub() -> Iterator[pb_grpc.GameRulesStub]:
    running = create_server(ServerConfig(), address="127.0.0.1:0")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield pb_grpc.GameRulesStub(channel)
    finally:
        running.shutdown(1)
