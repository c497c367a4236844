"""Queue administration for ``heyan jobs``: counts, the dead-letter list, and retrying dead jobs.

Everything here needs only Redis (an arq pool), never the memory store, so it works from any
machine that can reach the queue.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass
from typing import Any

from arq.connections import ArqRedis
from arq.constants import in_progress_key_prefix

from bot.delivery.deadletters import DEAD_LETTER, DeadLetters
from jobs.queue import QUEUE, enqueue

__all__ = ["DeadLetter", "QueueStatus", "dead_letters", "retry_dead", "status"]

#: A retried job's id is the original id with ``:retry<N>`` appended (N counts retries of that job).
_RETRY = re.compile(r":retry(\d+)$")


@dataclass(frozen=True, slots=True)
class QueueStatus:
    """How many jobs are ready to run now, deferred to later, running, and dead-lettered."""

    ready: int
    deferred: int
    in_progress: int
    dead: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """One job that failed its last try, as the worker recorded it. ``raw`` is the list entry;
    ``error`` is what may be shown (the exception's type), ``detail`` its message, opened with the
    keys when they were given (``bot.delivery.deadletters``: it may quote members)."""

    job_id: str
    function: str
    args: tuple[Any, ...]
    error: str
    tries: int
    at: str
    raw: str
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["args"] = list(self.args)
        del data["raw"]
        return data


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def status(redis: ArqRedis) -> QueueStatus:
    """Counts of the queue (arq scores jobs by the wall-clock ms they become runnable)."""
    now_ms = int(time.time() * 1000)
    ready = await redis.zcount(QUEUE, "-inf", now_ms)
    deferred = await redis.zcount(QUEUE, f"({now_ms}", "+inf")
    # arq keeps a finished cron job's in-progress key for a while (one run per slot): a job is
    # running only while it also is still in the queue.
    ids = [_text(k).removeprefix(in_progress_key_prefix)
           async for k in redis.scan_iter(match=f"{in_progress_key_prefix}*", count=500)]
    in_progress = 0
    if ids:
        async with redis.pipeline(transaction=False) as pipe:
            for job_id in ids:
                pipe.zscore(QUEUE, job_id)
            scores = await pipe.execute()
        in_progress = sum(1 for score in scores if score is not None)
    dead = await redis.llen(DEAD_LETTER)  # type: ignore[misc]
    return QueueStatus(ready=int(ready), deferred=int(deferred), in_progress=in_progress, dead=int(dead))


def _parse(raw: bytes | str, letters: DeadLetters | None = None) -> DeadLetter:
    text = _text(raw)
    try:
        data: dict[str, Any] = json.loads(text)
    except json.JSONDecodeError:
        data = {"error": "unreadable dead-letter entry"}
    return DeadLetter(
        job_id=str(data.get("job_id") or ""),
        function=str(data.get("function") or ""),
        args=tuple(data.get("args") or ()),
        error=str(data.get("error") or ""),
        tries=int(data.get("tries") or 0),
        at=str(data.get("at") or ""),
        raw=text,
        detail=letters.detail(text) if letters is not None and "job_id" in data else str(data.get("detail") or ""),
    )


async def dead_letters(redis: ArqRedis, letters: DeadLetters | None = None) -> list[DeadLetter]:
    """Every dead-lettered job, oldest first (with ``letters``, their sealed details opened)."""
    raws = await redis.lrange(DEAD_LETTER, 0, -1)  # type: ignore[misc]
    return [_parse(r, letters) for r in raws]


def _retry_ids(job_id: str) -> tuple[str, int]:
    """The original id and the next retry number: ``x`` -> (x, 1), ``x:retry2`` -> (x, 3)."""
    m = _RETRY.search(job_id)
    if m is None:
        return job_id, 1
    return job_id[: m.start()], int(m.group(1)) + 1


async def _requeue(redis: ArqRedis, entry: DeadLetter) -> str | None:
    """Enqueue the dead job again under a new id; None if it has no function to call."""
    if not entry.function:
        return None
    base, n = _retry_ids(entry.job_id or f"{entry.function}:dead")
    # a new id, because arq refuses an id whose job or result is still kept; skip ids already taken
    for attempt in range(n, n + 100):
        new_id = f"{base}:retry{attempt}"
        if await enqueue(redis, entry.function, *entry.args, _job_id=new_id, _queue_name=QUEUE):
            return new_id
    return None


async def retry_dead(redis: ArqRedis, job_id: str | None = None) -> int:
    """Re-enqueue the dead job ``job_id`` (every dead job when None) under a new job id
    (``<id>:retry<N>``) and remove it from the dead-letter list; returns how many were re-enqueued."""
    count = 0
    for entry in await dead_letters(redis):
        if job_id is not None and entry.job_id != job_id:
            continue
        # remove first: if two admins retry at once, only the one that removed the entry enqueues
        if not await redis.lrem(DEAD_LETTER, 1, entry.raw):  # type: ignore[misc]
            continue
        if await _requeue(redis, entry) is None:
            await redis.rpush(DEAD_LETTER, entry.raw)  # type: ignore[misc]
            continue
        count += 1
    return count
