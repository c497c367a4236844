"""A number of days is a finite number in range on every surface that takes one: Discord's and
Slack's ``/heyan settings``, and ``heyan tenant`` — "nan", "inf" and "1e999" are refused by name,
nothing is saved and nothing is audited (the API and the web form: tests/web/test_bad_input.py)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from adapters.cli.app import app
from tests.discord_harness import hash_embedder, heyan_on_discord, redis_url
from tests.slack_standin import CAROL, GENERAL
from tests.slack_world import (  # noqa: F401  (fixtures)
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
    texts,
)

__all__ = ["hash_embedder", "redis_url"]

NOT_NUMBERS = ("nan", "inf", "-Infinity", "1e999", "5000")


async def test_discord_settings_refuse_numbers_that_are_not(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        before = await h.rt.tenants.get(h.tenant)
        for days in NOT_NUMBERS:
            for kind in ("emotion", "closed-disputes"):
                refused = await h.run("heyan settings retention", {"kind": kind, "days": days}, user="alice")
                assert "is not a number of days" in refused["content"] and "3650" in refused["content"], days
        assert await h.rt.tenants.get(h.tenant) == before
        assert not [e for e in await h.rt.audit.entries(h.tenant) if e.action == "settings.update"]
        kept = await h.run("heyan settings retention", {"kind": "emotion", "days": "3"}, user="alice")
        assert kept["content"] == "Updated."


async def test_slack_settings_refuse_numbers_that_are_not(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        before = await w.rt.tenants.get(w.tenant)
        for days in NOT_NUMBERS:
            retention = texts(await w.command(CAROL, GENERAL, f"settings retention demand {days}"))
            purge = texts(await w.command(CAROL, GENERAL, f"settings closed-purge {days}"))
            assert "is not a number of days" in retention and "3650" in retention, (days, retention)
            assert "is not a number of days" in purge, (days, purge)
        after = await w.rt.tenants.get(w.tenant)
        audit = [e.action for e in await w.rt.audit.entries(w.tenant)]
    assert after == before and "settings.update" not in audit


def test_tenant_commands_refuse_numbers_that_are_not(tmp_path: Path) -> None:
    env = {"HEYAN_DATA_DIR": str(tmp_path / "data"), "HEYAN_REDIS_URL": "", "HEYAN_QDRANT_URL": ""}
    runner = CliRunner()
    for args in (["set-retention", "console:t", "demand", "nan"], ["set-retention", "console:t", "closed", "inf"],
                 ["set-retention", "console:t", "event", "1e999"], ["set-forgetting", "console:t", "Infinity"],
                 ["set-forgetting", "console:t", "3", "--below", "nan"]):
        out = runner.invoke(app, ["tenant", *args], env=env)
        assert out.exit_code == 2 and "must be a" in out.output, (args, out.output)
    shown = runner.invoke(app, ["tenant", "show", "--json"], env=env)
    assert '"console:t"' not in shown.output  # nothing was saved
