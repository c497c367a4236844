"""Job pickup without polling (issue 31 item 5): every enqueue rings the queue's doorbell and the
worker (``jobs.worker.DoorbellWorker``) waits on it between two reads of the queue.

The workers here are built with a poll delay of an hour: a job they run was picked because the
doorbell (or the worker's own alarm, for a deferred job) woke them, not because a poll came round.
Each test waits for the job's own event; the timeouts only stop a broken build.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from arq.connections import ArqRedis
from arq.worker import func

from jobs.queue import DOORBELL, QUEUE, connect, deserialize, enqueue, ring, serialize
from jobs.worker import DoorbellWorker

HOUR = 3600.0
BROKEN_BUILD = 60.0


class Probe(DoorbellWorker):
    """A worker that says when it starts waiting for work, and what it ran."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.waiting = asyncio.Event()
        self.ran: list[str] = []

    async def _wait_for_work(self, read_from: int) -> None:
        self.waiting.set()
        await super()._wait_for_work(read_from)


@pytest.fixture
async def pool(redis_url: str) -> AsyncIterator[ArqRedis]:
    redis = await connect(redis_url)
    try:
        yield redis
    finally:
        await redis.aclose()


@pytest.fixture
async def worker(pool: ArqRedis) -> AsyncIterator[Probe]:
    done: dict[str, asyncio.Event] = {}

    async def mark(ctx: dict[str, Any], name: str) -> str:
        ctx["probe"].ran.append(name)
        done.setdefault(name, asyncio.Event()).set()
        return name

    w = Probe(functions=[func(mark, name="mark")], redis_pool=pool, queue_name=QUEUE, handle_signals=False,
              poll_delay=HOUR, keep_result=60, job_serializer=serialize, job_deserializer=deserialize,
              log_results=False)
    w.ctx["probe"] = w
    w.ctx["done"] = done
    task = asyncio.create_task(w.main())
    try:
        async with asyncio.timeout(BROKEN_BUILD):
            await w.waiting.wait()  # its first read of the (empty) queue is over: it waits for work
        yield w
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        for t in w.tasks.values():
            t.cancel()
        await asyncio.gather(*w.tasks.values(), return_exceptions=True)


async def ran(worker: Probe, name: str) -> None:
    event = worker.ctx["done"].setdefault(name, asyncio.Event())
    async with asyncio.timeout(BROKEN_BUILD):
        await event.wait()


async def test_a_job_enqueued_while_the_worker_waits_is_picked_at_once(pool: ArqRedis, worker: Probe) -> None:
    worker.waiting.clear()
    assert await enqueue(pool, "mark", "first", _job_id="first", _queue_name=QUEUE) is not None
    await ran(worker, "first")  # long before the hour-long poll delay: the doorbell woke it
    # and it waits on the doorbell again, for the next one
    async with asyncio.timeout(BROKEN_BUILD):
        await worker.waiting.wait()
    await enqueue(pool, "mark", "second", _job_id="second", _queue_name=QUEUE)
    await ran(worker, "second")
    assert worker.ran == ["first", "second"] and len(worker.pickup_ms) == 2
    assert await pool.llen(DOORBELL) == 0  # one read served the ring: no token left to wake it for nothing


async def test_a_duplicate_enqueue_does_not_ring(pool: ArqRedis) -> None:
    assert await enqueue(pool, "mark", "once", _job_id="once", _queue_name=QUEUE) is not None
    assert await pool.llen(DOORBELL) == 1
    assert await enqueue(pool, "mark", "once", _job_id="once", _queue_name=QUEUE) is None
    assert await pool.llen(DOORBELL) == 1


async def test_a_deferred_job_runs_at_its_time_without_a_poll(pool: ArqRedis, worker: Probe) -> None:
    """The alarm wakes the worker when a deferred job is due; it never runs the job early."""
    await enqueue(pool, "mark", "later", _job_id="later", _queue_name=QUEUE, _defer_by=timedelta(milliseconds=300))
    [(_, due_ms)] = await pool.zrange(QUEUE, 0, -1, withscores=True)
    await ran(worker, "later")
    [picked] = worker.pickup_ms  # ms from its due time to its start: not before it
    assert picked >= 0 and worker.ran == ["later"] and due_ms > 0


async def test_a_job_queued_without_a_ring_still_runs_at_the_poll_delay(pool: ArqRedis) -> None:
    """A plain ``enqueue_job`` (another program's) is read at the next poll, as with plain arq."""
    done = asyncio.Event()

    async def mark(ctx: dict[str, Any]) -> None:
        done.set()

    w = DoorbellWorker(functions=[func(mark, name="mark")], redis_pool=pool, queue_name=QUEUE,
                       handle_signals=False, poll_delay=0.05, job_serializer=serialize,
                       job_deserializer=deserialize, log_results=False)
    task = asyncio.create_task(w.main())
    try:
        await pool.enqueue_job("mark", _job_id="quiet", _queue_name=QUEUE)
        async with asyncio.timeout(BROKEN_BUILD):
            await done.wait()
    finally:
        task.cancel()
        await asyncio.gather(task, *w.tasks.values(), return_exceptions=True)


async def test_the_doorbell_stays_short_and_expires(pool: ArqRedis) -> None:
    for _ in range(100):
        await ring(pool)
    assert await pool.llen(DOORBELL) == 16
    assert 0 < await pool.pttl(DOORBELL) <= 60_000
    assert set(await pool.lrange(DOORBELL, 0, -1)) == {b"1"}  # tokens carry nothing


async def test_a_full_worker_takes_the_next_job_as_soon_as_one_ends(pool: ArqRedis) -> None:
    """With every slot busy a ring cannot start anything: the worker waits for a job to end instead,
    then reads the queue at once (not at its hour-long poll delay)."""
    started = {name: asyncio.Event() for name in ("first", "second")}
    release = asyncio.Event()

    async def hold(ctx: dict[str, Any], name: str) -> None:
        started[name].set()
        if name == "first":
            await release.wait()

    w = DoorbellWorker(functions=[func(hold, name="hold")], redis_pool=pool, queue_name=QUEUE, handle_signals=False,
                       poll_delay=HOUR, max_jobs=1, job_serializer=serialize, job_deserializer=deserialize,
                       log_results=False)
    task = asyncio.create_task(w.main())
    try:
        async with asyncio.timeout(BROKEN_BUILD):
            await enqueue(pool, "hold", "first", _job_id="first", _queue_name=QUEUE)
            await started["first"].wait()
            await enqueue(pool, "hold", "second", _job_id="second", _queue_name=QUEUE)  # rings; no slot free
            assert not started["second"].is_set()
            release.set()
            await started["second"].wait()
    finally:
        task.cancel()
        await asyncio.gather(task, *w.tasks.values(), return_exceptions=True)
