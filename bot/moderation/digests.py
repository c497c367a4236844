"""The moderators' digest through the moderation service (``digest``: moderators only), and its
scheduled post (``post_digest``: the cron job's, one per community and period).

Posted through the outbox to ``digest_channel`` at 09:00 community time (weekly: Mondays) under an id
naming the period, so once. A channel whose last digest was dead-lettered is recorded once
(``digest.undeliverable`` and a warning) and gets no more digests or alerts until it changes.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime

from redis.asyncio import Redis

from bot.actors import Actor
from bot.agreements.digest import DIGEST_HOUR, STALE_DAYS, Digest, Period, build_digest
from bot.config.tenants import TenantConfig, TenantSettings
from bot.delivery.outbox import Outbox, Post, PostKind, PostState
from bot.disputes.heat import HeatBook, HeatPoint
from bot.moderation.base import REVIEW_STATUSES, ModerationBase
from bot.privacy.audit import SYSTEM, AuditEntry, AuditLog
from bot.sessions import SessionBook
from bot.text.zones import zone_or_utc
from memory.models import OPEN_COMMITMENT, Confidence, FactStatus, Kind, Lang, Scope, utcnow
from memory.ports import RecordFilter
from memory.service import MemoryService

__all__ = ["Digests", "channel_usable", "gather_digest", "post_digest"]

log = logging.getLogger(__name__)

_LAST = "heyan:digest:last:"
_BROKEN = "heyan:digest:undeliverable:"
#: Audit entries read for the period's erasures and alerts (newest first).
_AUDIT_READ = 2000


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


async def _undeliverable(redis: Redis, tenant: str, channel: str) -> tuple[str, str] | None:
    raw = await redis.get(_BROKEN + tenant)
    if not raw:
        return None
    data = json.loads(_text(raw))
    if data.get("channel") != channel:
        return None  # the moderators set another channel since: try it
    return str(data["channel"]), str(data.get("error") or "")


async def channel_usable(redis: Redis, outbox: Outbox, audit: AuditLog, tenant: str, channel: str) -> bool:
    """May Heyan post in the moderators' ``channel``? False once the platform gave up on a post there
    (the notice is recorded the first time this finds out; see the module docstring)."""
    if not channel:
        return False
    if await _undeliverable(redis, tenant, channel) is not None:
        return False
    last = _text(await redis.get(_LAST + tenant))
    if not last:
        return True
    post_id, _, where = last.partition(" ")
    if where != channel:
        return True
    record = await outbox.get(post_id)
    if record is None or record.state is not PostState.DEAD:
        return True
    error = record.error or "the platform refused the post"
    await redis.set(_BROKEN + tenant, json.dumps({"channel": channel, "error": error, "post": post_id}))
    await audit.record(AuditEntry(tenant=tenant, actor_id=SYSTEM, actor_name="Heyan", action="digest.undeliverable",
                                  target=channel, after={"post": post_id, "error": error[:300]}))
    log.warning("tenant %s: Heyan cannot post in the moderators' channel %s (%s); digests and alerts stop until "
                "digest_channel is changed", tenant, channel, error[:200])
    return False


async def note_posted(redis: Redis, tenant: str, post_id: str, channel: str) -> None:
    """Remember the last post made in the moderators' channel, to learn whether it went through."""
    await redis.set(_LAST + tenant, f"{post_id} {channel}")


def _lang(settings: TenantSettings, fallback: Lang) -> Lang:
    if settings.language == "zh":
        return "zh"
    return "en" if settings.language == "en" else fallback


async def gather_digest(
    *, memory: MemoryService, sessions: SessionBook, audit: AuditLog, tenants: TenantConfig, redis: Redis,
    tenant: str, now: datetime | None = None, period: Period | None = None, stale_days: float = STALE_DAYS,
) -> Digest:
    """The community's digest as of ``now`` (no permission check: the cron job and ``Digests.digest``)."""
    now = now or utcnow()
    settings = await tenants.get(tenant)
    chosen: Period = period or ("weekly" if settings.digest_schedule == "weekly" else "daily")
    scope = Scope(tenant=tenant)
    commitments = await memory.list_facts(scope, RecordFilter(
        kinds=frozenset({Kind.COMMITMENT.value}), statuses=frozenset(s.value for s in OPEN_COMMITMENT)))
    review = [f async for f in memory.iter_facts(scope)
              if f.status in REVIEW_STATUSES or (f.confidence is Confidence.LOW and f.status is FactStatus.ACTIVE)]
    zh = sum(1 for f in commitments if f.lang == "zh")
    lang = _lang(settings, "zh" if commitments and zh * 2 >= len(commitments) else "en")
    return build_digest(
        tenant, now=now, period=chosen, zone=settings.timezone, lang=lang, commitments=commitments,
        sessions=await sessions.tenant_sessions(tenant), review=review,
        audit=await audit.entries(tenant, limit=_AUDIT_READ), stale_days=stale_days,
        undeliverable=await _undeliverable(redis, tenant, settings.digest_channel) if settings.digest_channel else None,
    )


def _slot(settings: TenantSettings, now: datetime) -> str | None:
    """The day or week a scheduled digest at ``now`` is for; None when none is due yet."""
    local = now.astimezone(zone_or_utc(settings.timezone))
    if settings.digest_schedule == "off" or local.hour < DIGEST_HOUR:
        return None
    if settings.digest_schedule == "weekly":
        if local.weekday() != 0:
            return None
        year, week, _ = local.isocalendar()
        return f"{year}-W{week:02d}"
    return local.date().isoformat()


async def post_digest(
    *, memory: MemoryService, sessions: SessionBook, audit: AuditLog, tenants: TenantConfig, redis: Redis,
    outbox: Outbox, tenant: str, now: datetime | None = None,
) -> str:
    """Post the community's scheduled digest if one is due (once per day or week); returns what it did."""
    now = now or utcnow()
    settings = await tenants.get(tenant)
    slot = _slot(settings, now)
    channel = settings.digest_channel
    if not channel or slot is None:
        return "not due"
    if not await channel_usable(redis, outbox, audit, tenant, channel):
        return "channel unusable"
    post_id = f"digest:{tenant}:{channel}:{slot}"
    if await outbox.get(post_id) is not None:
        return "already posted"
    digest = await gather_digest(memory=memory, sessions=sessions, audit=audit, tenants=tenants, redis=redis,
                                 tenant=tenant, now=now)
    if await outbox.append(Post(id=post_id, tenant=tenant, session=channel, body=digest.body(), kind=PostKind.NOTICE,
                                lang=digest.lang, ref={"digest": slot})):
        await note_posted(redis, tenant, post_id, channel)
        return "posted"
    return "already posted"


class Digests(ModerationBase):
    """The moderators' digest on demand, and a thread's temperature timeline."""

    async def thread_temperature(self, actor: Actor, session: str) -> list[HeatPoint]:
        """The escalation signal's timeline of one thread, oldest first (moderators only: it says who
        ran hot when; ids and numbers, no words) — what the alert shows, for the web console."""
        await self._enter(actor)
        self._require(actor, "see a thread's temperature", "查看线程的温度")
        return await HeatBook(self.redis).timeline(Scope(tenant=actor.tenant, session=session))

    async def digest(self, actor: Actor, *, now: datetime | None = None, period: Period | None = None,
                     stale_days: float = STALE_DAYS) -> Digest:
        """The community's digest as of ``now`` (moderators only)."""
        await self._enter(actor)
        self._require(actor, "see the moderators' digest", "查看管理员摘要")
        return await gather_digest(memory=self.memory, sessions=self.sessions, audit=self.audit, tenants=self.tenants,
                                   redis=self.redis, tenant=actor.tenant, now=now, period=period,
                                   stale_days=stale_days)
