"""Intake: a new message from a platform is stored, deduped and batched in one Lua step.

The ``record`` script is the one place writing several key families at once (log and window, seen
marker, waiting batch and registry): a crash between those steps lost messages, so atomicity beats
purity here. Other modules read and maintain their own families.
"""

from __future__ import annotations

from redis.asyncio import Redis

from bot.conversation.batches import WAITING_SESSIONS, ExtractionBatches
from bot.conversation.log import MessageLog
from bot.conversation.seen import SeenIds
from bot.models import Message

__all__ = ["Intake"]

# KEYS: seen marker, message, window, turns, pending batch, waiting-session registry.
# ARGV: encoded message, id, window size, ttl, registry entry. Returns the turn number, 0 if seen.
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


class Intake:
    """Records new messages into the log, the seen set and the waiting batch at once."""

    def __init__(self, redis: Redis, log: MessageLog) -> None:
        self.redis = redis
        self.log = log
        self._record = redis.register_script(_RECORD)

    def __repr__(self) -> str:
        return "Intake()"

    async def record(self, msg: Message) -> int:
        """Store a new message, add it to its session's window and to the batch waiting for
        extraction, and mark its id seen — all at once (a crash cannot mark a message seen that was
        not stored). Returns the session's turn number, or 0 when the id was seen before (a
        platform's redelivery)."""
        tenant, session = msg.scope.tenant, msg.session
        log = self.log
        keys = [SeenIds.key(tenant, session, msg.id), log.message_key(tenant, session, msg.id),
                log.window_key(tenant, session), log.turns_key(tenant, session),
                ExtractionBatches.pending_key(tenant, session), WAITING_SESSIONS]
        args: list[str | int] = [log.encode(msg), msg.id, log.size, log.ttl, ExtractionBatches.waiting_entry(tenant, session)]
        return int(await self._record(keys=keys, args=args))
