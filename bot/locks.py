"""``RedisLocks``: the record locks of ``memory.locks`` across processes, in the shared Redis.

Each key is ``SET heyan:lock:<key> <token> NX PX <lease>``. While the holder works, a heartbeat
(``bot.heartbeat``) extends the lease every third of it, only if the token is still the holder's
(a Lua compare-and-extend), so a slow holder — an embedding or LLM call that takes minutes — never
loses its lock to the TTL; the lease only bounds how long a *crashed* holder blocks a record. Right
before writing, the holder calls ``Held.ensure()``: compare-and-extend once more, and ``LockLost``
if the lock is gone or someone else's. Release is a compare-and-delete. Waiters poll with a short
backoff and give up after ``wait`` seconds with ``LockTimeout`` (the job retries later).

``take_over()`` deletes every lock: only for a process that knows every earlier holder is dead (the
embedded shape: it holds the data dir's lock, and the embedded Valkey is its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Callable, Sequence

from redis.asyncio import Redis

from bot.heartbeat import Pulse, Sleep, keep_alive
from memory.locks import HELD, Held, LockLost, LockTimeout

__all__ = ["LOCK_PREFIX", "RedisLocks"]

#: Every record and summary lock's key starts with this.
LOCK_PREFIX = "heyan:lock:"

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_EXTEND = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""


class _RedisHeld:
    def __init__(self, locks: RedisLocks, keys: list[str], token: str, pulse: Pulse) -> None:
        self.locks, self.keys, self.token, self.pulse = locks, keys, token, pulse

    def __repr__(self) -> str:
        return f"Held({self.keys}, lost={self.pulse.lost})"

    async def ensure(self) -> None:
        if self.pulse.lost or not await self.locks.extend(self.keys, self.token):
            raise LockLost(f"{', '.join(self.keys)} is no longer this writer's lock; nothing was written")


class RedisLocks:
    """Locks shared by every process on one Redis. ``lease``: seconds a lock outlives a crashed holder.

    ``clock`` (monotonic seconds) and ``sleep`` are what waiting and the heartbeat use; tests pass a
    controllable clock."""

    def __init__(self, redis: Redis, *, lease: float = 60.0, wait: float = 30.0,
                 clock: Callable[[], float] = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        self.redis = redis
        self.lease = lease
        self.wait = wait
        self.clock = clock
        self.sleep = sleep
        self._release = redis.register_script(_RELEASE)
        self._extend = redis.register_script(_EXTEND)

    def __repr__(self) -> str:
        return f"RedisLocks(lease={self.lease}, wait={self.wait})"

    async def _acquire(self, key: str, token: str, deadline: float) -> None:
        delay = 0.005
        while not await self.redis.set(key, token, nx=True, px=int(self.lease * 1000)):
            if self.clock() > deadline:
                raise LockTimeout(f"{key} stayed locked for more than {self.wait:.0f}s")
            await self.sleep(delay)
            delay = min(0.2, delay * 2)

    async def extend(self, keys: Sequence[str], token: str) -> bool:
        """Extend these locks by a full lease if ``token`` still holds every one; False otherwise."""
        held = True
        for key in keys:
            held = bool(await self._extend(keys=[key], args=[token, int(self.lease * 1000)])) and held
        return held

    @contextlib.asynccontextmanager
    async def hold(self, keys: Sequence[str]) -> AsyncIterator[Held]:
        token = secrets.token_hex(8)
        deadline = self.clock() + self.wait
        taken: list[str] = []
        try:
            for key in sorted({f"{LOCK_PREFIX}{k}" for k in keys}):
                await self._acquire(key, token, deadline)
                taken.append(key)
            if not taken:
                yield HELD
                return
            async with keep_alive(lambda: self.extend(taken, token), self.lease / 3, what=f"lock {taken[0]}",
                                  sleep=self.sleep) as pulse:
                yield _RedisHeld(self, taken, token, pulse)
        finally:
            for key in reversed(taken):
                await asyncio.shield(self._release(keys=[key], args=[token]))

    async def take_over(self) -> int:
        """Delete every lock (their holders are known to be dead); returns how many there were."""
        keys = [key async for key in self.redis.scan_iter(match=f"{LOCK_PREFIX}*", count=500)]
        return int(await self.redis.delete(*keys)) if keys else 0
