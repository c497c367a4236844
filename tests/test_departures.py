"""Leaving a community: its data is purged after the grace period, unless Heyan is added back, and
only that tenant's data goes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.offline.provider import OfflineProvider
from bot.privacy.departures import purge_tenant_data, tenant_left, tenant_returned
from jobs.tasks import purge_tenant
from memory.models import Fact, Kind, Scope, Source
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T0 = datetime(2026, 11, 2, tzinfo=UTC)


def fact(tenant: str) -> Fact:
    return Fact(tenant=tenant, session="s", kind=Kind.DEMAND, subject="u1", attribute="wants", value="quiet",
                asserted_by="u1", sources=(Source(message_id="m1", author_id="u1", ts=T0, quote="quiet"),))


async def test_purge_after_leaving_unless_back(tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    for tenant in ("discord:1", "discord:12"):
        await rt.memory.remember([fact(tenant)])
        await rt.tenants.set(tenant, timezone="Asia/Shanghai")
        await rt.redis.set(f"heyan:win:{tenant}:s", b"x")
    ctx = {"heyan": rt.services, "redis": rt.redis}

    request = await tenant_left(rt.redis, rt.queue, "discord:1", grace_seconds=3600)
    queued = [j.decode() for j in await rt.redis.zrange("arq:queue", 0, -1)]
    assert f"purge-tenant:discord:1:{request}" in queued
    assert await tenant_returned(rt.redis, "discord:1")
    assert await purge_tenant(ctx, "discord:1", request) == "cancelled: Heyan is back"
    assert await rt.store.count("facts", Scope(tenant="discord:1")) == 1

    request = await tenant_left(rt.redis, rt.queue, "discord:1", grace_seconds=0)
    assert await purge_tenant(ctx, "discord:1", request) == "purged 1 records"
    assert await rt.store.count("facts", Scope(tenant="discord:1")) == 0
    assert await rt.tenants.overrides("discord:1") == {}
    assert await rt.redis.get("heyan:win:discord:1:s") is None
    # a tenant whose id starts the same is untouched
    assert await rt.store.count("facts", Scope(tenant="discord:12")) == 1
    assert await rt.redis.get("heyan:win:discord:12:s") == b"x"
    assert (await rt.tenants.get("discord:12")).timezone == "Asia/Shanghai"
    assert await purge_tenant_data(rt.store, rt.redis, "discord:404") == 0
