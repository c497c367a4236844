"""The outbox on Redis and its delivery: idempotent appends, leases, retries with backoff, dead letters
with the reason, cancellation, and a post recorded as sent only after the platform accepted it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from redis.asyncio import Redis

from bot.delivery.deliverer import Deliverer, DeliveryError
from bot.delivery.outbox import Outbox, Post, PostKind, PostState, platform_of
from bot.text.richtext import Mention, RichText
from tests.clock_helpers import FakeClock

T0 = datetime(2026, 11, 20, 9, tzinfo=UTC)


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def post(i: int, tenant: str = "discord:1", session: str = "thread") -> Post:
    return Post(id=f"p{i}", tenant=tenant, session=session, kind=PostKind.REMINDER,
                body=RichText.of(Mention("42", "Ann"), f" follow-up {i}"), ref={"fact_id": "f", "revision": "1"},
                created_at=T0)


class Platform:
    """A platform that fails as told, then accepts."""

    def __init__(self, name: str = "discord", failures: list[DeliveryError] | None = None) -> None:
        self.platform = name
        self.failures = list(failures or [])
        self.sent: list[Post] = []

    async def send(self, p: Post) -> str:
        if self.failures:
            raise self.failures.pop(0)
        self.sent.append(p)
        return f"msg-{len(self.sent)}"


def test_platform_of_tenant() -> None:
    assert [platform_of(t) for t in ("discord:1", "slack:T1:T2", "console:local", "bare")] == [
        "discord", "slack", "console", "console"]


async def test_append_is_idempotent_and_roundtrips(redis: Redis) -> None:
    box = Outbox(redis)
    assert await box.append(post(1))
    assert not await box.append(post(1))  # a retried job queues nothing twice
    record = await box.get("p1")
    assert record is not None and record.state is PostState.PENDING and record.post == post(1)
    [stats] = await box.stats()
    assert stats.as_dict() == {"platform": "discord", "ready": 1, "waiting": 0, "leased": 0, "dead": 0}


async def test_delivery_records_the_message_id_and_calls_the_hook_once(redis: Redis) -> None:
    box, platform, hooked = Outbox(redis), Platform(), []

    async def on_delivered(p: Post, message_id: str) -> None:
        hooked.append((p.id, message_id))

    await box.append(post(1))
    await box.append(post(2, tenant="slack:T1"))  # another platform's post: not this deliverer's
    deliverer = Deliverer(box, platform, on_delivered=on_delivered)
    assert await deliverer.deliver_once() == 1
    assert await deliverer.deliver_once() == 0
    assert hooked == [("p1", "msg-1")]
    record = await box.get("p1")
    assert record is not None and record.state is PostState.SENT and record.message_id == "msg-1"
    assert not await box.append(post(1))  # sent: never queued again
    slack = await box.get("p2")
    assert slack is not None and slack.state is PostState.PENDING  # waits for a Slack connection


async def test_failures_are_retried_then_dead_lettered_with_the_reason(redis: Redis) -> None:
    clock = FakeClock()
    box = Outbox(redis, max_age_seconds=10, clock=clock)
    platform = Platform(failures=[DeliveryError("503 from the platform", retry_after=5.0),
                                  DeliveryError("503 again", retry_after=5.0)])
    await box.append(post(1))
    deliverer = Deliverer(box, platform, sleep=clock.sleep)
    assert await deliverer.deliver_once() == 0  # the first failure: waiting for its retry in 5 s
    record = await box.get("p1")
    assert record is not None and record.state is PostState.PENDING and record.attempts == 1
    await clock.advance(10)  # the post is now max_age old: the next failure is its last
    assert await deliverer.deliver_once() == 0
    record = await box.get("p1")
    assert record is not None and record.state is PostState.DEAD and record.attempts == 2
    assert record.error == "503 again" and platform.sent == [] and not record.permanent
    [dead] = await box.dead()
    assert dead.post.id == "p1"
    assert await box.retry_dead("p1") == 1  # a new round of tries, from now
    assert await deliverer.deliver_once() == 1 and platform.sent == [post(1)]


async def test_a_permanent_failure_is_dead_at_once(redis: Redis) -> None:
    box = Outbox(redis)
    await box.append(post(1))
    platform = Platform(failures=[DeliveryError("the thread was deleted (Unknown Channel)", permanent=True)])
    await Deliverer(box, platform).deliver_once()
    record = await box.get("p1")
    assert record is not None and record.state is PostState.DEAD and "deleted" in (record.error or "")
    assert record.attempts == 1 and record.permanent


async def test_a_backoff_keeps_the_post_waiting(redis: Redis) -> None:
    box = Outbox(redis)
    await box.append(post(1))
    await Deliverer(box, Platform(failures=[DeliveryError("timeout")])).deliver_once()
    [stats] = await box.stats()
    assert (stats.ready, stats.waiting, stats.dead) == (0, 1, 0)


async def test_an_expired_lease_is_claimed_again(redis: Redis) -> None:
    clock = FakeClock()
    box = Outbox(redis, clock=clock)
    await box.append(post(1))
    [claimed] = await box.claim("discord", lease_seconds=60)  # a sender that died mid-send
    assert claimed.post.id == "p1" and await box.claim("discord") == []
    await clock.advance(61)
    [again] = await box.claim("discord")
    assert again.post.id == "p1" and again.token != claimed.token and again.epoch == 2
    record = await box.get("p1")
    assert record is not None and record.attempts == 2


async def test_cancel_withdraws_a_sessions_unsent_posts(redis: Redis) -> None:
    box = Outbox(redis)
    await box.append(post(1))
    await box.append(post(2, session="other"))
    assert await box.cancel("discord:1", "thread", frozenset({PostKind.REMINDER})) == 1
    record = await box.get("p1")
    assert record is not None and record.state is PostState.CANCELLED
    [left] = await box.claim("discord")
    assert left.post.id == "p2"


async def test_an_unexpected_sender_error_is_retried_not_lost(redis: Redis) -> None:
    class Broken(Platform):
        async def send(self, p: Post) -> str:
            raise RuntimeError("a bug in the adapter")

    box = Outbox(redis)
    await box.append(post(1))
    assert await Deliverer(box, Broken()).deliver_once() == 0
    record = await box.get("p1")
    assert record is not None and record.state is PostState.PENDING and "a bug" in (record.error or "")


def test_one_backoff_rule_for_posts_jobs_and_llm_calls() -> None:
    from bot.delivery.backoff import backoff

    assert [backoff(n) for n in (0, 1, 2, 3, 8, 9, 1000)] == [2, 2, 4, 8, 256, 300, 300]
    assert all(0.5 <= backoff(1, base=1.0, cap=30.0, jitter=True) <= 1.0 for _ in range(50))
    assert all(15 <= backoff(9, base=1.0, cap=30.0, jitter=True) <= 30 for _ in range(50))
