"""Time that moves only when a test moves it: a fake clock, and arq's schedule driven by it.

Tests never wait for the wall clock to reach a due time, and never sleep to let something happen
(docs/RELIABILITY.md, "Test suite"). Two tools:

* ``FakeClock`` — a callable returning an aware UTC ``datetime`` that changes only on ``advance``/``set``.
  Give it to production code that takes a clock (a ``clock: Callable[[], datetime]`` parameter
  defaulting to ``memory.models.utcnow``); its ``sleep`` advances instead of waiting. The ``fake_clock``
  fixture (tests/conftest.py) hands one to a test, starting at ``START``.
* ``JobSchedule`` — arq runs a deferred job (a reminder, an idle watch) once the real time reaches its
  score in the queue. ``deferred()`` lists what is scheduled for when, so a test can assert *when* a job
  would run; ``run_due(until)`` makes every job deferred to ``until`` or earlier ready now, so the worker
  (in this process or a ``heyan worker`` child) takes it on its next poll; ``skip(delta)`` does so for
  the next ``delta`` (a retry's backoff, an idle watch). A test then waits for the job's effect (a post,
  a record), never for a number of seconds. It works on any Redis the jobs use:
  the test run's Valkey (``redis_url``) or a child process's embedded one (connect to its socket).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from typing import Any

from redis.asyncio import Redis

from jobs.queue import QUEUE

__all__ = ["START", "FakeClock", "JobSchedule"]

#: Where a ``FakeClock`` starts unless told otherwise: a fixed instant (a Wednesday, 10:00 UTC), so
#: expected due times and rendered dates are the same on every run.
START = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)


class FakeClock:
    """``clock()`` is now; ``advance(seconds=…)`` moves it forward, ``set(when)`` anywhere.

    Also usable as a ``time.monotonic``-style clock (``monotonic()``) and as an ``asyncio.sleep``
    replacement (``await clock.sleep(s)`` advances by ``s`` and returns at once, recording the delay).
    """

    def __init__(self, start: datetime = START) -> None:
        if start.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime (add tzinfo=UTC)")
        self._now = start
        self.sleeps: list[float] = []

    def __call__(self) -> datetime:
        return self._now

    def __repr__(self) -> str:
        return f"FakeClock({self._now.isoformat()})"

    def advance(self, delta: timedelta | None = None, /, **units: float) -> datetime:
        """Move forward by ``delta`` or by ``timedelta(**units)`` (``seconds=``, ``minutes=``, …)."""
        step = delta if delta is not None else timedelta(**units)
        if step < timedelta(0):
            raise ValueError(f"a clock does not go back: {step}")
        self._now += step
        return self._now

    def set(self, when: datetime) -> datetime:
        """Jump to ``when`` (aware)."""
        if when.tzinfo is None:
            raise ValueError("FakeClock.set needs an aware datetime")
        self._now = when
        return self._now

    def monotonic(self) -> float:
        return self._now.timestamp()

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(seconds=max(seconds, 0.0))


#: arq stores a job's time in whole milliseconds, rounded: a job deferred to ``until`` may score 1 ms after it.
_ROUNDING_MS = 1.0


async def _await(value: Awaitable[Any] | Any) -> Any:
    return await value if isinstance(value, Awaitable) else value


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
        return {job_id: datetime.fromtimestamp(ms / 1000, UTC) for job_id, ms in (await self._scores(prefix)).items()}

    async def skip(self, delta: timedelta, prefix: str = "") -> list[str]:
        """As if ``delta`` passed: jobs deferred up to ``delta`` from now become ready now (a retry's
        backoff, an idle watch). Call it from the probe of a wait to keep time flowing."""
        return await self.run_due(datetime.now(UTC) + delta, prefix)

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
        until_ms = until.timestamp() * 1000 + _ROUNDING_MS
        moved = []
        for job_id, ms in (await self._scores(prefix)).items():
            if now_ms < ms <= until_ms:
                # XX: only a job still queued moves (one that finished meanwhile is not added back)
                await _await(self.redis.zadd(self.queue, {job_id: int(now_ms)}, xx=True))
                moved.append(job_id)
        return moved
