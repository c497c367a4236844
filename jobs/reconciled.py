"""What the last reconciliation already settled, so the next one opens only what changed.

``reconcile`` (``jobs.cron``) runs every few minutes and used to open every open commitment of every
tenant (decrypt, parse, look up its session, ask Redis for its reminder job): 9.2 s of event-loop
time per pass at 100k memories. ``ReconcileMarks`` keeps, per tenant, the version of each commitment
whose reminder a pass settled (Redis hash ``heyan:reconciled:<tenant>``); the next pass opens only
commitments that are new, changed (another version) or past due. The hash expires ``FULL_PASS_AFTER``
after it was created, so a full pass still runs about hourly; it goes with Redis when Redis is lost,
which is exactly when every reminder must be rebuilt.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["FULL_PASS_AFTER", "ReconcileMarks"]

#: Seconds a tenant's marks live after they were first written: then a full pass rebuilds them.
FULL_PASS_AFTER = 3600


class ReconcileMarks:
    """Per tenant, ``fact id → version`` of the commitments the last passes settled."""

    def __init__(self, redis: Any, prefix: str = "heyan:reconciled:") -> None:
        self.redis = redis
        self.prefix = prefix

    def _key(self, tenant: str) -> str:
        return f"{self.prefix}{tenant}"

    async def settled(self, tenant: str) -> dict[str, int]:
        raw = await self.redis.hgetall(self._key(tenant))
        out: dict[str, int] = {}
        for key, value in raw.items():
            fid = key.decode() if isinstance(key, bytes) else str(key)
            try:
                out[fid] = int(value)
            except (TypeError, ValueError):
                continue  # a malformed mark only means that commitment is opened again
        return out

    async def record(self, tenant: str, settled: Mapping[str, int], open_ids: Iterable[str]) -> None:
        """Mark ``settled`` (id → version) and forget ids no longer open."""
        key = self._key(tenant)
        keep = set(open_ids)
        stale = [fid for fid in await self.settled(tenant) if fid not in keep]
        pipe = self.redis.pipeline(transaction=False)
        if stale:
            pipe.hdel(key, *stale)
        if settled:
            pipe.hset(key, mapping={fid: str(v) for fid, v in settled.items()})
            pipe.expire(key, FULL_PASS_AFTER, nx=True)
        await pipe.execute()
