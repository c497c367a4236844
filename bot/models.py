"""The mediation core's domain types: a platform-neutral message, the bot's reply, mediation stages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from bot.extraction.candidates import Utterance
from bot.text.richtext import RichText
from memory.models import Lang, Scope, Visibility

__all__ = ["READ_LIMIT", "Message", "Reply", "Stage"]

#: Characters of one message that extraction, summaries and prompts read. The window keeps the whole
#: text (the source stays faithful); the work a message costs is bounded whatever its length.
READ_LIMIT = 8000


class Stage(StrEnum):
    """Where a mediation stands; shapes the reply instructions."""

    GATHERING = "gathering"
    DE_ESCALATING = "de-escalating"
    EXPLORING = "exploring options"
    CONFIRMING = "confirming agreement"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class Message:
    """A platform message turned into Heyan's terms. ``mention`` is true when it addresses the bot.

    ``visibility`` is the session's (a private thread, DM or private channel is private): what is
    remembered from it keeps it. ``speaker_zone`` is the author's own timezone when the platform
    tells it (Slack's user ``tz``, a console script's ``ts`` offset): an IANA name or ``+08:00``.
    ``reply_to`` is the author id of the message this one replies to, when the platform has a real
    reply (Discord's message reference; a Slack thread's parent is not one): the "you" it speaks to.
    """

    id: str
    scope: Scope  # tenant + session (thread/channel) + user (author id)
    author_name: str
    text: str
    ts: datetime
    mention: bool = False
    visibility: Visibility = Visibility.PUBLIC
    speaker_zone: str | None = None
    reply_to: str | None = None

    @property
    def author_id(self) -> str:
        assert self.scope.user is not None, "a Message scope carries its author's user id"
        return self.scope.user

    @property
    def session(self) -> str:
        assert self.scope.session is not None, "a Message scope carries its session"
        return self.scope.session

    def utterance(self) -> Utterance:
        """The message as extraction and prompts read it: its first ``READ_LIMIT`` characters."""
        text = self.text if len(self.text) <= READ_LIMIT else self.text[:READ_LIMIT]
        return Utterance(self.id, self.author_id, self.author_name, text, self.ts, self.speaker_zone, self.mention,
                         self.reply_to)


@dataclass(frozen=True, slots=True)
class Reply:
    """What the bot says, where, in which stage, and the ids of the facts (and summary) it used.

    ``body`` is text plus the users it means to mention (``bot.text.richtext``); adapters render it.
    """

    session: str
    body: RichText
    lang: Lang
    stage: Stage = Stage.GATHERING
    memory_ids: tuple[str, ...] = field(default_factory=tuple)
    #: The session summary the reply drew on, listed apart: ``memory_ids`` are facts only, each one
    #: something ``heyan memory show`` can show.
    summary_id: str | None = None

    @property
    def text(self) -> str:
        """The reply as readable text (mentions as ``@name``)."""
        return self.body.plain()
