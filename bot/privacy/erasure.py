"""Erasing a member: everything Heyan holds about or from them goes, everywhere, and stays gone.

``Erasure.erase`` works in the one tenant asked. It sets a tombstone first (extraction in flight drops
the member's facts), erases store by store, and runs again after the job timeout. What goes and what
stays: docs/RELIABILITY.md, "The protocols in detail" (Erasure).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from redis.asyncio import Redis

from bot.agreements.ground_store import forget_member as forget_cards_and_ground
from bot.conversation import Conversation
from bot.delivery.deadletters import DeadLetters
from bot.delivery.outbox import Outbox, Post, PostKind
from bot.models import Message
from bot.ports import Scheduler
from bot.privacy.audit import AuditLog
from bot.sessions import SessionBook
from memory.models import Fact, Scope, utcnow
from memory.normalize import names_in
from memory.service import MemoryService

__all__ = ["Erasure", "ErasureReport"]

log = logging.getLogger(__name__)

_TOMBSTONE = "heyan:tombstone:"


@dataclass(frozen=True, slots=True)
class ErasureReport:
    """What one erasure removed, per store, in one tenant."""

    tenant: str
    user: str
    facts: int
    summaries_rewritten: int
    summaries_deleted: int
    messages: int
    posts: int
    audit_entries: int
    dead_letters: int
    disputes: int

    @property
    def records(self) -> int:
        """Store records deleted (facts and summaries)."""
        return self.facts + self.summaries_deleted

    @property
    def total(self) -> int:
        return (self.facts + self.summaries_rewritten + self.summaries_deleted + self.messages + self.posts
                + self.audit_entries + self.dead_letters + self.disputes)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def counts(self) -> dict[str, int]:
        """How many went per store (what an audit entry of the erasure keeps)."""
        return {k: v for k, v in self.as_dict().items() if isinstance(v, int)}


@dataclass(frozen=True, slots=True)
class _Traces:
    """What identifies the member's data beyond their id: the names they were known by, their
    message ids and the ids of their memories."""

    names: frozenset[str]
    messages: frozenset[str]
    facts: frozenset[str]


class Erasure:
    """Erases members, and tells extraction which facts must not be written again."""

    def __init__(self, *, memory: MemoryService, conversation: Conversation, outbox: Outbox, audit: AuditLog,
                 redis: Redis, scheduler: Scheduler, settle_seconds: float, keep_seconds: int,
                 sessions: SessionBook | None = None, dead_letters: DeadLetters | None = None) -> None:
        self.memory = memory
        self.conversation = conversation
        self.outbox = outbox
        self.audit = audit
        self.redis = redis
        self.scheduler = scheduler
        self.settle_seconds = settle_seconds
        self.keep_seconds = keep_seconds
        self.sessions = sessions
        self.dead_letters = dead_letters

    def __repr__(self) -> str:
        return f"Erasure(settle_seconds={self.settle_seconds})"

    async def erase(self, tenant: str, user: str, *, request_id: str, second_pass: bool = True) -> ErasureReport:
        """Erase ``user`` in ``tenant`` — only there — now (and once more after in-flight jobs are done)."""
        now = utcnow()
        await self.redis.set(f"{_TOMBSTONE}{tenant}:{user}", now.isoformat(), ex=self.keep_seconds)
        scope = Scope(tenant=tenant, user=user)
        facts = await self.memory.list_facts(scope)
        forgotten = await self.memory.forget_user(scope)
        messages = await self.conversation.forget_author(tenant, user)
        traces = _traces(user, facts, messages)
        posts = await self.outbox.forget(tenant, lambda post: _concerns(post, user, traces))
        audit = await self.audit.scrub(tenant, user, traces.names)
        dead = await self.dead_letters.scrub(tenant) if self.dead_letters is not None else 0
        disputes = await self._scrub_disputes(tenant, user, traces.names)
        # common-ground rounds they were asked in (statements quote them), card proposals naming them
        disputes += await forget_cards_and_ground(self.redis, tenant, user)
        if second_pass:
            await self.scheduler.forget_user(tenant, user, f"{request_id}:again",
                                             when=now + timedelta(seconds=self.settle_seconds))
        report = ErasureReport(
            tenant=tenant, user=user, facts=forgotten.facts, summaries_rewritten=forgotten.summaries_rewritten,
            summaries_deleted=forgotten.summaries_deleted, messages=len(messages), posts=posts,
            audit_entries=audit, dead_letters=dead, disputes=disputes)
        log.info("erased %s in %s: %s", user, tenant,
                 ", ".join(f"{k} {v}" for k, v in report.as_dict().items() if k not in ("tenant", "user")))
        return report

    async def _scrub_disputes(self, tenant: str, user: str, names: Collection[str]) -> int:
        """Disputes the member opened or closed, or whose title or close reason names them, lose
        their title and close reason (members' words); their ids and states stay."""
        if self.sessions is None:
            return 0
        changed = 0
        for info in await self.sessions.tenant_sessions(tenant):
            title = info.title and (info.opened_by == user or names_in(info.title, names))
            reason = info.close_reason and (info.closed_by == user or names_in(info.close_reason, names))
            if title or reason:
                await self.sessions.put(replace(info, title="" if title else info.title,
                                                close_reason="" if reason else info.close_reason))
                changed += 1
        return changed

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


def _traces(user: str, facts: Sequence[Fact], messages: Sequence[Message]) -> _Traces:
    names = {m.author_name for m in messages}
    for fact in facts:
        if fact.subject == user and fact.subject_name:
            names.add(fact.subject_name)
        sources = (*fact.sources, *(s for e in (*fact.history, *fact.contested) for s in e.sources))
        names.update(s.author_name for s in sources if s.author_id == user and s.author_name)
    ids = {m.id for m in messages} | {s.message_id for f in facts for s in f.sources if s.author_id == user}
    return _Traces(frozenset(n for n in names if n.strip()), frozenset(ids), frozenset(f.id for f in facts))


def _concerns(post: Post, user: str, traces: _Traces) -> bool:
    """Does this post hold anything of the member: a mention, an answer to one of their messages, one
    of their memories (or a question citing it), or their name?"""
    answers = post.ref.get("reply_to") in traces.messages or (
        post.kind is PostKind.REPLY and any(post.id == f"reply:{post.tenant}:{m}" for m in traces.messages))
    cites = post.ref.get("fact_id") in traces.facts or any(f in traces.facts for f in post.ref.get("fact_ids", "").split())
    return user in post.body.mentions or answers or cites or names_in(post.body.plain(), traces.names)
