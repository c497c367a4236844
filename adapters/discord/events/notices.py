"""Saying something to a member or a moderator once, not on every message.

``Notices.first(tenant, what)`` is true for the first caller in ``seconds`` (``SET NX EX`` in the shared
Redis, so every process agrees); keys ``heyan:discord-notice:<tenant>:<what>`` go with a tenant purge.
"""

from __future__ import annotations

from redis.asyncio import Redis

__all__ = ["DAY", "HOUR", "Notices"]

HOUR = 3600
DAY = 24 * HOUR
_PREFIX = "heyan:discord-notice:"


class Notices:
    """Once-per-period notices over Redis."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    def __repr__(self) -> str:
        return "Notices()"

    async def first(self, tenant: str, what: str, seconds: int = DAY) -> bool:
        """True when nobody said ``what`` in ``tenant`` in the last ``seconds``; marks it said."""
        return bool(await self.redis.set(f"{_PREFIX}{tenant}:{what}", "1", nx=True, ex=seconds))
