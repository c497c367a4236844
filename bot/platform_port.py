"""What a platform adapter (Discord, Slack, the web console) is given of the core: a narrow port,
instead of the whole runtime.

A platform translates its events into calls here and renders what comes back; it never reaches the
stores, the queue or Redis. What Heyan decides lives behind this port, once for every platform. Each
platform's Redis helpers are built by its one composition module and handed in typed; the runtime
builds the port. Arrows: ``adapters/<platform>/* → bot.platform_port → bot.engine, bot.moderation, …``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.config.tenants import TenantConfig
from bot.delivery.outbox import Outbox
from bot.models import Message, Reply
from bot.moderation import ModerationService
from bot.ports import HistoryReader
from bot.privacy.departures import Departures
from bot.privacy.session_deletion import DeletedConversations
from bot.sessions import SessionBook
from memory.models import Scope

__all__ = ["PlatformEngine", "PlatformPort"]


class PlatformEngine(Protocol):
    """The engine as a platform sees it (``bot.engine.Engine`` implements it): what a message, an
    edit or a deletion on the platform means for Heyan."""

    async def hear(self, msg: Message, *, within: Sequence[str] = (), history: HistoryReader | None = None,
                   confirm: bool = False) -> Reply | None:
        """A platform's message: answered when it addresses Heyan, else remembered only inside an
        open dispute (its session, or one of ``within``), else ignored."""
        ...

    def answers_late(self, said_at: datetime, now: datetime) -> bool:
        """Is a mention read back after a downtime (said at ``said_at``, read ``now``) still answered?"""
        ...

    async def answered(self, msg: Message) -> None:
        """The reply to ``msg`` (``hear(..., confirm=True)``) was posted."""
        ...

    async def in_dispute(self, tenant: str, session: str, within: Sequence[str] = ()) -> bool:
        """Is a dispute open in ``session`` or in a conversation that holds it?"""
        ...

    async def known(self, tenant: str, sessions: Iterable[str]) -> list[str]:
        """Those of ``sessions`` Heyan saw: the only ones an edit or a deletion can concern."""
        ...

    async def revise(self, msg: Message) -> None:
        """``msg`` was edited on the platform."""
        ...

    async def retract(self, scope: Scope, message_id: str) -> int:
        """A message was deleted on the platform; how many records changed."""
        ...


@dataclass(frozen=True, slots=True)
class PlatformPort:
    """Everything a platform adapter may use, built once per process by the composition root."""

    #: Messages, edits and deletions (the policy of what Heyan hears lives behind it).
    engine: PlatformEngine
    #: Every command and button: disputes, memory review, member self-service, community settings.
    moderation: ModerationService
    #: Session records (is a dispute open here, which disputes a tenant has, for catch-up).
    sessions: SessionBook
    #: A community's settings (language, timezone) for rendering.
    tenants: TenantConfig
    #: Posts Heyan makes later (a reply a platform could not post now, a dispute-close card).
    outbox: Outbox
    #: Heyan left a community, or came back (the purge after the grace period).
    departures: Departures
    #: A conversation deleted on the platform: what Heyan took from it goes too.
    deletions: DeletedConversations
