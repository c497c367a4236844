"""Follow-ups on commitments: when to send one, the post it makes, recording it once delivered, and
keeping it in step with the commitment.

The reminder job appends ``reminder_post(fact)`` to the outbox; only the delivering process's
``record_delivery`` writes ``reminders_sent``. ``FollowUpKeeper`` watches every fact write
(``MemoryService.watch``), whoever writes: a new commitment schedules, done/cancelled/deleted withdraws,
a new version replaces the post. ``schedule`` is the one rule for enqueueing a follow-up.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from bot.delivery.outbox import Outbox, Post, PostKind
from bot.ports import Scheduler
from bot.text.clock import show_time
from bot.text.richtext import Mention, RichText
from memory.models import OPEN_COMMITMENT, Fact, Kind, Scope, utcnow
from memory.service import MemoryService

__all__ = [
    "FollowUpKeeper",
    "format_when",
    "record_delivery",
    "reminder_post",
    "reminder_post_id",
    "reminder_prefix",
    "reminder_text",
    "reminder_time",
    "schedule",
]

log = logging.getLogger(__name__)


def format_when(when: datetime, zone: str, lang: str) -> str:
    """A time shown to people, in ``zone`` and naming it (``bot.text.clock.show_time``, the one format of
    every surface): "12月1日周二 15:00（Asia/Shanghai）" / "Tue 1 Dec 15:00 (Asia/Shanghai)"."""
    return show_time(when, zone, lang)


def reminder_time(fact: Fact, *, lead_seconds: int, no_due_followup_seconds: int) -> datetime:
    """When to follow up: the due time minus the lead, or after a quiet interval when undated."""
    if fact.due_at is not None:
        return fact.due_at - timedelta(seconds=lead_seconds)
    return fact.created_at + timedelta(seconds=no_due_followup_seconds)


def reminder_prefix(tenant: str, fact_id: str) -> str:
    """What the ids of every follow-up of one commitment start with."""
    return f"remind:{tenant}:{fact_id}:"


def reminder_post_id(fact: Fact) -> str:
    """One follow-up per version of a commitment (a new due time is a new version)."""
    return f"{reminder_prefix(fact.tenant, fact.id)}{fact.version}"


def reminder_text(fact: Fact, zone: str) -> RichText:
    """A friendly question to the owner about progress, citing the promise and when it is due.

    The owner is a structured mention; the quote and names are plain text, which adapters escape.
    """
    said = fact.sources[0] if fact.sources else None
    owner = Mention(fact.subject, fact.subject_name or fact.subject)
    if fact.lang == "zh":
        due = f"（约定在{format_when(fact.due_at, zone, 'zh')}前）" if fact.due_at else ""
        quote = f"：“{said.quote}”" if said else ""
        return RichText.of(owner, f" 跟进一下之前的承诺{due}{quote}。进展如何？如果已经完成，请告诉大家一声。")
    due = f" (due {format_when(fact.due_at, zone, 'en')})" if fact.due_at else ""
    quote = f': "{said.quote}"' if said else ""
    return RichText.of(
        owner, f" a gentle follow-up on your commitment{due}{quote}. How is it going? If it is done, let everyone know."
    )


def reminder_post(fact: Fact, zone: str) -> Post:
    """The outbox post that follows up on this version of ``fact`` in its session."""
    if fact.session is None:
        raise ValueError(f"commitment {fact.id} has no session to post the follow-up in")
    return Post(
        id=reminder_post_id(fact),
        tenant=fact.tenant,
        session=fact.session,
        body=reminder_text(fact, zone),
        kind=PostKind.REMINDER,
        lang=fact.lang,
        # users: whom the post is about (erasing any of them withdraws it, bot.delivery.outbox.Post.concerns)
        ref={"fact_id": fact.id, "revision": str(fact.version), "users": ",".join(fact.users)},
    )


async def record_delivery(memory: MemoryService, post: Post, message_id: str, *, at: datetime | None = None) -> bool:
    """After the platform accepted a reminder: record it on its commitment (once per version).

    Returns False when there is nothing to record (not a reminder, the commitment is gone or changed,
    or the reminder was recorded already).
    """
    if post.kind is not PostKind.REMINDER or "fact_id" not in post.ref:
        return False
    recorded: list[bool] = []

    def record(fact: Fact) -> Fact:
        if str(fact.version) != post.ref.get("revision") or fact.reminders_sent:
            return fact  # changed meanwhile (the new version has its own follow-up), or recorded
        recorded.append(True)
        return fact.model_copy(update={"reminders_sent": (*fact.reminders_sent, at or utcnow())})

    await memory.modify(Scope(tenant=post.tenant), post.ref["fact_id"], record)
    if recorded:
        log.info("reminder %s delivered as %s", post.id, message_id)
    return bool(recorded)



async def schedule(scheduler: Scheduler, fact: Fact, *, lead_seconds: int, no_due_followup_seconds: int) -> bool:
    """Enqueue the follow-up of this version of an open commitment, unless one was sent; the job id
    names the version, so a second call is a no-op. True when a job was enqueued."""
    if fact.kind is not Kind.COMMITMENT or fact.status not in OPEN_COMMITMENT or fact.reminders_sent:
        return False
    when = reminder_time(fact, lead_seconds=lead_seconds, no_due_followup_seconds=no_due_followup_seconds)
    return await scheduler.remind(fact.tenant, fact.id, fact.version, when)


class FollowUpKeeper:
    """Keeps each commitment's follow-up in step with the commitment (a ``MemoryService`` watcher)."""

    def __init__(self, outbox: Outbox, scheduler: Scheduler, *, lead_seconds: int, no_due_followup_seconds: int) -> None:
        self.outbox = outbox
        self.scheduler = scheduler
        self.lead_seconds = lead_seconds
        self.no_due_followup_seconds = no_due_followup_seconds

    def __repr__(self) -> str:
        return f"FollowUpKeeper(lead_seconds={self.lead_seconds})"

    async def __call__(self, tenant: str, fact_id: str, before: Fact | None, after: Fact | None) -> None:
        prefix = reminder_prefix(tenant, fact_id)
        if after is None:
            if before is None or before.kind is Kind.COMMITMENT:
                await self._withdraw(tenant, prefix, None, "deleted")
            return
        if after.kind is not Kind.COMMITMENT:
            return
        if after.status not in OPEN_COMMITMENT:
            if before is None or before.status in OPEN_COMMITMENT:
                await self._withdraw(tenant, prefix, None, after.status.value)
            return
        if before is not None and before.version != after.version:
            await self._withdraw(tenant, prefix, reminder_post_id(after), f"now version {after.version}")
        if before is None or before.version != after.version:
            await schedule(self.scheduler, after, lead_seconds=self.lead_seconds,
                           no_due_followup_seconds=self.no_due_followup_seconds)

    async def _withdraw(self, tenant: str, prefix: str, keep: str | None, why: str) -> None:
        withdrawn = await self.outbox.withdraw_prefix(tenant, prefix, keep=keep)
        if withdrawn:
            log.info("withdrew %d follow-up post(s) of %s: the commitment is %s", withdrawn, prefix, why)
