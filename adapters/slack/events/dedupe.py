"""Each Slack event once, although Slack may deliver it up to four times.

Copies come as retries (same ``event_id``), twice with different ids (same ``client_msg_id``), or
again from catch-up. ``EventGate.first`` claims all ids with ``SET NX`` in one script, so every process
agrees; the claim is a lease (``LEASE_SECONDS``) that becomes a long mark only once handled, and a
failure releases it for the re-queued re-run (``adapters.slack.events.redo``). ``Outcomes`` records what
became of each delivery: logs read better and tests wait on it, not on the clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator

from redis.asyncio import Redis

__all__ = ["EventGate", "Outcomes"]

log = logging.getLogger(__name__)

#: A claim held while an event is being handled; a crashed handler's claim expires after this.
LEASE_SECONDS = 120
#: How long a handled event's ids are remembered: longer than Slack's last retry (~6 minutes) and a
#: restart's catch-up window.
KEEP_SECONDS = 24 * 3600

_CLAIM = """
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then return 0 end
end
for _, key in ipairs(KEYS) do
  redis.call('SET', key, 'handling', 'EX', ARGV[1])
end
return 1
"""


class EventGate:
    """Claims Slack delivery ids (``event:<id>``, ``msg:<client_msg_id>``) per tenant in Redis.

    Keys are ``heyan:slack-seen:<tenant>:<id>``, so purging a tenant removes them too."""

    def __init__(self, redis: Redis, *, lease_seconds: int = LEASE_SECONDS, keep_seconds: int = KEEP_SECONDS) -> None:
        self.redis = redis
        self.lease_seconds = lease_seconds
        self.keep_seconds = keep_seconds
        self.dropped = 0
        self._claim = redis.register_script(_CLAIM)

    def __repr__(self) -> str:
        return f"EventGate(lease_seconds={self.lease_seconds}, keep_seconds={self.keep_seconds})"

    @staticmethod
    def keys(tenant: str, ids: list[str]) -> list[str]:
        return [f"heyan:slack-seen:{tenant}:{i}" for i in ids]

    @contextlib.asynccontextmanager
    async def first(self, tenant: str, *ids: str | None) -> AsyncIterator[bool]:
        """``async with gate.first(tenant, "event:Ev1", "msg:abc") as fresh:`` — ``fresh`` is False
        for a copy already handled (or being handled); the body then does nothing."""
        keys = self.keys(tenant, [i for i in ids if i])
        if not keys:
            yield True
            return
        if not await self._claim(keys=keys, args=[self.lease_seconds]):
            self.dropped += 1
            log.info("dropped a repeated Slack delivery %s", ", ".join(i for i in ids if i))
            yield False
            return
        try:
            yield True
        except BaseException:
            # Not handled: its re-run (adapters.slack.events.redo) must find the ids free.
            await asyncio.shield(self.redis.delete(*keys))
            raise
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.set(key, b"handled", ex=self.keep_seconds)
            await pipe.execute()


class Outcomes:
    """What became of the last deliveries, by event id (oldest forgotten beyond ``size``)."""

    def __init__(self, size: int = 1000) -> None:
        self.size = size
        self._seen: OrderedDict[str, list[str]] = OrderedDict()
        self._changed = asyncio.Condition()

    async def record(self, event_id: str, outcome: str) -> None:
        async with self._changed:
            self._seen.setdefault(event_id, []).append(outcome)
            self._seen.move_to_end(event_id)
            while len(self._seen) > self.size:
                self._seen.popitem(last=False)
            self._changed.notify_all()

    def of(self, event_id: str) -> list[str]:
        return list(self._seen.get(event_id, ()))

    async def wait(self, event_id: str, count: int = 1, *, timeout: float = 30.0) -> list[str]:
        """The outcomes of ``event_id`` once there are ``count`` of them (TimeoutError after ``timeout``)."""
        async with asyncio.timeout(timeout), self._changed:
            await self._changed.wait_for(lambda: len(self._seen.get(event_id, ())) >= count)
            return self.of(event_id)
