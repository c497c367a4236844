"""The mediation stage of each session (gathering, clarifying, ...).

Key family: ``heyan:stage:<tenant>:<session>`` (the ``Stage`` value, expiring with the window).
"""

from __future__ import annotations

from redis.asyncio import Redis

from bot.conversation.keys import session_key, text
from memory.models import Scope

__all__ = ["StageBook"]


class StageBook:
    """The stage each session is in; a session never set is in none (callers default it)."""

    def __init__(self, redis: Redis, *, ttl_seconds: int) -> None:
        self.redis = redis
        self.ttl = ttl_seconds

    def __repr__(self) -> str:
        return f"StageBook(ttl_seconds={self.ttl})"

    @staticmethod
    def key(tenant: str, session: str) -> str:
        return session_key("stage", tenant, session)

    async def get(self, scope: Scope) -> str | None:
        """The session's stage, or None when it has none yet."""
        assert scope.session is not None
        raw = await self.redis.get(self.key(scope.tenant, scope.session))
        return None if raw is None else text(raw)

    async def set(self, scope: Scope, stage: str) -> None:
        """Move the session to ``stage``."""
        assert scope.session is not None
        await self.redis.set(self.key(scope.tenant, scope.session), stage, ex=self.ttl)
