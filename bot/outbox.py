"""The outbox: every post Heyan makes on its own (follow-ups, dispute openings, review notices).

Jobs never talk to a platform. They append a ``Post`` to the outbox of its platform (the tenant's
prefix: ``discord``, ``slack``, ``console``); the process that holds that platform's connection
claims posts with a lease, sends them, and acknowledges each with the platform's message id. Only
then is a post recorded as sent. A failed send is retried with backoff and, after the last try or a
permanent error (a deleted thread), moved to the platform's dead letters with the reason. A post for
a platform no process is connected to waits, visible in ``heyan jobs status``.

Posts are idempotent by id: appending the same id twice keeps one post (a retried reminder job
appends ``remind:<tenant>:<fact>:<revision>`` once). A lease that runs out (the delivering process
died mid-send) puts the post back, so delivery is at least once; the window for a duplicate is a
crash between the platform accepting the post and the acknowledgement.

Redis layout (one Redis: the embedded Valkey or ``HEYAN_REDIS_URL``):

* ``heyan:outbox:post:<id>``     hash: data (JSON), state, attempts, message_id, sent_at, error
* ``heyan:outbox:<platform>:ready``   sorted set: id -> epoch ms it may be sent from
* ``heyan:outbox:<platform>:leased``  sorted set: id -> epoch ms its lease ends
* ``heyan:outbox:<platform>:dead``    sorted set: id -> epoch ms it died
* ``heyan:outbox:platforms``     set of platforms that ever had a post

The scripts address post hashes by prefix, so this layout needs a single Redis (or Valkey) server,
not a cluster. With a cipher a post's body (its text and the names it mentions) is sealed in ``data``,
bound to the post id (``bot.sealing``); ids, kind, language and times stay in the clear.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from redis.asyncio import Redis

from bot.richtext import RichText
from bot.sealing import Advance, open_fields, reseal_hash_field, reseal_keys, scan, seal_fields
from memory.crypto import Cipher
from memory.models import Lang, utcnow

__all__ = ["Outbox", "OutboxStats", "Post", "PostKind", "PostRecord", "PostState", "platform_of"]

_PREFIX = "heyan:outbox"
_POST = f"{_PREFIX}:post:"
_PLATFORMS = f"{_PREFIX}:platforms"

#: How long a sent post's record is kept (its id then blocks a second append of the same post).
SENT_TTL_SECONDS = 90 * 24 * 3600


def platform_of(tenant: str) -> str:
    """The platform of a tenant id: ``discord:123`` -> ``discord``; a bare id is a console tenant."""
    head, sep, _ = tenant.partition(":")
    return head if sep and head else "console"


class PostKind(StrEnum):
    REMINDER = "reminder"
    DISPUTE_OPENED = "dispute-opened"
    DISPUTE_CLOSED = "dispute-closed"
    REVIEW = "review-notice"
    NOTICE = "notice"
    #: An answer to a mention, posted through the outbox (the direct post failed, or the process that
    #: was answering died): ``ref["reply_to"]`` is the message id it answers.
    REPLY = "reply"


class PostState(StrEnum):
    PENDING = "pending"
    LEASED = "leased"
    SENT = "sent"
    DEAD = "dead"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class Post:
    """One post to make in a session. ``ref`` links it to what it is about (``fact_id``, ``revision``)."""

    id: str
    tenant: str
    session: str
    body: RichText
    kind: PostKind = PostKind.NOTICE
    lang: Lang = "en"
    ref: Mapping[str, str] = field(default_factory=dict)
    created_at: datetime = field(default_factory=utcnow)

    @property
    def platform(self) -> str:
        return platform_of(self.tenant)

    def to_json(self, cipher: Cipher | None = None) -> str:
        """The stored form; with ``cipher`` the body is sealed, bound to the post id."""
        data = {
            "id": self.id, "tenant": self.tenant, "session": self.session,
            "kind": self.kind.value, "lang": self.lang, "ref": dict(self.ref),
            "created_at": self.created_at.isoformat(),
        }
        return json.dumps(seal_fields(data, {"body": self.body.to_json()}, cipher, f"post/{self.id}"),
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str | bytes, cipher: Cipher | None = None) -> Post:
        data: dict[str, Any] = json.loads(raw)
        data = open_fields(data, cipher, f"post/{data['id']}")
        return cls(
            id=data["id"], tenant=data["tenant"], session=data["session"],
            body=RichText.from_json(data["body"]), kind=PostKind(data["kind"]),
            lang="zh" if data.get("lang") == "zh" else "en", ref={str(k): str(v) for k, v in data["ref"].items()},
            created_at=datetime.fromisoformat(data["created_at"]),
        )


@dataclass(frozen=True, slots=True)
class PostRecord:
    """A post and where it stands."""

    post: Post
    state: PostState
    attempts: int = 0
    message_id: str | None = None
    sent_at: datetime | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class OutboxStats:
    """Posts of one platform: ``ready`` to send now, ``waiting`` for a retry, ``leased`` (being sent),
    ``dead`` (gave up)."""

    platform: str
    ready: int
    waiting: int
    leased: int
    dead: int

    def as_dict(self) -> dict[str, Any]:
        return {"platform": self.platform, "ready": self.ready, "waiting": self.waiting,
                "leased": self.leased, "dead": self.dead}


def _keys(platform: str) -> tuple[str, str, str]:
    base = f"{_PREFIX}:{platform}"
    return f"{base}:ready", f"{base}:leased", f"{base}:dead"


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def _now_ms() -> int:
    return int(time.time() * 1000)


_APPEND = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[1], 'state', 'pending', 'attempts', 0)
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[4])
return 1
"""

_CLAIM = """
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', KEYS[1], ARGV[1], id)
  redis.call('HSET', ARGV[4] .. id, 'state', 'pending')
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  local key = ARGV[4] .. id
  if redis.call('EXISTS', key) == 1 then
    redis.call('ZADD', KEYS[2], ARGV[2], id)
    redis.call('HSET', key, 'state', 'leased')
    redis.call('HINCRBY', key, 'attempts', 1)
    table.insert(out, redis.call('HGET', key, 'data'))
  end
end
return out
"""

_DELIVERED = """
local state = redis.call('HGET', KEYS[1], 'state')
if (not state) or state == 'sent' then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'sent', 'message_id', ARGV[2], 'sent_at', ARGV[3])
redis.call('HDEL', KEYS[1], 'error')
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""

_FAILED = """
local state = redis.call('HGET', KEYS[1], 'state')
if (not state) or state == 'sent' or state == 'cancelled' then return state or 'gone' end
local attempts = tonumber(redis.call('HGET', KEYS[1], 'attempts') or '0')
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[3] == '1' or attempts >= tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[4], ARGV[6], ARGV[1])
  redis.call('HSET', KEYS[1], 'state', 'dead', 'error', ARGV[2])
  return 'dead'
end
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'pending', 'error', ARGV[2])
return 'pending'
"""


class Outbox:
    """Per-platform outboxes in Redis. ``max_attempts`` sends before a post is dead-lettered."""

    #: The keys holding member text (``reseal`` rewrites them).
    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_POST}*",)

    def __init__(self, redis: Redis, *, max_attempts: int = 5, cipher: Cipher | None = None) -> None:
        self.redis = redis
        self.max_attempts = max_attempts
        self.cipher = cipher
        self._append = redis.register_script(_APPEND)
        self._claim = redis.register_script(_CLAIM)
        self._delivered = redis.register_script(_DELIVERED)
        self._failed = redis.register_script(_FAILED)

    def __repr__(self) -> str:
        return f"Outbox(max_attempts={self.max_attempts})"

    async def append(self, post: Post, *, not_before: datetime | None = None) -> bool:
        """Queue ``post`` for its platform; False when a post with this id already exists (or was sent)."""
        ready, _, _ = _keys(post.platform)
        at = int(not_before.timestamp() * 1000) if not_before else _now_ms()
        added = await self._append(keys=[_POST + post.id, ready, _PLATFORMS],
                                   args=[post.to_json(self.cipher), at, post.id, post.platform])
        return bool(added)

    async def get(self, post_id: str) -> PostRecord | None:
        raw: dict[Any, Any] = await self.redis.hgetall(_POST + post_id)  # type: ignore[misc]
        if not raw:
            return None
        data = {_text(k): _text(v) for k, v in raw.items()}
        sent_at = data.get("sent_at")
        return PostRecord(
            post=Post.from_json(data["data"] or "{}", self.cipher),
            state=PostState(data.get("state") or PostState.PENDING.value),
            attempts=int(data.get("attempts") or 0),
            message_id=data.get("message_id"),
            sent_at=datetime.fromisoformat(sent_at) if sent_at else None,
            error=data.get("error"),
        )

    async def claim(self, platform: str, *, limit: int = 10, lease_seconds: float = 60.0) -> list[Post]:
        """Lease up to ``limit`` posts that are due; an expired lease (a crashed sender) counts as due."""
        ready, leased, _ = _keys(platform)
        now = _now_ms()
        raws = await self._claim(keys=[ready, leased],
                                 args=[now, now + int(lease_seconds * 1000), limit, _POST])
        return [Post.from_json(r, self.cipher) for r in raws]

    async def delivered(self, post: Post, message_id: str) -> bool:
        """Record that the platform accepted ``post`` as ``message_id``; False if it was already sent."""
        ready, leased, _ = _keys(post.platform)
        done = await self._delivered(keys=[_POST + post.id, leased, ready],
                                     args=[post.id, message_id, utcnow().isoformat(), SENT_TTL_SECONDS])
        return bool(done)

    async def failed(
        self, post: Post, reason: str, *, permanent: bool = False, retry_in: float = 2.0
    ) -> PostState | None:
        """A send failed: back to ready in ``retry_in`` seconds, or dead after the last attempt or a
        permanent error. Returns the new state (None if the post is gone)."""
        ready, leased, dead = _keys(post.platform)
        now = _now_ms()
        state = _text(await self._failed(
            keys=[_POST + post.id, leased, ready, dead],
            args=[post.id, reason[:500], "1" if permanent else "0", self.max_attempts,
                  now + int(retry_in * 1000), now],
        ))
        known = {s.value for s in PostState}
        return PostState(state) if state is not None and state in known else None

    async def release(self, post: Post) -> None:
        """Give a leased post back unsent (the process is stopping): ready now, the attempt not counted."""
        ready, leased, _ = _keys(post.platform)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(leased, post.id)
            pipe.zadd(ready, {post.id: _now_ms()})
            pipe.hset(_POST + post.id, mapping={"state": PostState.PENDING.value})
            pipe.hincrby(_POST + post.id, "attempts", -1)
            await pipe.execute()

    async def _ids(self, platform: str) -> list[str]:
        ready, leased, _ = _keys(platform)
        ids: list[str] = []
        for key in (ready, leased):
            ids += [_text(i) or "" for i in await self.redis.zrange(key, 0, -1)]
        return ids

    async def cancel(
        self, tenant: str, session: str, kinds: frozenset[PostKind] | None = None, *, ids: frozenset[str] | None = None
    ) -> int:
        """Withdraw the unsent posts of one session (a dispute closed), or only ``ids`` of them; returns how many."""
        platform = platform_of(tenant)
        ready, leased, _ = _keys(platform)
        cancelled = 0
        for post_id in await self._ids(platform):
            record = await self.get(post_id)
            if record is None or record.post.tenant != tenant or record.post.session != session:
                continue
            if kinds is not None and record.post.kind not in kinds:
                continue
            if ids is not None and post_id not in ids:
                continue
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.zrem(ready, post_id)
                pipe.zrem(leased, post_id)
                pipe.hset(_POST + post_id, mapping={"state": PostState.CANCELLED.value})
                pipe.expire(_POST + post_id, SENT_TTL_SECONDS)
                await pipe.execute()
            cancelled += 1
        return cancelled

    async def cancel_mentioning(self, tenant: str, user: str) -> int:
        """Withdraw every unsent post of ``tenant`` that mentions ``user`` (the member was erased)."""
        platform = platform_of(tenant)
        cancelled = 0
        for post_id in await self._ids(platform):
            record = await self.get(post_id)
            if record is None or record.post.tenant != tenant or user not in record.post.body.mentions:
                continue
            cancelled += await self.cancel(tenant, record.post.session, ids=frozenset({post_id}))
        return cancelled

    async def forget(self, tenant: str, match: Callable[[Post], bool]) -> int:
        """Erasure: every post of ``tenant`` that ``match``es, in any state (waiting, being sent, sent,
        dead, cancelled), loses its text — the body is emptied, the record stays so its id still blocks
        a second append — and one not sent yet is withdrawn (cancelled, out of the dead letters).
        Returns how many posts were emptied. A scan of every post: erasures are rare."""
        emptied = 0
        async for key in scan(self.redis, f"{_POST}*"):
            record = await self.get(key[len(_POST):])
            if record is None or record.post.tenant != tenant or not record.post.body.spans \
                    or not match(record.post):
                continue
            ready, leased, dead = _keys(record.post.platform)
            blank = replace(record.post, body=RichText())
            state = PostState.SENT if record.state is PostState.SENT else PostState.CANCELLED
            async with self.redis.pipeline(transaction=True) as pipe:
                for queue in (ready, leased, dead):
                    pipe.zrem(queue, record.post.id)
                pipe.hset(key, mapping={"data": blank.to_json(self.cipher), "state": state.value})
                pipe.expire(key, SENT_TTL_SECONDS)
                await pipe.execute()
            emptied += 1
        return emptied

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: seal every post's body with the first key (compare-and-set); returns how
        many were rewritten. ``advance(1)`` per post visited."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher
        return await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance, lambda key: reseal_hash_field(
            self.redis, key, "data", cipher, lambda raw: Post.from_json(raw, cipher).to_json(cipher)))

    async def platforms(self) -> list[str]:
        return sorted(_text(p) or "" for p in await self.redis.smembers(_PLATFORMS))  # type: ignore[misc]

    async def stats(self) -> list[OutboxStats]:
        """Counts per platform that ever had a post."""
        now = _now_ms()
        out: list[OutboxStats] = []
        for platform in await self.platforms():
            ready, leased, dead = _keys(platform)
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zcount(ready, "-inf", now)
                pipe.zcount(ready, f"({now}", "+inf")
                pipe.zcard(leased)
                pipe.zcard(dead)
                r, w, ls, d = await pipe.execute()
            out.append(OutboxStats(platform, int(r), int(w), int(ls), int(d)))
        return out

    async def dead(self, platform: str | None = None) -> list[PostRecord]:
        """Dead-lettered posts, oldest first, of one platform or all."""
        records: list[PostRecord] = []
        for p in [platform] if platform else await self.platforms():
            for post_id in await self.redis.zrange(_keys(p)[2], 0, -1):
                record = await self.get(_text(post_id) or "")
                if record is not None:
                    records.append(record)
        return records

    async def retry_dead(self, post_id: str | None = None) -> int:
        """Send dead posts again (one, or all): back to ready with their attempts reset."""
        count = 0
        for record in await self.dead():
            if post_id is not None and record.post.id != post_id:
                continue
            ready, _, dead = _keys(record.post.platform)
            if not await self.redis.zrem(dead, record.post.id):
                continue  # someone else retried it
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.hset(_POST + record.post.id, mapping={"state": PostState.PENDING.value, "attempts": 0})
                pipe.zadd(ready, {record.post.id: _now_ms()})
                await pipe.execute()
            count += 1
        return count
