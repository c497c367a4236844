"""The conversation layer: the last N messages of each session, in Redis, with a TTL.

Messages are stored once by id (so jobs can carry ids, never text) and listed per session in order.
The same keys hold the per-session counters the engine's extraction triggers need.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from redis.asyncio import Redis

from bot.models import Message
from memory.models import Scope, Visibility

__all__ = ["ConversationWindow"]

_PREFIX = "heyan"

T = TypeVar("T")


async def _aw(value: Awaitable[T] | T) -> T:
    """redis-py types its asyncio commands as ``Awaitable[T] | T``; this awaits either."""
    return await value if inspect.isawaitable(value) else value


def _encode(msg: Message) -> str:
    return json.dumps(
        {
            "id": msg.id,
            "tenant": msg.scope.tenant,
            "session": msg.session,
            "user": msg.author_id,
            "name": msg.author_name,
            "text": msg.text,
            "ts": msg.ts.isoformat(),
            "mention": msg.mention,
            "visibility": msg.visibility.value,
            "zone": msg.speaker_zone,
        },
        ensure_ascii=False,
    )


def _decode(raw: bytes | str) -> Message:
    data: dict[str, Any] = json.loads(raw)
    return Message(
        id=data["id"],
        scope=Scope(tenant=data["tenant"], session=data["session"], user=data["user"]),
        author_name=data["name"],
        text=data["text"],
        ts=datetime.fromisoformat(data["ts"]),
        mention=bool(data.get("mention")),
        visibility=Visibility(data.get("visibility") or Visibility.PUBLIC.value),
        speaker_zone=data.get("zone"),
    )


class ConversationWindow:
    """Recent messages per (tenant, session). ``size`` messages are kept; keys expire after ``ttl``."""

    def __init__(self, redis: Redis, *, size: int = 20, ttl_seconds: int = 14 * 24 * 3600) -> None:
        self.redis = redis
        self.size = size
        self.ttl = ttl_seconds

    @staticmethod
    def _key(kind: str, tenant: str, session: str) -> str:
        return f"{_PREFIX}:{kind}:{tenant}:{session}"

    def _msg_key(self, tenant: str, session: str, message_id: str) -> str:
        return f"{_PREFIX}:msg:{tenant}:{session}:{message_id}"

    async def first_sighting(self, msg: Message) -> bool:
        """True the first time a platform message id is seen (platforms redeliver; drop repeats)."""
        key = self._key("seen", msg.scope.tenant, msg.session) + f":{msg.id}"
        return bool(await self.redis.set(key, b"1", nx=True, ex=self.ttl))

    async def append(self, msg: Message) -> int:
        """Store the message and add it to its session window; returns the session's turn number."""
        tenant, session = msg.scope.tenant, msg.session
        win, turns = self._key("win", tenant, session), self._key("turns", tenant, session)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(self._msg_key(tenant, session, msg.id), _encode(msg), ex=self.ttl)
            pipe.rpush(win, msg.id)
            pipe.ltrim(win, -self.size, -1)
            pipe.expire(win, self.ttl)
            pipe.incr(turns)
            pipe.expire(turns, self.ttl)
            result = await pipe.execute()
        return int(result[4])

    async def replace(self, msg: Message) -> bool:
        """Store an edited message's new text under its id (its place in the window is kept);
        False when the message is no longer held (expired or never seen)."""
        key = self._msg_key(msg.scope.tenant, msg.session, msg.id)
        return bool(await self.redis.set(key, _encode(msg), xx=True, keepttl=True))

    async def remove(self, scope: Scope, message_id: str) -> None:
        """Forget one message (deleted on the platform): its text, its place, its pending batch entry."""
        assert scope.session is not None
        tenant, session = scope.tenant, scope.session
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._msg_key(tenant, session, message_id))
            pipe.lrem(self._key("win", tenant, session), 0, message_id)
            pipe.lrem(self._key("pending", tenant, session), 0, message_id)
            await pipe.execute()

    async def unmark_extracted(self, scope: Scope, ids: Sequence[str]) -> None:
        """Let these messages be extracted again (their text changed)."""
        assert scope.session is not None
        if ids:
            await _aw(self.redis.srem(self._key("extracted", scope.tenant, scope.session), *ids))

    async def turns(self, scope: Scope) -> int:
        assert scope.session is not None
        raw = await self.redis.get(self._key("turns", scope.tenant, scope.session))
        return int(raw or 0)

    async def recent(self, scope: Scope, n: int | None = None) -> list[Message]:
        """The last ``n`` (default: all kept) messages of the session, oldest first."""
        assert scope.session is not None, "a window is per session"
        ids = await _aw(self.redis.lrange(self._key("win", scope.tenant, scope.session), -(n or self.size), -1))
        return await self.get_many(scope, [i.decode() if isinstance(i, bytes) else i for i in ids])

    async def get_many(self, scope: Scope, ids: Sequence[str]) -> list[Message]:
        """The stored messages with these ids, in the given order; expired ones are skipped."""
        assert scope.session is not None
        if not ids:
            return []
        raws = await self.redis.mget([self._msg_key(scope.tenant, scope.session, i) for i in ids])
        return [_decode(r) for r in raws if r is not None]

    # --- extraction bookkeeping: which turns wait for the next batch ---------------------------

    async def add_pending(self, scope: Scope, message_id: str) -> int:
        """Queue a message for the next batch extraction; returns how many wait."""
        assert scope.session is not None
        key = self._key("pending", scope.tenant, scope.session)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.rpush(key, message_id)
            pipe.expire(key, self.ttl)
            pipe.llen(key)
            result = await pipe.execute()
        return int(result[2])

    async def take_pending(self, scope: Scope) -> list[str]:
        """Atomically take every message id waiting for batch extraction."""
        assert scope.session is not None
        key = self._key("pending", scope.tenant, scope.session)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.lrange(key, 0, -1)
            pipe.delete(key)
            result = await pipe.execute()
        return [i.decode() if isinstance(i, bytes) else str(i) for i in result[0]]

    async def mark_extracted(self, scope: Scope, ids: Sequence[str]) -> None:
        assert scope.session is not None
        key = self._key("extracted", scope.tenant, scope.session)
        if ids:
            await _aw(self.redis.sadd(key, *ids))
            await self.redis.expire(key, self.ttl)

    async def not_extracted(self, scope: Scope, ids: Sequence[str]) -> list[str]:
        """The ids among ``ids`` no extraction has finished yet (so a retried job skips done ones)."""
        assert scope.session is not None
        if not ids:
            return []
        key = self._key("extracted", scope.tenant, scope.session)
        flags = await _aw(self.redis.smismember(key, list(ids)))
        return [i for i, done in zip(ids, flags, strict=True) if not done]

    # --- the idle watch: one deferred job per quiet session, not one per message ----------------

    async def claim_idle_watch(self, scope: Scope, idle_seconds: int) -> bool:
        """True if no idle job watches this session yet; the caller then schedules one.

        The claim outlives the job's own firing time, so a lost job (Redis restored without it) frees
        the session again in ``2 * idle + 60`` seconds.
        """
        assert scope.session is not None
        key = self._key("idlewatch", scope.tenant, scope.session)
        return bool(await self.redis.set(key, b"1", nx=True, ex=2 * idle_seconds + 60))

    async def hold_idle_watch(self, scope: Scope, idle_seconds: int) -> None:
        assert scope.session is not None
        await self.redis.expire(self._key("idlewatch", scope.tenant, scope.session), 2 * idle_seconds + 60)

    async def release_idle_watch(self, scope: Scope) -> None:
        assert scope.session is not None
        await self.redis.delete(self._key("idlewatch", scope.tenant, scope.session))

    async def stage(self, scope: Scope) -> str | None:
        assert scope.session is not None
        raw = await self.redis.get(self._key("stage", scope.tenant, scope.session))
        return raw.decode() if isinstance(raw, bytes) else raw

    async def set_stage(self, scope: Scope, stage: str) -> None:
        assert scope.session is not None
        await self.redis.set(self._key("stage", scope.tenant, scope.session), stage, ex=self.ttl)
