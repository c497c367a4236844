"""A commitment's follow-up follows the commitment, whoever changes it: marked done, cancelled or
deleted withdraws the queued post; snoozed withdraws the old version's post and schedules the new
one; an erased member's follow-ups are withdrawn even when the post does not mention them. A
reminder whose post died of a long outage is tried again, never taken for "already queued"."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.runtime.composition import Runtime
from bot.actors import Actor, Capability
from bot.delivery.outbox import Post, PostState
from bot.delivery.reminders import reminder_post
from bot.offline.provider import OfflineProvider
from jobs.tasks import send_reminder
from memory.models import Fact, FactStatus, Kind, Scope, Source, utcnow
from tests.jobs_helpers import Start, ctx, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T = "discord:42"
T0 = datetime(2026, 11, 20, 9, tzinfo=UTC)
MOD = Actor(tenant=T, user_id="u-mod", name="Mo", capabilities=frozenset({Capability.MODERATE}))
ANN = Actor(tenant=T, user_id="u-ann", name="Ann")


def promise(value: str, *, about: str | None = None, msg: str = "m1") -> Fact:
    users = ("u-ann", about) if about else ("u-ann",)
    return Fact(tenant=T, session="thread-1", kind=Kind.COMMITMENT, subject="u-ann", subject_name="Ann",
                attribute=value, value=value, asserted_by="u-ann", due_at=utcnow() + timedelta(days=1),
                valid_from=T0, users=users, sources=(Source(message_id=msg, author_id="u-ann", ts=T0, quote=value),))


@pytest.fixture
async def rt(tmp_path: Path, redis_url: str, start: Start) -> Runtime:
    return await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)


async def queued_reminder(rt: Runtime, value: str, **kw: str) -> tuple[Fact, Post]:
    await rt.memory.remember([promise(value, **kw)])
    [fact] = [f for f in await rt.memory.open_commitments(Scope(tenant=T)) if f.value == value]
    post = reminder_post(fact, "UTC")
    assert await rt.outbox.append(post)
    return fact, post


async def state(rt: Runtime, post: Post) -> PostState | None:
    record = await rt.outbox.get(post.id)
    return record.state if record else None


async def test_done_withdraws_the_queued_follow_up(rt: Runtime) -> None:
    fact, post = await queued_reminder(rt, "send the draft")
    await rt.moderation.commitment_done(ANN, fact.id)
    assert await state(rt, post) is PostState.CANCELLED
    assert await rt.outbox.claim("discord") == []
    assert await send_reminder(ctx(rt), T, fact.id, fact.version) == "skipped: done"  # and not re-armed


async def test_a_status_written_anywhere_withdraws_it(rt: Runtime) -> None:
    # the CLI, a platform button or extraction reading "I did it" all write through MemoryService
    cancelled, p1 = await queued_reminder(rt, "bring the receipts", msg="m1")
    deleted, p2 = await queued_reminder(rt, "fix the fence", msg="m2")
    await rt.memory.set_status(Scope(tenant=T), cancelled.id, FactStatus.CANCELLED)
    await rt.moderation.memory_delete(MOD, deleted.id, "said in jest")
    assert [await state(rt, p) for p in (p1, p2)] == [PostState.CANCELLED, PostState.CANCELLED]


async def test_overdue_or_recorded_keeps_it(rt: Runtime) -> None:
    fact, post = await queued_reminder(rt, "send the draft")
    await rt.memory.set_status(Scope(tenant=T), fact.id, FactStatus.OVERDUE)  # still open
    assert await state(rt, post) is PostState.PENDING


async def test_snooze_moves_the_follow_up_to_the_new_version(rt: Runtime) -> None:
    fact, post = await queued_reminder(rt, "send the draft")
    later = utcnow() + timedelta(days=3)
    snoozed = await rt.memory.modify(Scope(tenant=T), fact.id, lambda f: f.model_copy(
        update={"version": f.version + 1, "due_at": later}))  # any path that writes a new due time
    assert snoozed is not None and snoozed.version == fact.version + 1
    assert await state(rt, post) is PostState.CANCELLED
    queued = {j.decode() for j in await rt.redis.zrange("arq:queue", 0, -1)}
    assert f"remind:{T}:{fact.id}:{snoozed.version}" in queued  # re-armed at the new time


async def test_erasing_whom_a_follow_up_is_about_withdraws_it(rt: Runtime) -> None:
    _, post = await queued_reminder(rt, "pay Bob back", about="u-bob")
    assert "u-bob" not in post.body.mentions  # the post pings Ann only
    assert await rt.outbox.cancel_mentioning(T, "u-bob") == 1
    assert await state(rt, post) is PostState.CANCELLED


async def test_a_reminder_whose_post_died_of_an_outage_is_tried_again(rt: Runtime) -> None:
    fact, post = await queued_reminder(rt, "send the draft")
    [lease] = await rt.outbox.claim("discord")
    await rt.outbox.failed(lease, "503 for a day", retry_in=0)
    box_dead = await rt.outbox.get(post.id)
    assert box_dead is not None and box_dead.state is PostState.PENDING
    rt.outbox.max_age = 0  # the platform stayed down past the retry window
    [lease] = await rt.outbox.claim("discord")
    await rt.outbox.failed(lease, "503 for a day")
    assert await state(rt, post) is PostState.DEAD
    outcome = await send_reminder(ctx(rt), T, fact.id, fact.version)
    assert outcome.startswith("requeued") and await state(rt, post) is PostState.PENDING


async def test_a_reminder_whose_post_was_refused_for_good_stays_for_a_moderator(rt: Runtime) -> None:
    fact, post = await queued_reminder(rt, "send the draft")
    [lease] = await rt.outbox.claim("discord")
    await rt.outbox.failed(lease, "the thread was deleted", permanent=True)
    outcome = await send_reminder(ctx(rt), T, fact.id, fact.version)
    assert outcome == "dead: the thread was deleted" and await state(rt, post) is PostState.DEAD
    assert [r.post.id for r in await rt.outbox.dead()] == [post.id]  # `heyan jobs dead-letter` lists it
    assert await rt.outbox.retry_dead(post.id) == 1 and await state(rt, post) is PostState.PENDING
