"""The gateway's configuration (``service/api/rest/gateway_config.py``): every variable read once, in one place,
a malformed one refused naming it, and the value handed to the workers coming back whole."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from service.api.rest import (
    cors,
    gateway,
    gateway_asgi,
    gateway_backends,
    gateway_config,
    gateway_local,
    gateway_pacing,
    gateway_path,
    mapping,
)
from service.api.rest.gateway_config import BackendTls, ConfigError, GatewayConfig


def test_no_variables_give_the_defaults():
    config = GatewayConfig.from_env({})
    assert config == dataclasses.replace(GatewayConfig(), api_keys=config.api_keys)
    assert not config.api_keys and config.tls is None and config.cors_origins == ()
    # Refused best moves held at once: the default unless told; no setting of the old threads given.
    assert config.paced_best_moves == gateway_pacing.DEFAULT_SLOTS
    assert dataclasses.replace(config, waiting_best_moves=0).paced_best_moves == 0
    assert config.ignored() == []
    # An old deployment's explicit zero (the former default of the queue wait) is a value given too.
    given = GatewayConfig.from_env({"GAMERULES_GATEWAY_MAX_QUEUE_WAIT_S": "0"})
    assert given.max_queue_wait_s == 0 and given.ignored() == ["GAMERULES_GATEWAY_MAX_QUEUE_WAIT_S"]


def test_every_variable_is_read(tmp_path):
    pem = {}
    for name in ("ca", "cert", "key"):
        (tmp_path / f"{name}.pem").write_text("-----BEGIN X-----\n-----END X-----\n")
        pem[name] = str(tmp_path / f"{name}.pem")
    environ = {
        "GAMERULES_GRPC_TARGET": "backend:50051",
        "GAMERULES_GRPC_TARGET_CONNECTIONS": "3",
        "GAMERULES_GATEWAY_TIMEOUT_S": "12.5",
        "GAMERULES_GATEWAY_MAX_BODY_BYTES": "4096",
        "GAMERULES_GATEWAY_THREADS": "5",
        "GAMERULES_GATEWAY_WAITING_BEST_MOVES": "0",
        "GAMERULES_GATEWAY_REFUSAL_HOLD_S": "0.25",
        "GAMERULES_GATEWAY_MAX_QUEUE_WAIT_S": "1.5",
        "GAMERULES_GATEWAY_BODY_TIMEOUT_S": "7",
        "GAMERULES_GATEWAY_BODY_CHUNK_TIMEOUT_S": "2",
        "GAMERULES_GATEWAY_MAX_BODIES": "10",
        "GAMERULES_CORS_ORIGINS": " https://a.example/ , http://localhost:3000,",
        "GAMERULES_GRPC_TARGET_CA": pem["ca"],
        "GAMERULES_GRPC_TARGET_CERT": pem["cert"],
        "GAMERULES_GRPC_TARGET_KEY": pem["key"],
        "GAMERULES_API_KEYS": "k1,k2",
    }
    config = GatewayConfig.from_env(environ)
    assert (config.grpc_target, config.connections, config.timeout_s, config.max_body_bytes) == (
        "backend:50051",
        3,
        12.5,
        4096,
    )
    assert (config.threads, config.waiting_best_moves, config.paced_best_moves) == (5, 0, 0)
    assert (config.refusal_hold_s, config.max_queue_wait_s) == (0.25, 1.5)
    # Read and checked, and ignored (the gateway has no request threads): named so that the start warns.
    assert config.ignored() == ["GAMERULES_GATEWAY_THREADS", "GAMERULES_GATEWAY_MAX_QUEUE_WAIT_S"]
    assert config.cors_origins == ("https://a.example", "http://localhost:3000")
    assert config.tls == BackendTls(pem["ca"], pem["cert"], pem["key"])
    assert config.api_keys.accepts("k2") and not config.api_keys.accepts("k3")
    assert config.front() == gateway_config.FrontConfig(max_body=4096, body_s=7, body_chunk_s=2, max_bodies=10)
    # What the server hands its workers comes back the same (the keys travel in their own variables).
    handed = GatewayConfig.from_env({**config.to_env(), "GAMERULES_API_KEYS": "k1,k2"})
    assert handed.api_keys.accepts("k1") and dataclasses.replace(handed, api_keys=config.api_keys) == config


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("GAMERULES_GATEWAY_TIMEOUT_S", "soon", "a number above 0 to 3600"),
        ("GAMERULES_GATEWAY_TIMEOUT_S", "0", "a number above 0 to 3600"),
        ("GAMERULES_GATEWAY_TIMEOUT_S", "nan", "a number"),
        ("GAMERULES_GATEWAY_REFUSAL_HOLD_S", "inf", "a number from 0 to 60"),
        ("GAMERULES_GATEWAY_THREADS", "2.5", "a whole number from 1 to 1024"),
        ("GAMERULES_GRPC_TARGET_CONNECTIONS", "0", "a whole number from 1 to 64"),
        ("GAMERULES_GATEWAY_MAX_BODY_BYTES", "-1", "a whole number from 1024 to"),
    ],
)
def test_a_malformed_variable_is_refused_naming_it(variable, value, expected):
    with pytest.raises(ConfigError, match=variable) as refused:
        GatewayConfig.from_env({variable: value})
    assert expected in str(refused.value)


def test_a_client_certificate_needs_its_key(tmp_path):
    (tmp_path / "c.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    with pytest.raises(ConfigError, match="GAMERULES_GRPC_TARGET_KEY"):
        GatewayConfig.from_env({"GAMERULES_GRPC_TARGET_CERT": str(tmp_path / "c.pem")})


def test_the_gateway_reads_the_environment_only_through_its_config():
    """One room: the gateway's modules other than the config read no variable themselves."""
    for module in (gateway, gateway_asgi, gateway_path, gateway_backends, gateway_local, cors, mapping):
        source = inspect.getsource(module)
        assert "environment.env(" not in source and "os.environ" not in source, module.__name__
