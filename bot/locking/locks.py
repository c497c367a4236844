"""``RedisLocks``: the record locks of ``memory.locks`` across processes, in the shared Redis.

Each lock is a lease (``bot.locking.leases``) renewed every third of its TTL by one renewer task per
``RedisLocks`` while any is held, so a slow holder keeps it and the TTL bounds only a crashed one.
``Held.ensure()`` right before a write raises ``LockLost`` when it is gone; waiters give up with
``LockTimeout`` after ``wait``. ``take_over()`` deletes every lock: only for the embedded shape, whose
earlier holders are known dead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Sequence

from redis.asyncio import Redis

from bot.locking.heartbeat import Sleep
from bot.locking.leases import Lease
from memory.locks import HELD, Held, LockLost, LockTimeout

__all__ = ["LOCK_PREFIX", "RedisLocks"]

log = logging.getLogger(__name__)

#: Every record and summary lock's key starts with this.
LOCK_PREFIX = "heyan:lock:"

class _RedisHeld:
    def __init__(self, leases: list[Lease]) -> None:
        self.leases = leases
        self.keys = [lease.key for lease in leases]
        self.lost = False

    def __repr__(self) -> str:
        return f"Held({self.keys}, lost={self.lost})"

    async def renew(self) -> bool:
        """A full lease again on every key; False when any is no longer this holder's."""
        held = True
        for lease in self.leases:
            held = await lease.renew() and held
        return held

    async def ensure(self) -> None:
        if self.lost or not await self.renew():
            self.lost = True
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
        self._holding: set[_RedisHeld] = set()
        self._renewer: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"RedisLocks(lease={self.lease}, wait={self.wait})"

    async def _acquire(self, lease: Lease, deadline: float) -> None:
        delay = 0.005
        while not await lease.take():
            if self.clock() > deadline:
                raise LockTimeout(f"{lease.key} stayed locked for more than {self.wait:.0f}s")
            await self.sleep(delay)
            delay = min(0.2, delay * 2)

    @contextlib.asynccontextmanager
    async def hold(self, keys: Sequence[str]) -> AsyncIterator[Held]:
        token = secrets.token_hex(8)
        deadline = self.clock() + self.wait
        taken: list[Lease] = []
        try:
            for key in sorted({f"{LOCK_PREFIX}{k}" for k in keys}):
                lease = Lease(self.redis, key, self.lease, token=token)
                await self._acquire(lease, deadline)
                taken.append(lease)
            if not taken:
                yield HELD
                return
            held = _RedisHeld(taken)
            self._holding.add(held)
            if self._renewer is None or self._renewer.done():
                self._renewer = asyncio.create_task(self._renew_all(), name="heyan-lock-renewer")
            try:
                yield held
            finally:
                self._holding.discard(held)
        finally:
            for lease in reversed(taken):
                await asyncio.shield(lease.release())

    async def _renew_all(self) -> None:
        """Extend every held lock every third of a lease, while any is held."""
        while self._holding:
            await self.sleep(self.lease / 3)
            for held in list(self._holding):
                try:
                    if not await held.renew():
                        held.lost = True
                        self._holding.discard(held)
                        log.warning("lock %s was lost while its holder was still working", held.keys[0])
                except Exception as exc:  # Redis unreachable for a moment: the next round tries again
                    log.warning("could not renew lock %s (%s: %s)", held.keys[0], type(exc).__name__, exc)

    async def take_over(self) -> int:
        """Delete every lock (their holders are known to be dead); returns how many there were."""
        keys = [key async for key in self.redis.scan_iter(match=f"{LOCK_PREFIX}*", count=500)]
        return int(await self.redis.delete(*keys)) if keys else 0
