"""The Kubernetes manifests: valid against the Kubernetes schemas (kubernetes-validate, strict: unknown fields
fail), and consistent with each other and with the image (selectors, ports, probes, config keys)."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from service.api import callers

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "deploy" / "kubernetes"
# The oldest Kubernetes these manifests are meant for (gRPC probes are GA since 1.27), and the newest schema.
VERSIONS = ("1.29.0", kubernetes_validate.latest_version())


def _documents() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(MANIFESTS.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        found += [(path.name, doc) for doc in yaml.safe_load_all(path.read_text()) if doc]
    return found


DOCUMENTS = _documents()


def _of_kind(kind: str) -> list[dict[str, Any]]:
    return [doc for _, doc in DOCUMENTS if doc["kind"] == kind]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("name", "document"), DOCUMENTS, ids=[f"{n}:{d['kind']}/{d['metadata']['name']}" for n, d in DOCUMENTS]
)
def test_every_manifest_is_valid(name, document, version):
    kubernetes_validate.validate(document, version, strict=True)


def test_the_validator_rejects_mistakes():
    deployment = yaml.safe_load((MANIFESTS / "server.yaml").read_text().split("\n---\n")[0])
    deployment["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["grpcc"] = {"port": 1}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSIONS[-1], strict=True)


def test_kustomization_lists_every_manifest():
    kustomization = yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text())
    files = {path.name for path in MANIFESTS.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == files
    assert [image["name"] for image in kustomization["images"]] == ["gamerules"]


def _container(deployment: dict[str, Any]) -> dict[str, Any]:
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container


def _deployment(component: str) -> dict[str, Any]:
    (found,) = [
        d for d in _of_kind("Deployment") if d["metadata"]["labels"]["app.kubernetes.io/component"] == component
    ]
    return found


def test_the_deployments_run_the_two_roles_of_one_image():
    assert {d["metadata"]["name"] for d in _of_kind("Deployment")} == {"gamerules-server", "gamerules-gateway"}
    for component in ("server", "gateway"):
        deployment = _deployment(component)
        spec = deployment["spec"]
        assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
        container = _container(deployment)
        assert container["image"].split(":")[0] == "gamerules" and container["args"] == [component]
        resources = container["resources"]
        assert {"cpu", "memory"} <= resources["requests"].keys() and {"cpu", "memory"} <= resources["limits"].keys()
        pod = spec["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] and pod["securityContext"]["runAsUser"] == 10001
        assert container["securityContext"]["readOnlyRootFilesystem"]
        assert [m["mountPath"] for m in container["volumeMounts"]] == ["/tmp"]  # metrics files, temp files
        assert container["envFrom"] == [{"configMapRef": {"name": "gamerules-config"}}]
        annotations = spec["template"]["metadata"]["annotations"]
        assert int(annotations["prometheus.io/port"]) in [p["containerPort"] for p in container["ports"]]
        assert pod["terminationGracePeriodSeconds"] > 15 + 5  # the server's grace period and the preStop pause


def test_the_server_is_probed_on_the_grpc_health_service():
    container = _container(_deployment("server"))
    grpc_port = next(p["containerPort"] for p in container["ports"] if p["name"] == "grpc")
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert container[probe]["grpc"]["port"] == grpc_port
    # Ready means GameRules itself is serving (it goes NOT_SERVING while draining on SIGTERM).
    assert container["readinessProbe"]["grpc"]["service"] == "gamerules.v1.GameRules"
    gateway = _container(_deployment("gateway"))
    assert gateway["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert gateway["readinessProbe"]["httpGet"]["path"] == "/readyz"


def test_services_select_pods_and_name_their_ports():
    deployments = _of_kind("Deployment")
    for service in _of_kind("Service"):
        selector = service["spec"]["selector"]
        (target,) = [d for d in deployments if selector.items() <= d["spec"]["template"]["metadata"]["labels"].items()]
        names = {port["name"] for port in _container(target)["ports"]}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in names
    headless = [s for s in _of_kind("Service") if s["spec"].get("clusterIP") == "None"]
    assert [s["metadata"]["name"] for s in headless] == ["gamerules-server-headless"]


def test_the_gateway_reaches_the_server_service():
    config = _of_kind("ConfigMap")[0]["data"]
    host, port = config["GAMERULES_GRPC_TARGET"].rsplit(":", 1)
    (service,) = [s for s in _of_kind("Service") if s["metadata"]["name"] == host]
    assert int(port) in [p["port"] for p in service["spec"]["ports"]]
    bind_port = int(config["GAMERULES_HTTP_PORT"])
    assert bind_port in [p["containerPort"] for p in _container(_deployment("gateway"))["ports"]]
    assert int(config["GAMERULES_GRPC_PORT"]) in [
        p["containerPort"] for p in _container(_deployment("server"))["ports"]
    ]


def test_every_config_key_is_one_the_service_reads():
    config = _of_kind("ConfigMap")[0]["data"]
    sources = "\n".join(path.read_text() for path in (ROOT / "service").rglob("*.py"))
    for key in config:
        assert re.search(rf"[\"']{key}[\"']", sources), f"{key} is read nowhere in service/"
    assert all(isinstance(value, str) for value in config.values())


def test_autoscalers_and_disruption_budgets():
    deployments = {d["metadata"]["name"]: d for d in _of_kind("Deployment")}
    hpas = _of_kind("HorizontalPodAutoscaler")
    assert {h["spec"]["scaleTargetRef"]["name"] for h in hpas} == set(deployments)
    for hpa in hpas:
        assert hpa["spec"]["scaleTargetRef"]["kind"] == "Deployment"
        (metric,) = hpa["spec"]["metrics"]
        assert metric["resource"]["name"] == "cpu" and metric["resource"]["target"]["type"] == "Utilization"
        assert 1 < hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    pdbs = _of_kind("PodDisruptionBudget")
    assert len(pdbs) == 2
    for pdb in pdbs:
        selector = pdb["spec"]["selector"]["matchLabels"]
        matching = [
            d for d in deployments.values() if selector.items() <= d["spec"]["template"]["metadata"]["labels"].items()
        ]
        assert len(matching) == 1
        assert pdb["spec"]["minAvailable"] < matching[0]["spec"]["replicas"]


def test_the_server_trusts_the_gateway_pods_to_name_their_callers():
    """Without it the server takes the gateway pod's address as the caller of every REST call: one share for
    every REST user. The pod network must be among the trusted peers (``service/api/callers.py``)."""
    config = _of_kind("ConfigMap")[0]["data"]
    networks = callers.trusted_networks(config[callers.ENV_TRUSTED_PEERS])
    assert any(ipaddress.ip_address("10.244.1.7") in network for network in networks)  # a typical pod address
