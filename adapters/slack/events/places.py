"""Where a Slack message belongs, and what Heyan keeps about the places of open disputes.

Session, first match: a reply in a thread opened as a dispute → that thread; any message in a channel
with an open dispute → the channel (one window for the whole dispute, threads included); a reply in a
thread → the thread; a top-level mention → the thread Heyan answers in; else → the channel. Message
ids stay ``<channel>:<ts>``, and ``candidates`` lists every session a message may be stored in.
"""

from __future__ import annotations

from collections.abc import Sequence

from redis.asyncio import Redis

from bot.sessions import SessionBook

__all__ = ["Places"]

# For catch-up, per open dispute: the newest ts seen (<tenant>:<session>), and the threads seen in a
# dispute channel, since Slack's channel history lists a thread only by its parent. Keyed by tenant,
# so purging the tenant removes them.
_LAST = "heyan:slack-last:"
_THREADS = "heyan:slack-threads:"
#: Threads remembered per dispute channel (the newest kept): catch-up asks each of them.
MAX_THREADS = 200

# Keep the larger of two Slack timestamps (same-length decimal strings compare as numbers).
_MAX_TS = """
local cur = redis.call('GET', KEYS[1])
if (not cur) or (#ARGV[1] > #cur) or (#ARGV[1] == #cur and ARGV[1] > cur) then
  redis.call('SET', KEYS[1], ARGV[1])
  return 1
end
return 0
"""


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


class Places:
    """Sessions of Slack messages, and the bookkeeping of open disputes' places."""

    def __init__(self, redis: Redis, sessions: SessionBook) -> None:
        self.redis = redis
        self.sessions = sessions
        self._max_ts = redis.register_script(_MAX_TS)

    async def session(self, tenant: str, channel: str, thread_ts: str | None, ts: str, *,
                      mention: bool, dm: bool = False) -> str:
        """The session of the message ``ts`` in ``channel`` (in the thread ``thread_ts``)."""
        thread = thread_ts if thread_ts and thread_ts != ts else None
        if dm:
            return channel
        if thread and await self.sessions.is_open(tenant, f"{channel}:{thread}"):
            return f"{channel}:{thread}"
        if await self.sessions.is_open(tenant, channel):
            return channel
        if thread:
            return f"{channel}:{thread}"
        return f"{channel}:{ts}" if mention else channel

    @staticmethod
    def candidates(channel: str, thread_ts: str | None, ts: str) -> list[str]:
        """Every session the message ``ts`` may be stored in (for an edit or a deletion)."""
        thread = thread_ts if thread_ts and thread_ts != ts else None
        if thread:
            return [f"{channel}:{thread}", channel]
        return [channel, f"{channel}:{ts}"]

    # --- open disputes' places ---------------------------------------------------------------------

    async def seen(self, tenant: str, session: str, ts: str, thread_ts: str | None = None) -> None:
        """A message ``ts`` of the dispute ``session`` was handled (in the thread ``thread_ts``)."""
        await self._max_ts(keys=[f"{_LAST}{tenant}:{session}"], args=[ts])
        if thread_ts and ":" not in session:
            await self.add_thread(tenant, session, thread_ts)

    async def add_thread(self, tenant: str, session: str, thread_ts: str) -> None:
        """Remember a thread of the dispute channel ``session`` (a reply seen, or Heyan's opening post)."""
        key = f"{_THREADS}{tenant}:{session}"
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {thread_ts: float(thread_ts)})
            pipe.zremrangebyrank(key, 0, -MAX_THREADS - 1)
            await pipe.execute()

    async def last_seen(self, tenant: str, session: str) -> str | None:
        return _text(await self.redis.get(f"{_LAST}{tenant}:{session}"))

    async def threads(self, tenant: str, session: str) -> Sequence[str]:
        found = await self.redis.zrange(f"{_THREADS}{tenant}:{session}", 0, -1)
        return [t for t in (_text(x) for x in found) if t]
