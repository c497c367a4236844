"""When Heyan is removed from a community: purge the tenant's data after a grace period.

``tenant_left`` records a marker with a request id and schedules ``purge_tenant``, which purges only
if the marker still holds it (``tenant_returned`` cancels). Purging removes the tenant's memories,
summaries, windows, sessions, settings, audit trail and unsent posts.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from redis.asyncio import Redis

from bot.ports import Scheduler
from memory.models import Scope, utcnow
from memory.ports import MemoryStore

__all__ = ["Departures", "left_pending", "purge_tenant_data", "tenant_left", "tenant_returned"]

log = logging.getLogger(__name__)

_LEFT = "heyan:tenant-left:"


async def tenant_left(redis: Redis, scheduler: Scheduler, tenant: str, *, grace_seconds: float) -> str:
    """Heyan left ``tenant``: schedule its purge in ``grace_seconds``; returns the request id."""
    request = uuid.uuid4().hex[:12]
    await redis.set(_LEFT + tenant, request)
    await scheduler.purge_tenant(tenant, request, utcnow() + timedelta(seconds=grace_seconds))
    log.info("left %s: its data will be purged in %.0f s unless Heyan is added back", tenant, grace_seconds)
    return request


async def tenant_returned(redis: Redis, tenant: str) -> bool:
    """Heyan is back in ``tenant``: a pending purge is cancelled. True if one was pending."""
    return bool(await redis.delete(_LEFT + tenant))


async def left_pending(redis: Redis, tenant: str) -> bool:
    """Is a purge of ``tenant`` scheduled and not cancelled (Heyan left and did not come back)?"""
    return bool(await redis.exists(_LEFT + tenant))


class Departures:
    """Leaving and coming back, as a platform adapter reports them (the port's ``departures``)."""

    def __init__(self, redis: Redis, scheduler: Scheduler) -> None:
        self.redis = redis
        self.scheduler = scheduler

    def __repr__(self) -> str:
        return "Departures()"

    async def left(self, tenant: str, *, grace_seconds: float) -> str:
        """Heyan left ``tenant``: its purge in ``grace_seconds`` (``tenant_left``)."""
        return await tenant_left(self.redis, self.scheduler, tenant, grace_seconds=grace_seconds)

    async def returned(self, tenant: str) -> bool:
        """Heyan is back in ``tenant``: True if a pending purge was cancelled (``tenant_returned``)."""
        return await tenant_returned(self.redis, tenant)

    async def pending(self, tenant: str) -> bool:
        """Is a purge of ``tenant`` pending (``left_pending``)?"""
        return await left_pending(self.redis, tenant)


async def purge_due(redis: Redis, tenant: str, request: str) -> bool:
    """True when the purge ``request`` for ``tenant`` still stands (Heyan did not come back)."""
    held = await redis.get(_LEFT + tenant)
    return (held.decode() if isinstance(held, bytes) else held) == request


async def purge_tenant_data(store: MemoryStore, redis: Redis, tenant: str) -> int:
    """Remove everything held for ``tenant``: memories and summaries in the store, and every Redis key
    of the tenant (windows, sessions, settings, audit, dedupe marks, unsent posts). Returns how many
    store records went."""
    scope = Scope(tenant=tenant)
    removed = await store.delete("facts", scope) + await store.delete("summaries", scope)
    keys: list[bytes | str] = []
    async for key in redis.scan_iter(match=f"heyan:*{_glob_escape(tenant)}*", count=500):
        if _belongs(key.decode() if isinstance(key, bytes) else key, tenant):
            keys.append(key)
    if keys:
        await redis.delete(*keys)
    log.info("purged tenant %s: %d records, %d keys", tenant, removed, len(keys))
    return removed


def _glob_escape(text: str) -> str:
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in text)


def _belongs(key: str, tenant: str) -> bool:
    """Is this Heyan key the tenant's? Keys are ``heyan:<kind>:<tenant>[:…]`` or, for outbox posts,
    ``heyan:outbox:post:<kind>:<tenant>:…``."""
    parts = key.split(":", 2)
    if len(parts) < 3:
        return False
    rest = parts[2]
    if parts[1] == "outbox" and rest.startswith("post:"):
        rest = rest.removeprefix("post:").split(":", 1)[-1]
    return rest == tenant or rest.startswith(tenant + ":")
