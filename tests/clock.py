"""arq's schedule, moved by tests: time that passes only when a test says so.

``JobSchedule`` lists when deferred jobs would run and makes them due now (``run_due``, ``skip``), on the
test Valkey or a child's embedded one; ``FakeClock`` (tests/clock_helpers.py) and ``clock_at`` cover code
that reads a clock. Why and how: docs/RELIABILITY.md, "Test suite".
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from jobs.queue import DOORBELL, QUEUE
from memory import clock

__all__ = ["JobSchedule", "after_script"]


#: arq stores a job's time in whole milliseconds, rounded: a job deferred to ``until`` may score 1 ms after it.
_ROUNDING_MS = 1.0


async def _await(value: Awaitable[Any] | Any) -> Any:
    return await value if isinstance(value, Awaitable) else value


def after_script(path: Path, delta: timedelta = timedelta(minutes=1)) -> str:
    """``delta`` after a JSONL script's last line, as ``heyan --now`` takes it: a replay and the
    commands after it read the memory on the script's day, not today."""
    last = max(datetime.fromisoformat(json.loads(line)["ts"])
               for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return (last + delta).isoformat()


class JobSchedule:
    """arq's queue (``jobs.queue.QUEUE``) on ``redis``, read and moved by tests."""

    def __init__(self, redis: Redis, queue: str = QUEUE) -> None:
        self.redis = redis
        self.queue = queue

    async def _scores(self, prefix: str) -> dict[str, float]:
        entries = await _await(self.redis.zrange(self.queue, 0, -1, withscores=True))
        out: dict[str, float] = {}
        for raw, score in entries:
            job_id = raw.decode() if isinstance(raw, bytes) else str(raw)
            if job_id.startswith(prefix):
                out[job_id] = float(score)
        return out

    async def deferred(self, prefix: str = "") -> dict[str, datetime]:
        """Jobs waiting in the queue (ids starting with ``prefix``) and when each is due to run."""
        return {job_id: datetime.fromtimestamp(ms / 1000, UTC) + clock.offset()
                for job_id, ms in (await self._scores(prefix)).items()}

    async def skip(self, delta: timedelta, prefix: str = "") -> list[str]:
        """As if ``delta`` passed: jobs deferred up to ``delta`` from now become ready now (a retry's
        backoff, an idle watch). Call it from the probe of a wait to keep time flowing."""
        return await self.run_due(clock.now() + delta, prefix)

    async def wait_deferred(self, prefix: str, *, timeout: float = 60.0) -> dict[str, datetime]:
        """Wait until a job whose id starts with ``prefix`` is in the queue (e.g. the reminder an
        extraction schedules); returns ``deferred(prefix)``. The timeout only stops a broken build."""
        async with asyncio.timeout(timeout):
            while True:  # Redis has no event for it: poll
                found = await self.deferred(prefix)
                if found:
                    return found
                await asyncio.sleep(0.05)

    async def run_due(self, until: datetime, prefix: str = "") -> list[str]:
        """Make every job deferred to ``until`` or earlier (ids starting with ``prefix``) ready now;
        returns their ids. Jobs already ready, or running, keep their place."""
        now_ms = time.time() * 1000
        until_ms = clock.wall(until).timestamp() * 1000 + _ROUNDING_MS
        moved = []
        for job_id, ms in (await self._scores(prefix)).items():
            if now_ms < ms <= until_ms:
                # XX: only a job still queued moves (one that finished meanwhile is not added back)
                await _await(self.redis.zadd(self.queue, {job_id: int(now_ms)}, xx=True))
                moved.append(job_id)
        if moved and self.queue == QUEUE:
            # ring the doorbell as ``jobs.queue.bring_forward`` does: the worker takes them now, not
            # at its next poll (a token, short-lived: ``jobs.queue.ring``)
            await _await(self.redis.lpush(DOORBELL, b"1"))
            await _await(self.redis.pexpire(DOORBELL, 60_000))
        return moved
