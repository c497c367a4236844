"""What the mediation core needs from the job queue, as a Protocol that ``jobs.queue.JobQueue`` implements.

The core decides *what* to run later (extract these messages, summarise at this turn, follow up on
this commitment version at that time); the queue decides *how* (arq, deterministic job ids). ``bot/``
never imports ``jobs/``: the composition root (``adapters.runtime.composition``) hands the engine a scheduler.
Every method is idempotent for the same arguments and returns False when the job already existed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from bot.models import Message
from memory.models import Scope

__all__ = ["HistoryReader", "Scheduler"]

#: Reads the recent messages of the conversation a mention came from, through the platform's API
#: (Discord channel history, Slack conversations.replies/history), oldest first, as ``Message``s of
#: that session. The engine calls it only when it answers; what it returns is context for that reply,
#: never stored (``bot.context``). It may raise: the reply is then given from memory alone.
HistoryReader = Callable[[], Awaitable[Sequence[Message]]]


@runtime_checkable
class Scheduler(Protocol):
    """Background work the core asks for. Job arguments are ids, never message text."""

    async def extract(self, scope: Scope, message_ids: Sequence[str], *, revision: str = "") -> bool:
        """Extract facts from these messages of ``scope.session`` now (``revision``: an edited
        message's new text is a new job)."""
        ...

    async def extract_when_idle(self, scope: Scope, turn: int, when: datetime) -> bool:
        """At ``when`` (the time ``turn`` was said plus the idle time, on the process clock), extract
        the waiting batch if no turn followed ``turn``."""
        ...

    async def summarize(self, scope: Scope, turn: int, *, revision: str = "") -> bool:
        """Write a new version of the session summary as of ``turn`` (``revision``: again, after a
        message was taken back)."""
        ...

    async def remind(self, tenant: str, fact_id: str, revision: int, when: datetime) -> bool:
        """Follow up on one version of a commitment at ``when`` (now if it has passed)."""
        ...

    async def forget_user(self, tenant: str, user: str, request_id: str, *, when: datetime | None = None) -> bool:
        """Erase everything held about or from ``user`` in ``tenant`` (at ``when``, else now)."""
        ...

    async def purge_tenant(self, tenant: str, request_id: str, when: datetime) -> bool:
        """Remove everything held for ``tenant`` at ``when`` unless Heyan came back (``bot.privacy.departures``)."""
        ...
