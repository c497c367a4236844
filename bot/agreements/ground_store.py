"""Where common-ground rounds live: one Redis hash per session, ``heyan:ground:<tenant>:<session>``.

``data`` (JSON: round, language, source, drafter and participants clear, statements sealed),
``e:<user>`` (statement ids endorsed), ``posted:<id>`` (``HSETNX``: posted once); kept ``KEEP_SECONDS``
after the last draft. ``reseal`` rewrites with the first key; ``forget_member`` (erasure) drops every
round a member was asked in and card proposals naming them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from redis.asyncio import Redis

from bot.agreements.card_votes import CardBook
from bot.privacy.sealing import Advance, open_fields, reseal_hash_field, reseal_keys, scan, seal_fields
from memory.store.crypto import Cipher

__all__ = ["KEEP_SECONDS", "GroundRound", "GroundStore", "forget_member"]

KEEP_SECONDS = 30 * 24 * 3600
_PREFIX = "heyan:ground:"


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


@dataclass(frozen=True, slots=True)
class GroundRound:
    """One stored round: its fields (statements opened), the endorsements, the statements posted."""

    data: dict[str, Any]
    votes: dict[str, list[str]]
    posted: set[str]


class GroundStore:
    """Common-ground rounds in Redis."""

    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_PREFIX}*",)

    def __init__(self, redis: Redis, *, cipher: Cipher | None = None) -> None:
        self.redis = redis
        self.cipher = cipher

    @staticmethod
    def key(tenant: str, session: str) -> str:
        return f"{_PREFIX}{tenant}:{session}"

    @staticmethod
    def _context(tenant: str, session: str) -> str:
        return f"ground/{tenant}/{session}"

    async def load(self, tenant: str, session: str) -> GroundRound | None:
        raw: dict[Any, Any] = await self.redis.hgetall(self.key(tenant, session))  # type: ignore[misc]
        fields = {_text(k): _text(v) for k, v in raw.items()}
        if "data" not in fields:
            return None
        data = open_fields(json.loads(fields["data"]), self.cipher, self._context(tenant, session))
        votes = {k[2:]: list(json.loads(v)) for k, v in fields.items() if k.startswith("e:")}
        posted = {k[7:] for k in fields if k.startswith("posted:")}
        return GroundRound(data, votes, posted)

    async def save(self, tenant: str, session: str, data: dict[str, Any], statements: list[dict[str, Any]]) -> None:
        """A new round (the previous one, its endorsements and posts, go)."""
        key = self.key(tenant, session)
        data = {**data, "tenant": tenant, "session": session}
        sealed = seal_fields(data, {"statements": statements}, self.cipher, self._context(tenant, session))
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            pipe.hset(key, "data", json.dumps(sealed, ensure_ascii=False))
            pipe.expire(key, KEEP_SECONDS)
            await pipe.execute()

    async def endorse(self, tenant: str, session: str, user: str, statement_ids: list[str]) -> None:
        await self.redis.hset(self.key(tenant, session), f"e:{user}", json.dumps(statement_ids))  # type: ignore[misc]

    async def claim_post(self, tenant: str, session: str, statement_id: str) -> bool:
        """True for the first caller only: this statement is posted once."""
        return bool(await self.redis.hsetnx(self.key(tenant, session), f"posted:{statement_id}", "1"))  # type: ignore[misc]

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: every round's ``data`` sealed with the first key (compare-and-set)."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher

        return await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance, lambda key: reseal_hash_field(
            self.redis, key, "data", cipher, lambda raw: _resealed(raw, cipher)))


def _resealed(raw: str, cipher: Cipher) -> str:
    data = json.loads(raw)
    context = f"ground/{data['tenant']}/{data['session']}"  # kept in the clear beside the sealed statements
    opened = open_fields(data, cipher, context)
    secret = {"statements": opened.pop("statements", [])}
    return json.dumps(seal_fields(opened, secret, cipher, context), ensure_ascii=False)


async def forget_member(redis: Redis, tenant: str, user: str) -> int:
    """Erasure: drop every common-ground round ``user`` was asked in and every card proposal naming
    them, in ``tenant``; returns how many went. Participants are stored in the clear (ids), so nothing
    has to be opened."""
    gone = 0
    for prefix, field in ((f"{_PREFIX}{tenant}:", "data"), (CardBook.key(tenant, ""), "data")):
        async for key in scan(redis, f"{prefix}*"):
            raw = _text(await redis.hget(key, field))  # type: ignore[misc]
            if not raw:
                continue
            participants = json.loads(raw).get("participants") or {}
            if user in participants:
                gone += int(await redis.delete(key))
    return gone
