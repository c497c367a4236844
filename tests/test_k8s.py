"""The Kubernetes manifests (deploy/k8s/), validated offline; never applied to a live cluster here.

``kubernetes-validate`` (PyPI, a dev dependency) checks every object against the Kubernetes OpenAPI
schemas bundled in its wheel, strictly (an unknown field is an error), for the oldest and the newest
Kubernetes version it ships; nothing is downloaded. Then the wiring: probes on /healthz at
HEYAN_METRICS_PORT, secrets mounted as files, resource requests and limits, the image's uid.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.deploy_helpers import setting_variables

ROOT = Path(__file__).resolve().parents[1]
K8S = ROOT / "deploy" / "k8s"
#: The oldest and the newest Kubernetes minor versions the validator's wheel carries schemas for.
VERSIONS = (kubernetes_validate.utils.all_versions()[0], kubernetes_validate.utils.latest_version())


def _objects() -> list[tuple[str, dict[str, Any]]]:
    return [(path.name, doc) for path in sorted(K8S.glob("*.yaml"))
            for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def _resources() -> list[tuple[str, dict[str, Any]]]:
    return [(name, doc) for name, doc in _objects() if doc["kind"] != "Kustomization"]


def _deployments() -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for _, doc in _resources() if doc["kind"] == "Deployment"}


@pytest.mark.parametrize("version", VERSIONS)
def test_every_manifest_follows_the_kubernetes_schema(version: str) -> None:
    for name, doc in _resources():
        kubernetes_validate.validate(doc, version, strict=True)  # raises, naming the field, when wrong
        assert name


def test_the_validator_catches_a_wrong_manifest() -> None:
    deployment = _deployments()["heyan-worker"]
    deployment["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["httpGet"]["paht"] = "/healthz"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSIONS[-1], strict=True)


def test_kustomization_lists_every_manifest() -> None:
    [kustomization] = [doc for _, doc in _objects() if doc["kind"] == "Kustomization"]
    assert set(kustomization["resources"]) == {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}


def test_bot_workers_and_web_with_probes_secrets_and_limits() -> None:
    deployments = _deployments()
    assert set(deployments) == {"heyan-bot", "heyan-worker", "heyan-web"}
    args = {name: d["spec"]["template"]["spec"]["containers"][0]["args"][0] for name, d in deployments.items()}
    assert args == {"heyan-bot": "run", "heyan-worker": "worker", "heyan-web": "web"}
    assert deployments["heyan-bot"]["spec"]["strategy"]["type"] == "Recreate"  # one platform connection
    [config] = [doc for _, doc in _resources() if doc["kind"] == "ConfigMap"]
    port = int(config["data"]["HEYAN_METRICS_PORT"])
    for name, d in deployments.items():
        pod = d["spec"]["template"]["spec"]
        [container] = pod["containers"]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports["metrics"] == port, name
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            assert container[probe]["httpGet"] == {"path": "/healthz", "port": "metrics"}, (name, probe)
        assert container["resources"]["requests"] and container["resources"]["limits"]["memory"], name
        assert pod["securityContext"]["runAsUser"] == 10001 and pod["securityContext"]["runAsNonRoot"]
        [secrets] = [v for v in pod["volumes"] if "secret" in v]
        assert secrets["secret"]["secretName"] == "heyan-secrets"
        assert {"name": secrets["name"], "mountPath": "/run/secrets", "readOnly": True} in container["volumeMounts"]
        env = {e["name"]: e["value"] for e in container.get("env", [])} | config["data"]
        assert not any(k in env for k in ("HEYAN_ENCRYPTION_KEYS", "HEYAN_DISCORD_TOKEN", "HEYAN_LLM_API_KEY"))
        files = {k: v for k, v in env.items() if k.endswith("_FILE")}
        assert files and all(v.startswith("/run/secrets/") for v in files.values()), name
    web = deployments["heyan-web"]["spec"]["template"]["spec"]["containers"][0]
    assert {e["name"]: e["value"] for e in web["env"]}["HEYAN_WEB_PORT"] == "8080"


def test_every_variable_is_one_heyan_reads_and_every_secret_file_one_compose_makes() -> None:
    known = setting_variables()
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    names: set[str] = set()
    files: set[str] = set()
    for _, doc in _resources():
        if doc["kind"] == "ConfigMap":
            names.update(doc["data"])
            files.update(v for k, v in doc["data"].items() if k.endswith("_FILE"))
        if doc["kind"] == "Deployment":
            for e in doc["spec"]["template"]["spec"]["containers"][0].get("env", []):
                names.add(e["name"])
                if e["name"].endswith("_FILE"):
                    files.add(e["value"])
    assert sorted(n for n in names if n not in known) == []
    # the secret is made from the compose secrets folder: every file named is one of its keys
    assert {f.removeprefix("/run/secrets/") for f in files} <= set(compose["secrets"])
