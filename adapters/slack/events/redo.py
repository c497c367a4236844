"""Slack events whose handling failed after bolt acked them: stored and run again as a job.

bolt acks first, so Slack never resends: ``EventRedo.put`` keeps the delivery sealed under
``heyan:slack-redo:<tenant>:<event id>`` and enqueues ``slack_event`` (ids only), which routes it to the
same handler through the same gate (handled once), with the usual retries and dead letters. Its queue,
``heyan:queue:slack``, runs inside the process holding the Slack connection: handling needs its client.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from arq.connections import ArqRedis

from bot.privacy.sealing import Advance, open_fields, reseal_keys, reseal_value, seal_fields
from memory.store.crypto import Cipher

if TYPE_CHECKING:
    pass

__all__ = ["QUEUE", "EventRedo"]

log = logging.getLogger(__name__)

#: The arq queue of Slack re-runs (taken only by processes holding the Slack connection).
QUEUE = "heyan:queue:slack"
#: Seconds before the first re-run (the cause is often gone by then).
DEFER_SECONDS = 2
#: How long a stored delivery waits for its re-run before it is dropped (it is in the dead letters).
KEEP_SECONDS = 7 * 86_400
_PREFIX = "heyan:slack-redo:"


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


class EventRedo:
    """Stored Slack deliveries waiting for a re-run."""

    #: The keys holding sealed member text (``heyan keys rotate`` rewrites them).
    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_PREFIX}*",)

    def __init__(self, redis: ArqRedis, cipher: Cipher | None, *, defer_seconds: float = DEFER_SECONDS) -> None:
        self.redis = redis
        self.cipher = cipher
        self.defer_seconds = defer_seconds

    def __repr__(self) -> str:
        return f"EventRedo(queue={QUEUE!r}, defer_seconds={self.defer_seconds})"

    @staticmethod
    def key(tenant: str, event_id: str) -> str:
        return f"{_PREFIX}{tenant}:{event_id}"

    async def put(self, tenant: str, body: Mapping[str, Any]) -> bool:
        """Keep ``body`` and enqueue its re-run; False when it could not be kept (logged)."""
        event_id = str(body.get("event_id") or f"x{uuid.uuid4().hex[:12]}")
        context = f"slack-redo/{tenant}/{event_id}"
        stored = json.dumps(seal_fields({"tenant": tenant, "event_id": event_id}, {"body": dict(body)}, self.cipher,
                                        context), ensure_ascii=False)
        try:
            await self.redis.set(self.key(tenant, event_id), stored, ex=KEEP_SECONDS)
            await self.redis.enqueue_job("slack_event", tenant, event_id, _job_id=f"slack-event:{tenant}:{event_id}",
                                         _queue_name=QUEUE, _defer_by=self.defer_seconds)
        except Exception:
            log.exception("could not re-queue Slack event %s of %s: it is lost", event_id, tenant)
            return False
        return True

    async def get(self, tenant: str, event_id: str) -> dict[str, Any] | None:
        raw = _text(await self.redis.get(self.key(tenant, event_id)))
        if raw is None:
            return None
        data = open_fields(json.loads(raw), self.cipher, f"slack-redo/{tenant}/{event_id}")
        body: dict[str, Any] = data["body"]
        return body

    async def done(self, tenant: str, event_id: str) -> None:
        await self.redis.delete(self.key(tenant, event_id))

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: every stored delivery sealed with the first key (compare-and-set)."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher

        def rewrite(raw: str) -> str:
            data = json.loads(raw)
            context = f"slack-redo/{data['tenant']}/{data['event_id']}"
            opened = open_fields(data, cipher, context)
            return json.dumps(seal_fields({"tenant": data["tenant"], "event_id": data["event_id"]},
                                          {"body": opened["body"]}, cipher, context), ensure_ascii=False)

        return await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance,
                                 lambda key: reseal_value(self.redis, key, cipher, rewrite))
