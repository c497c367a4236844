"""Answer-once: which mentions are being answered, and which were answered.

Key families: ``heyan:answered:<tenant>:<session>:<id>`` (``answering`` while a process answers the
mention, a claim that lapses; ``answered`` once the reply was posted) and ``heyan:answering`` (a hash
of JSON ``[tenant, session, id]`` → epoch seconds the answer began, so mentions a dead process left
half-answered are found without a scan).
"""

from __future__ import annotations

import json
import time

from redis.asyncio import Redis

from bot.conversation.keys import PREFIX, aw, session_key, text
from bot.conversation.log import MessageLog
from bot.models import Message
from memory.models import Scope

__all__ = ["ANSWERING", "AnswerClaims"]

#: Mentions being answered (JSON ``[tenant, session, message id]`` -> epoch seconds the answer began).
ANSWERING = f"{PREFIX}:answering"


class AnswerClaims:
    """Claims on mentions being answered. ``log`` is read to hand back an orphaned mention."""

    def __init__(self, redis: Redis, log: MessageLog, *, ttl_seconds: int) -> None:
        self.redis = redis
        self.log = log
        self.ttl = ttl_seconds

    def __repr__(self) -> str:
        return f"AnswerClaims(ttl_seconds={self.ttl})"

    @staticmethod
    def key(tenant: str, session: str, message_id: str) -> str:
        return session_key("answered", tenant, session) + f":{message_id}"

    @staticmethod
    def _entry(tenant: str, session: str, message_id: str) -> str:
        return json.dumps([tenant, session, message_id], ensure_ascii=False)

    async def claim(self, msg: Message, *, seconds: int = 120) -> bool:
        """True for the one caller that should answer this mention now: not answered yet, and no
        one answering it (a claim that lapses after ``seconds``, so a process that died mid-answer
        leaves the mention to be answered later — see ``orphaned``)."""
        key = self.key(msg.scope.tenant, msg.session, msg.id)
        if not await self.redis.set(key, b"answering", nx=True, ex=seconds):
            return False
        await aw(self.redis.hset(ANSWERING, self._entry(msg.scope.tenant, msg.session, msg.id), str(time.time())))
        return True

    async def mark_answered(self, msg: Message) -> None:
        """The answer was given: a redelivery of this mention is not answered again."""
        key = self.key(msg.scope.tenant, msg.session, msg.id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(key, b"answered", ex=self.ttl)
            pipe.hdel(ANSWERING, self._entry(msg.scope.tenant, msg.session, msg.id))
            await pipe.execute()

    async def orphaned(self, older_than: float) -> list[Message]:
        """Mentions whose answering began more than ``older_than`` seconds ago and never finished (the
        process answering them died): their claims have lapsed, so they can be answered again."""
        now = time.time()
        found: list[Message] = []
        for raw_entry, raw_at in (await aw(self.redis.hgetall(ANSWERING))).items():
            entry = text(raw_entry)
            if now - float(raw_at) < older_than:
                continue
            tenant, session, message_id = json.loads(entry)
            state = await self.redis.get(self.key(tenant, session, message_id))
            if state in (b"answered", "answered"):
                await aw(self.redis.hdel(ANSWERING, entry))
                continue
            messages = await self.log.get_many(Scope(tenant=tenant, session=session), [message_id])
            if not messages:  # expired or erased: nothing left to answer
                await aw(self.redis.hdel(ANSWERING, entry))
                continue
            found.append(messages[0])
        return found

    async def forget(self, tenant: str, session: str, ids: list[str]) -> None:
        """Forget these mentions' answer state (their session is being erased)."""
        if ids:
            await self.redis.delete(*(self.key(tenant, session, i) for i in ids))
            await aw(self.redis.hdel(ANSWERING, *(self._entry(tenant, session, i) for i in ids)))
