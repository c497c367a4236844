"""The conversation layer, one idea and one Redis key family (``heyan:<family>:<tenant>:<session>``) per
module: ``log`` (msg, win, turns: the last N messages), ``seen`` (delivery dedupe), ``batches``
(pending, waiting-sessions, extracted2: what waits for and went to extraction), ``answers``
(answered, answering: answer-once claims), ``idle`` (idlewatch), ``stage`` (the mediation stage) and
``intake`` (the atomic ``record`` Lua step over log, seen and batches).

``Conversation`` bundles them and runs what spans families: removing a message, a member's messages or
a session everywhere. Components get the pieces they use.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis.asyncio import Redis

from bot.conversation.answers import AnswerClaims
from bot.conversation.batches import ExtractionBatches, text_digest
from bot.conversation.idle import IdleWatch
from bot.conversation.intake import Intake
from bot.conversation.log import MessageLog
from bot.conversation.seen import SeenIds
from bot.conversation.stage import StageBook
from bot.models import Message
from memory.models import Scope
from memory.store.crypto import Cipher

__all__ = ["AnswerClaims", "Conversation", "ExtractionBatches", "IdleWatch", "Intake", "MessageLog", "SeenIds",
           "StageBook", "text_digest"]


@dataclass(frozen=True, slots=True)
class Conversation:
    """Every piece of the conversation layer over one Redis."""

    redis: Redis
    log: MessageLog
    seen: SeenIds
    batches: ExtractionBatches
    answers: AnswerClaims
    idle: IdleWatch
    stages: StageBook
    intake: Intake

    @classmethod
    def open(cls, redis: Redis, *, size: int = 20, ttl_seconds: int = 14 * 24 * 3600,
             cipher: Cipher | None = None) -> Conversation:
        """The pieces over ``redis``: ``size`` messages kept per session, keys expiring after ``ttl_seconds``."""
        log = MessageLog(redis, size=size, ttl_seconds=ttl_seconds, cipher=cipher)
        return cls(redis=redis, log=log, seen=SeenIds(redis),
                   batches=ExtractionBatches(redis, log, ttl_seconds=ttl_seconds),
                   answers=AnswerClaims(redis, log, ttl_seconds=ttl_seconds), idle=IdleWatch(redis),
                   stages=StageBook(redis, ttl_seconds=ttl_seconds), intake=Intake(redis, log))

    def __repr__(self) -> str:
        return f"Conversation({self.log!r})"

    async def remove(self, scope: Scope, message_id: str) -> None:
        """Forget one message (deleted on the platform): its text, its place, its waiting batch entry."""
        await self.log.remove(scope, message_id)
        await self.batches.remove(scope, message_id)

    async def forget_author(self, tenant: str, user: str) -> list[Message]:
        """Erase every message ``user`` wrote in ``tenant``: its text, its place in the window and in
        the waiting batch. Returns the messages that went (the erasure looks for their ids and the
        names they were written under elsewhere)."""
        removed: list[Message] = []
        async for _, msg in self.log.stored(tenant):
            if msg.author_id == user:
                await self.remove(Scope(tenant=tenant, session=msg.session), msg.id)
                removed.append(msg)
        return removed

    async def forget_session(self, scope: Scope) -> int:
        """Erase a whole session: its messages and every key it has. Returns how many messages went."""
        assert scope.session is not None
        tenant, session = scope.tenant, scope.session
        ids = await self.log.forget_session(scope)
        await self.seen.forget(tenant, session, ids)
        await self.answers.forget(tenant, session, ids)
        await self.redis.delete(*self.batches.session_keys(tenant, session), IdleWatch.key(tenant, session),
                                StageBook.key(tenant, session))
        return len(ids)
