"""The compose file, the Prometheus configurations and alert rules, and the Grafana dashboard: they parse, they
agree with each other, and every metric and label they query is one the service exports (promtool is not
available here, so PromQL is checked for the names it uses, not fully parsed)."""

from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.metrics import MetricWrapperBase

from service.api import callers, metrics

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
# The names the dashboards and rules are written against (the design brief's, go-grpc-prometheus's).
EXPECTED = {
    "grpc_server_started_total": {"grpc_type", "grpc_service", "grpc_method"},
    "grpc_server_handled_total": {"grpc_type", "grpc_service", "grpc_method", "grpc_code"},
    "grpc_server_handling_seconds": {"grpc_type", "grpc_service", "grpc_method"},
    "http_requests_total": {"method", "route", "code"},
    "http_request_duration_seconds": {"method", "route"},
    "gamerules_best_move_depth": {"game", "level"},
    "gamerules_best_move_nodes": {"game", "level"},
    "gamerules_best_move_seconds": {"game", "level"},
    "gamerules_best_move_total": {"game", "level", "exact"},
}
# Labels Prometheus adds to every series it scrapes, and the ones our scrape configs add.
TARGET_LABELS = {"job", "instance", "component", "namespace", "pod"}


def _exported() -> dict[str, set[str]]:
    """Every series name the service's metrics module defines, with its labels."""
    found: dict[str, set[str]] = {"up": set()}
    # Module-level metrics, and those kept in a table (the per-worker process_* gauges).
    values = [v for value in vars(metrics).values() for v in (value.values() if isinstance(value, dict) else [value])]
    for value in values:
        if not isinstance(value, MetricWrapperBase):
            continue
        name, labels = value._name, set(value._labelnames)
        if value._type == "counter":
            found[name + "_total"] = labels
        elif value._type == "histogram":
            found[name] = labels
            for suffix in ("_bucket", "_sum", "_count"):
                found[name + suffix] = labels | ({"le"} if suffix == "_bucket" else set())
        else:
            found[name] = labels
    return found


EXPORTED = _exported()
_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset"}


def references(expr: str) -> list[tuple[str, set[str], set[str]]]:
    """(metric, labels matched in its selector, labels of the enclosing by/without clauses) for each metric an
    expression reads."""
    expr = re.sub(r"\[[^\]]*\]", "", expr)  # range selectors: [5m], [$__rate_interval]
    grouped = set()
    for clause in re.findall(r"\b(?:by|without)\s*\(([^)]*)\)", expr):
        grouped |= {label.strip() for label in clause.split(",") if label.strip()}
    expr = re.sub(r"\b(?:by|without)\s*\([^)]*\)", "", expr)
    found = []
    for match in re.finditer(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?", expr):
        name, selector = match.group(1), match.group(2) or ""
        rest = expr[match.end() :].lstrip()
        if name in _KEYWORDS or rest.startswith("(") or re.fullmatch(r"[0-9.e]+", name):
            continue  # a function, a keyword or a number
        if expr[: match.start()].rstrip().endswith(("{", ",")) and not selector:
            continue
        labels = set(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", selector))
        found.append((name, labels, grouped))
    return found


def check_expression(expr: str) -> None:
    refs = references(expr)
    assert refs, f"no metric in {expr!r}"
    names = set()
    for name, labels, _ in refs:
        assert name in EXPORTED, f"{name} is not a metric the service exports ({expr!r})"
        assert labels <= EXPORTED[name] | TARGET_LABELS, f"{name} has no label {labels - EXPORTED[name]}"
        names.add(name)
    for _, _, grouped in refs:
        known = set().union(*(EXPORTED[name] for name in names)) | TARGET_LABELS
        assert grouped <= known, f"grouping by {grouped - known} in {expr!r}"


def test_the_service_exports_the_expected_metrics():
    for name, labels in EXPECTED.items():
        assert EXPORTED.get(name) == labels, name


def test_the_reference_finder():
    refs = references(
        'sum by (le, grpc_method) (rate(grpc_server_handling_seconds_bucket{grpc_method!="X"}[5m])) > 0.5'
    )
    assert refs == [("grpc_server_handling_seconds_bucket", {"grpc_method"}, {"le", "grpc_method"})]
    with pytest.raises(AssertionError):
        check_expression("rate(grpc_server_handled{grpc_code='OK'}[5m])")
    with pytest.raises(AssertionError):
        check_expression('sum by (game) (rate(grpc_server_handled_total{grpc_status="OK"}[5m]))')


# --- compose -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_compose_starts_server_gateway_and_prometheus(compose):
    services = compose["services"]
    assert {"server", "gateway", "prometheus"} <= set(services)
    assert [name for name, service in services.items() if "profiles" not in service] == [
        "server",
        "gateway",
        "prometheus",
    ]
    for role in ("server", "gateway"):
        service = services[role]
        assert service["command"] == [role] and service["image"].startswith("gamerules:")
        build = service["build"]
        assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == (DEPLOY / "Dockerfile").resolve()
    server, gateway = services["server"], services["gateway"]
    assert gateway["environment"]["GAMERULES_GRPC_TARGET"] == f"server:{server['environment']['GAMERULES_GRPC_PORT']}"
    assert gateway["depends_on"]["server"]["condition"] == "service_healthy"
    published = {role: {p.split(":")[1] for p in services[role]["ports"]} for role in ("server", "gateway")}
    assert published["server"] == {
        server["environment"]["GAMERULES_GRPC_PORT"],
        server["environment"]["GAMERULES_METRICS_PORT"],
    }
    assert published["gateway"] == {gateway["environment"]["GAMERULES_HTTP_PORT"]}


def test_compose_mounts_files_that_exist(compose):
    for service in compose["services"].values():
        for volume in service.get("volumes", ()):
            source = volume.split(":")[0]
            assert (DEPLOY / source).exists(), source


def test_prometheus_scrapes_both_roles(compose):
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    assert config["global"]["scrape_interval"]
    for rule_file in config["rule_files"]:
        assert (DEPLOY / "prometheus" / rule_file).exists()
    targets = {t for job in config["scrape_configs"] for group in job["static_configs"] for t in group["targets"]}
    environment = {name: compose["services"][name]["environment"] for name in ("server", "gateway")}
    assert targets == {
        f"server:{environment['server']['GAMERULES_METRICS_PORT']}",
        f"gateway:{environment['gateway']['GAMERULES_HTTP_PORT']}",
    }
    assert all(job["metrics_path"] == "/metrics" for job in config["scrape_configs"])


def test_the_kubernetes_prometheus_config_keeps_the_annotated_pods():
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus-kubernetes.yml").read_text())
    (job,) = config["scrape_configs"]
    assert job["kubernetes_sd_configs"] == [{"role": "pod"}]
    keeps = [rule for rule in job["relabel_configs"] if rule.get("action") == "keep"]
    assert {rule["source_labels"][0] for rule in keeps} == {
        "__meta_kubernetes_pod_label_app_kubernetes_io_name",
        "__meta_kubernetes_pod_annotation_prometheus_io_scrape",
    }
    for rule in job["relabel_configs"]:
        re.compile(rule.get("regex", "(.*)"))


# --- alert rules -------------------------------------------------------------------------------------------


def test_the_alert_rules():
    rules = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    alerts = [rule for group in rules["groups"] for rule in group["rules"]]
    names = [rule["alert"] for rule in alerts]
    assert len(names) == len(set(names)) >= 5
    for rule in alerts:
        assert rule.keys() >= {"alert", "expr", "for", "labels", "annotations"}
        assert re.fullmatch(r"\d+[smh]", rule["for"]) and rule["labels"]["severity"]
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]
        check_expression(rule["expr"])
    text = " ".join(rule["expr"] for rule in alerts)
    # The three kinds the issue asks for: error ratio, latency, saturation.
    assert "grpc_code=~" in text and "histogram_quantile" in text and 'grpc_code="ResourceExhausted"' in text
    codes = set(re.findall(r'grpc_code(?:=~|=)"([^"]+)"', text))
    known = set(metrics.GRPC_CODE_NAMES.values())
    assert {code for group in codes for code in group.split("|")} <= known


# --- the dashboard -----------------------------------------------------------------------------------------


def test_the_grafana_dashboard():
    dashboard = json.loads((DEPLOY / "grafana" / "gamerules-dashboard.json").read_text())
    assert dashboard["uid"] == "gamerules" and dashboard["title"]
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    panels = [panel for panel in dashboard["panels"] if panel["type"] != "row"]
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids)) and len(panels) >= 8
    used = set()
    for panel in panels:
        assert panel["datasource"]["uid"] == "${datasource}" and panel["targets"]
        for target in panel["targets"]:
            expr = target["expr"].replace("$__rate_interval", "5m")
            check_expression(expr)
            used |= {name for name, _, _ in references(expr)}
    for variable in variables.values():
        if variable["type"] == "query":
            check_expression(re.sub(r"label_values\((.*), *\w+\)", r"\1", variable["definition"]))
    # gRPC and game metrics are all on it.
    assert {"grpc_server_handled_total", "grpc_server_handling_seconds_bucket", "gamerules_best_move_total"} <= used
    assert {
        "gamerules_best_move_depth_bucket",
        "gamerules_best_move_nodes_bucket",
        "gamerules_best_move_seconds_bucket",
    } <= used
    assert {"http_requests_total", "http_request_duration_seconds_bucket", "grpc_server_started_total"} <= used


def test_grafana_provisioning():
    source = yaml.safe_load((DEPLOY / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text())
    assert source["datasources"][0]["type"] == "prometheus"
    dashboards = yaml.safe_load((DEPLOY / "grafana" / "provisioning" / "dashboards" / "gamerules.yml").read_text())
    assert dashboards["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"


def test_compose_trusts_the_gateway_to_name_its_callers(compose):
    """The server takes the gateway's ``gamerules-caller`` (each REST user's address) only from a trusted peer:
    the gateway's fixed address on the compose network."""
    gateway = compose["services"]["gateway"]["networks"]["default"]["ipv4_address"]
    subnet = compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    trusted = callers.trusted_networks(compose["services"]["server"]["environment"][callers.ENV_TRUSTED_PEERS])
    assert ipaddress.ip_address(gateway) in ipaddress.ip_network(subnet)
    assert any(ipaddress.ip_address(gateway) in network for network in trusted)
