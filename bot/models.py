"""The mediation core's domain types: a platform-neutral message, the bot's reply, mediation stages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from memory.extraction import Utterance
from memory.models import Lang, Scope

__all__ = ["Message", "Reply", "Stage"]


class Stage(StrEnum):
    """Where a mediation stands; shapes the reply instructions."""

    GATHERING = "gathering"
    DE_ESCALATING = "de-escalating"
    EXPLORING = "exploring options"
    CONFIRMING = "confirming agreement"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class Message:
    """A platform message turned into Heyan's terms. ``mention`` is true when it addresses the bot."""

    id: str
    scope: Scope  # tenant + session (thread/channel) + user (author id)
    author_name: str
    text: str
    ts: datetime
    mention: bool = False

    @property
    def author_id(self) -> str:
        assert self.scope.user is not None, "a Message scope carries its author's user id"
        return self.scope.user

    @property
    def session(self) -> str:
        assert self.scope.session is not None, "a Message scope carries its session"
        return self.scope.session

    def utterance(self) -> Utterance:
        return Utterance(self.id, self.author_id, self.author_name, self.text, self.ts)


@dataclass(frozen=True, slots=True)
class Reply:
    """What the bot says, where, in which stage, and the ids of the memories it used."""

    session: str
    text: str
    lang: Lang
    stage: Stage = Stage.GATHERING
    memory_ids: tuple[str, ...] = field(default_factory=tuple)
