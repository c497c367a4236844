"""The job that runs a stored Slack delivery again (``adapters.slack.events.redo``), and the small arq worker
of its queue inside the process that holds the Slack connection."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from arq.connections import ArqRedis
from arq.worker import Worker, func

from adapters.slack.events.listeners import route
from adapters.slack.events.redo import QUEUE
from jobs.queue import deserialize, serialize
from jobs.worker import resilient

if TYPE_CHECKING:
    from adapters.slack.bridge import Bridge
    from bot.services import Services

__all__ = ["redo_worker", "slack_event"]

log = logging.getLogger(__name__)


def _context(tenant: str) -> dict[str, Any]:
    """bolt's context for a stored delivery of ``tenant`` (``slack:<team>`` / ``slack:<ent>:<team>``)."""
    parts = tenant.split(":")
    return {"team_id": parts[-1], "enterprise_id": parts[1] if len(parts) == 3 else None}


async def slack_event(ctx: dict[str, Any], tenant: str, event_id: str) -> str:
    """Run a stored delivery again through its handler (idempotent: the gate lets it through once)."""
    bridge: Bridge = ctx["slack"]
    body = await bridge.redo.get(tenant, event_id)
    if body is None:
        return "gone"  # handled by an earlier run, or expired
    handler = route(body)
    if handler is not None:
        await handler(bridge, body, _context(tenant), True)
    else:
        log.warning("stored Slack event %s of %s has no handler; dropped", event_id, tenant)
    await bridge.redo.done(tenant, event_id)
    return "done"


def redo_worker(bridge: Bridge, redis: ArqRedis, services: Services, *, max_tries: int, timeout: int) -> Worker:
    """The arq worker of ``QUEUE`` for this process (run it as a task; ``close()`` on stop), over the
    process's Redis and the jobs' ``services`` (handed in by ``adapters.slack.platform``)."""
    return Worker(
        functions=[func(resilient(slack_event, timeout), name="slack_event",  # type: ignore[arg-type]
                        max_tries=max_tries + 1, timeout=timeout + 5)],
        queue_name=QUEUE, redis_pool=redis, burst=False, handle_signals=False,
        ctx={"slack": bridge, "heyan": services, "max_tries": max_tries}, poll_delay=0.2, log_results=False,
        job_serializer=serialize, job_deserializer=deserialize, keep_result=3600, max_tries=max_tries + 1,
        job_timeout=timeout + 5,
    )
