"""Delivery dedupe: which message ids of a session were already recorded.

Key family: ``heyan:seen:<tenant>:<session>:<id>`` (``"1"``, expiring with the window). It is set
only by ``bot.conversation.intake``'s Lua step, together with storing the message, so a crash can
never mark a message seen that was not stored (marking it before storing lost messages).
"""

from __future__ import annotations

from collections.abc import Sequence

from redis.asyncio import Redis

from bot.conversation.keys import session_key

__all__ = ["SeenIds"]


class SeenIds:
    """The ids a session has recorded (a platform's redelivery of one of them is dropped)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    def __repr__(self) -> str:
        return "SeenIds()"

    @staticmethod
    def key(tenant: str, session: str, message_id: str) -> str:
        return session_key("seen", tenant, session) + f":{message_id}"

    async def seen(self, tenant: str, session: str, message_id: str) -> bool:
        """True when this message id was recorded in this session."""
        return bool(await self.redis.exists(self.key(tenant, session, message_id)))

    async def forget(self, tenant: str, session: str, ids: Sequence[str]) -> None:
        """Forget these ids (their session is being erased)."""
        if ids:
            await self.redis.delete(*(self.key(tenant, session, i) for i in ids))
