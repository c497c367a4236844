"""Promise-keeping records through the moderation service: a member sees their own, moderators
anyone's; no member sees another's (``bot.agreements.promises`` counts them)."""

from __future__ import annotations

from datetime import datetime

from bot.actors import Actor
from bot.agreements.promises import PromiseRecord, promise_record
from bot.moderation.base import ModerationBase
from bot.text.names import NameBook
from memory.models import Kind, Scope, utcnow
from memory.ports import RecordFilter

__all__ = ["PromiseRecords"]


class PromiseRecords(ModerationBase):
    """A member's promise-keeping record."""

    async def promise_record(self, actor: Actor, user: str | None = None, *, now: datetime | None = None) -> PromiseRecord:
        """How ``user``'s commitments turned out (the actor's own by default) as of ``now``. Another
        member's record is for moderators only."""
        await self._enter(actor)
        user = user or actor.user_id
        if user != actor.user_id:
            self._require(actor, "see another member's promise record", "查看其他成员的承诺记录")
        return await self.record_of(actor.tenant, user, now=now)

    async def record_of(self, tenant: str, user: str, *, now: datetime | None = None) -> PromiseRecord:
        """The record without a permission check (moderators' notices, the digest)."""
        facts = await self.memory.list_facts(Scope(tenant=tenant, user=user),
                                             RecordFilter(kinds=frozenset({Kind.COMMITMENT.value})))
        book = NameBook.of(facts)
        return promise_record(tenant, user, facts, now or utcnow(), name=book.name(user))
