"""Answer-once: which mentions are being answered, and which were answered.

A claim is a lease (``bot.locking.leases``) renewed by a heartbeat until ``mark_answered`` or ``release``, so
only a dead holder's claim lapses (the orphan sweep then answers); a heartbeat stops after
``max_hold_seconds``. ``held`` tells the holder right before it posts whether the claim is still its
own; one that lost it posts nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Callable

from redis.asyncio import Redis

from bot.conversation.keys import PREFIX, aw, session_key, text
from bot.conversation.log import MessageLog
from bot.locking.heartbeat import Pulse, Sleep, beat
from bot.locking.leases import Lease
from bot.models import Message
from memory.models import Scope

__all__ = ["ANSWERING", "AnswerClaims"]

# Per mention: heyan:answered:<tenant>:<session>:<id> = answering:<token> (a lease) while answered,
# then answered. And, so a dead process's half-answered mentions are found without a scan:
#: Mentions being answered (JSON ``[tenant, session, message id]`` -> epoch seconds the answer began).
ANSWERING = f"{PREFIX}:answering"

class AnswerClaims:
    """Claims on mentions being answered. ``log`` is read to hand back an orphaned mention.

    ``clock`` (epoch seconds) and ``sleep`` are the time the claims keep; tests pass a fake clock."""

    def __init__(self, redis: Redis, log: MessageLog, *, ttl_seconds: int, clock: Callable[[], float] = time.time,
                 sleep: Sleep = asyncio.sleep, max_hold_seconds: float = 900.0) -> None:
        self.redis = redis
        self.log = log
        self.ttl = ttl_seconds
        self.clock = clock
        self.sleep = sleep
        self.max_hold = max_hold_seconds
        self._beating: dict[str, asyncio.Task[None]] = {}
        self._leases: dict[str, Lease] = {}  # the claims this process holds, by key

    def __repr__(self) -> str:
        return f"AnswerClaims(ttl_seconds={self.ttl}, holding={len(self._beating)})"

    @staticmethod
    def key(tenant: str, session: str, message_id: str) -> str:
        return session_key("answered", tenant, session) + f":{message_id}"

    @staticmethod
    def _entry(tenant: str, session: str, message_id: str) -> str:
        return json.dumps([tenant, session, message_id], ensure_ascii=False)

    def _msg_key(self, msg: Message) -> str:
        return self.key(msg.scope.tenant, msg.session, msg.id)

    async def claim(self, msg: Message, *, seconds: int = 120) -> str | None:
        """The claim's token for the one caller that should answer this mention now (not answered
        yet, and no one answering it); None for everyone else. The claim is renewed every third of
        ``seconds`` until ``mark_answered`` or ``release``; a holder that dies leaves it to lapse."""
        key = self._msg_key(msg)
        token = secrets.token_hex(8)
        lease = Lease(self.redis, key, seconds, token=f"answering:{token}")
        if not await lease.take():
            return None
        self._leases[key] = lease
        await aw(self.redis.hset(ANSWERING, self._entry(msg.scope.tenant, msg.session, msg.id), str(self.clock())))
        pulse = Pulse(f"answer claim on {msg.id}")

        self._stop(key)
        self._beating[key] = asyncio.create_task(
            beat(pulse, lease.renew, seconds / 3, sleep=self.sleep, for_at_most=self.max_hold), name=f"claim {msg.id}")
        self._beating[key].add_done_callback(lambda task: self._forget(key, task))
        return token

    def _own(self, msg: Message, token: str, *, drop: bool = False) -> Lease | None:
        """This process's lease on ``msg`` if ``token`` is its token (dropped from the table with ``drop``)."""
        key = self._msg_key(msg)
        lease = self._leases.pop(key, None) if drop else self._leases.get(key)
        return lease if lease is not None and lease.token == f"answering:{token}" else None

    def _forget(self, key: str, task: asyncio.Task[None]) -> None:
        if self._beating.get(key) is task:
            del self._beating[key]

    def _stop(self, key: str) -> None:
        task = self._beating.pop(key, None)
        if task is not None:
            task.cancel()

    async def held(self, msg: Message, token: str) -> bool:
        """Is the claim still this holder's? (Renews it once more when it is.)"""
        lease = self._own(msg, token)
        return lease is not None and await lease.renew()

    async def release(self, msg: Message, token: str) -> None:
        """Give the claim up unanswered (the answer failed): a redelivery or the orphan sweep may
        answer the mention; a claim that is no longer this holder's is left alone."""
        self._stop(self._msg_key(msg))
        lease = self._own(msg, token, drop=True)
        if lease is not None:
            await lease.release()

    async def mark_answered(self, msg: Message) -> None:
        """The answer was given: a redelivery of this mention is not answered again."""
        key = self._msg_key(msg)
        self._stop(key)
        self._leases.pop(key, None)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(key, b"answered", ex=self.ttl)
            pipe.hdel(ANSWERING, self._entry(msg.scope.tenant, msg.session, msg.id))
            await pipe.execute()

    async def orphaned(self, older_than: float) -> list[Message]:
        """Mentions whose answering began more than ``older_than`` seconds ago and whose claim
        lapsed (the process answering them died): they can be answered again. A claim still held
        (its holder renews it) is not an orphan, however long the answer takes."""
        now = self.clock()
        found: list[Message] = []
        for raw_entry, raw_at in (await aw(self.redis.hgetall(ANSWERING))).items():
            entry = text(raw_entry)
            if now - float(raw_at) < older_than:
                continue
            tenant, session, message_id = json.loads(entry)
            state = await self.redis.get(self.key(tenant, session, message_id))
            if state is not None and text(state).startswith("answering"):
                continue  # a live holder is still answering it
            if state in (b"answered", "answered"):
                await aw(self.redis.hdel(ANSWERING, entry))
                continue
            messages = await self.log.get_many(Scope(tenant=tenant, session=session), [message_id])
            if not messages:  # expired or erased: nothing left to answer
                await aw(self.redis.hdel(ANSWERING, entry))
                continue
            found.append(messages[0])
        return found

    async def take_over(self) -> int:
        """Drop every claim being answered (their holders are known to be dead: the embedded shape
        at start), so the orphan sweep answers those mentions now; returns how many."""
        dropped = 0
        for raw_entry in await aw(self.redis.hkeys(ANSWERING)):
            tenant, session, message_id = json.loads(text(raw_entry))
            key = self.key(tenant, session, message_id)
            state = await self.redis.get(key)
            if state is not None and text(state).startswith("answering"):
                dropped += int(await self.redis.delete(key))
        return dropped

    async def close(self) -> None:
        """Stop every heartbeat (the process is stopping: its claims lapse, or a successor takes them)."""
        tasks = list(self._beating.values())
        self._beating.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def forget(self, tenant: str, session: str, ids: list[str]) -> None:
        """Forget these mentions' answer state (their session is being erased)."""
        if ids:
            for message_id in ids:
                self._stop(self.key(tenant, session, message_id))
            await self.redis.delete(*(self.key(tenant, session, i) for i in ids))
            await aw(self.redis.hdel(ANSWERING, *(self._entry(tenant, session, i) for i in ids)))
