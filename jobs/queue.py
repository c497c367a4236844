"""Typed enqueue helpers with deterministic job ids, so a duplicate enqueue is a no-op.

arq keeps a job's id blocked while its result is kept, so jobs that may legitimately be created again
(a reminder after its due time changed, a summary at a later turn) carry a revision in their id.
Job arguments carry ids, never message text.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from arq.connections import ArqRedis, RedisSettings, create_pool
from arq.constants import in_progress_key_prefix
from arq.jobs import Job

from memory import clock
from memory.models import Scope

__all__ = ["DOORBELL", "QUEUE", "JobQueue", "bring_forward", "connect", "deserialize", "enqueue", "ring", "serialize",
           "take_over_jobs"]

#: One queue for every Heyan job (arq's default name, kept explicit for `heyan jobs status`).
QUEUE = "arq:queue"
#: The queue's doorbell: a Redis list that gets a token after each enqueue. A worker of
#: ``jobs.worker.DoorbellWorker`` waits on it (BLPOP) between two reads of the queue, so a job is
#: picked as soon as it is queued instead of at the next poll. Tokens carry nothing (no ids, no text).
DOORBELL = "heyan:jobs:doorbell"
#: At most this many tokens wait (no worker listening must not grow the list), for a minute at most.
_DOORBELL_TOKENS = 16
_DOORBELL_TTL_MS = 60_000


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, BaseException):
        return f"{type(value).__name__}: {value}"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def serialize(data: Any) -> bytes:
    """Jobs and results as JSON, never pickle: a job is ids and numbers, and whoever can write to the
    queue must not be able to run code in the worker by unpickling."""
    return json.dumps(data, default=_plain, ensure_ascii=False).encode()


def deserialize(raw: bytes) -> Any:
    return json.loads(raw)


async def connect(url: str) -> ArqRedis:
    """An arq pool on ``url`` (``redis://``, ``rediss://`` or ``unix://``) with the JSON serializer."""
    return await create_pool(RedisSettings.from_dsn(url), default_queue_name=QUEUE, retry=0,
                             job_serializer=serialize, job_deserializer=deserialize)


async def ring(redis: ArqRedis, key: str = DOORBELL) -> None:
    """Wake a worker waiting on the doorbell (one round trip; the list stays short and expires)."""
    async with redis.pipeline(transaction=False) as pipe:
        pipe.lpush(key, b"1")
        pipe.ltrim(key, 0, _DOORBELL_TOKENS - 1)
        pipe.pexpire(key, _DOORBELL_TTL_MS)
        await pipe.execute()


async def enqueue(redis: ArqRedis, function: str, *args: Any, **kwargs: Any) -> Job | None:
    """``redis.enqueue_job``, then ring the doorbell when a job was queued (not for a duplicate id):
    every Heyan enqueue goes through here. The ring follows the enqueue, so a worker it wakes finds
    the job."""
    job = await redis.enqueue_job(function, *args, **kwargs)
    if job is not None:
        await ring(redis)
    return job


async def take_over_jobs(redis: ArqRedis) -> int:
    """Free the jobs a dead worker was running, so this process's worker runs them now instead of
    after arq's in-progress marker expires (the job timeout). Only for a process that knows every
    earlier worker on this Redis is dead (the embedded shape at start). A finished cron job's
    marker (it stops a second run in the same slot) is kept: only jobs still queued are freed."""
    keys = [k async for k in redis.scan_iter(match=f"{in_progress_key_prefix}*", count=500)]
    freed = 0
    for key in keys:
        job_id = (key.decode() if isinstance(key, bytes) else str(key)).removeprefix(in_progress_key_prefix)
        if await redis.zscore(QUEUE, job_id) is not None:
            freed += int(await redis.delete(key))
    return freed


async def bring_forward(redis: ArqRedis, delta: timedelta) -> int:
    """The process clock jumped ``delta`` ahead (a replay reaching its next line): every job deferred
    on the wall clock comes ``delta`` closer, so it runs when the process clock reaches its time.
    Returns how many jobs moved."""
    now_ms = int(datetime.now(UTC).timestamp() * 1000)
    shift_ms = int(delta.total_seconds() * 1000)
    waiting = await redis.zrangebyscore(QUEUE, f"({now_ms}", "+inf", withscores=True)
    if shift_ms <= 0 or not waiting:
        return 0
    await redis.zadd(QUEUE, {job: max(now_ms, int(score) - shift_ms) for job, score in waiting}, xx=True)
    await ring(redis)  # some may be due now
    return len(waiting)


def _wall(when: datetime) -> datetime:
    """When a job deferred to ``when`` (process clock) runs, on the wall clock arq schedules by. A
    time already past runs now: arq sizes a job's key TTL from its deferral, so a deferral into the
    past would expire the job before it runs ("job expired")."""
    return max(clock.wall(when), datetime.now(UTC))


def _digest(parts: Sequence[str]) -> str:
    return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).hexdigest()


class JobQueue:
    def __init__(self, pool: ArqRedis) -> None:
        self.pool = pool

    async def extract(self, scope: Scope, message_ids: Sequence[str], *, revision: str = "") -> bool:
        """Extract facts from these messages now. The id is a digest of the ids: replays are no-ops.
        ``revision`` tells an edited message's new text from its first reading."""
        assert scope.session is not None
        ids = sorted(message_ids)
        if not ids:
            return False
        job_id = f"extract:{scope.tenant}:{scope.session}:{_digest(ids)}" + (f":{revision}" if revision else "")
        job = await enqueue(
            self.pool, "extract_memories", scope.tenant, scope.session, ids, _job_id=job_id, _queue_name=QUEUE
        )
        return job is not None

    async def extract_when_idle(self, scope: Scope, turn: int, when: datetime) -> bool:
        """At ``when`` (process clock: the time ``turn`` was said plus the idle time, so that a replay
        fires it by script time, never by how fast it ran), extract the batch waiting in this session
        if no turn followed ``turn``."""
        assert scope.session is not None
        job = await enqueue(
            self.pool,
            "extract_idle",
            scope.tenant,
            scope.session,
            turn,
            _job_id=f"idle:{scope.tenant}:{scope.session}:{turn}",
            _defer_until=_wall(when),
            _queue_name=QUEUE,
        )
        return job is not None

    async def summarize(self, scope: Scope, turn: int, *, revision: str = "") -> bool:
        assert scope.session is not None
        job = await enqueue(
            self.pool,
            "summarize_session",
            scope.tenant,
            scope.session,
            turn,
            _job_id=f"summary:{scope.tenant}:{scope.session}:{turn}" + (f":{revision}" if revision else ""),
            _queue_name=QUEUE,
        )
        return job is not None

    async def remind(self, tenant: str, fact_id: str, revision: int, when: datetime) -> bool:
        """Schedule the follow-up for one version of a commitment (a new due time is a new revision)."""
        job = await enqueue(
            self.pool,
            "send_reminder",
            tenant,
            fact_id,
            revision,
            _job_id=f"remind:{tenant}:{fact_id}:{revision}",
            _defer_until=_wall(when),
            _queue_name=QUEUE,
        )
        return job is not None

    async def forget_user(self, tenant: str, user: str, request_id: str, *, when: datetime | None = None) -> bool:
        job = await enqueue(
            self.pool, "forget_user", tenant, user, _job_id=f"forget:{tenant}:{user}:{request_id}",
            _defer_until=_wall(when) if when else None, _queue_name=QUEUE,
        )
        return job is not None

    async def purge_tenant(self, tenant: str, request_id: str, when: datetime) -> bool:
        job = await enqueue(
            self.pool, "purge_tenant", tenant, request_id, _job_id=f"purge-tenant:{tenant}:{request_id}",
            _defer_until=_wall(when), _queue_name=QUEUE,
        )
        return job is not None
