"""Active forgetting (bot.privacy.forgetting, run by the purge): replies' uses are folded into the records,
a closed dispute's records settle, low-weight ones expire after a notice — and an open commitment or
a disputed fact never does, whatever its weight. Against a real Runtime and Redis."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adapters.runtime.composition import Runtime
from bot.actors import Actor
from bot.models import Message
from bot.offline.provider import OfflineProvider
from bot.privacy.forgetting import FORGET_NOTICE, Forgetting
from bot.sessions import DisputeState, SessionInfo
from bot.usage import UsageBook
from jobs.cron import purge
from memory.models import Fact, FactStatus, Kind, Scope, Source, utcnow
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T = "console:forget"
OLD = "old-dispute"


def ctx(rt: Runtime) -> dict[str, Any]:
    return {"heyan": rt.services, "redis": rt.redis}


def record(n: int, kind: Kind, value: str, said: datetime, **kw: Any) -> Fact:
    who = f"u-{n}"
    return Fact(tenant=T, session=kw.pop("session", OLD), kind=kind, subject=who, subject_name=f"M{n}",
                attribute=f"a{n}", value=value, asserted_by=who, users=(who,), valid_from=said, created_at=said,
                updated_at=said, sources=(Source(message_id=f"m{n}", author_id=who, ts=said, quote=value),),
                **kw).with_id()


def forgetting(rt: Runtime, at: datetime) -> Forgetting:
    return Forgetting(rt.memory, rt.redis, rt.sessions, rt.tenants, rt.audit, clock=lambda: at)


async def closed_dispute(rt: Runtime, closed_at: datetime, session: str = OLD) -> SessionInfo:
    return await rt.sessions.put(SessionInfo(tenant=T, session=session, state=DisputeState.CLOSED, title="keys",
                                             opened_at=closed_at - timedelta(days=5), closed_at=closed_at))


async def test_low_weight_records_of_a_closed_dispute_expire_but_open_promises_and_disputes_never(
        tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    await rt.tenants.set(T, forget_after_days=1, closed_purge_days=365)
    now = utcnow()
    said = now - timedelta(days=60)
    stale = record(1, Kind.EVENT, "the hallway light was broken", said)
    promise = record(2, Kind.COMMITMENT, "will return the spare keys", said, due_at=said + timedelta(days=2))
    disputed = record(3, Kind.DEMAND, "wants the deposit back", said)
    used = record(4, Kind.EVENT, "the rent is split evenly", said)
    confirmed = record(5, Kind.CONSENSUS, "everyone agreed on quiet hours after ten", said)
    elsewhere = record(6, Kind.EVENT, "the bike room is full", said, session="no-dispute")
    await rt.memory.remember([stale, promise, disputed, used, confirmed, elsewhere])
    await rt.memory.set_status(Scope(tenant=T), disputed.id, FactStatus.DISPUTED)
    await rt.moderation.memory_confirm(Actor.operator(T), confirmed.id, "it stands")
    await UsageBook(rt.redis).record(T, [used.id] * 1, now - timedelta(days=9))
    for _ in range(4):
        await UsageBook(rt.redis).record(T, [used.id], now - timedelta(days=9))
    await closed_dispute(rt, now - timedelta(days=40))

    # the pass ran a notice ago: the records it put on notice are due now
    report = await forgetting(rt, now - FORGET_NOTICE - timedelta(minutes=1)).run()
    assert (report.folded, report.settled, report.forgotten) == (1, 5, 1)
    noticed = await rt.memory.get(Scope(tenant=T), stale.id)
    assert noticed is not None and noticed.forgotten_at is not None and noticed.expires_at is not None
    [entry] = [e for e in await rt.audit.entries(T) if e.action == "retention.forget"]
    assert entry.target == OLD and entry.after is not None and entry.after["records"] == [stale.id]
    assert entry.users == ("u-1",)

    await purge(ctx(rt))
    left = {f.id: f for f in await rt.memory.list_facts(Scope(tenant=T))}
    assert stale.id not in left  # forgotten, then expired
    assert {promise.id, disputed.id, used.id, confirmed.id, elsewhere.id} <= set(left)
    assert left[promise.id].settled_at is not None and left[promise.id].expires_at == promise.expires_at
    assert left[used.id].uses == 5 and left[confirmed.id].confirmed_at is not None
    assert left[elsewhere.id].settled_at is None  # not in a dispute: never settled nor forgotten

    # a year on, still: an open commitment and a disputed fact are never given a TTL
    await forgetting(rt, now + timedelta(days=365)).run()
    for fid in (promise.id, disputed.id):
        kept = await rt.memory.get(Scope(tenant=T), fid)
        assert kept is not None and kept.forgotten_at is None, kept


async def test_a_reopened_dispute_or_a_confirm_gives_a_forgotten_record_its_own_expiry_back(
        tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    await rt.tenants.set(T, forget_after_days=1, closed_purge_days=365, retention_days={"event": 400})
    now = utcnow()
    said = now - timedelta(days=60)
    first = record(1, Kind.EVENT, "the hallway light was broken", said)
    second = record(2, Kind.EVENT, "the lift was out of order", said, session="other")
    await rt.memory.remember([first, second])
    info = await closed_dispute(rt, now - timedelta(days=40))
    await closed_dispute(rt, now - timedelta(days=40), session="other")
    assert (await forgetting(rt, now).run()).forgotten == 2
    noticed = {f.id: f for f in await rt.memory.list_facts(Scope(tenant=T))}
    assert noticed[first.id].updated_at > first.updated_at  # put on notice: first in the review queue

    await rt.sessions.put(replace(info, state=DisputeState.OPEN, closed_at=None))  # opened again
    await rt.moderation.memory_confirm(Actor.operator(T), second.id, "still matters")
    report = await forgetting(rt, now + timedelta(hours=1)).run()
    assert report.reopened == 1 and report.restored == 2
    for fid in (first.id, second.id):
        back = await rt.memory.get(Scope(tenant=T), fid)
        assert back is not None and back.forgotten_at is None
        assert back.expires_at == said + timedelta(days=400)  # the kind's retention in this tenant
    reopened = await rt.memory.get(Scope(tenant=T), first.id)
    assert reopened is not None and reopened.settled_at is None
    assert reopened.updated_at == noticed[first.id].updated_at  # given back: bookkeeping, not a change


async def test_forgetting_can_be_turned_off_per_tenant(tmp_path: Path, redis_url: str,
                                                       start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    await rt.tenants.set(T, forget_after_days=None, closed_purge_days=365)
    now = utcnow()
    stale = record(1, Kind.EVENT, "the hallway light was broken", now - timedelta(days=60))
    await rt.memory.remember([stale])
    await closed_dispute(rt, now - timedelta(days=40))
    report = await forgetting(rt, now).run()
    assert report.settled == 1 and report.forgotten == 0
    kept = await rt.memory.get(Scope(tenant=T), stale.id)
    assert kept is not None and kept.settled_at is not None and kept.forgotten_at is None


async def test_a_reply_counts_the_memories_it_used_and_the_purge_folds_them(
        tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    scope = Scope(tenant=T, session="thread")
    said = datetime.now(UTC) - timedelta(hours=1)
    fact = record(1, Kind.COMMITMENT, "will return the spare keys by Friday", said, session="thread")
    await rt.memory.remember([fact])
    stored = await rt.memory.get(Scope(tenant=T), fact.id)
    assert stored is not None
    reply = await rt.engine.handle(Message(id="ask", scope=scope.narrow(user="u-9"), author_name="Zoe",
                                           text="What did M1 promise about the spare keys?", ts=said, mention=True))
    assert reply is not None and fact.id in reply.memory_ids
    pending = await UsageBook(rt.redis).pending(T)
    assert pending[fact.id].count == 1
    await purge(ctx(rt))
    folded = await rt.memory.get(Scope(tenant=T), fact.id)
    assert folded is not None and folded.uses == 1 and folded.used_at is not None
    assert folded.updated_at == stored.updated_at
    assert await UsageBook(rt.redis).pending(T) == {}
    await purge(ctx(rt))  # idempotent: nothing left to fold
    again = await rt.memory.get(Scope(tenant=T), fact.id)
    assert again is not None and again.uses == 1


def test_cli_sets_forgetting_per_tenant(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from adapters.cli.app import app

    monkeypatch.setenv("HEYAN_REDIS_URL", redis_url)
    runner = CliRunner()
    out = runner.invoke(app, ["tenant", "set-forgetting", "discord:7", "30", "--below", "0.1"])
    assert out.exit_code == 0 and "closed 30 days ago with a weight below 0.1" in out.output, out.output
    shown = json.loads(runner.invoke(app, ["tenant", "show", "--tenant", "discord:7", "--json"]).output)
    [view] = shown["tenants"]
    assert (view["forget_after_days"], view["forget_below"]) == (30.0, 0.1)
    assert set(view["overrides"]) == {"forget_after_days", "forget_below"}
    out = runner.invoke(app, ["tenant", "set-forgetting", "discord:7", "off"])
    assert out.exit_code == 0 and "forgetting off" in out.output
    out = runner.invoke(app, ["tenant", "set-forgetting", "discord:7", "soon"])
    assert out.exit_code == 2 and "a number of days or off" in out.output
    out = runner.invoke(app, ["tenant", "set-forgetting", "discord:7", "3", "--below", "2"])
    assert out.exit_code == 2 and "--below" in out.output and "from 0 to 1" in out.output, out.output
