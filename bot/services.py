"""The services of one Heyan process, as the background jobs see them (arq puts them in ``ctx``).

``adapters.runtime.composition`` builds one ``Services`` from ``Settings`` (the composition root); the engine and
the moderation service get only the collaborators they use, while job functions — ``async def
task(ctx, *ids)`` in arq's style — reach theirs through ``ctx["heyan"]``. Nothing here opens or
closes anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis.asyncio import Redis

from bot.config.settings import Settings
from bot.config.tenants import TenantConfig, TenantSettings
from bot.conversation import Conversation
from bot.delivery.deadletters import DeadLetters
from bot.delivery.outbox import Outbox
from bot.llm.base import MediatorProvider
from bot.moderation import ModerationService
from bot.ports import Scheduler
from bot.privacy.audit import AuditLog
from bot.privacy.erasure import Erasure
from bot.sessions import SessionBook
from memory.ports import MemoryStore
from memory.service import MemoryService

__all__ = ["Services"]


@dataclass(slots=True)
class Services:
    """Everything a job may need. ``provider`` already falls back to the offline provider."""

    settings: Settings
    store: MemoryStore
    memory: MemoryService
    redis: Redis
    conversation: Conversation
    tenants: TenantConfig
    scheduler: Scheduler
    provider: MediatorProvider
    outbox: Outbox
    sessions: SessionBook
    audit: AuditLog
    erasure: Erasure
    #: Where jobs that failed their last try go, with their errors sealed (None: unsealed, tests).
    dead_letters: DeadLetters | None = None

    def moderation(self) -> ModerationService:
        """The moderation service on these collaborators (no rate limits: a job acts for the system),
        for jobs that change records the way members and moderators do (``bot.extraction.completions``)."""
        return ModerationService(
            memory=self.memory, sessions=self.sessions, audit=self.audit, outbox=self.outbox,
            scheduler=self.scheduler, window=self.conversation.log, stages=self.conversation.stages,
            provider=self.provider, redis=self.redis, jobs=self.settings.jobs, erasure=self.erasure,
            tenants=self.tenants)

    async def tenant(self, tenant: str) -> TenantSettings:
        """The tenant's settings (``HEYAN_TIMEZONE`` and the other defaults, with its overrides)."""
        return await self.tenants.get(tenant)
