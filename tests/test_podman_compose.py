"""What podman-compose would start from compose.yaml: the real podman-compose (a dev dependency), in
its dry-run mode, against a stand-in ``podman`` that only answers its read-only questions.

Issue 24: podman-compose started one worker where ``deploy.replicas`` said two (it needs ``mode:
replicated``). No container engine runs here, so the commands podman-compose prints are read
instead: the containers it would create, their secret mounts, limits and log options, and the
container ``docker compose run --rm --no-deps bot keys generate``'s podman equivalent would run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Answers podman-compose's read-only questions (version, image inspect, ps, volume/network checks)
#: and records every call; the dry run itself only prints what it would create or run.
_STAND_IN = """#!/bin/sh
echo "$*" >> "{calls}"
case "$1" in
  --version|version) echo "podman version 4.3.1" ;;
  inspect) echo "sha256:0" ;;
  *) echo "[]" ;;
esac
"""
_READ_ONLY = ("--version", "version", "inspect", "ps", "network exists", "volume inspect")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """compose.yaml in a folder of its own, with the secret files scripts/compose-secrets.sh makes."""
    shutil.copy(ROOT / "compose.yaml", tmp_path / "compose.yaml")
    subprocess.run([str(ROOT / "scripts" / "compose-secrets.sh"), str(tmp_path / "secrets")], check=True,
                   capture_output=True, timeout=60)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    podman = bin_dir / "podman"
    podman.write_text(_STAND_IN.format(calls=tmp_path / "calls"), encoding="utf-8")
    podman.chmod(0o755)
    return tmp_path


def _dry_run(project: Path, *args: str) -> list[str]:
    """The podman commands podman-compose would run for ``podman-compose ARGS``."""
    exe = Path(sys.executable).parent / "podman-compose"
    env = {"PATH": f"{project / 'bin'}:/usr/bin:/bin", "HOME": str(project)}
    proc = subprocess.run([str(exe), "--verbose", "--dry-run", *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    calls = (project / "calls").read_text(encoding="utf-8").splitlines()
    assert all(c.startswith(_READ_ONLY) for c in calls), calls  # nothing was created for real
    return [line.split("podman_compose:", 1)[1] for line in proc.stderr.splitlines()
            if re.search(r"podman_compose:podman (create|run) ", line)]


def _names(commands: list[str]) -> list[str]:
    return sorted(m.group(1) for c in commands if (m := re.search(r"--name=(\S+)", c)))


def test_up_starts_two_workers_and_scale_starts_more(project: Path) -> None:
    assert _names(_dry_run(project, "up", "-d")) == ["heyan_bot_1", "heyan_qdrant_1", "heyan_valkey_1",
                                                     "heyan_worker_1", "heyan_worker_2"]
    scaled = _names(_dry_run(project, "up", "-d", "--scale", "worker=4"))
    assert [n for n in scaled if "worker" in n] == [f"heyan_worker_{i}" for i in range(1, 5)]
    assert "heyan_web_1" in _names(_dry_run(project, "--profile", "web", "up", "-d"))


def test_secrets_limits_and_logs_reach_the_containers(project: Path) -> None:
    [bot] = [c for c in _dry_run(project, "up", "-d") if "--name=heyan_bot_1" in c]
    secrets = project / "secrets"
    for name in ("heyan_encryption_keys", "qdrant_api_key", "discord_token", "slack_signing_secret"):
        assert f"--volume {secrets / name}:/run/secrets/{name}:ro" in bot
    assert "-e HEYAN_ENCRYPTION_KEYS_FILE=/run/secrets/heyan_encryption_keys" in bot
    assert "-e HEYAN_ENCRYPTION_KEYS=" not in bot and "-e HEYAN_DISCORD_TOKEN=" not in bot
    assert "-m 1g" in bot and "--cpus 1.0" in bot and "--log-opt=max-size=10m" in bot and "--cap-drop ALL" in bot
    assert "-p 127.0.0.1:3000:3000" in bot and bot.rstrip().endswith("heyan:latest run")


def test_keys_generate_runs_through_the_image_with_nothing_set(project: Path) -> None:
    """``podman-compose run --rm --no-deps bot keys generate``: no key needed to build or run it."""
    [run] = _dry_run(project, "run", "--rm", "--no-deps", "bot", "keys", "generate")
    assert run.startswith("podman run ") and "--rm" in run and run.rstrip().endswith("heyan:latest keys generate")
