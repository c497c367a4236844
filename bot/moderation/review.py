"""Memory review for moderators: list, show, history, edit, delete, confirm, reject, the review
queue, the audit trail, and a member's export."""

from __future__ import annotations

from typing import Any

from bot.actors import Actor, InvalidRequest
from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.moderation.base import REVIEW_STATUSES, ModerationBase
from bot.moderation.views import Recovered, ReviewPage, fact_view, outline
from bot.offline.actions import reread_due
from bot.privacy.audit import AuditEntry
from bot.text import kinds
from bot.text.lang import session_lang
from bot.text.names import NameBook
from memory.models import (
    Confidence,
    Fact,
    FactStatus,
    Kind,
    Scope,
    utcnow,
)
from memory.ports import RecordFilter

__all__ = ["MemoryReview"]


class MemoryReview(ModerationBase):
    """Memory review: what moderators do with what Heyan remembers."""

    async def memory_list(
        self, actor: Actor, *, user: str | None = None, kind: Kind | str | None = None,
        status: FactStatus | None = None, session: str | None = None,
    ) -> list[Fact]:
        """``kind``: a store kind, or any name of the kind vocabulary (``bot.text.kinds``: "agreement",
        "consensus", "claim", "同意", …)."""
        await self._enter(actor)
        self._require(actor, "list memories", "查看记忆列表")
        try:
            query = kinds.parse(kind.value if isinstance(kind, Kind) else kind) if kind else None
        except ValueError as exc:
            raise InvalidRequest(str(exc), f"未知的类型 {kind}；可用的类型：{'、'.join(kinds.LABELS)}") from None
        # active and overdue are read from the clock (``Fact.status_at``): either asks for both, then keeps
        # the records whose status is that one now
        derived = status in (FactStatus.ACTIVE, FactStatus.OVERDUE)
        asked = {FactStatus.ACTIVE.value, FactStatus.OVERDUE.value} if derived else {status.value} if status else set()
        flt = RecordFilter(kinds=frozenset(k.value for k in query.stored) if query else frozenset(),
                           statuses=frozenset(asked))
        facts = await self.memory.list_facts(Scope(tenant=actor.tenant, session=session, user=user), flt)
        if derived:
            now = self.memory.clock()
            facts = [f for f in facts if f.status_at(now) is status]
        return query.only(facts) if query else facts

    async def memory_show(self, actor: Actor, ref: str, *, session: str | None = None) -> Fact:
        """A moderator sees any memory of the tenant; a member, those that concern them (and, asked
        from a session, what may be shown there)."""
        await self._enter(actor)
        return await self._find(actor, ref, session=session)

    async def memory_history(self, actor: Actor, ref: str, *, session: str | None = None) -> tuple[Fact, list[AuditEntry]]:
        """A memory with its versions (``Fact.history``) and every audit entry about it, newest first:
        who changed it, when, why. The same visibility as ``memory_show``; a member is shown only the
        entries of what they did themselves (moderators' actions and reasons are for moderators)."""
        await self._enter(actor)
        fact = await self._find(actor, ref, session=session)
        entries = await self.audit.entries(actor.tenant, target=fact.id, limit=500)
        extracted = [e for e in await self.audit.entries(actor.tenant, user=fact.subject, limit=2000)
                     if e.action == "memory.extract" and any(fact.id in ids for ids in (e.after or {}).values()
                                                             if isinstance(ids, list))]
        merged = sorted({e.id: e for e in (*entries, *extracted)}.values(), key=lambda e: e.at, reverse=True)
        if not actor.is_moderator:  # moderators' entries (and their reasons) stay with moderators
            merged = [e for e in merged if e.actor_id == actor.user_id]
        return fact, merged

    async def memory_edit(self, actor: Actor, ref: str, value: str, reason: str = "") -> Fact:
        await self._enter(actor)
        self._require(actor, "edit memories", "修改记忆")
        value = value.strip()
        if not value:
            raise InvalidRequest("the new value is empty; write what the memory should say",
                                 "新内容为空；请写出这条记忆应有的内容")
        found = await self._find(actor, ref)
        zone = (await self.tenants.get(actor.tenant)).timezone

        def edit(cur: Fact) -> Fact:
            if value == cur.value:
                return cur
            status = FactStatus.ACTIVE if cur.status in REVIEW_STATUSES else cur.status
            # a commitment's new words may name a new deadline: read it again (its follow-up moves too)
            return self._new_version(cur, actor, value=value, status=status, confidence=Confidence.HIGH, contested=(),
                                     **reread_due(cur, value, zone))

        fact, saved = await self._change(actor, found, edit)
        if saved is fact:
            return saved
        await self._log(actor, "memory.edit", fact.id, reason=reason, users=fact.users, kind=fact.kind,
                        before={"value": fact.value, "status": fact.status.value, "version": fact.version},
                        after={"value": saved.value, "status": saved.status.value, "version": saved.version})
        return saved

    async def memory_delete(self, actor: Actor, ref: str, reason: str = "") -> Fact:
        """Erase one memory everywhere it is stored; the audit keeps that it existed, not its text."""
        await self._enter(actor)
        self._require(actor, "delete memories", "删除记忆")
        fact = await self._find(actor, ref)
        await self.memory.delete(Scope(tenant=actor.tenant), [fact.id])
        await self._log(actor, "memory.delete", fact.id, reason=reason, before=outline(fact), users=fact.users,
                        kind=fact.kind)
        return fact

    async def memory_confirm(self, actor: Actor, ref: str, reason: str = "") -> Fact:
        """A moderator confirms a disputed, unverified or low-confidence memory: it becomes active.

        A flagged record's confirm means "this message was ordinary": the message is extracted again
        with the poisoning detector overridden for it, so its promises and facts become records as
        any message's would, and the flagged record is retired (``superseded``); see
        ``recover_flagged``, which also says what was recovered."""
        await self._enter(actor)
        self._require(actor, "confirm memories", "确认记忆")
        found = await self._find(actor, ref)
        if found.status is FactStatus.FLAGGED:
            return (await self._recover(actor, found, reason)).retired

        def confirm(cur: Fact) -> Fact:
            rejected = tuple(c.model_copy(update={"status": FactStatus.REJECTED}) for c in cur.contested)
            update: dict[str, Any] = {"confidence": Confidence.HIGH, "contested": (),
                                      "history": (*cur.history, *rejected),
                                      "confirmed_at": self.memory.clock()}  # weighs more: memory.recall.importance
            if cur.status in REVIEW_STATUSES:
                update["status"] = FactStatus.ACTIVE
            return cur.model_copy(update=update)

        fact, saved = await self._change(actor, found, confirm)
        await self._log(actor, "memory.confirm", fact.id, reason=reason, users=fact.users, kind=fact.kind,
                        before={"status": fact.status.value, "confidence": fact.confidence.value,
                                "contested": len(fact.contested)},
                        after={"status": saved.status.value, "confidence": saved.confidence.value, "contested": 0})
        return saved

    async def recover_flagged(self, actor: Actor, ref: str, reason: str = "") -> Recovered:
        """Confirm a flagged record as ordinary (``memory_confirm``) and return what its message
        yields now: the records written from it and the retired flagged record."""
        await self._enter(actor)
        self._require(actor, "confirm memories", "确认记忆")
        found = await self._find(actor, ref)
        if found.status is not FactStatus.FLAGGED:
            raise InvalidRequest(f"memory {found.id[:8]} is {found.status.value}, not flagged; confirm it instead",
                                 f"记忆 {found.id[:8]} 的状态是 {found.status.value}，不是已标记；请直接确认")
        return await self._recover(actor, found, reason)

    async def _recover(self, actor: Actor, flagged: Fact, reason: str) -> Recovered:
        """Extract a flagged record's message again through the extractor and ``to_facts``, the
        detector overridden for that message, remember what it yields (follow-ups included), then
        retire the flagged record. The message is read from the window while it is kept there (its
        speaker's zone, whether it mentioned the bot, the turns before it), else from the record,
        whose source quote is the whole message."""
        if not flagged.sources:
            raise InvalidRequest(f"flagged memory {flagged.id[:8]} has no source message to read again",
                                 f"已标记记忆 {flagged.id[:8]} 没有可重新读取的原消息")
        source = flagged.sources[0]
        scope = Scope(tenant=flagged.tenant, session=flagged.session)
        window = await self.window.recent(scope) if flagged.session else []
        held = next((m for m in window if m.id == source.message_id), None)
        turn = held.utterance() if held is not None else Utterance(
            source.message_id, source.author_id, source.author_name, source.quote, source.ts)
        context = [m.utterance() for m in window if m.ts <= turn.ts and m.id != turn.message_id][-6:]
        lang = session_lang([*(u.text for u in context), turn.text])
        tenant = await self.tenants.get(flagged.tenant)
        request = ExtractionRequest(
            tenant=flagged.tenant, session=flagged.session or "", turns=[turn], context=context, lang=lang,
            timezone=tenant.timezone, visibility=flagged.visibility, cleared=frozenset({turn.message_id}),
        )
        candidates = await self.provider.extract(request)
        facts = await self.erasure.admissible(
            to_facts(request, candidates, now=utcnow(), lang=lang, ttl=tenant.ttl()))
        result = await self.memory.remember(facts)
        before, retired = await self._change(
            actor, flagged, lambda cur: self._new_version(cur, actor, status=FactStatus.SUPERSEDED))
        recovered = tuple(result.written)
        await self._log(actor, "memory.confirm", flagged.id, reason=reason,
                        users=(*flagged.users, *(u for f in recovered for u in f.users)),
                        before={"status": before.status.value},
                        after={"status": retired.status.value, "recovered": [f.id for f in recovered]})
        return Recovered(retired=retired, recovered=recovered)

    async def memory_reject(self, actor: Actor, ref: str, reason: str = "") -> Fact:
        """A moderator finds a memory wrong: it is kept for the record but never recalled again."""
        await self._enter(actor)
        self._require(actor, "reject memories", "驳回记忆")
        found = await self._find(actor, ref)
        fact, saved = await self._change(actor, found, lambda cur: cur.model_copy(update={"status": FactStatus.REJECTED}))
        await self._log(actor, "memory.reject", fact.id, reason=reason, users=fact.users, kind=fact.kind,
                        before={"status": fact.status.value}, after={"status": saved.status.value})
        return saved

    async def review_queue(self, actor: Actor, *, offset: int = 0, limit: int = 5) -> ReviewPage:
        """Disputed, unverified and low-confidence memories, most recently changed first."""
        await self._enter(actor)
        self._require(actor, "review memories", "审核记忆")
        facts = [f async for f in self.memory.iter_facts(Scope(tenant=actor.tenant))
                 if f.status in REVIEW_STATUSES or (f.confidence is Confidence.LOW and f.status is FactStatus.ACTIVE)]
        facts.sort(key=lambda f: (f.updated_at, f.id), reverse=True)
        offset = max(0, min(offset, max(0, len(facts) - 1)))
        return ReviewPage(tuple(facts[offset:offset + limit]), offset, len(facts))

    async def audit_log(self, actor: Actor, *, user: str | None = None, limit: int = 50) -> list[AuditEntry]:
        await self._enter(actor)
        self._require(actor, "read the audit trail", "查看审计记录")
        return await self.audit.entries(actor.tenant, user=user, limit=limit)

    async def export_member(self, actor: Actor, user: str | None = None) -> dict[str, Any]:
        """Everything held about or from ``user`` (default: the actor), as JSON-ready data.
        Moderators may export anyone; a member only themselves."""
        await self._enter(actor)
        user = user or actor.user_id
        if user != actor.user_id:
            self._require(actor, "export another member's data", "导出其他成员的数据")
        scope = Scope(tenant=actor.tenant, user=user)
        facts = await self.memory.list_facts(scope)
        summaries = [s async for s in self.memory.iter_summaries(scope)]
        zone = (await self.tenants.get(actor.tenant)).timezone
        names, now = NameBook.of(facts), self.memory.clock()
        data = {
            "tenant": actor.tenant, "user": user, "name": names.name(user), "exported_at": now.isoformat(),
            "timezone": zone, "facts": [fact_view(f, zone=zone, now=now, names=names) for f in facts],
            "summaries": [s.model_dump(mode="json") for s in summaries],
        }
        await self._log(actor, "member.export", user, users=[user], after={"facts": len(facts)})
        return data
