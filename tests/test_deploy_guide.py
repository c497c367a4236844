"""docs/DEPLOY.md works as written (issue 24): every command in its shell blocks is checked or run.

Checked for every command: the block is valid shell; a ``heyan`` command (typed directly, or as the
arguments of ``docker run heyan:latest`` / ``docker compose run <service>``) parses against the real
CLI; compose services, profiles, Kubernetes files, scripts and make targets it names exist; the
environment variables and secret files a ``docker run`` line passes are ones Heyan reads and ones it
mounts; every ``HEYAN_*`` variable the guide names anywhere exists. Run for real (marked slow): the
one-process section and the migration, in a sandbox — ``scripts/compose-secrets.sh``, ``keys
generate`` into the secret file, the admin ``memory list`` against the data the container's settings
made, and ``memory migrate --to server`` against a Qdrant served on loopback (tests/qdrant_standin.py)
with the very ``-e``/``-v`` of the guide's ``docker run`` line. No container engine runs here.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from qdrant_client import AsyncQdrantClient
from typer._click import ClickException, Context  # typer vendors its own click
from typer._click import Command as CliCommand
from typer._click.exceptions import UsageError
from typer.main import get_command

from adapters.cli.app import app
from memory.store.crypto import parse_keys
from tests.deploy_guide import GUIDE, Command, ContainerRun, commands, compose_run, docker_run, sections
from tests.deploy_helpers import COMPOSE_ONLY, setting_variables
from tests.qdrant_standin import QdrantStandIn

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
IMAGES = {"heyan:latest", "localhost/heyan:latest"}
HEYAN_SERVICES = {"bot", "worker", "web"}
#: Variables of the build script (scripts/build-image.sh), not of Heyan.
SCRIPT_ONLY = {"HEYAN_MEASURE_REBUILD", "HEYAN_KEEP_ROOTFS", "HEYAN_IMAGE_WORK"}
#: Programs the guide may call besides docker/podman, heyan, kubectl, make and scripts/.
PLAIN = {"mkdir", "chown", "cp", "echo", "git", "true"}
#: The environment the image sets (Dockerfile ENV) that an emulated container starts with.
IMAGE_ENV = {"HEYAN_DATA_DIR": "/data"}


def _heyan(args: list[str]) -> Context:
    """Parse ``heyan ARGS`` down to its command, as the CLI would, without running it."""
    cmd: CliCommand = get_command(app)
    rest = list(args)
    name = "heyan"
    while hasattr(cmd, "commands"):
        at = next((i for i, word in enumerate(rest) if word in cmd.commands), None)
        own, rest = (rest, []) if at is None else (rest[:at], rest[at:])
        if at is None:  # the group itself runs (`heyan web --host ...`): only its own options
            assert getattr(cmd, "invoke_without_command", False), f"heyan {' '.join(args)}: names no command"
            return cmd.make_context(name, own)
        assert not own, f"heyan {' '.join(args)}: {own} before the command"
        name = rest.pop(0)
        cmd = cmd.commands[name]
    return cmd.make_context(name, rest)


def _container_heyan(c: Command) -> tuple[ContainerRun, list[str]] | None:
    """The container and its heyan arguments, for a docker/compose run of the Heyan image."""
    if c.argv[1:2] == ("run",) and c.argv[0] in ("docker", "podman"):
        run = docker_run(c.argv)
        if run.target in IMAGES and run.entrypoint is None:
            return run, run.args or ["run"]
    if c.argv[1:3] == ("compose", "run"):
        run = compose_run(c.argv)
        assert run.target in COMPOSE["services"], c.line
        if run.target in HEYAN_SERVICES:
            return run, run.args or COMPOSE["services"][run.target]["command"]
    return None


def test_every_block_is_valid_shell() -> None:
    blocks = sections()
    assert len(blocks) >= 10
    for title, block in blocks:
        proc = subprocess.run(["bash", "-n"], input=block, capture_output=True, text=True, timeout=30)
        assert proc.returncode == 0, (title, proc.stderr)


def test_every_command_is_one_the_tests_know() -> None:
    for c in commands():
        program = c.argv[0]
        assert program in ("docker", "podman", "heyan", "kubectl", "make") or program in PLAIN or \
            program.startswith("scripts/"), c.line


def test_heyan_commands_parse_against_the_cli() -> None:
    checked = 0
    for c in commands():
        found = _container_heyan(c)
        args = found[1] if found else list(c.argv[1:]) if c.argv[0] == "heyan" else None
        if args is None:
            continue
        try:
            _heyan(args)
        except ClickException as exc:
            pytest.fail(f"DEPLOY.md, {c.section}: `heyan {' '.join(args)}`: {exc.format_message()}")
        checked += 1
    assert checked >= 8


def test_the_cli_check_catches_a_wrong_command() -> None:
    with pytest.raises(UsageError):
        _heyan(["memory", "migrate", "--to", "server", "--fast"])
    with pytest.raises(ClickException):
        _heyan(["memory", "migrate"])  # --to is required


def test_docker_runs_pass_settings_heyan_reads_and_files_they_mount() -> None:
    known = setting_variables()
    secrets = set(COMPOSE["secrets"])
    for c in commands():
        if c.argv[:2] not in (("docker", "run"), ("podman", "run")):
            continue
        run = docker_run(c.argv)
        assert run.target in IMAGES, c.line
        assert sorted(set(run.env) - known) == [], c.line
        for target, source in run.mounts.items():
            assert target == "/data" or target.startswith("/from") or target.startswith("/to") or \
                target.removeprefix("/run/secrets/") in secrets, c.line
            if source.startswith("$PWD/secrets/"):
                assert source.removeprefix("$PWD/secrets/") == target.removeprefix("/run/secrets/"), c.line
        for name, value in run.env.items():
            if name.endswith("_FILE"):
                assert value in run.mounts, f"{name}={value} is not mounted: {c.line}"


def test_compose_commands_name_what_compose_yaml_has() -> None:
    services = set(COMPOSE["services"])
    profiles = {p for s in COMPOSE["services"].values() for p in s.get("profiles", [])}
    for c in commands():
        if c.argv[1:2] != ("compose",):
            continue
        words = list(c.argv[2:])
        if words[:1] == ["--profile"]:
            assert words[1] in profiles, c.line
            words = words[2:]
        sub = words[0]
        assert sub in ("build", "run", "up", "ps", "stop", "start"), c.line
        for i, word in enumerate(words[1:], 1):
            if words[i - 1] == "--scale":
                assert word.split("=")[0] in services, c.line
            elif not word.startswith("-") and sub in ("up", "stop", "start"):
                assert word in services, c.line


def test_files_scripts_and_targets_exist() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    manifests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "deploy" / "k8s").glob("*.yaml"))
    for c in commands():
        program = c.argv[0]
        if program.startswith("scripts/"):
            assert os.access(ROOT / program, os.X_OK), c.line
        elif program == "make":
            assert re.search(rf"^{c.argv[1]}:", makefile, re.M), c.line
        elif program == "kubectl":
            for word in c.argv:
                if word.startswith("deploy/"):
                    assert (ROOT / word).is_dir(), c.line
                if word.startswith("--from-file="):
                    assert word == "--from-file=secrets/", c.line  # the folder scripts/compose-secrets.sh makes
            if "deployment" in c.argv:
                assert f"name: {c.argv[c.argv.index('deployment') + 1]}" in manifests, c.line


def test_every_variable_the_guide_names_exists() -> None:
    known = setting_variables() | COMPOSE_ONLY | SCRIPT_ONLY
    text = GUIDE.read_text(encoding="utf-8")
    named = set(re.findall(r"\bHEYAN_[A-Z0-9_]*(?:[A-Z0-9]|_\*)", text))
    unknown = [n for n in named if not (n in known or (n.endswith("*") and any(k.startswith(n[:-1]) for k in known)))]
    assert sorted(unknown) == []
    for name in ("QDRANT_MEMORY_LIMIT", "VALKEY_MEMORY_LIMIT", "SLACK_HTTP_PUBLISH"):
        assert name in text and name in (ROOT / "compose.yaml").read_text(encoding="utf-8")


# --- the one-process section and the migration, run in a sandbox ---------------------------------


class Sandbox:
    """Runs the guide's commands that work offline: ``$PWD`` is a temporary folder, a Heyan container
    is ``python -m adapters.cli.app`` with the container's environment and its mounts mapped to host paths."""

    def __init__(self, root: Path, qdrant_url: str) -> None:
        self.root, self.qdrant_url = root, qdrant_url
        self.ran: list[str] = []

    def host(self, path: str) -> Path:
        return self.root / path.replace("$PWD/", "")

    def environment(self, run: ContainerRun) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HEYAN_")}
        for name, value in (IMAGE_ENV | run.env).items():
            for target, source in run.mounts.items():
                if value == target or value.startswith(target + "/"):
                    value = str(self.host(source)) + value[len(target):]
            env[name] = value.replace("http://qdrant:6333", self.qdrant_url)
        return env

    async def heyan(self, run: ContainerRun, args: list[str]) -> str:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "adapters.cli.app", *args, env=self.environment(run), cwd=self.root,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 300)
        assert proc.returncode == 0, f"heyan {' '.join(args)}: {err.decode()}"
        self.ran.append(" ".join(args))
        return out.decode()

    async def do(self, c: Command) -> None:
        """Run ``c`` when it can run here; the rest was checked by the tests above."""
        found = _container_heyan(c)
        if found and found[1][:2] in (["keys", "generate"], ["memory", "list"], ["memory", "migrate"]):
            out = await self.heyan(*found)
            if c.stdout_to:
                self.host(c.stdout_to).write_text(out, encoding="utf-8")
        elif c.argv[0] == "scripts/compose-secrets.sh":
            await asyncio.to_thread(subprocess.run, [str(ROOT / c.argv[0]), str(self.root / "secrets")], check=True,
                                    capture_output=True, timeout=60)
            self.ran.append(c.argv[0])
        elif c.argv[:2] == ("mkdir", "-p"):
            self.host(c.argv[2]).mkdir(parents=True, exist_ok=True)
        elif c.argv[0] == "echo" and c.stdout_to:
            self.host(c.stdout_to).write_text("a-token-for-the-test\n", encoding="utf-8")


def _container_started_by(section: str) -> ContainerRun:
    [run] = [docker_run(c.argv) for c in commands() if c.section == section and "-d" in c.argv]
    return run


@pytest.mark.slow
async def test_the_one_process_section_and_the_migration_run_as_written(tmp_path: Path) -> None:
    one_process = "One process (`docker run`)"
    steps = [c for c in commands() if c.section in (one_process, "Upgrades and migrations")]
    async with QdrantStandIn() as qdrant_url:
        box = Sandbox(tmp_path, qdrant_url)
        seeded = False
        for c in steps:
            if c.argv[:2] == ("docker", "stop") and not seeded:
                # what the bot would have stored by now: the guide's container, given a dispute to read
                await box.heyan(_container_started_by(one_process),
                                ["chat", "--script", str(ROOT / "examples" / "dispute_en.jsonl")])
                seeded = True
            await box.do(c)
        parse_keys((tmp_path / "secrets" / "heyan_encryption_keys").read_text().strip())  # a real key
        assert box.ran[:2] == ["scripts/compose-secrets.sh", "keys generate"]
        assert "memory list" in box.ran and "memory migrate --to server" in box.ran
        client = AsyncQdrantClient(url=qdrant_url, check_compatibility=False)
        try:
            moved = (await client.count("heyan_facts")).count
        finally:
            await client.close()
    assert moved > 0  # the memories the container made are on the server now
