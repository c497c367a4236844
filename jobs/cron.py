"""Periodic jobs: ``reconcile`` rebuilds every reminder from the open commitments in the store (the store
is the truth; Redis may be lost; deterministic job ids make it a no-op), and ``purge`` runs the
forgetting pass, then deletes expired facts and closed disputes past ``closed_purge_days``. Both are
plain ``async def f(ctx)``: tests and ``heyan jobs reconcile`` call them directly."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from arq.cron import CronJob, cron

from bot.agreements.card import follows_after_close
from bot.config.settings import JobSettings, Settings
from bot.delivery.reminders import schedule
from bot.privacy.audit import SYSTEM, AuditEntry
from bot.privacy.forgetting import Forgetting
from bot.services import Services
from bot.sessions import DisputeState, SessionInfo
from jobs.reconciled import ReconcileMarks
from jobs.tasks import services
from memory.models import Scope, utcnow
from memory.ports import RecordFilter

__all__ = ["PURGE_MINUTE", "ReconcileReport", "cron_jobs", "purge", "reconcile"]

log = logging.getLogger(__name__)

#: The minute of each hour the purge runs: off the hour, away from everyone else's cron.
PURGE_MINUTE = 17


@dataclass(frozen=True, slots=True)
class ReconcileReport:
    """What one reconciliation did, summed over tenants."""

    tenants: int = 0
    open_commitments: int = 0
    scheduled: int = 0  # reminder jobs that were missing from Redis and were enqueued again
    overdue: int = 0  # open commitments past their due time
    swept: int = 0  # sessions whose waiting batch had no watcher left and was queued for extraction
    opened: int = 0  # open commitments read whole: new or changed since the last pass

    def as_dict(self) -> dict[str, int]:
        return {"tenants": self.tenants, "open_commitments": self.open_commitments,
                "scheduled": self.scheduled, "overdue": self.overdue, "swept": self.swept, "opened": self.opened}


async def reconcile(ctx: dict[str, Any]) -> ReconcileReport:
    """Re-enqueue the reminder of every open commitment; count those past their due time.

    Idempotent: a reminder already queued (same fact id and version) is not enqueued twice, and one
    already sent (``reminders_sent``) is never scheduled again. It writes no record.
    """
    svc = services(ctx)
    now = utcnow()
    tenants = await svc.store.tenants("facts")
    marks = ReconcileMarks(svc.redis)  # incremental: open only what changed since the last pass
    cut = now.timestamp()
    seen = scheduled = overdue = opened = 0
    for tenant in tenants:
        scope = Scope(tenant=tenant)
        stamps = await svc.memory.open_commitment_stamps(scope)
        seen += len(stamps)
        done = await marks.settled(tenant)
        overdue += sum(1 for _, due, _ in stamps.values() if due is not None and due < cut)
        todo = [fid for fid, (version, _, _) in stamps.items() if done.get(fid) != version]
        closed: dict[str, SessionInfo | None] = {}
        settled: dict[str, int] = {}
        opened += len(todo)
        for fact in await svc.memory.get_many(scope, todo):
            if fact.session is not None:
                if fact.session not in closed:
                    info = await svc.sessions.get(tenant, fact.session)
                    closed[fact.session] = info if info is not None and info.state is DisputeState.CLOSED else None
                ended = closed[fact.session]
                if ended is not None and not follows_after_close(ended, fact.id):
                    continue  # the dispute was closed: its follow-ups were cancelled (a confirmed card's stay)
            jobs = svc.settings.jobs
            if await schedule(svc.scheduler, fact, lead_seconds=jobs.reminder_lead_seconds,
                              no_due_followup_seconds=jobs.no_due_followup_seconds):
                scheduled += 1
            settled[fact.id] = fact.version
        await marks.record(tenant, settled, stamps)
    swept = await sweep_waiting(svc)
    report = ReconcileReport(len(tenants), seen, scheduled, overdue, swept, opened)
    log.info("reconcile: %d tenants, %d open commitments, %d reminders re-enqueued, %d past due",
             report.tenants, report.open_commitments, report.scheduled, report.overdue)
    return report


async def sweep_waiting(svc: Services) -> int:
    """Queue the extraction of every waiting batch that nothing watches any more (its idle job was
    lost with Redis, or the process died between storing a message and arming the watch)."""
    swept = 0
    for scope in await svc.conversation.batches.waiting_sessions():
        if await svc.conversation.idle.active(scope):
            continue
        ids = await svc.conversation.batches.pending(scope)
        if ids:
            await svc.scheduler.extract(scope, ids)
            await svc.conversation.batches.drop_pending(scope, ids)
            swept += 1
    if swept:
        log.info("reconcile: %d waiting batches had no watcher and were queued for extraction", swept)
    return swept


async def purge(ctx: dict[str, Any]) -> dict[str, int]:
    """Delete every fact whose ``expires_at`` has passed, in every tenant; returns counts per tenant
    (tenants with nothing expired are left out)."""
    svc = services(ctx)
    await Forgetting(svc.memory, svc.redis, svc.sessions, svc.tenants, svc.audit).run()
    now = utcnow()
    flt = RecordFilter(expires_before=now)
    deleted: dict[str, int] = {}
    await svc.audit.expire_details()  # audit details written before they expired with the retention
    for tenant in await svc.store.tenants("facts"):
        n = await svc.store.delete("facts", Scope(tenant=tenant), flt)
        if n:
            deleted[tenant] = n
            log.info("purge: %d expired facts deleted in %s", n, tenant)
            await svc.audit.record(AuditEntry(tenant=tenant, actor_id=SYSTEM, actor_name="Heyan",
                                              action="retention.expire", target=tenant, after={"deleted": n}))
    for info in await svc.sessions.all_sessions():
        if info.state is not DisputeState.CLOSED or info.closed_at is None or "purged_at" in info.extra:
            continue
        days = (await svc.tenant(info.tenant)).closed_purge_days
        if info.closed_at + timedelta(days=days) > now:
            continue
        scope = Scope(tenant=info.tenant, session=info.session)
        n = await svc.store.delete("facts", scope) + await svc.store.delete("summaries", scope)
        messages = await svc.conversation.forget_session(scope)
        await svc.sessions.put(replace(info, extra={**info.extra, "purged_at": now.isoformat()}))
        await svc.audit.record(AuditEntry(
            tenant=info.tenant, actor_id=SYSTEM, actor_name="Heyan", action="retention.purge-closed",
            target=info.session, after={"records": n, "messages": messages, "closed_at": info.closed_at.isoformat()},
            users=info.members))
        deleted[info.tenant] = deleted.get(info.tenant, 0) + n
        log.info("purge: closed session %s of %s: %d records, %d messages", info.session, info.tenant, n, messages)
    log.info("purge: %d records deleted in %d tenants", sum(deleted.values()), len(deleted))
    return deleted


def cron_jobs(settings: Settings | None = None) -> list[CronJob]:
    """``reconcile`` every ``jobs.reconcile_minutes`` (and at worker start), ``purge`` hourly.

    Without settings, the declared default interval. ``unique`` cron ids keep several workers from
    running the same slot twice.
    """
    every: int = (
        settings.jobs.reconcile_minutes if settings is not None
        else JobSettings.model_fields["reconcile_minutes"].default
    )
    return [
        cron(reconcile, name="reconcile", minute=set(range(0, 60, every)), run_at_startup=True, unique=True),
        cron(purge, name="purge", minute=PURGE_MINUTE, unique=True),
    ]
