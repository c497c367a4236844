"""Active forgetting: records that stopped mattering lose weight, then expire — never silently, and
never an open commitment or a disputed fact.

Per tenant, by the hourly purge before it deletes: fold uses in from Redis (``bot.usage``); mark a
closed dispute's records ``settled_at`` (cleared on reopening); give records of a dispute closed over
``forget_after_days`` ago weighing under ``forget_below`` a notice expiry (``FORGET_NOTICE``), audited
and listed; a confirm or new uses give it back its own. Idempotent (but see ``bot.usage``).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from redis.asyncio import Redis

from bot.config.tenants import TenantConfig, TenantSettings
from bot.privacy.audit import SYSTEM, AuditEntry, AuditLog
from bot.sessions import DisputeState, SessionBook, SessionInfo
from bot.usage import UsageBook
from memory.models import RECALLABLE, Fact, Scope
from memory.recall.importance import protected, weight
from memory.service import MemoryService

__all__ = ["FORGET_NOTICE", "ForgetReport", "Forgetting"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How long a forgotten record stays (listed, with its expiry) before the purge deletes it: time for
#: a moderator to see it and confirm what still matters.
FORGET_NOTICE = timedelta(days=7)
#: <tenant> -> hash session -> close time applied, so a pass touches only disputes whose state changed.
_SETTLED = "heyan:settled:"


async def _aw(value: Awaitable[T] | T) -> T:
    return await value if inspect.isawaitable(value) else value


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(slots=True)
class ForgetReport:
    """What one pass did, summed over tenants (record counts)."""

    folded: int = 0  # records whose uses were added
    settled: int = 0  # records marked with their dispute's close
    reopened: int = 0  # records whose dispute was opened again
    forgotten: int = 0  # records given a TTL
    restored: int = 0  # forgotten records given their own expiry back
    per_tenant: dict[str, int] = field(default_factory=dict)  # forgotten, per tenant

    def as_dict(self) -> dict[str, int]:
        return {"folded": self.folded, "settled": self.settled, "reopened": self.reopened,
                "forgotten": self.forgotten, "restored": self.restored}


def _own_expiry(fact: Fact, settings: TenantSettings) -> datetime | None:
    """The expiry the record's kind gives it in this tenant (what it had before it was forgotten)."""
    life = settings.ttl().get(fact.kind)
    return fact.valid_from + life if life else None


def _restored(fact: Fact, settings: TenantSettings, now: datetime) -> Fact:
    """``fact`` with its own expiry back if forgetting had given it a TTL and it matters again
    (protected, or weighs at least the threshold, or its dispute is no longer closed)."""
    if fact.forgotten_at is None:
        return fact
    if not protected(fact) and fact.settled_at is not None and weight(fact, now) < settings.forget_below:
        return fact
    return fact.model_copy(update={"forgotten_at": None, "expires_at": _own_expiry(fact, settings)})


class Forgetting:
    """One forgetting pass over every tenant (see the module docstring)."""

    def __init__(self, memory: MemoryService, redis: Redis, sessions: SessionBook, tenants: TenantConfig,
                 audit: AuditLog, *, usage: UsageBook | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        self.memory = memory
        self.redis = redis
        self.sessions = sessions
        self.tenants = tenants
        self.audit = audit
        self.usage = usage or UsageBook(redis)
        self.clock = clock or memory.clock

    async def run(self) -> ForgetReport:
        """Fold uses, follow dispute states and forget, in every tenant; returns what changed."""
        report = ForgetReport()
        now = self.clock()
        for tenant in await self.usage.tenants():
            await self.fold(tenant, now, report)
        by_tenant: dict[str, list[SessionInfo]] = {}
        for info in await self.sessions.all_sessions():
            by_tenant.setdefault(info.tenant, []).append(info)
        for tenant, infos in by_tenant.items():
            await self.follow(tenant, infos, now, report)
        if report.forgotten or report.restored or report.settled:
            log.info("forgetting: %s", report.as_dict())
        return report

    async def fold(self, tenant: str, now: datetime, report: ForgetReport) -> None:
        """Add the uses recorded in Redis to the records of ``tenant`` (a record gone is dropped)."""
        settings = await self.tenants.get(tenant)
        scope = Scope(tenant=tenant)
        for record_id, use in (await self.usage.pending(tenant)).items():
            lifted: list[bool] = []

            def change(fact: Fact, use: Any = use, lifted: list[bool] = lifted) -> Fact:
                last = use.last if fact.used_at is None or use.last > fact.used_at else fact.used_at
                used = _restored(fact.model_copy(update={"uses": fact.uses + use.count, "used_at": last}),
                                 settings, now)
                lifted.append(fact.forgotten_at is not None and used.forgotten_at is None)
                return used

            after = await self.memory.modify(scope, record_id, change, touch=False)
            await self.usage.take(tenant, record_id, use)
            if after is not None:
                report.folded += 1
                report.restored += int(any(lifted[-1:]))

    async def follow(self, tenant: str, infos: list[SessionInfo], now: datetime, report: ForgetReport) -> None:
        """Mark or unmark the records of sessions whose dispute closed or reopened, and forget in the
        disputes closed long enough ago."""
        marks = {_text(k): _text(v) for k, v in (await _aw(self.redis.hgetall(_SETTLED + tenant))).items()}
        settings = await self.tenants.get(tenant)
        for info in infos:
            mark = marks.get(info.session)
            closed = info.state is DisputeState.CLOSED and info.closed_at is not None
            if "purged_at" in info.extra:
                if mark is not None:
                    await _aw(self.redis.hdel(_SETTLED + tenant, info.session))
                continue
            if closed:
                assert info.closed_at is not None
                if mark != info.closed_at.isoformat():
                    report.settled += await self._settle(tenant, info.session, info.closed_at, settings, now, report)
                    await _aw(self.redis.hset(_SETTLED + tenant, info.session, info.closed_at.isoformat()))
                days = settings.forget_after_days
                if days is not None and info.closed_at + timedelta(days=days) <= now:
                    await self._forget(info, settings, now, report)
            elif mark is not None:
                report.reopened += await self._settle(tenant, info.session, None, settings, now, report)
                await _aw(self.redis.hdel(_SETTLED + tenant, info.session))

    async def _settle(self, tenant: str, session: str, closed_at: datetime | None, settings: TenantSettings,
                      now: datetime, report: ForgetReport) -> int:
        """Set (or, with None, clear) ``settled_at`` on the session's records; returns how many changed.
        Cleared, a forgotten record gets its own expiry back."""
        changed = 0
        async for fact in self.memory.iter_facts(Scope(tenant=tenant, session=session)):
            if fact.settled_at == closed_at:
                continue

            def change(cur: Fact) -> Fact:
                return _restored(cur.model_copy(update={"settled_at": closed_at}), settings, now)

            after = await self.memory.modify(Scope(tenant=tenant), fact.id, change, touch=False)
            if after is not None:
                changed += 1
                report.restored += int(fact.forgotten_at is not None and after.forgotten_at is None)
        return changed

    async def _forget(self, info: SessionInfo, settings: TenantSettings, now: datetime, report: ForgetReport) -> None:
        """Give the closed dispute's low-weight records a TTL, and their own expiry back to those
        that matter again; one audit entry names the records put on notice."""
        assert info.closed_at is not None
        closed_at = info.closed_at
        tenant = Scope(tenant=info.tenant)
        expires = now + FORGET_NOTICE
        noticed: list[Fact] = []

        def change(cur: Fact) -> Fact:
            # read again under the lock; a record written after the close is marked settled here
            cur = cur if cur.settled_at == closed_at else cur.model_copy(update={"settled_at": closed_at})
            if cur.forgotten_at is not None:
                return _restored(cur, settings, now)
            if not self._forgettable(cur, settings, now, expires):
                return cur
            return cur.model_copy(update={"expires_at": expires, "forgotten_at": now})

        async for fact in self.memory.iter_facts(Scope(tenant=info.tenant, session=info.session)):
            planned = change(fact)
            if planned == fact:
                continue  # nothing to do: no write
            # put on notice: a change a reviewer should see first (the review queue is newest first)
            after = await self.memory.modify(tenant, fact.id, change, touch=planned.forgotten_at == now)
            if after is None:
                continue
            if after.forgotten_at == now:
                noticed.append(after)
            elif fact.forgotten_at is not None and after.forgotten_at is None:
                report.restored += 1
        if not noticed:
            return
        report.forgotten += len(noticed)
        report.per_tenant[info.tenant] = report.per_tenant.get(info.tenant, 0) + len(noticed)
        await self.audit.record(AuditEntry(
            tenant=info.tenant, actor_id=SYSTEM, actor_name="Heyan", action="retention.forget", target=info.session,
            reason=f"weight below {settings.forget_below} in a dispute closed on {info.closed_at:%Y-%m-%d}",
            after={"records": [f.id for f in noticed], "expires_at": expires.isoformat(),
                   "weights": [weight(f, now) for f in noticed]},
            users=tuple(dict.fromkeys(u for f in noticed for u in f.users))))
        log.info("forgetting: %d records of closed dispute %s in %s expire on %s", len(noticed), info.session,
                 info.tenant, expires.date())

    @staticmethod
    def _forgettable(fact: Fact, settings: TenantSettings, now: datetime, expires: datetime) -> bool:
        """May forgetting give this record a TTL now? Never a protected one, nor one already expiring
        sooner, nor one outside recall (kept for the audit: rejected, superseded…)."""
        if protected(fact) or fact.status not in RECALLABLE or fact.forgotten_at is not None:
            return False
        if fact.expires_at is not None and fact.expires_at <= expires:
            return False
        return weight(fact, now) < settings.forget_below
