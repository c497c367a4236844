"""One ``/heyan`` call as its handlers see it (``adapters.slack.commands.slash``, ``adapters.slack.commands.settings_cmd``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from adapters.slack.bridge import Bridge, Here
from adapters.slack.display.blocks import Block, Paging
from bot.actors import Actor
from memory.models import Lang

__all__ = ["Answer", "Handler", "Invocation"]


@dataclass(frozen=True, slots=True)
class Invocation:
    """One ``/heyan`` call: who, where, and the words after the subcommand (Slack-escaped)."""

    bridge: Bridge
    here: Here
    actor: Actor
    channel: str
    rest: str
    zone: str
    #: Where a paged list starts (a page button's ``Paging.offset``).
    offset: int = 0

    @property
    def tenant(self) -> str:
        return self.actor.tenant

    @property
    def lang(self) -> Lang:
        return self.actor.lang

    def words(self, n: int = -1) -> list[str]:
        """The first ``n`` words and the remainder (``n=-1``: every word)."""
        return self.rest.split(maxsplit=n) if n >= 0 else self.rest.split()

    def paging(self, kind: str) -> Paging:
        return Paging(kind, self.rest, self.offset, self.channel)

    async def plain(self, raw: str) -> str:
        """Slack-escaped command text as readable text (``@name`` for mentions)."""
        return await self.here.people.text(raw)

    async def dispute(self) -> str:
        """The dispute this command is about: the channel's own, or else the one dispute open on a
        thread of it (a slash command cannot say which thread it was typed in)."""
        sessions = self.bridge.port.sessions
        own = await sessions.get(self.tenant, self.channel)
        if own is not None and own.opened_at is not None:
            return self.channel
        threads = [s.session for s in await sessions.tenant_sessions(self.tenant)
                   if s.is_open and s.session.startswith(self.channel + ":")]
        return threads[0] if len(threads) == 1 else self.channel


@dataclass(frozen=True, slots=True)
class Answer:
    """What the caller sees (ephemeral): text, and Block Kit when there is more to show."""

    text: str
    blocks: list[Block] | None = field(default=None)


Handler = Callable[[Invocation], Awaitable[Answer]]
