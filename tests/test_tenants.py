"""Per-tenant settings: each tenant's timezone resolves its due times and renders its reminders and
replies — through the real engine, extraction job (offline rules) and reminder job — and the CLI."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from bot.config.tenants import KEY_PREFIX, TenantConfig, TenantSettingError, TenantSettings
from bot.delivery.reminders import reminder_post
from bot.models import Message
from bot.offline.provider import OfflineProvider
from memory.models import Kind, Scope, utcnow
from tests.clock import JobSchedule
from tests.jobs_helpers import (
    ScriptedProvider,
    Start,
    TimedNotifier,
    feed,
    posted,
    promise,
    remind_id,
    result,
    settings,
    wait_for,
)

pytestmark = pytest.mark.usefixtures("hash_embedder")

SH, NY = "Asia/Shanghai", "America/New_York"


def _at(ts: datetime, zone: str, days: int, hour: int) -> datetime:
    """``days`` after ``ts``'s local date in ``zone``, at ``hour``:00 local."""
    local = ts.astimezone(ZoneInfo(zone))
    day = local.date() + timedelta(days=days)
    return datetime(day.year, day.month, day.day, hour, tzinfo=ZoneInfo(zone))


async def test_config_defaults_overrides_and_validation(tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=ScriptedProvider(), worker=False)
    config = TenantConfig(rt.redis, TenantSettings(timezone="Europe/Berlin"))
    assert (await config.get("discord:1")).timezone == "Europe/Berlin"  # the declared default
    assert (await config.set("discord:1", timezone=SH)).timezone == SH
    assert (await config.get("discord:1")).zone == ZoneInfo(SH)
    assert (await config.get("discord:2")).timezone == "Europe/Berlin"  # other tenants untouched
    assert await config.overrides("discord:1") == {"timezone": SH}
    assert await config.tenants() == ["discord:1"]

    with pytest.raises(TenantSettingError, match=r"IANA name .*Asia/Shanghai"):
        await config.set("discord:1", timezone="asia/shanghai")
    with pytest.raises(TenantSettingError, match="unknown tenant setting"):
        await config.set("discord:1", colour="blue")
    assert (await config.get("discord:1")).timezone == SH  # nothing written by the failed sets

    # a stored value that no longer validates (or cannot be read) falls back to the default
    await rt.redis.hset(KEY_PREFIX + "discord:3", mapping={"timezone": json.dumps("Mars/Olympus"), "x": "1"})
    assert (await config.get("discord:3")).timezone == "Europe/Berlin"
    assert (await config.reset("discord:1")).timezone == "Europe/Berlin"
    assert await config.tenants() == ["discord:3"]
    # the runtime's own config takes HEYAN_TIMEZONE as the default
    assert (await rt.tenants.get("discord:9")).timezone == "UTC"


async def test_each_tenant_resolves_due_times_and_renders_in_its_own_zone(
    tmp_path: Path, redis_url: str, start: Start
) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), notifier=TimedNotifier())
    await rt.tenants.set("discord:sh", timezone=SH)
    await rt.tenants.set("slack:ny", timezone=NY)
    ts = utcnow()
    said = {
        "discord:sh": ("u-zhang", "张伟", "我明天下午三点前把材料发给大家", SH),
        "slack:ny": ("u-amy", "Amy", "I will send the report tomorrow at 3pm", NY),
        "console:utc": ("u-bob", "Bob", "I will send the report tomorrow at 3pm", "UTC"),  # the default
    }
    for tenant, (user, name, text, _zone) in said.items():
        msg = Message(id=f"m-{tenant}", scope=Scope(tenant=tenant, session="t", user=user),
                      author_name=name, text=text, ts=ts)
        assert await rt.engine.observe(msg)  # fact-bearing: the real extraction job runs now
    await rt.drain(20)

    for tenant, (user, name, _text, zone) in said.items():
        [fact] = await rt.memory.open_commitments(Scope(tenant=tenant))
        assert fact.kind is Kind.COMMITMENT and fact.subject == user
        assert fact.due_at == _at(ts, zone, 1, 15), tenant  # 15:00 tomorrow, the tenant's local time

        # the reply cites the due time in the tenant's zone
        ask = Message(id=f"q-{tenant}", scope=Scope(tenant=tenant, session="t", user=user), author_name=name,
                      text="进展如何？" if zone == SH else "how is it going?", ts=utcnow(), mention=True)
        reply = await rt.engine.handle(ask)
        assert reply is not None and "15:00" in reply.text, reply.text
        # and so does the follow-up
        text = reminder_post(fact, (await rt.tenants.get(tenant)).timezone).body.plain()
        assert "15:00" in text and zone in text, text


async def test_reminder_job_renders_the_due_time_in_the_tenant_zone(
    tmp_path: Path, redis_url: str, start: Start
) -> None:
    provider, notifier = ScriptedProvider(), TimedNotifier()
    rt = await start(settings(tmp_path, redis_url), provider=provider, notifier=notifier)
    await rt.tenants.set("slack:ny", timezone=NY)
    due = utcnow() + timedelta(hours=1)
    await feed(rt, provider, promise("slack:ny", "t", "m1", "u-amy", "Amy", "send the draft", due))
    await rt.drain(30)
    [fact] = await rt.memory.open_commitments(Scope(tenant="slack:ny"))
    assert await JobSchedule(rt.redis).run_due(due, "remind:") == [remind_id(fact)]  # its time comes (tests/clock.py)
    assert await result(rt, remind_id(fact), timeout=30) == "queued"
    await wait_for(lambda: posted(notifier, 1), 30, "the follow-up")
    [(_scope, text, _mention)] = notifier.posts
    assert f"(due {due.astimezone(ZoneInfo(NY)):%a} {due.astimezone(ZoneInfo(NY)).day} " in text, text
    assert f"{due.astimezone(ZoneInfo(NY)):%H:%M} (America/New_York))" in text, text


def test_cli_show_set_reset(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from adapters.cli.app import app

    monkeypatch.setenv("HEYAN_REDIS_URL", redis_url)
    monkeypatch.setenv("HEYAN_TIMEZONE", "Europe/Paris")
    runner = CliRunner()
    out = runner.invoke(app, ["tenant", "set-timezone", "discord:7", "Shanghai"])
    assert out.exit_code == 2 and "Area/City" in out.output and "Asia/Shanghai" in out.output
    out = runner.invoke(app, ["tenant", "set-timezone", "discord:7", SH])
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["tenant", "show", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == {
        "defaults": {"timezone": "Europe/Paris", "language": "auto", "retention_days": {}, "closed_purge_days": 30.0,
                     "moderator_roles": [], "dispute_openers": "members", "dispute_channels": [],
                     "forget_after_days": 14.0, "forget_below": 0.2, "digest_channel": "", "digest_schedule": "daily"},
        "tenants": [{"tenant": "discord:7", "timezone": SH, "language": "auto", "retention_days": {},
                     "closed_purge_days": 30.0, "moderator_roles": [], "dispute_openers": "members",
                     "forget_after_days": 14.0, "forget_below": 0.2,
                     "dispute_channels": [], "digest_channel": "", "digest_schedule": "daily",
                     "overrides": ["timezone"]}],
    }
    out = runner.invoke(app, ["tenant", "show", "--tenant", "slack:T1", "--json"])
    assert json.loads(out.output)["tenants"] == [
        {"tenant": "slack:T1", "timezone": "Europe/Paris", "language": "auto", "retention_days": {},
         "closed_purge_days": 30.0, "forget_after_days": 14.0, "forget_below": 0.2, "moderator_roles": [], "dispute_openers": "members",
         "dispute_channels": [], "digest_channel": "", "digest_schedule": "daily", "overrides": []}]
    out = runner.invoke(app, ["tenant", "reset", "discord:7"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["tenant", "show", "--json"])
    assert json.loads(out.output)["tenants"] == []
