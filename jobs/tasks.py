"""The background tasks. Each is ``async def task(ctx, *ids)`` with the services in ``ctx["heyan"]``.

arq may run a job more than once (a worker killed mid-job, a retry), so every task is idempotent:
extraction skips messages already extracted and consolidation ignores sources it already holds; a
reminder re-reads its commitment and appends its post to the outbox under a deterministic id, once.
No task posts to a platform: the process holding the platform's connection delivers the outbox.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from bot.agreements.card import follows_after_close
from bot.delivery.outbox import PostState
from bot.delivery.reminders import record_delivery, reminder_post, reminder_post_id
from bot.extraction.candidates import ExtractionRequest, to_facts
from bot.extraction.completions import settle
from bot.privacy.audit import SYSTEM, AuditEntry
from bot.privacy.departures import purge_due, purge_tenant_data
from bot.services import Services
from bot.sessions import DisputeState
from bot.summaries import summarize_session as write_summary
from bot.text.clock import aware
from bot.text.lang import session_lang
from memory.consolidation import Action
from memory.models import OPEN_COMMITMENT, FactStatus, Scope, Visibility, utcnow

__all__ = ["extract_idle", "extract_memories", "forget_user", "purge_tenant", "send_reminder", "summarize_session"]

log = logging.getLogger(__name__)


def services(ctx: dict[str, Any]) -> Services:
    return ctx["heyan"]  # type: ignore[no-any-return]


async def extract_memories(ctx: dict[str, Any], tenant: str, session: str, message_ids: list[str]) -> int:
    """Extract facts from the given messages of one session; returns how many records changed."""
    svc = services(ctx)
    scope = Scope(tenant=tenant, session=session)
    todo = await svc.conversation.batches.not_extracted(scope, message_ids)
    # in the order they were said: a batch's ids may come in any order ("s:10" sorts before "s:9"), and
    # the rules read each message after the ones before it ("那报价改成周五吧" — "好的，周五")
    turns = sorted(await svc.conversation.log.get_many(scope, todo), key=lambda m: m.ts)
    if not turns:
        return 0
    window = await svc.conversation.log.recent(scope)
    first = turns[0].ts
    # twelve before: enough for an agreement a few lines after its proposal, and for a yes that names its
    # asker ("@Harriet yup, will do") a dozen lines after the request (``bot.offline.acts``)
    context = [m.utterance() for m in window if m.ts < first and m.id not in todo][-12:]
    lang = session_lang([m.text for m in (*window, *turns)])
    tenant_settings = await svc.tenant(tenant)
    zone = tenant_settings.timezone
    private = any(m.visibility is Visibility.PRIVATE for m in turns)
    request = ExtractionRequest(
        tenant=tenant,
        session=session,
        turns=[m.utterance() for m in turns],
        context=context,
        lang=lang,
        timezone=zone,
        visibility=Visibility.PRIVATE if private else Visibility.PUBLIC,
    )
    candidates = await svc.provider.extract(request)
    facts = await svc.erasure.admissible(
        to_facts(request, candidates, now=utcnow(), lang=lang, ttl=tenant_settings.ttl()))
    result = await svc.memory.remember(facts)  # each new promise's follow-up: bot.delivery.reminders.FollowUpKeeper
    # "done", "已经发了": the owner's report closes the promise it names, through /commitments done's path
    flagged = frozenset(s.message_id for f in facts if f.status is FactStatus.FLAGGED for s in f.sources)
    await settle(svc.moderation(), svc.outbox, request, flagged=flagged)
    if result.written:
        changes: dict[str, list[str]] = {}
        for outcome in result.outcomes:
            if outcome.action is not Action.NOOP:
                changes.setdefault(outcome.action.value, []).append(outcome.fact.id)
        users = tuple(dict.fromkeys(u for f in result.written for u in f.users))
        await svc.audit.record(AuditEntry(tenant=tenant, actor_id=SYSTEM, actor_name="Heyan",
                                          action="memory.extract", target=session, users=users,
                                          after={**changes, "messages": [m.id for m in turns]}))
    await svc.conversation.batches.mark_extracted(scope, turns)
    return len(result.written)


async def extract_idle(ctx: dict[str, Any], tenant: str, session: str, turn: int) -> int:
    """The session's idle watch fired. If turns came after ``turn``, and the latest was said less than
    the idle time ago, watch again until the idle time after it; otherwise the session went quiet:
    extract the waiting batch and summarise. (A catch-up that read old lines in a burst is quiet at
    once: no chain of watches.)"""
    svc = services(ctx)
    scope = Scope(tenant=tenant, session=session)
    idle = svc.settings.jobs.idle_seconds
    latest = await svc.conversation.log.turns(scope)
    if latest != turn:
        last = await svc.conversation.log.recent(scope, 1)
        quiet_at = (aware(last[-1].ts) if last else utcnow()) + timedelta(seconds=idle)
        if quiet_at > utcnow():
            await svc.conversation.idle.hold(scope, idle)
            await svc.scheduler.extract_when_idle(scope, latest, quiet_at)
            return 0
        turn = latest
    ids = await svc.conversation.batches.pending(scope)
    changed = 0
    if ids:  # extracted here, and only then taken off the waiting list: a failed try keeps them
        changed = await extract_memories(ctx, tenant, session, ids)
        await svc.conversation.batches.drop_pending(scope, ids)
    await svc.conversation.idle.release(scope)
    await svc.scheduler.summarize(scope, turn)
    return changed


async def summarize_session(ctx: dict[str, Any], tenant: str, session: str, turn: int) -> str:
    """Write a new version of the session summary from the window and the previous summary."""
    svc = services(ctx)
    saved = await write_summary(svc.conversation.log, svc.memory, svc.provider, Scope(tenant=tenant, session=session), turn)
    return saved.id if saved is not None else ""


async def send_reminder(ctx: dict[str, Any], tenant: str, fact_id: str, revision: int) -> str:
    """Queue the follow-up post if the commitment is still open and this version was not reminded.

    The post goes to the outbox of the tenant's platform under ``remind:<tenant>:<fact>:<revision>``,
    so running this job twice queues one post; the platform's process delivers it and records it on
    the commitment (``bot.delivery.reminders.record_delivery``).
    """
    svc = services(ctx)
    fact = await svc.memory.get(Scope(tenant=tenant), fact_id)
    if fact is None:
        return "gone"
    if fact.version != revision:
        return "stale"  # the due time or promise changed; the newer version has its own reminder
    if fact.status not in OPEN_COMMITMENT:
        return f"skipped: {fact.status.value}"
    if fact.reminders_sent:
        return "already sent"
    if fact.session is not None:
        info = await svc.sessions.get(tenant, fact.session)
        if info is not None and info.state is DisputeState.CLOSED and not follows_after_close(info, fact.id):
            return "skipped: dispute closed"
    existing = await svc.outbox.get(reminder_post_id(fact))
    if existing is not None:
        if existing.message_id is not None:
            # delivered, but the process died before recording it on the commitment: repair that
            await record_delivery(svc.memory, existing.post, existing.message_id, at=existing.sent_at)
            return "already sent"
        if existing.state is PostState.DEAD:
            # never "already queued": a post that died of a long outage gets a new round of tries; one
            # the platform refused for good (a deleted thread) waits for a moderator in the dead letters
            if existing.permanent:
                log.warning("reminder %s is dead (%s); `heyan jobs dead-letter --retry %s` sends it again",
                            existing.post.id, existing.error, existing.post.id)
                return f"dead: {existing.error}"
            await svc.outbox.retry_dead(existing.post.id)
            log.warning("reminder %s had died (%s); trying again", existing.post.id, existing.error)
            return f"requeued after: {existing.error}"
        if existing.state is PostState.CANCELLED:
            return "withdrawn"  # a dispute closed, a member erased: the follow-up stays withdrawn
        return f"already queued ({existing.state.value})"
    post = reminder_post(fact, (await svc.tenant(tenant)).timezone)
    await svc.outbox.append(post)
    return "queued"


async def forget_user(ctx: dict[str, Any], tenant: str, user: str) -> int:
    """Erase everything held about or from ``user`` in ``tenant`` (the erasure's second pass, after
    the jobs that were in flight at the first one have finished)."""
    svc = services(ctx)
    report = await svc.erasure.erase(tenant, user, request_id="pass", second_pass=False)
    await svc.audit.record(AuditEntry(tenant=tenant, actor_id=SYSTEM, actor_name="Heyan", action="member.erase",
                                      target=user, users=(user,), reason="second pass after in-flight jobs",
                                      after=report.counts()))
    return report.total


async def purge_tenant(ctx: dict[str, Any], tenant: str, request_id: str) -> str:
    """Heyan left ``tenant`` and the grace period is over: remove everything held for it, unless it
    was added back meanwhile (the departure marker no longer holds this request)."""
    svc = services(ctx)
    if not await purge_due(svc.redis, tenant, request_id):
        return "cancelled: Heyan is back"
    removed = await purge_tenant_data(svc.store, svc.redis, tenant)
    return f"purged {removed} records"
