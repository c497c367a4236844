"""The background tasks. Each is ``async def task(ctx, *ids)`` with the runtime in ``ctx["heyan"]``.

arq may run a job more than once (a worker killed mid-job, a retry), so every task is idempotent:
extraction skips messages already extracted and consolidation ignores sources it already holds;
a reminder re-reads its commitment and records that it fired.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from bot.lang import session_lang
from memory.extraction import ExtractionRequest, to_facts
from memory.models import OPEN_COMMITMENT, Fact, Kind, Scope, Summary, utcnow

if TYPE_CHECKING:
    from bot.runtime import Runtime

__all__ = ["extract_idle", "extract_memories", "forget_user", "schedule_reminder", "send_reminder",
           "summarize_session"]

log = logging.getLogger(__name__)


def _rt(ctx: dict[str, Any]) -> Runtime:
    return ctx["heyan"]  # type: ignore[no-any-return]


async def extract_memories(ctx: dict[str, Any], tenant: str, session: str, message_ids: list[str]) -> int:
    """Extract facts from the given messages of one session; returns how many records changed."""
    rt = _rt(ctx)
    scope = Scope(tenant=tenant, session=session)
    todo = await rt.window.not_extracted(scope, message_ids)
    turns = await rt.window.get_many(scope, todo)
    if not turns:
        return 0
    window = await rt.window.recent(scope)
    first = turns[0].ts
    context = [m.utterance() for m in window if m.ts < first and m.id not in todo][-6:]
    lang = session_lang([m.text for m in (*window, *turns)])
    zone = (await rt.tenant(tenant)).timezone
    request = ExtractionRequest(
        tenant=tenant,
        session=session,
        turns=[m.utterance() for m in turns],
        context=context,
        lang=lang,
        timezone=zone,
    )
    candidates = await rt.provider_call("extract", request)
    facts = to_facts(request, candidates, now=utcnow(), lang=lang)
    result = await rt.memory.remember(facts)
    for fact in result.written:
        if fact.kind is Kind.COMMITMENT:
            await schedule_reminder(rt, fact)
    await rt.window.mark_extracted(scope, [m.id for m in turns])
    return len(result.written)


async def extract_idle(ctx: dict[str, Any], tenant: str, session: str, turn: int) -> int:
    """The session's idle watch fired. If turns came after ``turn``, watch again from the latest one;
    otherwise the session went quiet: extract the waiting batch and summarise."""
    rt = _rt(ctx)
    scope = Scope(tenant=tenant, session=session)
    idle = rt.settings.jobs.idle_seconds
    latest = await rt.window.turns(scope)
    if latest != turn:
        await rt.window.hold_idle_watch(scope, idle)
        await rt.queue.extract_when_idle(scope, latest, idle)
        return 0
    await rt.window.release_idle_watch(scope)
    ids = await rt.window.take_pending(scope)
    changed = 0
    if ids:
        changed = await extract_memories(ctx, tenant, session, ids)
    await rt.queue.summarize(scope, turn)
    return changed


async def summarize_session(ctx: dict[str, Any], tenant: str, session: str, turn: int) -> str:
    """Write a new version of the session summary from the window and the previous summary."""
    rt = _rt(ctx)
    scope = Scope(tenant=tenant, session=session)
    window = await rt.window.recent(scope)
    if not window:
        return ""
    previous = await rt.memory.summary(scope)
    lang = session_lang([m.text for m in window])
    text = await rt.provider_call("summarize", [m.utterance() for m in window], previous, lang)
    if not text.strip():
        return ""
    users = tuple(dict.fromkeys(m.author_id for m in window))
    saved = await rt.memory.save_summary(
        Summary(tenant=tenant, session=session, text=text, lang=lang, turns=turn, users=users)
    )
    return saved.id


def reminder_time(rt: Runtime, fact: Fact) -> datetime:
    """When to follow up: the due time minus the lead, or after a quiet interval when undated."""
    jobs = rt.settings.jobs
    if fact.due_at is not None:
        return fact.due_at - timedelta(seconds=jobs.reminder_lead_seconds)
    return fact.created_at + timedelta(seconds=jobs.no_due_followup_seconds)


async def schedule_reminder(rt: Runtime, fact: Fact) -> bool:
    """Enqueue the reminder for this version of an open commitment (a no-op if already queued or sent)."""
    if fact.kind is not Kind.COMMITMENT or fact.status not in OPEN_COMMITMENT or fact.reminders_sent:
        return False
    return await rt.queue.remind(fact.tenant, fact.id, fact.version, reminder_time(rt, fact))


async def send_reminder(ctx: dict[str, Any], tenant: str, fact_id: str, revision: int) -> str:
    """Post the follow-up if the commitment is still open and this version has not been reminded."""
    rt = _rt(ctx)
    fact = await rt.memory.get(Scope(tenant=tenant), fact_id)
    if fact is None:
        return "gone"
    if fact.version != revision:
        return "stale"  # the due time or promise changed; the newer version has its own reminder
    if fact.status not in OPEN_COMMITMENT:
        return f"skipped: {fact.status.value}"
    if fact.reminders_sent:
        return "already sent"
    # Claim the send in Redis first so two workers running the same job cannot both post.
    claim = f"heyan:reminded:{tenant}:{fact_id}:{revision}"
    if not await rt.redis.set(claim, b"1", nx=True, ex=7 * 24 * 3600):
        return "already sent"
    text = await rt.render_reminder(fact)
    await rt.notifier.post(Scope(tenant=tenant, session=fact.session), text, mention=fact.subject)
    await rt.memory.update(fact.model_copy(update={"reminders_sent": (*fact.reminders_sent, utcnow())}))
    return "sent"


async def forget_user(ctx: dict[str, Any], tenant: str, user: str) -> int:
    """Erase every memory held about or from ``user`` in ``tenant`` (facts and summaries)."""
    rt = _rt(ctx)
    scope = Scope(tenant=tenant, user=user)
    removed = await rt.store.delete("facts", scope)
    removed += await rt.store.delete("summaries", scope)
    log.info("forgot user %s in %s: %d records", user, tenant, removed)
    return removed
