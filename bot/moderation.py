"""The moderation service: everything a moderator or a member does with Heyan, on every surface.

Disputes (open, status, summary, close), memory review (list, show, edit, delete, confirm, reject,
the review queue, a member's export, the audit trail), member self-service (what Heyan holds about
me, correct it, erase me) and commitments (list, done, snooze). Console, Discord and Slack are thin
callers: they turn their caller into an ``Actor``, call one method, and render what comes back.

Each method checks permission here: moderator actions need ``Capability.MODERATE``; a member sees
and changes only records that concern them (``Fact.users``). Each change writes an audit entry.
Refusals are ``ModerationError``s and change nothing. Rate limits apply per user and per tenant.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from redis.asyncio import Redis

from bot.actors import Actor, Ambiguous, Capability, InvalidRequest, NotFound, PermissionDenied
from bot.audit import AuditEntry, AuditLog
from bot.erasure import Erasure
from bot.limits import RateLimits
from bot.llm.base import MediatorProvider
from bot.outbox import Outbox, Post, PostKind
from bot.ports import Scheduler
from bot.reminders import reminder_time
from bot.richtext import Mention, RichText
from bot.sessions import SessionBook, SessionInfo
from bot.settings import JobSettings
from bot.summaries import summarize_session
from bot.window import ConversationWindow
from memory.models import (
    OPEN_COMMITMENT,
    Confidence,
    Fact,
    FactStatus,
    HistoryEntry,
    Kind,
    Scope,
    Summary,
    Visibility,
    utcnow,
)
from memory.ports import RecordFilter
from memory.service import MemoryService

__all__ = ["ClosedDispute", "DisputeStatus", "ErasureRequest", "ModerationService", "ReviewPage", "fact_view"]

log = logging.getLogger(__name__)

#: Statuses a review needs: contradicted, or someone's unverified account.
_REVIEW = frozenset({FactStatus.DISPUTED, FactStatus.UNVERIFIED})
#: How long an erasure confirmation stays valid.
ERASE_CONFIRM_SECONDS = 600
#: Shortest id prefix accepted (fewer characters match too much to be useful).
MIN_PREFIX = 4


@dataclass(frozen=True, slots=True)
class ReviewPage:
    """One page of the review queue, newest change first."""

    items: tuple[Fact, ...]
    offset: int
    total: int


@dataclass(frozen=True, slots=True)
class DisputeStatus:
    """Where a session stands: its dispute record (None if never opened), stage, open commitments."""

    tenant: str
    session: str
    info: SessionInfo | None
    stage: str
    turns: int
    open_commitments: tuple[Fact, ...]
    summary: Summary | None


@dataclass(frozen=True, slots=True)
class ClosedDispute:
    info: SessionInfo
    summary: Summary | None
    cancelled_followups: int


@dataclass(frozen=True, slots=True)
class ErasureRequest:
    """What erasing ``user`` would remove; confirm with ``token`` within ``ERASE_CONFIRM_SECONDS``."""

    user: str
    facts: int
    summaries: int
    token: str


def fact_view(fact: Fact) -> dict[str, Any]:
    """Every field of a fact as JSON-ready data (exports, `--json`)."""
    return fact.model_dump(mode="json")


def _outline(fact: Fact) -> dict[str, Any]:
    """A record named without its text: what an audit entry keeps of something erased."""
    return {"kind": fact.kind.value, "subject": fact.subject, "attribute": fact.attribute, "status": fact.status.value}


class ModerationService:
    """Platform-neutral moderation and member self-service over one tenant's memory at a time."""

    def __init__(
        self,
        *,
        memory: MemoryService,
        sessions: SessionBook,
        audit: AuditLog,
        outbox: Outbox,
        scheduler: Scheduler,
        window: ConversationWindow,
        provider: MediatorProvider,
        redis: Redis,
        jobs: JobSettings,
        erasure: Erasure,
        limits: RateLimits | None = None,
    ) -> None:
        self.memory = memory
        self.sessions = sessions
        self.audit = audit
        self.outbox = outbox
        self.scheduler = scheduler
        self.window = window
        self.provider = provider
        self.redis = redis
        self.jobs = jobs
        self.erasure = erasure
        self.limits = limits

    # --- checks ------------------------------------------------------------------------------

    async def _enter(self, actor: Actor) -> None:
        if self.limits is not None and not actor.unlimited:
            await self.limits.hit("command", actor.tenant, actor.user_id)

    @staticmethod
    def _require(actor: Actor, what_en: str, what_zh: str) -> None:
        if Capability.MODERATE in actor.capabilities:
            return
        hint = f" ({actor.moderator_hint})" if actor.moderator_hint else ""
        raise PermissionDenied(
            f"only moderators can {what_en}; this needs the moderator capability{hint}",
            f"只有管理员可以{what_zh}；需要管理员权限{hint}",
        )

    @staticmethod
    def _concerns(actor: Actor, fact: Fact) -> bool:
        return actor.user_id in fact.users or actor.user_id in (fact.subject, fact.asserted_by)

    @staticmethod
    def _visible(actor: Actor, fact: Fact, session: str | None) -> bool:
        """May a member see this record? Those that concern them, and — asked from a session — the
        session's own and the tenant's public records (what is shown in that thread anyway)."""
        if ModerationService._concerns(actor, fact):
            return True
        return session is not None and (fact.session == session or fact.visibility is Visibility.PUBLIC)

    async def _find(self, actor: Actor, ref: str, *, kind: Kind | None = None, session: str | None = None) -> Fact:
        """The fact ``ref`` names (a full id, or a unique prefix) that the actor may see."""
        ref = ref.strip().lower()
        scope = Scope(tenant=actor.tenant)
        what_en, what_zh = ("commitment", "承诺") if kind is Kind.COMMITMENT else ("memory", "记忆")
        found: list[Fact] = []
        try:
            exact = str(uuid.UUID(ref))
        except ValueError:
            exact = ""
        if exact:
            fact = await self.memory.get(scope, exact)
            found = [fact] if fact is not None else []
        elif len(ref) >= MIN_PREFIX:
            flt = RecordFilter(kinds=frozenset({kind.value}) if kind else frozenset())
            narrowed = scope if actor.is_moderator or session else scope.narrow(user=actor.user_id)
            found = [f async for f in self.memory.iter_facts(narrowed, flt) if f.id.startswith(ref)]
        else:
            raise InvalidRequest(f"give at least {MIN_PREFIX} characters of a {what_en} id",
                                 f"请至少给出{what_zh} id 的前 {MIN_PREFIX} 个字符")
        found = [f for f in found if (kind is None or f.kind is kind)]
        if not actor.is_moderator:
            found = [f for f in found if self._visible(actor, f, session)]
        if not found:
            raise NotFound(f"no {what_en} with id {ref} here; list them to see the ids",
                           f"这里没有 id 为 {ref} 的{what_zh}；请先列出以查看 id")
        if len(found) > 1:
            plural = "commitments" if kind is Kind.COMMITMENT else "memories"
            raise Ambiguous(f"the id {ref} matches {len(found)} {plural}; give more characters",
                            f"id {ref} 匹配到 {len(found)} 条{what_zh}；请多给几个字符")
        return found[0]

    async def _log(self, actor: Actor, action: str, target: str, *, reason: str = "",
                   before: dict[str, Any] | None = None, after: dict[str, Any] | None = None,
                   users: Sequence[str] = ()) -> None:
        await self.audit.record(AuditEntry(
            tenant=actor.tenant, actor_id=actor.user_id, actor_name=actor.display, action=action,
            target=target, reason=reason, before=before, after=after, users=tuple(dict.fromkeys(users)),
        ))

    async def _rescheduled(self, fact: Fact) -> None:
        """After a write that bumped a commitment's version: its follow-up is for the new version."""
        if fact.kind is Kind.COMMITMENT and fact.status in OPEN_COMMITMENT and not fact.reminders_sent:
            when = reminder_time(fact, lead_seconds=self.jobs.reminder_lead_seconds,
                                 no_due_followup_seconds=self.jobs.no_due_followup_seconds)
            await self.scheduler.remind(fact.tenant, fact.id, fact.version, when)

    async def _change(self, actor: Actor, fact: Fact, change: Callable[[Fact], Fact]) -> tuple[Fact, Fact]:
        """Apply ``change`` to the record as stored now, under its lock; returns (before, after).
        NotFound when it was deleted meanwhile (nothing is written back)."""
        seen: list[Fact] = []

        def applied(current: Fact) -> Fact:
            seen.append(current)
            return change(current)

        after = await self.memory.modify(Scope(tenant=actor.tenant), fact.id, applied)
        if after is None or not seen:
            raise NotFound("that memory was deleted meanwhile; nothing was changed", "这条记忆刚被删除；没有做任何修改")
        return seen[-1], after

    def _new_version(self, fact: Fact, actor: Actor, **update: Any) -> Fact:
        entry = HistoryEntry(version=fact.version, value=fact.value, asserted_by=fact.asserted_by,
                             status=fact.status, valid_from=fact.valid_from, valid_to=utcnow(), sources=fact.sources)
        return fact.model_copy(update={"version": fact.version + 1, "history": (*fact.history, entry),
                                       "valid_from": utcnow(), **update})

    # --- memory review (moderators) ----------------------------------------------------------

    async def memory_list(
        self, actor: Actor, *, user: str | None = None, kind: Kind | None = None,
        status: FactStatus | None = None, session: str | None = None,
    ) -> list[Fact]:
        await self._enter(actor)
        self._require(actor, "list memories", "查看记忆列表")
        flt = RecordFilter(kinds=frozenset({kind.value}) if kind else frozenset(),
                           statuses=frozenset({status.value}) if status else frozenset())
        return await self.memory.list_facts(Scope(tenant=actor.tenant, session=session, user=user), flt)

    async def memory_show(self, actor: Actor, ref: str, *, session: str | None = None) -> Fact:
        """A moderator sees any memory of the tenant; a member, those that concern them (and, asked
        from a session, what may be shown there)."""
        await self._enter(actor)
        return await self._find(actor, ref, session=session)

    async def memory_history(self, actor: Actor, ref: str, *, session: str | None = None) -> tuple[Fact, list[AuditEntry]]:
        """A memory with its versions (``Fact.history``) and every audit entry about it, newest first:
        who changed it, when, why. The same visibility as ``memory_show``."""
        await self._enter(actor)
        fact = await self._find(actor, ref, session=session)
        entries = await self.audit.entries(actor.tenant, target=fact.id, limit=500)
        extracted = [e for e in await self.audit.entries(actor.tenant, user=fact.subject, limit=2000)
                     if e.action == "memory.extract" and any(fact.id in ids for ids in (e.after or {}).values()
                                                             if isinstance(ids, list))]
        merged = sorted({e.id: e for e in (*entries, *extracted)}.values(), key=lambda e: e.at, reverse=True)
        return fact, merged

    async def memory_edit(self, actor: Actor, ref: str, value: str, reason: str = "") -> Fact:
        await self._enter(actor)
        self._require(actor, "edit memories", "修改记忆")
        value = value.strip()
        if not value:
            raise InvalidRequest("the new value is empty; write what the memory should say",
                                 "新内容为空；请写出这条记忆应有的内容")
        found = await self._find(actor, ref)

        def edit(cur: Fact) -> Fact:
            if value == cur.value:
                return cur
            status = FactStatus.ACTIVE if cur.status in _REVIEW else cur.status
            return self._new_version(cur, actor, value=value, status=status, confidence=Confidence.HIGH, contested=())

        fact, saved = await self._change(actor, found, edit)
        if saved is fact:
            return saved
        await self._log(actor, "memory.edit", fact.id, reason=reason, users=fact.users,
                        before={"value": fact.value, "status": fact.status.value, "version": fact.version},
                        after={"value": saved.value, "status": saved.status.value, "version": saved.version})
        await self._rescheduled(saved)
        return saved

    async def memory_delete(self, actor: Actor, ref: str, reason: str = "") -> Fact:
        """Erase one memory everywhere it is stored; the audit keeps that it existed, not its text."""
        await self._enter(actor)
        self._require(actor, "delete memories", "删除记忆")
        fact = await self._find(actor, ref)
        await self.memory.delete(Scope(tenant=actor.tenant), [fact.id])
        await self._log(actor, "memory.delete", fact.id, reason=reason, before=_outline(fact), users=fact.users)
        return fact

    async def memory_confirm(self, actor: Actor, ref: str, reason: str = "") -> Fact:
        """A moderator confirms a disputed, unverified or low-confidence memory: it becomes active."""
        await self._enter(actor)
        self._require(actor, "confirm memories", "确认记忆")
        found = await self._find(actor, ref)

        def confirm(cur: Fact) -> Fact:
            rejected = tuple(c.model_copy(update={"status": FactStatus.REJECTED}) for c in cur.contested)
            update: dict[str, Any] = {"confidence": Confidence.HIGH, "contested": (),
                                      "history": (*cur.history, *rejected)}
            if cur.status in _REVIEW:
                update["status"] = FactStatus.ACTIVE
            return cur.model_copy(update=update)

        fact, saved = await self._change(actor, found, confirm)
        await self._log(actor, "memory.confirm", fact.id, reason=reason, users=fact.users,
                        before={"status": fact.status.value, "confidence": fact.confidence.value,
                                "contested": len(fact.contested)},
                        after={"status": saved.status.value, "confidence": saved.confidence.value, "contested": 0})
        return saved

    async def memory_reject(self, actor: Actor, ref: str, reason: str = "") -> Fact:
        """A moderator finds a memory wrong: it is kept for the record but never recalled again."""
        await self._enter(actor)
        self._require(actor, "reject memories", "驳回记忆")
        found = await self._find(actor, ref)
        fact, saved = await self._change(actor, found, lambda cur: cur.model_copy(update={"status": FactStatus.REJECTED}))
        await self._log(actor, "memory.reject", fact.id, reason=reason, users=fact.users,
                        before={"status": fact.status.value}, after={"status": saved.status.value})
        return saved

    async def review_queue(self, actor: Actor, *, offset: int = 0, limit: int = 5) -> ReviewPage:
        """Disputed, unverified and low-confidence memories, most recently changed first."""
        await self._enter(actor)
        self._require(actor, "review memories", "审核记忆")
        facts = [f async for f in self.memory.iter_facts(Scope(tenant=actor.tenant))
                 if f.status in _REVIEW or (f.confidence is Confidence.LOW and f.status is FactStatus.ACTIVE)]
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
        await self._log(actor, "member.export", user, users=[user], after={"facts": len(facts)})
        return {
            "tenant": actor.tenant, "user": user, "exported_at": utcnow().isoformat(),
            "facts": [fact_view(f) for f in facts],
            "summaries": [s.model_dump(mode="json") for s in summaries],
        }

    # --- member self-service ---------------------------------------------------------------

    async def my_memories(self, actor: Actor) -> list[Fact]:
        """Every memory that concerns the actor, in every session (private ones included)."""
        await self._enter(actor)
        return await self.memory.list_facts(Scope(tenant=actor.tenant, user=actor.user_id))

    async def correct(self, actor: Actor, ref: str, value: str, reason: str = "") -> Fact:
        """A member corrects a memory about themselves. Their own statement (they said it, or it is
        about them and theirs to state) gets a new version; someone else's account of them is marked
        disputed with the member's version beside it, for a moderator to settle."""
        await self._enter(actor)
        value = value.strip()
        if not value:
            raise InvalidRequest("the correction is empty; write what it should say", "更正内容为空；请写出正确的内容")
        found = await self._find(actor, ref)
        if not (actor.is_moderator or self._concerns(actor, found)):
            raise PermissionDenied("you can only correct memories about yourself", "你只能更正关于你自己的记忆")
        own = actor.user_id in (found.subject, found.asserted_by)

        def correction(cur: Fact) -> Fact:
            if own:
                status = FactStatus.ACTIVE if cur.status in _REVIEW else cur.status
                return self._new_version(cur, actor, value=value, asserted_by=actor.user_id, status=status,
                                         confidence=Confidence.HIGH)
            claim = HistoryEntry(version=cur.version, value=value, asserted_by=actor.user_id,
                                 status=FactStatus.DISPUTED, valid_from=utcnow(), valid_to=utcnow())
            return cur.model_copy(update={"status": FactStatus.DISPUTED, "contested": (*cur.contested, claim)})

        fact, saved = await self._change(actor, found, correction)
        if own:
            await self._rescheduled(saved)
        await self._log(actor, "memory.correct" if own else "memory.contest", fact.id, reason=reason,
                        users=fact.users, before={"value": fact.value, "status": fact.status.value},
                        after={"value": value, "status": saved.status.value})
        return saved

    async def request_erasure(self, actor: Actor, user: str | None = None) -> ErasureRequest:
        """Step one of erasing a member: what would go, and a token to confirm it with."""
        await self._enter(actor)
        user = user or actor.user_id
        if user != actor.user_id:
            self._require(actor, "erase another member's data", "删除其他成员的数据")
        scope = Scope(tenant=actor.tenant, user=user)
        facts = await self.memory.store.count("facts", scope)
        summaries = await self.memory.store.count("summaries", scope)
        token = secrets.token_urlsafe(8)
        await self.redis.set(self._erase_key(actor, user), token, ex=ERASE_CONFIRM_SECONDS)
        return ErasureRequest(user=user, facts=facts, summaries=summaries, token=token)

    @staticmethod
    def _erase_key(actor: Actor, user: str) -> str:
        return f"heyan:erase-confirm:{actor.tenant}:{actor.user_id}:{user}"

    async def confirm_erasure(self, actor: Actor, token: str, user: str | None = None) -> int:
        """Step two: erase every memory and summary about or from the member; returns how many."""
        await self._enter(actor)
        user = user or actor.user_id
        key = self._erase_key(actor, user)
        stored = await self.redis.get(key)
        expected = stored.decode() if isinstance(stored, bytes) else stored
        if not expected or not secrets.compare_digest(expected, token):
            raise InvalidRequest("that erasure confirmation has expired or does not match; ask again",
                                 "删除确认已过期或不匹配；请重新发起")
        await self.redis.delete(key)
        report = await self.erasure.erase(actor.tenant, user, request_id=token)
        await self._log(actor, "member.erase", user, users=[user],
                        after={"records": report.records, "messages": report.messages, "posts": report.posts})
        return report.records

    # --- commitments -------------------------------------------------------------------------

    async def commitments(
        self, actor: Actor, *, session: str | None = None, include_closed: bool = False
    ) -> list[Fact]:
        """Moderators: every commitment (of ``session`` if given). Members: their own and, in a
        session, that session's and the tenant's public ones. Open ones only unless ``include_closed``."""
        await self._enter(actor)
        statuses = frozenset() if include_closed else frozenset(s.value for s in OPEN_COMMITMENT)
        base = RecordFilter(kinds=frozenset({Kind.COMMITMENT.value}), statuses=statuses)
        scope = Scope(tenant=actor.tenant)
        if actor.is_moderator:
            facts = await self.memory.list_facts(scope.narrow(session=session), base)
        else:
            mine = await self.memory.list_facts(scope.narrow(user=actor.user_id), base)
            here: list[Fact] = []
            if session:
                here = await self.memory.list_facts(scope, RecordFilter(
                    kinds=base.kinds, statuses=base.statuses, visible_in=session))
            facts = list({f.id: f for f in (*mine, *here)}.values())
        far = datetime.max.replace(tzinfo=utcnow().tzinfo)
        return sorted(facts, key=lambda f: (f.due_at or far, f.id))

    async def commitment_done(self, actor: Actor, ref: str, reason: str = "", *, session: str | None = None) -> Fact:
        """Mark a commitment done (its owner or a moderator): no follow-up will be sent. ``session``:
        where the actor asks from (its commitments can be named from there)."""
        await self._enter(actor)
        fact = await self._find(actor, ref, kind=Kind.COMMITMENT, session=session)
        if not (actor.is_moderator or actor.user_id == fact.subject):
            raise PermissionDenied("only its owner or a moderator can mark a commitment done",
                                   "只有承诺人本人或管理员可以标记完成")
        if fact.status is FactStatus.DONE:
            return fact
        before, saved = await self._change(actor, fact, lambda cur: cur.model_copy(update={"status": FactStatus.DONE}))
        await self._log(actor, "commitment.done", fact.id, reason=reason, users=fact.users,
                        before={"status": before.status.value}, after={"status": FactStatus.DONE.value})
        return saved

    async def commitment_snooze(
        self, actor: Actor, ref: str, until: datetime, reason: str = "", *, session: str | None = None
    ) -> Fact:
        """Move a commitment's due time (its owner or a moderator); the follow-up moves with it."""
        await self._enter(actor)
        if until.tzinfo is None:
            raise InvalidRequest("the new due time needs a timezone", "新的截止时间需要带时区")
        if until <= utcnow():
            raise InvalidRequest("the new due time is in the past; pick a later one", "新的截止时间已经过去；请选一个更晚的时间")
        fact = await self._find(actor, ref, kind=Kind.COMMITMENT, session=session)
        if not (actor.is_moderator or actor.user_id == fact.subject):
            raise PermissionDenied("only its owner or a moderator can snooze a commitment",
                                   "只有承诺人本人或管理员可以推迟承诺")
        if fact.status not in OPEN_COMMITMENT:
            raise InvalidRequest(f"this commitment is {fact.status.value}; only open ones can be snoozed",
                                 f"这个承诺的状态是 {fact.status.value}；只能推迟未完成的承诺")
        _, saved = await self._change(actor, fact, lambda cur: self._new_version(
            cur, actor, due_at=until, status=FactStatus.ACTIVE, reminders_sent=()))
        await self._log(actor, "commitment.snooze", fact.id, reason=reason, users=fact.users,
                        before={"due_at": fact.due_at.isoformat() if fact.due_at else None},
                        after={"due_at": until.isoformat()})
        await self._rescheduled(saved)
        return saved

    # --- disputes ----------------------------------------------------------------------------

    async def dispute_open(
        self, actor: Actor, session: str, *, title: str, members: Sequence[Mention] = (),
        visibility: Visibility = Visibility.PUBLIC, announce: bool = True,
    ) -> SessionInfo:
        """Open a dispute in ``session`` (a thread the platform created); the opening message is
        posted through the outbox, mentioning the members."""
        await self._enter(actor)
        title = " ".join(title.split())
        if not title:
            raise InvalidRequest("a dispute needs a title", "争议需要一个标题")
        current = await self.sessions.get(actor.tenant, session)
        if current is not None and current.is_open:
            raise InvalidRequest(f"a dispute is already open here: {current.title}", f"这里已有进行中的争议：{current.title}")
        info = await self.sessions.open(actor.tenant, session, title=title, opened_by=actor.user_id,
                                        members=[m.user_id for m in members], visibility=visibility)
        await self._log(actor, "dispute.open", session, users=info.members,
                        after={"title": title, "visibility": visibility.value, "members": list(info.members)})
        if announce:
            await self.outbox.append(self._opening(actor, info, members))
        return info

    @staticmethod
    def _opening(actor: Actor, info: SessionInfo, members: Sequence[Mention]) -> Post:
        """The opening message: the title, the members by mention, and what Heyan will do."""
        names: list[str | Mention] = []
        for i, m in enumerate(members):
            names += [("、" if actor.lang == "zh" else ", ")] if i else []
            names.append(m)
        if actor.lang == "zh":
            text = RichText.of(f"这里开启了一个争议：{info.title}。", *names, *(["，"] if names else []),
                               "请各自说说发生了什么、希望怎样解决。我会记下每个人的说法、诉求和承诺，到时跟进；"
                               "随时 @我 问我记得什么。")
        else:
            text = RichText.of(f"A dispute was opened here: {info.title}. ", *names, *([": "] if names else []),
                               "please each say what happened and what would resolve it for you. I will keep "
                               "track of what each of you says, wants and promises, and follow up; mention me "
                               "any time to ask what I remember.")
        stamp = int((info.opened_at or utcnow()).timestamp())
        return Post(id=f"dispute-open:{info.tenant}:{info.session}:{stamp}", tenant=info.tenant,
                    session=info.session, body=text, kind=PostKind.DISPUTE_OPENED, lang=actor.lang)

    async def dispute_status(self, actor: Actor, session: str) -> DisputeStatus:
        await self._enter(actor)
        scope = Scope(tenant=actor.tenant, session=session)
        info = await self.sessions.get(actor.tenant, session)
        commitments = await self.memory.open_commitments(Scope(tenant=actor.tenant), visible_in=session)
        return DisputeStatus(
            tenant=actor.tenant, session=session, info=info, stage=await self.window.stage(scope) or "gathering",
            turns=await self.window.turns(scope), open_commitments=tuple(commitments),
            summary=await self.memory.summary(scope),
        )

    async def dispute_summary(self, actor: Actor, session: str, *, refresh: bool = True) -> Summary | None:
        """The session's summary, brought up to date from its recent messages first."""
        await self._enter(actor)
        scope = Scope(tenant=actor.tenant, session=session)
        if refresh:
            fresh = await summarize_session(self.window, self.memory, self.provider, scope)
            if fresh is not None:
                return fresh
        return await self.memory.summary(scope)

    async def dispute_close(self, actor: Actor, session: str, reason: str = "") -> ClosedDispute:
        """Close the dispute (its opener or a moderator): the summary is written and pending
        follow-ups of the session are cancelled."""
        await self._enter(actor)
        info = await self.sessions.get(actor.tenant, session)
        if info is None or not info.is_open:
            raise NotFound("no open dispute in this thread", "这个话题里没有进行中的争议")
        if not (actor.is_moderator or actor.user_id == info.opened_by):
            raise PermissionDenied("only whoever opened this dispute or a moderator can close it",
                                   "只有发起人或管理员可以结束这个争议")
        summary = await summarize_session(self.window, self.memory, self.provider,
                                          Scope(tenant=actor.tenant, session=session))
        closed = await self.sessions.close(info, closed_by=actor.user_id, reason=reason)
        cancelled = await self.outbox.cancel(actor.tenant, session, frozenset({PostKind.REMINDER}))
        await self._log(actor, "dispute.close", session, reason=reason, users=info.members,
                        after={"summary": summary.id if summary else None, "cancelled_followups": cancelled})
        return ClosedDispute(closed, summary, cancelled)
