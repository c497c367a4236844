"""The outbox: every post Heyan makes on its own (follow-ups, dispute openings, review notices).

Jobs only append a ``Post`` (idempotent by id) to its platform's outbox; the process connected to that
platform claims posts as fenced leases, sends them and acknowledges each with the message id.
Delivery is at least once. Why, and what an operator sees: docs/ARCHITECTURE.md, "Why the protocols
are as they are"; docs/RELIABILITY.md, "The protocols in detail".
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, ClassVar

from redis.asyncio import Redis

from bot.delivery import outbox_scripts as lua
from bot.delivery.posts import Ack, Lease, OutboxStats, Post, PostKind, PostRecord, PostState, platform_of
from bot.privacy.sealing import Advance, reseal_hash_field, reseal_keys, scan
from bot.text.richtext import RichText
from memory.models import utcnow
from memory.store.crypto import Cipher

__all__ = ["Ack", "Lease", "Outbox", "OutboxStats", "Post", "PostKind", "PostRecord", "PostState", "platform_of"]

# Redis layout. The scripts address post hashes by prefix, so it needs one Redis (or Valkey) server,
# not a cluster. A post's body (text, names) is sealed in ``data`` bound to its id (``bot.privacy.sealing``).
#   heyan:outbox:post:<id>          hash, fields in ``bot.delivery.outbox_scripts``
#   heyan:outbox:<platform>:ready   sorted set: id -> epoch ms it may be sent from
#   heyan:outbox:<platform>:leased  sorted set: id -> epoch ms its lease ends
#   heyan:outbox:<platform>:dead    sorted set: id -> epoch ms it died
#   heyan:outbox:platforms          set of platforms that ever had a post
_PREFIX = "heyan:outbox"
_POST = f"{_PREFIX}:post:"
_PLATFORMS = f"{_PREFIX}:platforms"

#: How long a sent post's record is kept (its id then blocks a second append of the same post).
SENT_TTL_SECONDS = 90 * 24 * 3600
#: How long a failing post is retried before it is dead-lettered (a platform outage of hours is
#: waited out; ``HEYAN_JOBS_POST_RETRY_HOURS``).
DEFAULT_MAX_AGE_SECONDS = 24 * 3600.0


def _keys(platform: str) -> tuple[str, str, str]:
    base = f"{_PREFIX}:{platform}"
    return f"{base}:ready", f"{base}:leased", f"{base}:dead"


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def _ack(raw: bytes | str | None) -> Ack:
    value = _text(raw) or "gone"
    return Ack(value) if value in Ack._value2member_map_ else Ack.GONE


class Outbox:
    """Per-platform outboxes in Redis. A failing post is retried until it is ``max_age_seconds`` old.

    ``clock`` (epoch seconds) is the time the outbox schedules by; tests pass a controllable one.
    """

    #: The keys holding member text (``reseal`` rewrites them).
    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_POST}*",)

    def __init__(self, redis: Redis, *, max_age_seconds: float = DEFAULT_MAX_AGE_SECONDS,
                 cipher: Cipher | None = None, clock: Callable[[], float] = time.time) -> None:
        self.redis = redis
        self.max_age = max_age_seconds
        self.cipher = cipher
        self.clock = clock
        self._append = redis.register_script(lua.APPEND)
        self._claim = redis.register_script(lua.CLAIM)
        self._delivered = redis.register_script(lua.DELIVERED)
        self._failed = redis.register_script(lua.FAILED)
        self._release = redis.register_script(lua.RELEASE)
        self._renew = redis.register_script(lua.RENEW)
        self._cancel = redis.register_script(lua.CANCEL)
        self._retry_dead = redis.register_script(lua.RETRY_DEAD)
        self._take_over = redis.register_script(lua.TAKE_OVER)

    def __repr__(self) -> str:
        return f"Outbox(max_age_seconds={self.max_age:g})"

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    async def append(self, post: Post, *, not_before: datetime | None = None) -> bool:
        """Queue ``post`` for its platform; False when a post with this id already exists (or was sent)."""
        ready, _, _ = _keys(post.platform)
        now = self._now_ms()
        at = int(not_before.timestamp() * 1000) if not_before else now
        added = await self._append(keys=[_POST + post.id, ready, _PLATFORMS],
                                   args=[post.to_json(self.cipher), at, post.id, post.platform, now])
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
            permanent=data.get("permanent") == "1",
        )

    # --- the lease: claim, renew, acknowledge, fail, release ------------------------------------

    async def claim(self, platform: str, *, limit: int = 10, lease_seconds: float = 60.0,
                    claimer: str = "") -> list[Lease]:
        """Lease up to ``limit`` posts that are due; an expired lease (a crashed sender) counts as due.
        Each lease carries a new token; ``claimer`` names the holder in it (logs, diagnostics)."""
        ready, leased, _ = _keys(platform)
        now = self._now_ms()
        who = claimer or secrets.token_hex(4)
        raw = await self._claim(keys=[ready, leased], args=[now, now + int(lease_seconds * 1000), limit, _POST, who])
        return [Lease(Post.from_json(raw[i + 1], self.cipher), _text(raw[i]) or "") for i in range(0, len(raw), 2)]

    async def renew(self, lease: Lease, lease_seconds: float) -> bool:
        """Extend a lease this holder still has; False when it lost it (re-claimed, sent, cancelled)."""
        _, leased, _ = _keys(lease.post.platform)
        until = self._now_ms() + int(lease_seconds * 1000)
        return _ack(await self._renew(keys=[_POST + lease.post.id, leased], args=[lease.post.id, lease.token, until])) \
            is Ack.OK

    async def delivered(self, lease: Lease, message_id: str) -> Ack:
        """Record that the platform accepted the leased post as ``message_id``. ``Ack.OK`` only for
        the lease's current holder; otherwise what the post is now (``STALE``: re-claimed by another
        process after this lease ran out; ``SENT``; ``CANCELLED``) and nothing is changed."""
        ready, leased, _ = _keys(lease.post.platform)
        return _ack(await self._delivered(
            keys=[_POST + lease.post.id, leased, ready],
            args=[lease.post.id, lease.token, message_id, utcnow().isoformat(), SENT_TTL_SECONDS]))

    async def failed(self, lease: Lease, reason: str, *, permanent: bool = False, retry_in: float = 2.0) -> Ack:
        """A send failed: back to ready in ``retry_in`` seconds (``Ack.OK``), or dead after a permanent
        error or once the post is ``max_age`` old (``Ack.DEAD``). Refused (``STALE``, ``SENT``, …,
        nothing changed) unless this lease is the post's current one."""
        ready, leased, dead = _keys(lease.post.platform)
        now = self._now_ms()
        result = _text(await self._failed(
            keys=[_POST + lease.post.id, leased, ready, dead],
            args=[lease.post.id, lease.token, reason[:500], "1" if permanent else "0", now + int(retry_in * 1000),
                  now, int(self.max_age * 1000)],
        ))
        return Ack.OK if result == "pending" else _ack(result)

    async def release(self, lease: Lease) -> Ack:
        """Give a leased post back unsent (the process is stopping): ready now, the attempt not
        counted. Refused — the post stays as it is — unless this lease is the post's current one."""
        ready, leased, _ = _keys(lease.post.platform)
        return _ack(await self._release(keys=[_POST + lease.post.id, leased, ready],
                                        args=[lease.post.id, lease.token, self._now_ms()]))

    async def take_over(self) -> int:
        """Every lease back to ready now, whoever held it: only for a process that knows every
        earlier holder is dead (the embedded shape, whose data dir lock it holds). Returns how many."""
        now = self._now_ms()
        taken = 0
        for platform in await self.platforms():
            ready, leased, _ = _keys(platform)
            taken += int(await self._take_over(keys=[ready, leased], args=[now, _POST]))
        return taken

    # --- withdrawing --------------------------------------------------------------------------

    async def _ids(self, platform: str) -> list[str]:
        """Every post of ``platform`` not sent: waiting, being sent, or dead."""
        ids: list[str] = []
        for key in _keys(platform):
            ids += [_text(i) or "" for i in await self.redis.zrange(key, 0, -1)]
        return ids

    async def cancel(
        self, tenant: str, session: str, kinds: frozenset[PostKind] | None = None, *, ids: frozenset[str] | None = None
    ) -> int:
        """Withdraw the unsent posts of one session (a dispute closed), or only ``ids`` of them; returns how many."""
        chosen: list[str] = []
        for post_id in await self._ids(platform_of(tenant)):
            record = await self.get(post_id)
            if record is None or record.post.tenant != tenant or record.post.session != session:
                continue
            if kinds is not None and record.post.kind not in kinds:
                continue
            if ids is not None and post_id not in ids:
                continue
            chosen.append(post_id)
        return await self._withdraw_known(platform_of(tenant), chosen)

    async def _withdraw_known(self, platform: str, post_ids: Sequence[str]) -> int:
        ready, leased, dead = _keys(platform)
        cancelled = 0
        for post_id in post_ids:
            cancelled += int(await self._cancel(keys=[_POST + post_id, ready, leased, dead],
                                                args=[post_id, SENT_TTL_SECONDS]))
        return cancelled

    async def withdraw_prefix(self, tenant: str, prefix: str, *, keep: str | None = None) -> int:
        """Withdraw every unsent post of ``tenant`` whose id starts with ``prefix`` (a commitment's
        follow-ups: ``remind:<tenant>:<fact>:``), except ``keep``; returns how many went. Reads ids only."""
        platform = platform_of(tenant)
        chosen = [i for i in await self._ids(platform) if i.startswith(prefix) and i != keep]
        return await self._withdraw_known(platform, chosen)

    async def cancel_mentioning(self, tenant: str, user: str) -> int:
        """Withdraw every unsent post of ``tenant`` that mentions ``user`` (the member was erased)."""
        platform = platform_of(tenant)
        chosen: list[str] = []
        for post_id in await self._ids(platform):
            record = await self.get(post_id)
            if record is None or record.post.tenant != tenant or not record.post.concerns(user):
                continue
            chosen.append(post_id)
        return await self._withdraw_known(platform, chosen)

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

    # --- reading ------------------------------------------------------------------------------

    async def platforms(self) -> list[str]:
        return sorted(_text(p) or "" for p in await self.redis.smembers(_PLATFORMS))  # type: ignore[misc]

    async def stats(self) -> list[OutboxStats]:
        """Counts per platform that ever had a post."""
        now = self._now_ms()
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
        """Send dead posts again (one, or all): back to ready with their attempts reset and a new
        round of tries (``max_age`` from now)."""
        count = 0
        now = self._now_ms()
        for record in await self.dead():
            if post_id is not None and record.post.id != post_id:
                continue
            ready, _, dead = _keys(record.post.platform)
            count += int(await self._retry_dead(keys=[_POST + record.post.id, ready, dead], args=[record.post.id, now]))
        return count
