"""The message log: the last N messages of each session, in Redis, with a TTL.

Keys ``heyan:msg:<tenant>:<session>:<id>``, ``heyan:win:…`` (ids in order, trimmed to N) and
``heyan:turns:…``. Stored once by id, so jobs carry ids, never text; text and author name sealed, the
rest clear. New messages enter through ``bot.conversation.intake``; ``append`` is for tests and tools.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any, ClassVar

from redis.asyncio import Redis

from bot.conversation.keys import PREFIX, aw, glob_escape, session_key, text
from bot.models import Message
from bot.privacy.sealing import Advance, open_fields, reseal_keys, reseal_value, seal_fields
from memory.models import Scope, Visibility
from memory.store.crypto import Cipher

__all__ = ["MessageLog", "decode_message", "encode_message"]


def _context(tenant: str, session: str, message_id: str) -> str:
    return f"msg/{tenant}/{session}/{message_id}"


def encode_message(msg: Message, cipher: Cipher | None = None) -> str:
    """The stored JSON of a message (text and author name sealed with ``cipher``)."""
    data = {
        "id": msg.id,
        "tenant": msg.scope.tenant,
        "session": msg.session,
        "user": msg.author_id,
        "ts": msg.ts.isoformat(),
        "mention": msg.mention,
        "visibility": msg.visibility.value,
        "zone": msg.speaker_zone,
        "reply_to": msg.reply_to,
    }
    secret = {"name": msg.author_name, "text": msg.text}
    return json.dumps(seal_fields(data, secret, cipher, _context(msg.scope.tenant, msg.session, msg.id)),
                      ensure_ascii=False)


def decode_message(raw: bytes | str, cipher: Cipher | None = None) -> Message:
    """The message ``encode_message`` stored."""
    data: dict[str, Any] = json.loads(raw)
    data = open_fields(data, cipher, _context(data["tenant"], data["session"], data["id"]))
    return Message(
        id=data["id"],
        scope=Scope(tenant=data["tenant"], session=data["session"], user=data["user"]),
        author_name=data["name"],
        text=data["text"],
        ts=datetime.fromisoformat(data["ts"]),
        mention=bool(data.get("mention")),
        visibility=Visibility(data.get("visibility") or Visibility.PUBLIC.value),
        speaker_zone=data.get("zone"),
        reply_to=data.get("reply_to"),
    )


class MessageLog:
    """Recent messages per (tenant, session). ``size`` messages are kept; keys expire after ``ttl``."""

    #: The keys holding member text (``reseal`` rewrites them).
    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{PREFIX}:msg:*",)

    def __init__(
        self, redis: Redis, *, size: int = 20, ttl_seconds: int = 14 * 24 * 3600, cipher: Cipher | None = None
    ) -> None:
        self.redis = redis
        self.cipher = cipher
        self.size = size
        self.ttl = ttl_seconds

    def __repr__(self) -> str:
        return f"MessageLog(size={self.size}, ttl_seconds={self.ttl})"

    # --- keys (``bot.conversation.intake`` writes them too, in its one Lua step) ---------------

    @staticmethod
    def message_key(tenant: str, session: str, message_id: str) -> str:
        return f"{PREFIX}:msg:{tenant}:{session}:{message_id}"

    @staticmethod
    def window_key(tenant: str, session: str) -> str:
        return session_key("win", tenant, session)

    @staticmethod
    def turns_key(tenant: str, session: str) -> str:
        return session_key("turns", tenant, session)

    def encode(self, msg: Message) -> str:
        return encode_message(msg, self.cipher)

    # --- writing -------------------------------------------------------------------------------

    async def append(self, msg: Message) -> int:
        """Store the message and add it to its session window (no dedupe, no batch: tests and tools);
        returns the session's turn number."""
        tenant, session = msg.scope.tenant, msg.session
        win, turns = self.window_key(tenant, session), self.turns_key(tenant, session)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(self.message_key(tenant, session, msg.id), self.encode(msg), ex=self.ttl)
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
        key = self.message_key(msg.scope.tenant, msg.session, msg.id)
        return bool(await self.redis.set(key, self.encode(msg), xx=True, keepttl=True))

    async def remove(self, scope: Scope, message_id: str) -> None:
        """Forget one message: its text and its place in the window (``Conversation.remove`` also
        takes it off the waiting batch)."""
        assert scope.session is not None
        tenant, session = scope.tenant, scope.session
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self.message_key(tenant, session, message_id))
            pipe.lrem(self.window_key(tenant, session), 0, message_id)
            await pipe.execute()

    async def forget_session(self, scope: Scope) -> list[str]:
        """Delete a whole session's messages, window and counter; returns the ids of the messages
        that went (the other families drop their per-message keys by them)."""
        assert scope.session is not None
        tenant, session = scope.tenant, scope.session
        keys: list[bytes | str] = []
        ids: list[str] = []
        # (a Slack thread's id has its channel's as prefix: stored() keeps to this session exactly)
        async for key, msg in self.stored(tenant, session):
            keys.append(key)
            ids.append(msg.id)
        keys += [self.window_key(tenant, session), self.turns_key(tenant, session)]
        await self.redis.delete(*keys)
        return ids

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: seal every stored message with the first key (compare-and-set, TTL kept);
        returns how many were rewritten. ``advance(1)`` per message visited."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher
        return await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance, lambda key: reseal_value(
            self.redis, key, cipher, lambda raw: encode_message(decode_message(raw, cipher), cipher)))

    # --- reading -------------------------------------------------------------------------------

    async def stored(self, tenant: str, session: str | None = None) -> AsyncIterator[tuple[bytes | str, Message]]:
        """Every stored message of ``tenant`` (of one session when given), with its key. The key
        pattern also matches longer ids with these as their prefix; those are skipped."""
        pattern = f"{PREFIX}:msg:{glob_escape(tenant)}:" + (f"{glob_escape(session)}:*" if session is not None else "*")
        async for key in self.redis.scan_iter(match=pattern, count=500):
            raw = await self.redis.get(key)
            if raw is None:
                continue
            msg = decode_message(raw, self.cipher)
            if msg.scope.tenant == tenant and (session is None or msg.session == session):
                yield key, msg

    async def turns(self, scope: Scope) -> int:
        """The session's turn counter (messages recorded so far)."""
        assert scope.session is not None
        raw = await self.redis.get(self.turns_key(scope.tenant, scope.session))
        return int(raw or 0)

    async def recent(self, scope: Scope, n: int | None = None) -> list[Message]:
        """The last ``n`` (default: all kept) messages of the session, oldest first."""
        assert scope.session is not None, "a window is per session"
        ids = await aw(self.redis.lrange(self.window_key(scope.tenant, scope.session), -(n or self.size), -1))
        return await self.get_many(scope, [text(i) for i in ids])

    async def get_many(self, scope: Scope, ids: Sequence[str]) -> list[Message]:
        """The stored messages with these ids, in the given order; expired ones are skipped."""
        assert scope.session is not None
        if not ids:
            return []
        raws = await self.redis.mget([self.message_key(scope.tenant, scope.session, i) for i in ids])
        return [decode_message(r, self.cipher) for r in raws if r is not None]
