"""The conversation layer: the last N messages of each session, in Redis, with a TTL.

Messages are stored once by id (so jobs can carry ids, never text) and listed per session in order.
The same keys hold the per-session counters the engine's extraction triggers need. With a cipher, a
message's text and author name are sealed (``bot.sealing``), bound to its key's ids; its ids, time,
visibility and zone stay in the clear.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import time
from collections.abc import AsyncIterator, Awaitable, Sequence
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from redis.asyncio import Redis

from bot.models import Message
from bot.sealing import Advance, open_fields, reseal_keys, reseal_value, seal_fields
from memory.crypto import Cipher
from memory.models import Scope, Visibility

__all__ = ["ConversationWindow", "text_digest"]

#: The hash of extracted message ids → digest of the text extracted ("extracted" held a plain set
#: before; such keys are left to expire with the window).
_EXTRACTED = "extracted2"


def text_digest(text: str) -> str:
    """A short digest of a message's text: which reading of a message a job or a revision is."""
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


_PREFIX = "heyan"

T = TypeVar("T")


async def _aw(value: Awaitable[T] | T) -> T:
    """redis-py types its asyncio commands as ``Awaitable[T] | T``; this awaits either."""
    return await value if inspect.isawaitable(value) else value


def _context(tenant: str, session: str, message_id: str) -> str:
    return f"msg/{tenant}/{session}/{message_id}"


def _encode(msg: Message, cipher: Cipher | None = None) -> str:
    data = {
        "id": msg.id,
        "tenant": msg.scope.tenant,
        "session": msg.session,
        "user": msg.author_id,
        "ts": msg.ts.isoformat(),
        "mention": msg.mention,
        "visibility": msg.visibility.value,
        "zone": msg.speaker_zone,
    }
    secret = {"name": msg.author_name, "text": msg.text}
    return json.dumps(seal_fields(data, secret, cipher, _context(msg.scope.tenant, msg.session, msg.id)),
                      ensure_ascii=False)


def _decode(raw: bytes | str, cipher: Cipher | None = None) -> Message:
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
    )


_RECORD = """
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[4]) then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[4])
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('LTRIM', KEYS[3], -tonumber(ARGV[3]), -1)
redis.call('EXPIRE', KEYS[3], ARGV[4])
local turn = redis.call('INCR', KEYS[4])
redis.call('EXPIRE', KEYS[4], ARGV[4])
redis.call('RPUSH', KEYS[5], ARGV[2])
redis.call('EXPIRE', KEYS[5], ARGV[4])
redis.call('SADD', KEYS[6], ARGV[5])
return turn
"""

#: Mentions being answered (JSON ``[tenant, session, message id]`` -> epoch seconds the answer began).
_ANSWERING = f"{_PREFIX}:answering"

#: Sessions that had a batch waiting (JSON ``[tenant, session]``), so a sweep finds them without a scan.
_WAITING = f"{_PREFIX}:waiting-sessions"


def _glob(text: str) -> str:
    """``text`` with Redis glob characters escaped."""
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in text)


class ConversationWindow:
    """Recent messages per (tenant, session). ``size`` messages are kept; keys expire after ``ttl``."""

    #: The keys holding member text (``reseal`` rewrites them).
    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_PREFIX}:msg:*",)

    def __init__(
        self, redis: Redis, *, size: int = 20, ttl_seconds: int = 14 * 24 * 3600, cipher: Cipher | None = None
    ) -> None:
        self.redis = redis
        self.cipher = cipher
        self.size = size
        self.ttl = ttl_seconds
        self._record = redis.register_script(_RECORD)

    @staticmethod
    def _key(kind: str, tenant: str, session: str) -> str:
        return f"{_PREFIX}:{kind}:{tenant}:{session}"

    def _msg_key(self, tenant: str, session: str, message_id: str) -> str:
        return f"{_PREFIX}:msg:{tenant}:{session}:{message_id}"

    async def record(self, msg: Message) -> int:
        """Store a new message, add it to its session's window and to the batch waiting for
        extraction, and mark its id seen — all at once (a crash cannot mark a message seen that was
        not stored). Returns the session's turn number, or 0 when the id was seen before (a
        platform's redelivery)."""
        tenant, session = msg.scope.tenant, msg.session
        keys = [self._key("seen", tenant, session) + f":{msg.id}", self._msg_key(tenant, session, msg.id),
                self._key("win", tenant, session), self._key("turns", tenant, session),
                self._key("pending", tenant, session), _WAITING]
        entry = json.dumps([tenant, session], ensure_ascii=False)
        turn = await self._record(keys=keys, args=[_encode(msg, self.cipher), msg.id, self.size, self.ttl, entry])
        return int(turn)

    async def append(self, msg: Message) -> int:
        """Store the message and add it to its session window (no dedupe, no batch: tests and tools);
        returns the session's turn number."""
        tenant, session = msg.scope.tenant, msg.session
        win, turns = self._key("win", tenant, session), self._key("turns", tenant, session)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(self._msg_key(tenant, session, msg.id), _encode(msg, self.cipher), ex=self.ttl)
            pipe.rpush(win, msg.id)
            pipe.ltrim(win, -self.size, -1)
            pipe.expire(win, self.ttl)
            pipe.incr(turns)
            pipe.expire(turns, self.ttl)
            result = await pipe.execute()
        return int(result[4])

    async def claim_answer(self, msg: Message, *, seconds: int = 120) -> bool:
        """True for the one caller that should answer this mention now: not answered yet, and no
        one answering it (a claim that lapses after ``seconds``, so a process that died mid-answer
        leaves the mention to be answered later — see ``orphaned_answers``)."""
        key = self._key("answered", msg.scope.tenant, msg.session) + f":{msg.id}"
        if not await self.redis.set(key, b"answering", nx=True, ex=seconds):
            return False
        entry = json.dumps([msg.scope.tenant, msg.session, msg.id], ensure_ascii=False)
        await _aw(self.redis.hset(_ANSWERING, entry, str(time.time())))
        return True

    async def mark_answered(self, msg: Message) -> None:
        """The answer was given: a redelivery of this mention is not answered again."""
        key = self._key("answered", msg.scope.tenant, msg.session) + f":{msg.id}"
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(key, b"answered", ex=self.ttl)
            pipe.hdel(_ANSWERING, json.dumps([msg.scope.tenant, msg.session, msg.id], ensure_ascii=False))
            await pipe.execute()

    async def orphaned_answers(self, older_than: float) -> list[Message]:
        """Mentions whose answering began more than ``older_than`` seconds ago and never finished (the
        process answering them died): their claims have lapsed, so they can be answered again."""
        now = time.time()
        found: list[Message] = []
        for raw_entry, raw_at in (await _aw(self.redis.hgetall(_ANSWERING))).items():
            entry = raw_entry.decode() if isinstance(raw_entry, bytes) else str(raw_entry)
            if now - float(raw_at) < older_than:
                continue
            tenant, session, message_id = json.loads(entry)
            state = await self.redis.get(self._key("answered", tenant, session) + f":{message_id}")
            if state in (b"answered", "answered"):
                await _aw(self.redis.hdel(_ANSWERING, entry))
                continue
            messages = await self.get_many(Scope(tenant=tenant, session=session), [message_id])
            if not messages:  # expired or erased: nothing left to answer
                await _aw(self.redis.hdel(_ANSWERING, entry))
                continue
            found.append(messages[0])
        return found

    async def replace(self, msg: Message) -> bool:
        """Store an edited message's new text under its id (its place in the window is kept);
        False when the message is no longer held (expired or never seen)."""
        key = self._msg_key(msg.scope.tenant, msg.session, msg.id)
        return bool(await self.redis.set(key, _encode(msg, self.cipher), xx=True, keepttl=True))

    async def remove(self, scope: Scope, message_id: str) -> None:
        """Forget one message (deleted on the platform): its text, its place, its pending batch entry."""
        assert scope.session is not None
        tenant, session = scope.tenant, scope.session
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._msg_key(tenant, session, message_id))
            pipe.lrem(self._key("win", tenant, session), 0, message_id)
            pipe.lrem(self._key("pending", tenant, session), 0, message_id)
            await pipe.execute()

    async def _stored(self, tenant: str, session: str | None = None) -> AsyncIterator[tuple[bytes | str, Message]]:
        """Every stored message of ``tenant`` (of one session when given), with its key. The key
        pattern also matches longer ids with these as their prefix; those are skipped."""
        pattern = f"{_PREFIX}:msg:{_glob(tenant)}:" + (f"{_glob(session)}:*" if session is not None else "*")
        async for key in self.redis.scan_iter(match=pattern, count=500):
            raw = await self.redis.get(key)
            if raw is None:
                continue
            msg = _decode(raw, self.cipher)
            if msg.scope.tenant == tenant and (session is None or msg.session == session):
                yield key, msg

    async def forget_author(self, tenant: str, user: str) -> list[Message]:
        """Erase every message ``user`` wrote in ``tenant``: its text, its place in the window and in
        the waiting batch. Returns the messages that went (the erasure looks for their ids and the
        names they were written under elsewhere)."""
        removed: list[Message] = []
        async for _, msg in self._stored(tenant):
            if msg.author_id == user:
                await self.remove(Scope(tenant=tenant, session=msg.session), msg.id)
                removed.append(msg)
        return removed

    async def forget_session(self, scope: Scope) -> int:
        """Erase a whole session: its messages and every key it has. Returns how many messages went."""
        assert scope.session is not None
        tenant, session = scope.tenant, scope.session
        keys: list[bytes | str] = []
        # (a Slack thread's id has its channel's as prefix: _stored keeps to this session exactly)
        async for key, msg in self._stored(tenant, session):
            keys += [key, self._key("seen", tenant, session) + f":{msg.id}",
                     self._key("answered", tenant, session) + f":{msg.id}"]
        messages = len(keys) // 3
        keys += [self._key(kind, tenant, session)
                 for kind in ("win", "turns", "pending", "extracted", _EXTRACTED, "stage", "idlewatch")]
        await self.redis.delete(*keys)
        return messages

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: seal every stored message with the first key (compare-and-set, TTL kept);
        returns how many were rewritten. ``advance(1)`` per message visited."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher
        return await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance, lambda key: reseal_value(
            self.redis, key, cipher, lambda raw: _encode(_decode(raw, cipher), cipher)))

    async def unmark_extracted(self, scope: Scope, ids: Sequence[str]) -> None:
        """Let these messages be extracted again (their text changed)."""
        assert scope.session is not None
        if ids:
            await _aw(self.redis.hdel(self._key(_EXTRACTED, scope.tenant, scope.session), *ids))

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
        return [_decode(r, self.cipher) for r in raws if r is not None]

    # --- extraction bookkeeping: which turns wait for the next batch ---------------------------

    async def pending(self, scope: Scope) -> list[str]:
        """The ids waiting for batch extraction, oldest first (they stay until ``drop_pending``)."""
        assert scope.session is not None
        raw = await _aw(self.redis.lrange(self._key("pending", scope.tenant, scope.session), 0, -1))
        return [i.decode() if isinstance(i, bytes) else str(i) for i in raw]

    async def drop_pending(self, scope: Scope, ids: Sequence[str]) -> None:
        """Take these ids off the waiting batch — after a job holding them was queued, so a crash in
        between leaves them waiting (and a later extraction skips what is done), never lost."""
        assert scope.session is not None
        if not ids:
            return
        key = self._key("pending", scope.tenant, scope.session)
        async with self.redis.pipeline(transaction=True) as pipe:
            for message_id in ids:
                pipe.lrem(key, 1, message_id)
            await pipe.execute()

    async def waiting_sessions(self) -> list[Scope]:
        """Every session with messages waiting for extraction (for the reconcile sweep); sessions whose
        batch is empty leave the registry."""
        found: list[Scope] = []
        for raw in await _aw(self.redis.smembers(_WAITING)):
            entry = raw.decode() if isinstance(raw, bytes) else str(raw)
            tenant, session = json.loads(entry)
            if await _aw(self.redis.llen(self._key("pending", tenant, session))):
                found.append(Scope(tenant=tenant, session=session))
            else:
                await _aw(self.redis.srem(_WAITING, entry))
        return found

    async def mark_extracted(self, scope: Scope, messages: Sequence[Message]) -> None:
        """Record that these messages were extracted, each with a digest of the text that was read:
        an edit that lands while the job is finishing changes the text, so the edited message still
        counts as not extracted (whatever order the job's mark and the edit's unmark run in)."""
        assert scope.session is not None
        key = self._key(_EXTRACTED, scope.tenant, scope.session)
        if messages:
            await _aw(self.redis.hset(key, mapping={m.id: text_digest(m.text) for m in messages}))
            await self.redis.expire(key, self.ttl)

    async def not_extracted(self, scope: Scope, ids: Sequence[str]) -> list[str]:
        """The ids among ``ids`` whose current text no extraction has finished yet (so a retried job
        skips done ones, and an edited message is read again)."""
        assert scope.session is not None
        if not ids:
            return []
        key = self._key(_EXTRACTED, scope.tenant, scope.session)
        raw = await _aw(self.redis.hmget(key, list(ids)))
        done = {i: d.decode() if isinstance(d, bytes) else str(d) for i, d in zip(ids, raw, strict=True) if d}
        current = {m.id: text_digest(m.text) for m in await self.get_many(scope, list(done))}
        # a message no longer held keeps its mark (there is nothing left to read)
        return [i for i in ids if i not in done or (i in current and current[i] != done[i])]

    # --- the idle watch: one deferred job per quiet session, not one per message ----------------

    async def claim_idle_watch(self, scope: Scope, idle_seconds: int) -> bool:
        """True if no idle job watches this session yet; the caller then schedules one.

        The claim outlives the job's own firing time, so a lost job (Redis restored without it) frees
        the session again in ``2 * idle + 60`` seconds.
        """
        assert scope.session is not None
        key = self._key("idlewatch", scope.tenant, scope.session)
        return bool(await self.redis.set(key, b"1", nx=True, ex=2 * idle_seconds + 60))

    async def idle_watch_active(self, scope: Scope) -> bool:
        assert scope.session is not None
        return bool(await self.redis.exists(self._key("idlewatch", scope.tenant, scope.session)))

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
