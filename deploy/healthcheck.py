"""The container's HEALTHCHECK: exit 0 when the role running here is healthy, 1 otherwise.

The image runs either role, so this asks the gRPC health service on ``GAMERULES_GRPC_PORT`` (the server:
SERVING for ``gamerules.v1.GameRules``) and, when nothing answers there, the gateway's ``/healthz`` on
``GAMERULES_HTTP_PORT`` (8080; release 0.1.0's ``GAMERULES_GATEWAY_BIND`` still counts). Kubernetes does not
use this: its probes are in the manifests.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

SERVICE = "gamerules.v1.GameRules"
TIMEOUT_S = 3.0


def grpc_status(port: str) -> bool | None:
    """True/False for SERVING or not; None when no gRPC server listens on the port."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=SERVICE), timeout=TIMEOUT_S
            )
        except grpc.RpcError as error:
            return None if error.code() == grpc.StatusCode.UNAVAILABLE else False  # type: ignore[attr-defined]
    return answer.status == health_pb2.HealthCheckResponse.SERVING


def http_ok(port: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=TIMEOUT_S) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def main() -> int:
    grpc_port = os.environ.get("GAMERULES_GRPC_PORT") or "50051"
    old_bind = os.environ.get("GAMERULES_GATEWAY_BIND") or ":8080"  # deprecated: read as the gateway reads it
    http_port = os.environ.get("GAMERULES_HTTP_PORT") or old_bind.rsplit(":", 1)[-1]
    serving = grpc_status(grpc_port)
    if serving is None:
        serving = http_ok(http_port)
    return 0 if serving else 1


if __name__ == "__main__":
    sys.exit(main())
