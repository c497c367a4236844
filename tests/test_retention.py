"""Retention and the audit of what jobs do on their own: emotions fade in a day (per tenant, any kind
configurable), an expired memory leaves recall at once and the purge deletes it, a closed dispute's
session is purged after the tenant's grace; extraction, expiry, purges and retractions are audited,
and `heyan memory history` shows a record's versions with who changed it and why."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adapters.cli.app import app
from adapters.runtime.composition import Runtime
from bot.actors import Actor
from bot.extraction.candidates import DEFAULT_TTL
from bot.models import Message
from bot.offline.provider import OfflineProvider
from jobs.cron import purge
from memory.models import Fact, Kind, Scope, Source, utcnow
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T = "console:ret"


def ctx(rt: Runtime) -> dict[str, Any]:
    return {"heyan": rt.services, "redis": rt.redis}


def test_emotions_fade_in_a_day_and_agreements_stay() -> None:
    assert DEFAULT_TTL[Kind.EMOTION] == timedelta(hours=24)
    assert DEFAULT_TTL[Kind.CONSENSUS] is None and DEFAULT_TTL[Kind.COMMITMENT] >= timedelta(days=365)


async def test_tenant_retention_and_expiry(tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.tenants.set(T, retention_days={"demand": 2})
    said = datetime.now(UTC) - timedelta(minutes=1)
    scope = Scope(tenant=T, session="s")
    for i, text in enumerate(["I want the deposit back.", "I'm so frustrated with all of this."]):
        await rt.engine.observe(Message(id=f"r{i}", scope=scope.narrow(user="u-ann"), author_name="Ann",
                                        text=text, ts=said))
    await rt.engine.flush(scope)
    await rt.drain(60)
    facts = {f.kind: f for f in await rt.memory.list_facts(Scope(tenant=T))}
    demand, feeling = facts[Kind.DEMAND], facts[Kind.EMOTION]
    assert demand.expires_at is not None and abs(demand.expires_at - (said + timedelta(days=2))) < timedelta(seconds=1)
    assert feeling.expires_at is not None and feeling.expires_at - said == timedelta(hours=24)

    # an expired memory leaves recall at once, before the purge
    await rt.memory.modify(Scope(tenant=T), demand.id,
                           lambda f: f.model_copy(update={"expires_at": utcnow() - timedelta(seconds=1)}))
    recalled = await rt.memory.recall(scope, ["deposit back", "want the deposit"])
    assert demand.id not in {s.fact.id for s in recalled.facts}
    assert (await purge(ctx(rt))) == {T: 1}
    assert await rt.memory.get(Scope(tenant=T), demand.id) is None
    [entry] = [e for e in await rt.audit.entries(T) if e.action == "retention.expire"]
    assert entry.actor_id == "system:heyan" and entry.after == {"deleted": 1}
    extraction = [e for e in await rt.audit.entries(T) if e.action == "memory.extract"]
    assert extraction and extraction[0].actor_id == "system:heyan"


async def test_a_closed_dispute_is_purged_after_the_grace(tmp_path: Path, redis_url: str,
                                                          start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.tenants.set(T, closed_purge_days=1)
    scope = Scope(tenant=T, session="closing")
    keep = Scope(tenant=T, session="closing:thread")  # a session whose id starts the same: untouched
    for sess in (scope, keep):
        await rt.engine.observe(Message(id=f"{sess.session}-1", scope=sess.narrow(user="u-bob"), author_name="Bob",
                                        text="I will return the keys by Friday.", ts=datetime.now(UTC)))
        await rt.engine.flush(sess)
    await rt.drain(60)
    mod = Actor.operator(T)
    await rt.moderation.dispute_open(mod, "closing", title="keys")
    await rt.moderation.dispute_close(mod, "closing", "settled")
    assert await purge(ctx(rt)) == {}  # within the grace: nothing goes
    info = await rt.sessions.get(T, "closing")
    assert info is not None and info.closed_at is not None
    await rt.sessions.put(replace(info, closed_at=info.closed_at - timedelta(days=2)))  # two days on
    assert await purge(ctx(rt)) == {T: 2}  # its commitment and its summary
    assert await rt.memory.list_facts(scope) == []
    assert await rt.window.recent(scope) == []
    assert [f.session for f in await rt.memory.list_facts(Scope(tenant=T))] == ["closing:thread"]
    assert [m.id for m in await rt.window.recent(keep)] == ["closing:thread-1"]
    [entry] = [e for e in await rt.audit.entries(T) if e.action == "retention.purge-closed"]
    assert entry.target == "closing" and entry.after is not None and entry.after["records"] == 2
    assert await purge(ctx(rt)) == {}  # once


async def test_history_shows_versions_and_who_changed_them(tmp_path: Path, redis_url: str,
                                                          start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    t0 = datetime(2026, 11, 2, tzinfo=UTC)
    [fact] = (await rt.memory.remember([Fact(
        tenant=T, session="s", kind=Kind.DEMAND, subject="u-ann", attribute="wants", value="a refund",
        asserted_by="u-ann", users=("u-ann",),
        sources=(Source(message_id="h1", author_id="u-ann", ts=t0, quote="a refund"),))])).written
    await rt.moderation.memory_edit(Actor.operator(T), fact.id, "a full refund", "Ann clarified on a call")
    await rt.stop()
    env = {"HEYAN_REDIS_URL": redis_url, "HEYAN_DATA_DIR": str(tmp_path), "HEYAN_QDRANT_URL": ""}
    out = await asyncio.to_thread(CliRunner().invoke, app, ["memory", "history", fact.id[:8], "--json"], env=env)
    assert out.exit_code == 0, out.output
    shown = json.loads(out.stdout)
    assert [(v["version"], v["value"]) for v in shown["versions"]] == [(1, "a refund"), (2, "a full refund")]
    [change] = shown["changes"]
    assert (change["action"], change["actor_id"], change["reason"]) == ("memory.edit", "operator:local",
                                                                        "Ann clarified on a call")


async def test_export_and_forget_a_member_in_every_tenant(tmp_path: Path, redis_url: str,
                                                          start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    t0 = datetime(2026, 11, 2, tzinfo=UTC)
    for tenant in ("discord:1", "slack:T9", "discord:2"):
        subject = "u-zoe" if tenant != "discord:2" else "u-other"
        await rt.memory.remember([Fact(
            tenant=tenant, session="s", kind=Kind.DEMAND, subject=subject, attribute="wants", value="quiet",
            asserted_by=subject, users=(subject,),
            sources=(Source(message_id="x1", author_id=subject, ts=t0, quote="quiet"),))])
    await rt.stop()
    env = {"HEYAN_REDIS_URL": redis_url, "HEYAN_DATA_DIR": str(tmp_path), "HEYAN_QDRANT_URL": ""}
    runner = CliRunner()
    out = await asyncio.to_thread(runner.invoke, app, ["memory", "export", "--user", "u-zoe"], env=env)
    assert out.exit_code == 0, out.output
    exported = json.loads(out.stdout)
    assert sorted(e["tenant"] for e in exported["tenants"]) == ["discord:1", "slack:T9"]
    folder = tmp_path / "exports"
    out = await asyncio.to_thread(runner.invoke, app, ["memory", "export", "--user", "u-zoe", "--tenant", "discord:1"],
                                  env={**env, "HEYAN_PRIVACY_EXPORT_DIR": str(folder)})
    assert out.exit_code == 0, out.output
    [written] = list(folder.iterdir())
    assert (written.stat().st_mode & 0o777) == 0o600 and json.loads(written.read_text())["user"] == "u-zoe"
    # records in two tenants: erased only where asked, and the answer says so
    out = await asyncio.to_thread(runner.invoke, app, ["memory", "forget", "--user", "u-zoe", "--yes"], env=env)
    assert out.exit_code == 2 and "discord:1, slack:T9" in out.output and "--all-tenants" in out.output, out.output
    out = await asyncio.to_thread(runner.invoke, app, ["memory", "forget", "--user", "u-zoe", "--tenant", "slack:T9",
                                                       "--yes", "--json"], env=env)
    assert out.exit_code == 0, out.output
    shown = json.loads(out.stdout)
    [erased] = shown["erased"]
    assert (erased["tenant"], erased["facts"], shown["not_erased_in"]) == ("slack:T9", 1, ["discord:1"])
    assert {"summaries_rewritten", "messages", "posts", "audit_entries", "dead_letters"} <= set(erased)
    out = await asyncio.to_thread(runner.invoke, app, ["memory", "forget", "--user", "u-zoe", "--all-tenants",
                                                       "--yes"], env=env)
    assert out.exit_code == 0 and "erased u-zoe in discord:1" in out.output, out.output
    assert "memories deleted" in out.output and "outbox posts emptied" in out.output
    out = await asyncio.to_thread(runner.invoke, app, ["memory", "list", "--json"], env=env)
    assert [f["subject"] for f in json.loads(out.stdout)] == ["u-other"]
