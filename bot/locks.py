"""``RedisLocks``: the record locks of ``memory.locks`` across processes, in the shared Redis.

Each key is ``SET heyan:lock:<key> <token> NX PX <lease>``; the holder releases it only if the token
is still its own (a Lua compare-and-delete). The lease bounds how long a crashed holder blocks a
record. Waiters poll with a short backoff and give up after ``wait`` seconds with ``LockTimeout``
(the job retries later).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Sequence

from redis.asyncio import Redis

from memory.locks import LockTimeout

__all__ = ["RedisLocks"]

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisLocks:
    """Locks shared by every process on one Redis. ``lease``: seconds a lock outlives a crashed holder."""

    def __init__(self, redis: Redis, *, lease: float = 60.0, wait: float = 30.0) -> None:
        self.redis = redis
        self.lease = lease
        self.wait = wait
        self._release = redis.register_script(_RELEASE)

    def __repr__(self) -> str:
        return f"RedisLocks(lease={self.lease}, wait={self.wait})"

    async def _acquire(self, key: str, token: str, deadline: float) -> None:
        delay = 0.005
        while not await self.redis.set(key, token, nx=True, px=int(self.lease * 1000)):
            if time.monotonic() > deadline:
                raise LockTimeout(f"{key} stayed locked for more than {self.wait:.0f}s")
            await asyncio.sleep(delay)
            delay = min(0.2, delay * 2)

    @contextlib.asynccontextmanager
    async def hold(self, keys: Sequence[str]) -> AsyncIterator[None]:
        token = secrets.token_hex(8)
        deadline = time.monotonic() + self.wait
        taken: list[str] = []
        try:
            for key in sorted({f"heyan:lock:{k}" for k in keys}):
                await self._acquire(key, token, deadline)
                taken.append(key)
            yield
        finally:
            for key in reversed(taken):
                await asyncio.shield(self._release(keys=[key], args=[token]))
