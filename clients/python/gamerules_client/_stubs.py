"""The generated protobuf and gRPC code the client is built on (package ``gamerules.v1``).

It is generated from ``proto/`` and never committed: in a checkout, ``make install`` (or ``make proto``)
generates it into ``service/gen/`` and puts that on the virtual environment's path. Installing the client
elsewhere, generate it the same way and put the folder on ``PYTHONPATH``.
"""

from __future__ import annotations

try:
    from gamerules.v1 import gamerules_pb2 as pb
    from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
except ImportError as error:  # pragma: no cover - a set-up mistake, said plainly
    raise ImportError(
        "gamerules_client needs the generated gamerules.v1 package: run `make proto` in the gamerules "
        "checkout and put its service/gen folder on PYTHONPATH (make install does both for its .venv)"
    ) from error

SERVICE = pb.DESCRIPTOR.services_by_name["GameRules"].full_name

__all__ = ["SERVICE", "pb", "pb_grpc"]
