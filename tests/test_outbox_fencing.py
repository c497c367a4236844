"""Outbox fencing: every claim is a lease with a token; acknowledging, failing, releasing and renewing
succeed only for the current token, a live sender keeps its lease however slow the platform is, a
post is retried through an outage of hours, and shutdown never revives a post that was sent or
cancelled. Time is a fake clock: nothing here waits on the wall clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from bot.delivery.deliverer import Deliverer, DeliveryError
from bot.delivery.outbox import Ack, Outbox, Post, PostKind, PostState
from bot.text.richtext import Mention, RichText
from tests.clock_helpers import FakeClock


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def post(i: int) -> Post:
    return Post(id=f"p{i}", tenant="discord:1", session="thread", kind=PostKind.REMINDER,
                body=RichText.of(Mention("42", "Ann"), f" follow-up {i}"), ref={"fact_id": "f", "revision": "1"})


class SlowPlatform:
    """Accepts every post, but each send waits until the test lets it finish."""

    platform = "discord"

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.entered = asyncio.Event()
        self.go = asyncio.Event()

    async def send(self, p: Post) -> str:
        self.entered.set()
        await self.go.wait()
        self.sent.append(p.id)
        return f"msg-{len(self.sent)}"


async def test_a_late_acknowledgement_after_a_reclaim_is_refused(redis: Redis) -> None:
    clock = FakeClock()
    first, second = Outbox(redis, clock=clock), Outbox(redis, clock=clock)  # two processes
    await first.append(post(1))
    [a] = await first.claim("discord", lease_seconds=60, claimer="a")
    await clock.advance(61)  # a's send outlived its lease (it hung, or its process froze)
    [b] = await second.claim("discord", lease_seconds=60, claimer="b")
    assert b.token != a.token and b.epoch == a.epoch + 1
    assert await second.delivered(b, "msg-b") is Ack.OK
    assert await first.delivered(a, "msg-a") is Ack.SENT  # refused: the post is b's, and sent
    assert await first.failed(a, "late failure") is Ack.SENT
    assert await first.release(a) is Ack.SENT
    record = await first.get("p1")
    assert record is not None and record.state is PostState.SENT and record.message_id == "msg-b"


async def test_a_late_acknowledgement_while_another_holds_the_post_changes_nothing(redis: Redis) -> None:
    clock = FakeClock()
    box = Outbox(redis, clock=clock)
    await box.append(post(1))
    [a] = await box.claim("discord", lease_seconds=60, claimer="a")
    await clock.advance(61)
    [b] = await box.claim("discord", lease_seconds=60, claimer="b")
    assert await box.delivered(a, "msg-a") is Ack.STALE
    assert await box.failed(a, "a's failure", permanent=True) is Ack.STALE  # cannot dead-letter b's post
    assert await box.renew(a, 60) is False
    record = await box.get("p1")
    assert record is not None and record.state is PostState.LEASED and record.error is None
    assert await box.delivered(b, "msg-b") is Ack.OK


async def test_a_holder_whose_lease_ran_out_unclaimed_may_still_acknowledge(redis: Redis) -> None:
    clock = FakeClock()
    box = Outbox(redis, clock=clock)
    await box.append(post(1))
    await box.append(post(2))
    [a] = await box.claim("discord", limit=1, lease_seconds=60)
    await clock.advance(61)
    [other] = await box.claim("discord", limit=1)  # puts p1 back in line (behind p2) and claims p2
    assert (a.post.id, other.post.id) == ("p1", "p2")
    # nobody claimed p1 again: its late acknowledgement is the truth, and p1 is not sent twice
    assert await box.delivered(a, "msg-a") is Ack.OK
    assert await box.claim("discord") == []


async def test_release_never_revives_a_sent_or_cancelled_post(redis: Redis) -> None:
    box = Outbox(redis)
    await box.append(post(1))
    await box.append(post(2))
    leases = {lease.post.id: lease for lease in await box.claim("discord")}
    assert await box.cancel("discord:1", "thread", ids=frozenset({"p1"})) == 1  # a commitment marked done
    assert await box.release(leases["p1"]) is Ack.CANCELLED
    assert await box.delivered(leases["p1"], "msg-late") is Ack.CANCELLED
    assert await box.delivered(leases["p2"], "msg-2") is Ack.OK
    assert await box.release(leases["p2"]) is Ack.SENT
    states = [(await box.get(i)) for i in ("p1", "p2")]
    assert [r.state if r else None for r in states] == [PostState.CANCELLED, PostState.SENT]
    assert await box.claim("discord") == []


async def test_a_slow_send_keeps_its_lease_and_is_sent_once(redis: Redis) -> None:
    clock = FakeClock()
    platform = SlowPlatform()
    box = Outbox(redis, clock=clock)
    await box.append(post(1))
    hooked: list[tuple[str, str]] = []

    async def on_delivered(p: Post, message_id: str) -> None:
        hooked.append((p.id, message_id))

    deliverer = Deliverer(box, platform, on_delivered=on_delivered, lease_seconds=60, sleep=clock.sleep)
    sending = asyncio.create_task(deliverer.deliver_once())
    await platform.entered.wait()
    await clock.wait_sleepers(1)  # the heartbeat
    other = Outbox(redis, clock=clock)  # a second process polling the same outbox
    for _ in range(10):  # 200 s of a platform taking its time, three times the lease
        await clock.advance(20)
        assert await other.claim("discord", lease_seconds=60) == []
    platform.go.set()
    assert await sending == 1
    record = await box.get("p1")
    assert record is not None and record.state is PostState.SENT and record.attempts == 1
    assert platform.sent == ["p1"] and hooked == [("p1", "msg-1")]


async def test_a_post_whose_lease_was_taken_is_not_sent(redis: Redis) -> None:
    clock = FakeClock()
    platform = SlowPlatform()
    box = Outbox(redis, clock=clock)
    for i in (1, 2):
        await box.append(post(i))
    deliverer = Deliverer(box, platform, lease_seconds=60, sleep=clock.sleep)
    sending = asyncio.create_task(deliverer.deliver_once())
    await platform.entered.wait()  # p1 is being sent; p2 waits its turn in this batch
    await clock.wait_sleepers(1)
    assert await box.take_over() == 2  # an operator (or a new owner) took every lease
    taken = {lease.post.id: lease for lease in await box.claim("discord", claimer="new-owner")}
    assert set(taken) == {"p1", "p2"}
    await clock.advance(20)  # the heartbeat finds both leases lost
    platform.go.set()
    await sending
    # p1 was in flight (it went out, its acknowledgement refused); p2 was not sent by the old holder
    assert platform.sent == ["p1"]
    record = await box.get("p1")
    assert record is not None and record.state is PostState.LEASED and record.message_id is None
    assert await box.delivered(taken["p1"], "msg-new") is Ack.OK


async def test_shutdown_gives_back_only_posts_not_started(redis: Redis) -> None:
    clock = FakeClock()
    platform = SlowPlatform()
    box = Outbox(redis, clock=clock)
    for i in (1, 2, 3):
        await box.append(post(i))
    deliverer = Deliverer(box, platform, lease_seconds=60, sleep=clock.sleep)
    sending = asyncio.create_task(deliverer.deliver_once())
    await platform.entered.wait()
    sending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sending
    records = {i: await box.get(f"p{i}") for i in (1, 2, 3)}
    assert records[1] is not None and records[1].state is PostState.LEASED  # may have reached the platform
    assert all(r is not None and r.state is PostState.PENDING and r.attempts == 0
               for r in (records[2], records[3]))


async def test_a_platform_down_for_an_hour_loses_nothing(redis: Redis) -> None:
    clock = FakeClock()
    start = clock.now

    class Down:
        platform = "discord"
        sent: list[str] = []  # noqa: RUF012 - one instance
        tries = 0

        async def send(self, p: Post) -> str:
            self.tries += 1
            if clock.now - start < 3600:
                raise DeliveryError("503 Service Unavailable from the platform")
            self.sent.append(p.id)
            return "msg-1"

    platform = Down()
    box = Outbox(redis, clock=clock)  # the default: retried for 24 hours
    await box.append(post(1))
    deliverer = Deliverer(box, platform, sleep=clock.sleep)
    while clock.now - start < 3700:
        await deliverer.deliver_once()
        record = await box.get("p1")
        assert record is not None and record.state is not PostState.DEAD, record
        if record.state is PostState.SENT:
            break
        await clock.advance(30)
    record = await box.get("p1")
    assert record is not None and record.state is PostState.SENT and platform.sent == ["p1"]
    assert 10 <= platform.tries <= 30  # backoff capped at 5 minutes: a try every few minutes, not 5 in 30 s


async def test_two_deliverers_send_each_post_once(redis: Redis) -> None:
    box = Outbox(redis)
    for i in range(40):
        await box.append(post(i))

    class Counting:
        platform = "discord"

        def __init__(self) -> None:
            self.sent: list[str] = []

        async def send(self, p: Post) -> str:
            await asyncio.sleep(0)
            self.sent.append(p.id)
            return f"msg-{p.id}"

    a, b = Counting(), Counting()
    await asyncio.gather(Deliverer(box, a, batch=3).deliver_once(), Deliverer(box, b, batch=3).deliver_once())
    assert sorted(a.sent + b.sent) == sorted(f"p{i}" for i in range(40))


def test_piece_keys_are_stable_and_fit_discords_nonce() -> None:
    p = post(1)
    assert p.piece_key(0) == post(1).piece_key(0) != p.piece_key(1) != post(2).piece_key(1)
    assert all(len(p.piece_key(i)) <= 25 for i in range(5))


async def test_a_drain_and_a_stop_wait_for_the_batch_being_sent(redis: Redis) -> None:
    clock = FakeClock()
    platform = SlowPlatform()
    box = Outbox(redis, clock=clock)
    await box.append(post(1))
    hooked: list[str] = []

    async def on_delivered(p: Post, message_id: str) -> None:
        hooked.append(p.id)

    deliverer = Deliverer(box, platform, on_delivered=on_delivered, sleep=clock.sleep)
    loop = asyncio.create_task(deliverer.run())
    await platform.entered.wait()  # the loop is sending p1
    drain = asyncio.create_task(deliverer.deliver_once())  # a drain at the end of a script
    await asyncio.sleep(0)
    assert not drain.done()  # it waits for the loop's batch instead of finding nothing to claim
    stopping = asyncio.create_task(deliverer.stop(loop))  # and the process stops meanwhile
    platform.go.set()
    await stopping
    assert await drain == 0
    record = await box.get("p1")
    assert record is not None and record.state is PostState.SENT and hooked == ["p1"]  # recorded before stopping
    assert loop.done()
