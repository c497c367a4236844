"""Who confirmed or refused an agreement card: one Redis hash per session.

``heyan:card:<tenant>:<session>``: ``data`` (card id, why proposed, who must confirm; a close reason
sealed) and ``vote:<user>`` per answer. A vote script checks the card id first (a vote for a replaced
card changes nothing); ``finalize`` is set-if-absent (acted on once). The card's text is never stored:
it is rebuilt from memory and its id says whether memory still agrees.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar, Literal

from redis.asyncio import Redis

from bot.privacy.sealing import Advance, open_fields, reseal_hash_field, reseal_keys, seal_fields
from memory.models import utcnow
from memory.store.crypto import Cipher

__all__ = ["CardBook", "CardState", "CardVotes", "Vote"]

_PREFIX = "heyan:card:"
#: A proposal and its votes are kept this long after the last change (the card itself is in memory).
KEEP_SECONDS = 90 * 24 * 3600

Vote = Literal["confirmed", "refused"]
Origin = Literal["close", "stage"]

_VOTE = """
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return 0 end
if redis.call('HEXISTS', KEYS[1], 'finalized') == 1 then return -1 end
redis.call('HSET', KEYS[1], 'vote:' .. ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""


class CardState(StrEnum):
    PROPOSED = "proposed"
    CONFIRMED = "confirmed"
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class CardVotes:
    """A proposed card (by id) and the answers to it so far."""

    tenant: str
    session: str
    card_id: str
    origin: Origin
    participants: tuple[str, ...]
    proposed_at: datetime
    proposed_by: str
    reason: str = ""
    votes: dict[str, str] = field(default_factory=dict)
    finalized: bool = False

    @property
    def state(self) -> CardState:
        if any(v == "refused" for v in self.votes.values()):
            return CardState.REFUSED
        if self.participants and all(self.votes.get(u) == "confirmed" for u in self.participants):
            return CardState.CONFIRMED
        return CardState.PROPOSED

    @property
    def pending(self) -> tuple[str, ...]:
        return tuple(u for u in self.participants if u not in self.votes)

    @property
    def confirmed_by(self) -> tuple[str, ...]:
        return tuple(u for u in self.participants if self.votes.get(u) == "confirmed")

    @property
    def refused_by(self) -> tuple[str, ...]:
        return tuple(u for u, v in self.votes.items() if v == "refused")

    def as_dict(self) -> dict[str, Any]:
        return {"card": self.card_id, "origin": self.origin, "state": self.state.value,
                "participants": list(self.participants), "votes": dict(self.votes), "pending": list(self.pending),
                "proposed_at": self.proposed_at.isoformat(), "proposed_by": self.proposed_by,
                "finalized": self.finalized}


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


class CardBook:
    """Card proposals and votes in Redis."""

    #: The keys holding sealed text (a close reason): ``reseal`` rewrites them.
    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_PREFIX}*",)

    def __init__(self, redis: Redis, *, cipher: Cipher | None = None) -> None:
        self.redis = redis
        self.cipher = cipher
        self._vote = redis.register_script(_VOTE)

    @staticmethod
    def key(tenant: str, session: str) -> str:
        return f"{_PREFIX}{tenant}:{session}"

    @staticmethod
    def _context(tenant: str, session: str) -> str:
        return f"card/{tenant}/{session}"

    async def get(self, tenant: str, session: str) -> CardVotes | None:
        raw: dict[Any, Any] = await self.redis.hgetall(self.key(tenant, session))  # type: ignore[misc]
        fields = {_text(k): _text(v) for k, v in raw.items()}
        if "data" not in fields:
            return None
        data: dict[str, Any] = open_fields(json.loads(fields["data"]), self.cipher, self._context(tenant, session))
        votes = {k.removeprefix("vote:"): v for k, v in fields.items() if k.startswith("vote:")}
        return CardVotes(
            tenant=tenant, session=session, card_id=fields.get("id", ""), origin=data.get("origin", "stage"),
            participants=tuple(data.get("participants") or ()), proposed_at=datetime.fromisoformat(data["proposed_at"]),
            proposed_by=str(data.get("proposed_by") or ""), reason=str(data.get("reason") or ""), votes=votes,
            finalized="finalized" in fields,
        )

    async def propose(self, tenant: str, session: str, card_id: str, *, origin: Origin, participants: tuple[str, ...],
                      proposed_by: str, reason: str = "", at: datetime | None = None) -> CardVotes:
        """A new proposal: earlier votes are dropped (they were for another card or another round)."""
        key = self.key(tenant, session)
        data = seal_fields({"tenant": tenant, "session": session, "origin": origin, "participants": list(participants),
                            "proposed_at": (at or utcnow()).isoformat(), "proposed_by": proposed_by},
                           {"reason": reason}, self.cipher, self._context(tenant, session))
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            pipe.hset(key, mapping={"id": card_id, "data": json.dumps(data, ensure_ascii=False)})
            pipe.expire(key, KEEP_SECONDS)
            await pipe.execute()
        found = await self.get(tenant, session)
        assert found is not None
        return found

    async def vote(self, tenant: str, session: str, card_id: str, user: str, vote: Vote) -> bool | None:
        """Record ``user``'s answer to card ``card_id``: True; False when the proposal is for another
        card (or gone); None when it was already acted on."""
        done = int(await self._vote(keys=[self.key(tenant, session)], args=[card_id, user, vote, KEEP_SECONDS]))
        return None if done < 0 else bool(done)

    async def finalize(self, tenant: str, session: str, card_id: str) -> bool:
        """Claim acting on the confirmed card once: True for the first caller only."""
        key = self.key(tenant, session)
        current = _text(await self.redis.hget(key, "id"))  # type: ignore[misc]
        if current != card_id:
            return False
        return bool(await self.redis.hsetnx(key, "finalized", utcnow().isoformat()))  # type: ignore[misc]

    async def forget(self, tenant: str, session: str) -> None:
        await self.redis.delete(self.key(tenant, session))

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: every proposal's ``data`` (its sealed close reason) with the first key."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher

        def rewrite(raw: str) -> str:
            data = json.loads(raw)
            context = f"card/{data['tenant']}/{data['session']}"
            opened = open_fields(data, cipher, context)
            reason = opened.pop("reason", "")
            return json.dumps(seal_fields(opened, {"reason": reason}, cipher, context), ensure_ascii=False)

        return await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance,
                                 lambda key: reseal_hash_field(self.redis, key, "data", cipher, rewrite))
