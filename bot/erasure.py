"""Erasing a member: everything Heyan holds about or from them goes, everywhere, and stays gone.

``Erasure.erase`` removes, in one tenant: the facts and summaries concerning the member (the store),
the messages they wrote (conversation windows and waiting batches), the unsent posts that mention
them (the outbox), and the before/after details of audit entries concerning them (who did what and
when stays). It first sets a tombstone: extraction that was already in flight when the erasure ran
drops every fact concerning the member from messages said before the tombstone, and a second pass
runs once in-flight jobs must have finished (``Scheduler.forget_user`` deferred past the job
timeout), so nothing erased comes back. Messages the member writes after the erasure are new.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from redis.asyncio import Redis

from bot.audit import AuditLog
from bot.conversation import Conversation
from bot.outbox import Outbox
from bot.ports import Scheduler
from memory.models import Fact, Scope, utcnow
from memory.service import MemoryService

__all__ = ["Erasure", "ErasureReport"]

log = logging.getLogger(__name__)

_TOMBSTONE = "heyan:tombstone:"


@dataclass(frozen=True, slots=True)
class ErasureReport:
    """What one erasure removed."""

    records: int
    messages: int
    posts: int
    audit_details: int

    @property
    def total(self) -> int:
        return self.records + self.messages + self.posts + self.audit_details


class Erasure:
    """Erases members, and tells extraction which facts must not be written again."""

    def __init__(self, *, memory: MemoryService, conversation: Conversation, outbox: Outbox, audit: AuditLog,
                 redis: Redis, scheduler: Scheduler, settle_seconds: float, keep_seconds: int) -> None:
        self.memory = memory
        self.conversation = conversation
        self.outbox = outbox
        self.audit = audit
        self.redis = redis
        self.scheduler = scheduler
        self.settle_seconds = settle_seconds
        self.keep_seconds = keep_seconds

    def __repr__(self) -> str:
        return f"Erasure(settle_seconds={self.settle_seconds})"

    async def erase(self, tenant: str, user: str, *, request_id: str, second_pass: bool = True) -> ErasureReport:
        """Erase ``user`` in ``tenant`` now (and once more after in-flight jobs are done)."""
        now = utcnow()
        await self.redis.set(f"{_TOMBSTONE}{tenant}:{user}", now.isoformat(), ex=self.keep_seconds)
        records = await self.memory.forget_user(Scope(tenant=tenant, user=user))
        messages = await self.conversation.forget_author(tenant, user)
        posts = await self.outbox.cancel_mentioning(tenant, user)
        details = await self.audit.scrub(tenant, user)
        if second_pass:
            await self.scheduler.forget_user(tenant, user, f"{request_id}:again",
                                             when=now + timedelta(seconds=self.settle_seconds))
        report = ErasureReport(records, messages, posts, details)
        log.info("erased %s in %s: %d records, %d messages, %d posts, %d audit details", user, tenant,
                 report.records, report.messages, report.posts, report.audit_details)
        return report

    async def tombstones(self, tenant: str, users: Iterable[str]) -> dict[str, datetime]:
        """When each of ``users`` was erased, for those who were."""
        wanted = sorted(set(users))
        if not wanted:
            return {}
        raws = await self.redis.mget([f"{_TOMBSTONE}{tenant}:{u}" for u in wanted])
        return {u: datetime.fromisoformat(r.decode() if isinstance(r, bytes) else r)
                for u, r in zip(wanted, raws, strict=True) if r is not None}

    async def admissible(self, facts: Sequence[Fact]) -> list[Fact]:
        """``facts`` without those concerning an erased member that come from before the erasure."""
        if not facts:
            return []
        erased = await self.tombstones(facts[0].tenant, (u for f in facts for u in f.users))
        if not erased:
            return list(facts)
        kept = []
        for fact in facts:
            said = min((s.ts for s in fact.sources), default=fact.valid_from)
            if any(u in erased and said <= erased[u] for u in fact.users):
                log.info("dropped a fact about an erased member from %s (%s)", fact.tenant, fact.id)
                continue
            kept.append(fact)
        return kept
