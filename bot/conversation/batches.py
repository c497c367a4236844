"""Extraction bookkeeping: the batch of each session waiting for extraction, and which messages
were extracted (with a digest of the text that was read).

Keys: ``heyan:pending:<tenant>:<session>`` (ids waiting), ``heyan:waiting-sessions`` (sessions with a
batch, for the reconcile sweep), ``heyan:extracted2:<tenant>:<session>`` (id → text digest; the old
``extracted`` set is only deleted). A batch is enqueued before it leaves the waiting list, never the
other way round: pop-then-enqueue lost messages.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from redis.asyncio import Redis

from bot.conversation.keys import PREFIX, aw, session_key, text
from bot.conversation.log import MessageLog
from bot.models import Message
from memory.models import Scope

__all__ = ["WAITING_SESSIONS", "ExtractionBatches", "text_digest"]

#: Sessions that had a batch waiting (JSON ``[tenant, session]``).
WAITING_SESSIONS = f"{PREFIX}:waiting-sessions"

_EXTRACTED = "extracted2"
#: The family before digests; its keys are deleted with their session and otherwise left to expire.
_EXTRACTED_LEGACY = "extracted"


def text_digest(value: str) -> str:
    """A short digest of a message's text: which reading of a message a job or a revision is."""
    return hashlib.blake2b(value.encode(), digest_size=6).hexdigest()


class ExtractionBatches:
    """Waiting batches and extraction marks. ``log`` is read to tell an edited message from the
    text an extraction read."""

    def __init__(self, redis: Redis, log: MessageLog, *, ttl_seconds: int) -> None:
        self.redis = redis
        self.log = log
        self.ttl = ttl_seconds

    def __repr__(self) -> str:
        return f"ExtractionBatches(ttl_seconds={self.ttl})"

    @staticmethod
    def pending_key(tenant: str, session: str) -> str:
        return session_key("pending", tenant, session)

    @staticmethod
    def waiting_entry(tenant: str, session: str) -> str:
        return json.dumps([tenant, session], ensure_ascii=False)

    def session_keys(self, tenant: str, session: str) -> list[str]:
        """Every key this module holds for one session (its erasure deletes them)."""
        return [session_key(family, tenant, session) for family in ("pending", _EXTRACTED, _EXTRACTED_LEGACY)]

    # --- the waiting batch ---------------------------------------------------------------------

    async def pending(self, scope: Scope) -> list[str]:
        """The ids waiting for batch extraction, oldest first (they stay until ``drop_pending``)."""
        assert scope.session is not None
        raw = await aw(self.redis.lrange(self.pending_key(scope.tenant, scope.session), 0, -1))
        return [text(i) for i in raw]

    async def drop_pending(self, scope: Scope, ids: Sequence[str]) -> None:
        """Take these ids off the waiting batch — after a job holding them was queued, so a crash in
        between leaves them waiting (and a later extraction skips what is done), never lost."""
        assert scope.session is not None
        if not ids:
            return
        key = self.pending_key(scope.tenant, scope.session)
        async with self.redis.pipeline(transaction=True) as pipe:
            for message_id in ids:
                pipe.lrem(key, 1, message_id)
            await pipe.execute()

    async def remove(self, scope: Scope, message_id: str) -> None:
        """Take a message off the waiting batch wherever it is (it was deleted or erased)."""
        assert scope.session is not None
        await aw(self.redis.lrem(self.pending_key(scope.tenant, scope.session), 0, message_id))

    async def waiting_sessions(self) -> list[Scope]:
        """Every session with messages waiting for extraction (for the reconcile sweep); sessions whose
        batch is empty leave the registry."""
        found: list[Scope] = []
        for raw in await aw(self.redis.smembers(WAITING_SESSIONS)):
            entry = text(raw)
            tenant, session = json.loads(entry)
            if await aw(self.redis.llen(self.pending_key(tenant, session))):
                found.append(Scope(tenant=tenant, session=session))
            else:
                await aw(self.redis.srem(WAITING_SESSIONS, entry))
        return found

    # --- extraction marks ----------------------------------------------------------------------

    async def mark_extracted(self, scope: Scope, messages: Sequence[Message]) -> None:
        """Record that these messages were extracted, each with a digest of the text that was read:
        an edit that lands while the job is finishing changes the text, so the edited message still
        counts as not extracted (whatever order the job's mark and the edit's unmark run in)."""
        assert scope.session is not None
        key = session_key(_EXTRACTED, scope.tenant, scope.session)
        if messages:
            await aw(self.redis.hset(key, mapping={m.id: text_digest(m.text) for m in messages}))
            await self.redis.expire(key, self.ttl)

    async def unmark_extracted(self, scope: Scope, ids: Sequence[str]) -> None:
        """Let these messages be extracted again (their text changed)."""
        assert scope.session is not None
        if ids:
            await aw(self.redis.hdel(session_key(_EXTRACTED, scope.tenant, scope.session), *ids))

    async def not_extracted(self, scope: Scope, ids: Sequence[str]) -> list[str]:
        """The ids among ``ids`` whose current text no extraction has finished yet (so a retried job
        skips done ones, and an edited message is read again)."""
        assert scope.session is not None
        if not ids:
            return []
        key = session_key(_EXTRACTED, scope.tenant, scope.session)
        raw = await aw(self.redis.hmget(key, list(ids)))
        done = {i: text(d) for i, d in zip(ids, raw, strict=True) if d}
        current = {m.id: text_digest(m.text) for m in await self.log.get_many(scope, list(done))}
        # a message no longer held keeps its mark (there is nothing left to read)
        return [i for i in ids if i not in done or (i in current and current[i] != done[i])]
