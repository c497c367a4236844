"""A Redis lease: a key held with a token for a while, renewed, checked and given up only by its
holder. Built on redis-py's ``Lock`` (SET NX PX to take it, Lua compare-and-extend and
compare-and-delete after); waiting and the renewing heartbeat stay with the callers, on their
clock. The record locks (``bot.locking.locks``) and the answer claims (``bot.conversation.answers``) are
leases; the outbox keeps its own in Lua, as its leases live in a sorted set with the posts."""

from __future__ import annotations

import secrets

from redis.asyncio import Redis
from redis.asyncio.lock import Lock
from redis.exceptions import LockError

__all__ = ["Lease"]


class Lease:
    """``key`` held for ``seconds`` with ``token`` (a fresh random one unless given)."""

    def __init__(self, redis: Redis, key: str, seconds: float, *, token: str | None = None) -> None:
        self.key = key
        self.seconds = seconds
        self.token = token or secrets.token_hex(8)
        self._lock = Lock(redis, key, timeout=seconds, thread_local=False)

    def __repr__(self) -> str:
        return f"Lease({self.key!r}, seconds={self.seconds})"

    async def take(self) -> bool:
        """Take the key if nobody holds it; False (at once) when someone does."""
        return bool(await self._lock.acquire(blocking=False, token=self.token))

    async def renew(self) -> bool:
        """A full lease again if the key is still this token's; False when it is not."""
        try:
            return bool(await self._lock.reacquire())
        except LockError:  # not taken, or no longer this token's
            return False

    async def release(self) -> bool:
        """Give the key up if it is still this token's; False when it was not (left alone)."""
        try:
            await self._lock.release()
        except LockError:  # not taken, or no longer this token's
            return False
        return True
