"""Which memories replies used: counted in Redis per tenant, folded into the records hourly.

The engine adds a reply's ``memory_ids`` here in one pipelined round trip (not a store write per
record); ``bot.privacy.forgetting`` folds them into ``uses``/``used_at`` and takes off what it added, leaving
uses counted meanwhile. Failure modes, chosen: Redis lost loses at most an hour's uses; a fold that
dies midway may count one fold's uses twice: over-counted, never under.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from redis.asyncio import Redis

__all__ = ["UsageBook", "Use"]

T = TypeVar("T")

# Per tenant: record id -> uses not folded yet (HINCRBY); record id -> epoch ms of its latest use.
# Ids and times only; ``heyan:<kind>:<tenant>`` so a departure's purge removes them.
_USES = "heyan:uses:"
_USED_AT = "heyan:used-at:"

#: Take ``ARGV[2]`` uses of ``ARGV[1]`` off the pending count (dropping the field at zero) and its
#: last-use time when no later use came meanwhile (``ARGV[3]``: the time that was folded).
_TAKE = """
local left = redis.call('HINCRBY', KEYS[1], ARGV[1], -tonumber(ARGV[2]))
if left <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
local at = redis.call('HGET', KEYS[2], ARGV[1])
if at and tonumber(at) <= tonumber(ARGV[3]) then redis.call('HDEL', KEYS[2], ARGV[1]) end
return left
"""


async def _aw(value: Awaitable[T] | T) -> T:
    """redis-py types its asyncio commands as ``Awaitable[T] | T``; this awaits either."""
    return await value if inspect.isawaitable(value) else value


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True, slots=True)
class Use:
    """Uses of one record not folded into it yet: how many, and when the latest was."""

    count: int
    last_ms: int

    @property
    def last(self) -> datetime:
        return datetime.fromtimestamp(self.last_ms / 1000, UTC)


class UsageBook:
    """Use counts of memories, per tenant, in Redis (see the module docstring)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._take: Any = redis.register_script(_TAKE)

    async def record(self, tenant: str, ids: Sequence[str], at: datetime) -> None:
        """Count one use of each record in ``ids`` (a reply's ``memory_ids``) at ``at``."""
        ids = list(dict.fromkeys(i for i in ids if i))
        if not ids:
            return
        stamp = str(round(at.timestamp() * 1000))
        async with self.redis.pipeline(transaction=False) as pipe:
            for record_id in ids:
                pipe.hincrby(_USES + tenant, record_id, 1)
            pipe.hset(_USED_AT + tenant, mapping=dict.fromkeys(ids, stamp))
            await pipe.execute()

    async def pending(self, tenant: str) -> dict[str, Use]:
        """Every record of ``tenant`` with uses not folded yet."""
        counts: dict[Any, Any] = await _aw(self.redis.hgetall(_USES + tenant))
        times: dict[Any, Any] = await _aw(self.redis.hgetall(_USED_AT + tenant))
        stamps = {_text(k): int(_text(v)) for k, v in times.items()}
        out: dict[str, Use] = {}
        for key, value in counts.items():
            record_id, count = _text(key), int(_text(value))
            if count > 0:
                out[record_id] = Use(count, stamps.get(record_id, 0))
        return out

    async def take(self, tenant: str, record_id: str, use: Use) -> None:
        """Take ``use`` (as returned by ``pending`` and now folded into the record) off the counts."""
        await self._take(keys=[_USES + tenant, _USED_AT + tenant],
                         args=[record_id, use.count, use.last_ms])

    async def tenants(self) -> list[str]:
        """Every tenant with uses waiting to be folded."""
        found = [_text(k).removeprefix(_USES) async for k in self.redis.scan_iter(match=f"{_USES}*", count=500)]
        return sorted(found)
