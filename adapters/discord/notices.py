"""Saying something to a member or a moderator once, not on every message.

Hints (a reply to Heyan with the ping off, a mention of Heyan's role), a missing permission and the
like are worth one short message, then silence for a while: ``Notices.first(tenant, what)`` is true
for the first caller in ``seconds`` (one ``SET NX EX`` in the shared Redis, so every process of a
deployment agrees). Keys are ``heyan:discord-notice:<tenant>:<what>``: a purge of the tenant
(``bot.departures``) removes them with everything else.
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
