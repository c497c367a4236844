"""``heyan web token create|list|revoke`` on the test Redis, and ``heyan web``'s refusals."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from adapters.cli.app import app


def test_token_commands_create_list_and_revoke(redis_url: str, tmp_path: Path) -> None:
    env = {"HEYAN_REDIS_URL": redis_url, "HEYAN_DATA_DIR": str(tmp_path)}
    runner = CliRunner()
    made = runner.invoke(app, ["web", "token", "create", "--tenant", "discord:100", "--label", "export",
                               "--read-only"], env=env)
    assert made.exit_code == 0, made.output
    text = made.stdout.strip().splitlines()[0]
    assert text.startswith("heyan_")
    listed = runner.invoke(app, ["web", "token", "list", "--json"], env=env)
    rows = json.loads(listed.stdout)
    assert [(r["tenant"], r["label"], r["read_only"]) for r in rows] == [("discord:100", "export", True)]
    assert text not in listed.stdout  # never shown again
    token_id = rows[0]["id"]
    assert runner.invoke(app, ["web", "token", "revoke", token_id], env=env).exit_code == 0
    again = runner.invoke(app, ["web", "token", "revoke", token_id], env=env)
    assert again.exit_code == 2 and "no token with the id" in again.stderr
    bad = runner.invoke(app, ["web", "token", "create", "--tenant", "nothing"], env=env)
    assert bad.exit_code == 2 and "discord:<guild id>" in bad.stderr


def test_local_refuses_another_host(tmp_path: Path) -> None:
    refused = CliRunner().invoke(app, ["web", "--local", "--host", "0.0.0.0"], env={"HEYAN_DATA_DIR": str(tmp_path)})
    assert refused.exit_code == 2 and "127.0.0.1 only" in refused.stderr
