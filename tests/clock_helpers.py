"""A controllable clock for tests: ``clock()`` is the time, ``await clock.sleep(s)`` waits for the test
to ``await clock.advance(...)`` past it. No test waits on the wall clock; ``advance`` returns once
every task it woke has gone back to sleep on this clock or finished (it waits on those events, bounded by
``SETTLE_SECONDS`` only as a guard against a test that hangs)."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Any

__all__ = ["FakeClock"]

#: A guard, not a timing: a woken task that neither sleeps again nor ends within this long is a bug.
SETTLE_SECONDS = 10.0


class FakeClock:
    """Epoch seconds that move only when the test says so."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None], asyncio.Task[object] | None]] = []
        self._order = itertools.count()
        self._changed: asyncio.Event | None = None

    def _event(self) -> asyncio.Event:
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    async def _until(self, done: Callable[[], bool]) -> None:
        """Wait on the clock's change events until ``done()`` holds (a guard bounds the wait)."""
        async with asyncio.timeout(SETTLE_SECONDS):
            while not done():
                event = self._event()
                event.clear()
                await event.wait()

    def __call__(self) -> float:
        return self.now

    def __repr__(self) -> str:
        return f"FakeClock(now={self.now}, sleepers={len(self._sleepers)})"

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        task = asyncio.current_task()
        heapq.heappush(self._sleepers, (self.now + max(0.0, seconds), next(self._order), future, task))
        if task is not None:
            task.add_done_callback(lambda _: self._event().set())
        self._event().set()
        try:
            await future
        finally:
            if not future.done():
                future.cancel()
            self._sleepers = [s for s in self._sleepers if s[2] is not future]
            heapq.heapify(self._sleepers)

    def sleeping(self) -> int:
        """How many tasks sleep on this clock now."""
        return sum(1 for s in self._sleepers if not s[2].done())

    async def wait_sleepers(self, n: int) -> None:
        """Until at least ``n`` tasks sleep on this clock (a background loop reached its wait)."""
        await self._until(lambda: self.sleeping() >= n)

    async def advance(self, seconds: float) -> None:
        """Move time forward, waking each sleeper due on the way in order, and let each run until it
        sleeps again or ends."""
        target = self.now + seconds
        while self._sleepers and self._sleepers[0][0] <= target:
            due, _, future, task = heapq.heappop(self._sleepers)
            if future.done():
                continue
            self.now = max(self.now, due)
            future.set_result(None)
            await self._settle(task)
        self.now = target

    async def _settle(self, task: asyncio.Task[object] | None) -> None:
        await asyncio.sleep(0)  # let the woken task start
        await self._until(lambda: task is None or task.done()
                          or any(s[3] is task and not s[2].done() for s in self._sleepers))


async def age_keys(redis: Any, patterns: tuple[str, ...], seconds: float) -> None:
    """Redis's own time for the keys matching ``patterns``: take ``seconds`` off their TTLs (a key
    whose TTL runs out is deleted), as if that much time had passed for Redis too."""
    for pattern in patterns:
        async for key in redis.scan_iter(match=pattern, count=500):
            left = await redis.pttl(key)
            if left < 0:
                continue  # no TTL (or gone meanwhile)
            if left <= seconds * 1000:
                await redis.delete(key)
            else:
                await redis.pexpire(key, int(left - seconds * 1000))


async def pass_time(clock: FakeClock, redis: Any, seconds: float, *, step: float = 5.0,
                    patterns: tuple[str, ...] = ("heyan:*",)) -> None:
    """Let ``seconds`` pass for the fake clock and for Redis's TTLs together, ``step`` at a time."""
    done = 0.0
    while done < seconds:
        dt = min(step, seconds - done)
        await age_keys(redis, patterns, dt)
        await clock.advance(dt)
        done += dt
