"""TLS (and mutual TLS) on the gRPC server, and API keys on both transports, with certificates made here."""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
import os
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from gamerules.v1 import gamerules_pb2 as pb
from gamerules.v1 import gamerules_pb2_grpc as pb_grpc
from service.api import auth
from service.api.rest.gateway_local import local_client
from service.api.rpc.server import ServerConfig, TlsConfig, create_server
from tests.api.conftest import QUIET, free_port, gateway_command
from tests.api.test_serving import error_reason, legal_moves_request

KEYS = ("first-key-0123456789", "second-key-9876543210")


# --- certificates ------------------------------------------------------------------------------------------


def _certificate(subject: str, key, issuer_name: x509.Name | None, issuer_key, ca: bool) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name or name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
    return builder.sign(issuer_key, hashes.SHA256())


def _write(path: Path, certificate: x509.Certificate, key) -> None:
    path.with_suffix(".crt").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    path.with_suffix(".key").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> Path:
    """A CA, a server certificate for 127.0.0.1 / localhost and a client certificate, both signed by the CA,
    and a client certificate signed by nobody the server trusts."""
    directory = tmp_path_factory.mktemp("pki")
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _certificate("test CA", ca_key, None, ca_key, ca=True)
    _write(directory / "ca", ca, ca_key)
    for name in ("server", "client"):
        key = ec.generate_private_key(ec.SECP256R1())
        _write(directory / name, _certificate(name, key, ca.subject, ca_key, ca=False), key)
    rogue_key = ec.generate_private_key(ec.SECP256R1())
    _write(directory / "rogue", _certificate("rogue", rogue_key, None, rogue_key, ca=False), rogue_key)
    return directory


def _read(path: Path) -> bytes:
    return path.read_bytes()


def tls_channel(port: int, pki: Path, client: str | None = None) -> grpc.Channel:
    credentials = grpc.ssl_channel_credentials(
        root_certificates=_read(pki / "ca.crt"),
        private_key=_read(pki / f"{client}.key") if client else None,
        certificate_chain=_read(pki / f"{client}.crt") if client else None,
    )
    return grpc.secure_channel(f"127.0.0.1:{port}", credentials, options=[("grpc.use_local_subchannel_pool", 1)])


def works(channel: grpc.Channel) -> bool:
    try:
        pb_grpc.GameRulesStub(channel).ListGames(pb.ListGamesRequest(), timeout=5)
        return True
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.UNAVAILABLE, error
        return False


# --- TLS ---------------------------------------------------------------------------------------------------


def test_tls(pki):
    config = ServerConfig(tls=TlsConfig(str(pki / "server.crt"), str(pki / "server.key")))
    running = create_server(config, address="127.0.0.1:0")
    try:
        with tls_channel(running.port, pki) as channel:
            assert works(channel)
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            assert not works(channel)
    finally:
        running.shutdown(0)


def test_mutual_tls_needs_a_client_certificate_the_ca_signed(pki):
    tls = TlsConfig(str(pki / "server.crt"), str(pki / "server.key"), client_ca=str(pki / "ca.crt"))
    running = create_server(ServerConfig(tls=tls), address="127.0.0.1:0")
    try:
        with tls_channel(running.port, pki, client="client") as channel:
            assert works(channel)
        with tls_channel(running.port, pki) as channel:
            assert not works(channel)
        with tls_channel(running.port, pki, client="rogue") as channel:
            assert not works(channel)
    finally:
        running.shutdown(0)


# --- API keys ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def keyed_server() -> Iterator[int]:
    running = create_server(ServerConfig(api_keys=auth.ApiKeys(KEYS)), address="127.0.0.1:0")
    yield running.port
    running.shutdown(0)


def test_grpc_calls_need_a_key(keyed_server):
    with grpc.insecure_channel(f"127.0.0.1:{keyed_server}") as channel:
        stub = pb_grpc.GameRulesStub(channel)
        messages = set()
        for metadata in ([], [("authorization", "Bearer nope")], [("x-api-key", KEYS[0][:-1])], [("x-api-key", "")]):
            with pytest.raises(grpc.RpcError) as refused:
                stub.LegalMoves(legal_moves_request(), timeout=5, metadata=metadata)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert error_reason(refused.value) == ("UNAUTHENTICATED", {})
            messages.add(refused.value.details())
        assert messages == {auth.MESSAGE}, "a missing and a wrong key read the same"
        assert stub.LegalMoves(legal_moves_request(), timeout=5, metadata=[("authorization", f"Bearer {KEYS[1]}")])
        assert stub.LegalMoves(legal_moves_request(), timeout=5, metadata=[("x-api-key", KEYS[0])])
        # Health stays open for probes; reflection and unknown methods are closed like the rest.
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            list(reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as refused:
            channel.unary_unary("/gamerules.v1.GameRules/NoSuchMethod")(b"", timeout=5)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_gateway_needs_a_key_and_passes_it_on(keyed_server, monkeypatch):
    monkeypatch.setenv(auth.ENV_KEYS, ",".join(KEYS))
    client = local_client(f"127.0.0.1:{keyed_server}")
    body = {"position": {"notation": legal_moves_request().position.notation}}
    for headers in ({}, {"Authorization": "Bearer nope"}, {"X-Api-Key": "nope"}, {"Authorization": KEYS[0]}):
        answer = client.post("/v1/games/reversi:legalMoves", json=body, headers=headers)
        assert answer.status_code == 401 and answer.headers["WWW-Authenticate"] == "Bearer"
        assert answer.json["code"] == grpc.StatusCode.UNAUTHENTICATED.value[0]
        assert answer.json["message"] == auth.MESSAGE
        assert answer.json["details"][0]["reason"] == "UNAUTHENTICATED"
    # Unknown paths too: a caller without a key learns nothing about what exists.
    assert client.post("/v1/games/reversi:noSuchMethod", json=body).status_code == 401
    answer = client.post("/v1/games/reversi:legalMoves", json=body, headers={"Authorization": f"Bearer {KEYS[0]}"})
    assert answer.status_code == 200 and answer.json["totalSize"] == 4
    answer = client.post("/v1/games/reversi:legalMoves", json=body, headers={"X-Api-Key": KEYS[1]})
    assert answer.status_code == 200
    for open_path in ("/healthz", "/readyz", "/metrics"):
        assert client.get(open_path).status_code == 200, open_path
    # The OpenAPI document (open too) says every call needs a key; without keys a key is optional.
    assert client.get("/openapi.json").json["security"] == [{"bearer": []}, {"apiKey": []}]


def test_gateway_reaches_a_mutual_tls_backend(pki, monkeypatch):
    tls = TlsConfig(str(pki / "server.crt"), str(pki / "server.key"), client_ca=str(pki / "ca.crt"))
    running = create_server(ServerConfig(tls=tls), address="127.0.0.1:0")
    try:
        monkeypatch.setenv("GAMERULES_GRPC_TARGET_CA", str(pki / "ca.crt"))
        monkeypatch.setenv("GAMERULES_GRPC_TARGET_CERT", str(pki / "client.crt"))
        monkeypatch.setenv("GAMERULES_GRPC_TARGET_KEY", str(pki / "client.key"))
        client = local_client(f"127.0.0.1:{running.port}")
        assert client.get("/v1/games/reversi").status_code == 200
        assert client.get("/readyz").status_code == 200
    finally:
        running.shutdown(0)


def test_gateway_serves_https(pki):
    """The gateway process with its own certificate: HTTPS answers, plain HTTP on the same port does not."""
    port = free_port()
    command = [*gateway_command(port, "127.0.0.1:1"), "--tls-cert", str(pki / "server.crt"), "--tls-key",
               str(pki / "server.key")]  # fmt: skip
    process = subprocess.Popen(command, env={**os.environ, **QUIET}, stderr=subprocess.DEVNULL)
    try:
        context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"https://127.0.0.1:{port}/healthz", timeout=2, context=context) as answer:
                    assert answer.status == 200 and json.loads(answer.read()) == {"status": "ok"}
                    break
            except (urllib.error.URLError, ConnectionError) as error:
                assert time.monotonic() < deadline, error
                time.sleep(0.2)
        with pytest.raises((urllib.error.URLError, ConnectionError, http.client.HTTPException)):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5).read()
    finally:
        process.terminate()
        assert process.wait(timeout=20) == 0


def test_keys_from_a_file_and_the_environment(tmp_path):
    path = tmp_path / "keys"
    path.write_text("# one key per line\nfile-key\n\n  spaced-key  \n")
    keys = auth.load(str(path), {auth.ENV_KEYS: "env-key, other-env-key,"})
    assert len(keys) == 4
    assert all(keys.accepts(key) for key in ("file-key", "spaced-key", "env-key", "other-env-key"))
    assert not any(keys.accepts(key) for key in ("", None, "# one key per line", "file-ke", "file-key "))
    assert not auth.load(None, {}) and not auth.ApiKeys().accepts("")
    assert auth.load(None, {auth.ENV_KEYS_FILE: str(path)}).accepts("file-key")
    lookup = {"authorization": "bearer  tok "}.get
    assert auth.presented_key(lookup) == "tok"
    assert auth.presented_key({"authorization": "Basic xyz", "x-api-key": "k"}.get) == "k"
    assert auth.presented_key({}.get) is None


# --- the metrics' access -------------------------------------------------------------------------------------


def _scrape(url: str, token: str = "", context: ssl.SSLContext | None = None) -> int:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as answer:
            assert b"# HELP" in answer.read()
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_metrics_listener_answers_only_with_its_token_and_over_tls(pki):
    from service.api import metrics

    port = free_port()
    access = metrics.MetricsAccess("scrape-token", str(pki / "server.crt"), str(pki / "server.key"))
    server = metrics.start_metrics_server("127.0.0.1", port, access)
    try:
        context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        url = f"https://127.0.0.1:{port}/metrics"
        assert _scrape(url, "scrape-token", context) == 200
        assert _scrape(url, "", context) == 401 and _scrape(url, "another", context) == 401
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            _scrape(f"http://127.0.0.1:{port}/metrics")  # plain HTTP is no TLS handshake
    finally:
        server.shutdown()
        server.server_close()


def test_an_idle_connection_does_not_hold_up_the_tls_metrics_listener(pki):
    """The TLS handshake happens in each connection's own thread: one that says nothing blocks no scrape."""
    from service.api import metrics

    port = free_port()
    access = metrics.MetricsAccess("", str(pki / "server.crt"), str(pki / "server.key"))
    server = metrics.start_metrics_server("127.0.0.1", port, access)
    try:
        with socket.create_connection(("127.0.0.1", port)):  # connected, silent
            context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
            assert _scrape(f"https://127.0.0.1:{port}/metrics", "", context) == 200
    finally:
        server.shutdown()
        server.server_close()


def test_the_metrics_environment_names_the_token_and_its_file(tmp_path):
    from service.api import metrics

    (tmp_path / "token").write_text("from-a-file\n")
    assert metrics.metrics_access({"GAMERULES_METRICS_TOKEN_FILE": str(tmp_path / "token")}).token == "from-a-file"
    assert metrics.metrics_access({"GAMERULES_METRICS_TOKEN": "t"}).allows("Bearer t")
    assert not metrics.metrics_access({"GAMERULES_METRICS_TOKEN": "t"}).allows(None)
    assert metrics.metrics_access({}).allows(None)  # no token: the listener's address is the protection


def test_the_server_binds_its_metrics_to_loopback_unless_told():
    from service.api.rpc import server as server_module

    assert server_module.parse_args([]).metrics_host == "127.0.0.1"
    assert server_module.parse_args(["--metrics-host", "0.0.0.0"]).metrics_host == "0.0.0.0"


def test_the_gateways_metrics_need_the_token_when_one_is_set(grpc_address, monkeypatch):
    monkeypatch.setenv("GAMERULES_METRICS_TOKEN", "scrape-token")
    client = local_client(grpc_address)
    refused = client.get("/metrics")
    assert refused.status_code == 401 and refused.json["details"][0]["reason"] == "METRICS_TOKEN"
    assert client.get("/metrics", headers={"Authorization": "Bearer scrape-token"}).status_code == 200
    monkeypatch.delenv("GAMERULES_METRICS_TOKEN")
    assert local_client(grpc_address, client="127.0.0.1").get("/metrics").status_code == 200
    assert local_client(grpc_address, client="10.1.2.3").get("/metrics").status_code == 401  # not loopback
