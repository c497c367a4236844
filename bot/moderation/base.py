"""The moderation service's collaborators and checks: rate limits, capabilities, finding a record the
actor may see, audit entries, and changing a record under its lock."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from redis.asyncio import Redis

from bot.actors import Actor, Ambiguous, Capability, InvalidRequest, NotFound, PermissionDenied
from bot.config.settings import JobSettings
from bot.config.tenants import TenantConfig
from bot.conversation import MessageLog, StageBook
from bot.delivery.outbox import Outbox
from bot.limits import RateLimits
from bot.llm.base import MediatorProvider
from bot.ports import Scheduler
from bot.privacy.audit import AuditEntry, AuditLog
from bot.privacy.erasure import Erasure
from bot.sessions import SessionBook
from memory.models import (
    Fact,
    FactStatus,
    HistoryEntry,
    Kind,
    Scope,
    Visibility,
    utcnow,
)
from memory.ports import RecordFilter
from memory.recall.relations import retarget
from memory.service import MemoryService

__all__ = ["ERASE_CONFIRM_SECONDS", "MIN_PREFIX", "REVIEW_STATUSES", "ModerationBase"]

log = logging.getLogger(__name__)

#: Statuses a review needs: contradicted, someone's unverified account, or a flagged attempt to
#: instruct the bot (a moderator rejects it, or confirms it was an ordinary statement after all).
REVIEW_STATUSES = frozenset({FactStatus.DISPUTED, FactStatus.UNVERIFIED, FactStatus.FLAGGED})
#: How long an erasure confirmation stays valid.
ERASE_CONFIRM_SECONDS = 600
#: Shortest id prefix accepted (fewer characters match too much to be useful).
MIN_PREFIX = 4


class ModerationBase:
    """The collaborators and the checks every moderation method shares."""

    def __init__(
        self,
        *,
        memory: MemoryService,
        sessions: SessionBook,
        audit: AuditLog,
        outbox: Outbox,
        scheduler: Scheduler,
        window: MessageLog,
        stages: StageBook,
        provider: MediatorProvider,
        redis: Redis,
        jobs: JobSettings,
        erasure: Erasure,
        tenants: TenantConfig,
        limits: RateLimits | None = None,
    ) -> None:
        self.memory = memory
        self.sessions = sessions
        self.audit = audit
        self.outbox = outbox
        self.scheduler = scheduler
        self.window = window
        self.stages = stages
        self.provider = provider
        self.redis = redis
        self.jobs = jobs
        self.erasure = erasure
        self.tenants = tenants
        self.limits = limits

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
        if ModerationBase._concerns(actor, fact):
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
                   users: Sequence[str] = (), kind: Kind | None = None) -> None:
        await self.audit.record(AuditEntry(
            tenant=actor.tenant, actor_id=actor.user_id, actor_name=actor.display, action=action,
            target=target, reason=reason, before=before, after=after, users=tuple(dict.fromkeys(users)),
            kind=kind.value if kind is not None else None,
        ))

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
        if "value" in update:  # a relation's object follows its new words (memory.recall.relations)
            update = {**retarget(fact, str(update["value"])), **update}
        entry = HistoryEntry(version=fact.version, value=fact.value, asserted_by=fact.asserted_by,
                             status=fact.status, valid_from=fact.valid_from, valid_to=utcnow(), sources=fact.sources)
        return fact.model_copy(update={"version": fact.version + 1, "history": (*fact.history, entry),
                                       "valid_from": utcnow(), **update})
