"""Record locks and answer claims never lapse under a live holder, and a holder that lost one writes
nothing: a slow embedder holding a record lock for three leases, a slow LLM holding an answer claim
past its TTL, and a lock or claim taken from its holder mid-work. Time is a fake clock, and Redis's
TTLs are aged with it (``tests.clock_helpers.pass_time``): no test waits on the wall clock."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.runtime.composition import Runtime
from bot.llm.base import ReplyRequest
from bot.locking.locks import LOCK_PREFIX, RedisLocks
from bot.models import Message
from bot.offline.provider import OfflineProvider
from memory.locks import LockLost
from memory.models import Fact, Kind, Scope, Source, utcnow
from tests.clock_helpers import FakeClock, pass_time
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T = "discord:42"
T0 = datetime(2026, 11, 20, 9, tzinfo=UTC)


class SlowEmbedder:
    """The runtime's embedder, except that its next call waits until the test lets it finish."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.entered = asyncio.Event()
        self.go = asyncio.Event()
        self.slow = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def embed(self, texts: Sequence[str]) -> Any:
        if self.slow:
            self.slow = False
            self.entered.set()
            await self.go.wait()
        return await self.inner.embed(texts)


class SlowLLM(OfflineProvider):
    """The offline provider, whose replies wait until the test lets them finish."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.go = asyncio.Event()
        self.replies = 0

    async def reply(self, request: ReplyRequest) -> str:
        self.replies += 1
        self.entered.set()
        await self.go.wait()
        return await super().reply(request)


def demand(value: str) -> Fact:
    return Fact(tenant=T, session="thread-1", kind=Kind.DEMAND, subject="u-bob", subject_name="Bob",
                attribute="wants", value=value, asserted_by="u-bob", valid_from=T0, users=("u-bob",),
                sources=(Source(message_id="m1", author_id="u-bob", ts=T0, quote=value),))


async def locked_runtime(tmp_path: Path, redis_url: str, start: Start, clock: FakeClock) -> tuple[Runtime, str]:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    rt.memory.locks = RedisLocks(rt.redis, lease=60, wait=3600, clock=clock, sleep=clock.sleep)
    [written] = (await rt.memory.remember([demand("an apology")])).written
    return rt, written.id


def appended(suffix: str) -> Any:
    return lambda f: f.model_copy(update={"value": f"{f.value}{suffix}"})


async def test_a_slow_writer_keeps_its_record_lock(tmp_path: Path, redis_url: str, start: Start) -> None:
    clock = FakeClock()
    rt, fact_id = await locked_runtime(tmp_path, redis_url, start, clock)
    slow = SlowEmbedder(rt.memory.embedder)
    rt.memory.embedder = slow
    first = asyncio.create_task(rt.memory.modify(Scope(tenant=T), fact_id, appended(" in the channel")))
    await slow.entered.wait()  # the first writer holds the lock and waits for its embedding
    second = asyncio.create_task(rt.memory.modify(Scope(tenant=T), fact_id, appended(" today")))
    await pass_time(clock, rt.redis, 180)  # three leases of a slow embedding
    assert not second.done()  # still waiting: the lock never lapsed under its live holder
    slow.go.set()
    await first
    while not second.done():
        await pass_time(clock, rt.redis, 1)
    await second
    fact = await rt.memory.get(Scope(tenant=T), fact_id)
    assert fact is not None and fact.value == "an apology in the channel today"  # both changes kept


async def test_a_writer_that_lost_its_lock_writes_nothing(tmp_path: Path, redis_url: str, start: Start) -> None:
    clock = FakeClock()
    rt, fact_id = await locked_runtime(tmp_path, redis_url, start, clock)
    slow = SlowEmbedder(rt.memory.embedder)
    rt.memory.embedder = slow
    first = asyncio.create_task(rt.memory.modify(Scope(tenant=T), fact_id, appended(" in the channel")))
    await slow.entered.wait()
    [key] = [k async for k in rt.redis.scan_iter(match=f"{LOCK_PREFIX}*")]
    await rt.redis.delete(key)  # taken from it (a takeover that presumed it dead)
    edited = await rt.memory.modify(Scope(tenant=T), fact_id, appended(" today"))  # a moderator's edit
    assert edited is not None and edited.value == "an apology today"
    slow.go.set()
    with pytest.raises(LockLost):
        await first
    fact = await rt.memory.get(Scope(tenant=T), fact_id)
    assert fact is not None and fact.value == "an apology today"  # the edit was not overwritten


def mention(i: int = 1) -> Message:
    return Message(id=f"q{i}", scope=Scope(tenant=T, session="thread-1", user="u-ann"), author_name="Ann",
                   text="what did we agree?", ts=utcnow() - timedelta(seconds=1), mention=True)


async def claimed_runtime(tmp_path: Path, redis_url: str, start: Start, clock: FakeClock,
                          llm: SlowLLM) -> Runtime:
    s = settings(tmp_path, redis_url).model_copy(update={"answer_claim_seconds": 120})
    rt = await start(s, provider=llm, worker=False)
    rt.conversation.answers.clock = clock
    rt.conversation.answers.sleep = clock.sleep
    return rt


async def test_a_slow_answer_keeps_its_claim_and_is_given_once(tmp_path: Path, redis_url: str,
                                                               start: Start) -> None:
    clock, llm = FakeClock(), SlowLLM()
    rt = await claimed_runtime(tmp_path, redis_url, start, clock, llm)
    answering = asyncio.create_task(rt.engine.handle(mention()))
    await llm.entered.wait()
    await clock.wait_sleepers(1)  # the claim's heartbeat
    await pass_time(clock, rt.redis, 400)  # an LLM taking more than three claim lifetimes
    assert await rt.engine.unanswered() == []  # the sweep sees a live claim, not an orphan
    assert await rt.engine.handle(mention()) is None  # a redelivery is not answered twice
    llm.go.set()
    reply = await answering
    assert reply is not None and llm.replies == 1
    assert await rt.engine.handle(mention()) is None


async def test_an_answer_whose_claim_was_lost_is_notposted(tmp_path: Path, redis_url: str,
                                                            start: Start) -> None:
    clock, llm = FakeClock(), SlowLLM()
    rt = await claimed_runtime(tmp_path, redis_url, start, clock, llm)
    answering = asyncio.create_task(rt.engine.handle(mention()))
    await llm.entered.wait()
    assert await rt.conversation.answers.take_over() == 1  # a new owner presumed this one dead
    [orphan] = await rt.engine.unanswered(older_than=0)
    assert orphan.id == "q1"
    llm.go.set()
    assert await answering is None  # the first holder lost its claim: it posts nothing
    llm.entered.clear()
    second = asyncio.create_task(rt.engine.handle(orphan, confirm=True))  # the sweep answers it once
    await llm.entered.wait()
    assert (await second) is not None
    await rt.engine.answered(orphan)
    assert await rt.engine.unanswered(older_than=0) == [] and llm.replies == 2


async def test_a_failed_answer_frees_its_claim(tmp_path: Path, redis_url: str, start: Start) -> None:
    class Broken(OfflineProvider):
        async def reply(self, request: ReplyRequest) -> str:
            raise RuntimeError("the reply path broke")

    rt = await start(settings(tmp_path, redis_url), provider=Broken(), worker=False)
    rt.provider.fallback = Broken()  # type: ignore[attr-defined]  # no offline rescue either
    with pytest.raises(RuntimeError):
        await rt.engine.handle(mention())
    rt.conversation.answers.clock = lambda: 10 ** 10  # later: the sweep looks again
    [orphan] = await rt.engine.unanswered()  # the claim was given up, not left to block for its TTL
    assert orphan.id == "q1"
