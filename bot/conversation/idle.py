"""The idle watch: one deferred job per quiet session, not one per message.

Key family: ``heyan:idlewatch:<tenant>:<session>`` (``"1"`` while an idle job watches the session).
"""

from __future__ import annotations

from redis.asyncio import Redis

from bot.conversation.keys import session_key
from memory.models import Scope

__all__ = ["IdleWatch"]


class IdleWatch:
    """Whether an idle job watches a session. The claim outlives the job's own firing time, so a
    lost job (Redis restored without it) frees the session again in ``2 * idle + 60`` seconds."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    def __repr__(self) -> str:
        return "IdleWatch()"

    @staticmethod
    def key(tenant: str, session: str) -> str:
        return session_key("idlewatch", tenant, session)

    def _key(self, scope: Scope) -> str:
        assert scope.session is not None
        return self.key(scope.tenant, scope.session)

    async def claim(self, scope: Scope, idle_seconds: int) -> bool:
        """True if no idle job watches this session yet; the caller then schedules one."""
        return bool(await self.redis.set(self._key(scope), b"1", nx=True, ex=2 * idle_seconds + 60))

    async def active(self, scope: Scope) -> bool:
        """True while an idle job watches this session."""
        return bool(await self.redis.exists(self._key(scope)))

    async def hold(self, scope: Scope, idle_seconds: int) -> None:
        """The watcher re-armed itself: keep the claim for another round."""
        await self.redis.expire(self._key(scope), 2 * idle_seconds + 60)

    async def release(self, scope: Scope) -> None:
        """The session went quiet and its batch was extracted: the next message arms a new watch."""
        await self.redis.delete(self._key(scope))
