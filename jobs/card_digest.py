"""The closing jobs: proposing the agreement card once a reply reached "confirming agreement", and
the hourly check that posts each community's moderators' digest when it is due.

``propose_card`` first extracts what the window holds and memory does not yet (idempotently, like the
extraction job), so the card includes the agreement that moved the stage; ``post_digests`` walks the
communities that set a moderators' channel and posts each one's digest once per day or week
(``bot.moderation.digests.post_digest``). Both are idempotent: a card already proposed is not proposed
again, and a digest's post id names its day or week.
"""

from __future__ import annotations

import logging
from typing import Any

from arq.connections import ArqRedis
from arq.cron import CronJob, cron

from bot.moderation.digests import post_digest
from jobs.queue import QUEUE, enqueue
from jobs.tasks import extract_memories, services
from memory.models import Scope, utcnow

__all__ = ["DIGEST_MINUTE", "cron_jobs", "enqueue_proposal", "post_digests", "propose_card"]

log = logging.getLogger(__name__)

#: The minute of each hour the digest check runs (off the hour, away from reconcile and purge).
DIGEST_MINUTE = 7


async def enqueue_proposal(pool: ArqRedis, scope: Scope, message_id: str) -> bool:
    """Queue ``propose_card`` for the session (once per turn that moved the stage)."""
    job = await enqueue(pool, "propose_card", scope.tenant, scope.session, _queue_name=QUEUE,
                        _job_id=f"propose-card:{scope.tenant}:{scope.session}:{message_id}")
    return job is not None


async def propose_card(ctx: dict[str, Any], tenant: str, session: str) -> str:
    """Extract what is waiting, then post the session's agreement card for confirmation (once per card)."""
    svc = services(ctx)
    scope = Scope(tenant=tenant, session=session)
    window = await svc.conversation.log.recent(scope)
    waiting = await svc.conversation.batches.not_extracted(scope, [m.id for m in window])
    if waiting:
        await extract_memories(ctx, tenant, session, waiting)
    outcome = await svc.moderation().propose_card(tenant, session)
    if outcome is None:
        return "nothing to propose"
    return f"proposed {outcome.card.id}"


async def post_digests(ctx: dict[str, Any]) -> dict[str, str]:
    """Post each community's digest that is due; returns what happened per community that has a channel."""
    svc = services(ctx)
    now = utcnow()
    done: dict[str, str] = {}
    for tenant in await svc.tenants.tenants():
        if not (await svc.tenants.get(tenant)).digest_channel:
            continue
        done[tenant] = await post_digest(memory=svc.memory, sessions=svc.sessions, audit=svc.audit,
                                         tenants=svc.tenants, redis=svc.redis, outbox=svc.outbox, tenant=tenant,
                                         now=now)
    if done:
        log.info("digests: %s", ", ".join(f"{t} {what}" for t, what in sorted(done.items())))
    return done


#: The tasks the worker runs for this module.
TASKS = [propose_card]


def cron_jobs() -> list[CronJob]:
    """The hourly digest check."""
    return [cron(post_digests, name="post_digests", minute=DIGEST_MINUTE, unique=True)]
