"""The typed answer to a question about promises and agreements: items built from records, worded
by templates (``bot.offline.templates.render_answer``) in the asker's language.

An item holds everything its record holds: whose it is, to whom, what (as told to the asker:
``bot.offline.perspective``), on which condition, by when, where it stands now (overdue is derived
from the clock, ``Fact.status_at``), when it was said and the line it came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.answering.question import Ask
from memory.models import Fact, Lang

__all__ = ["Answer", "AnswerItem", "ItemKind", "ItemStatus", "answered_line"]


class ItemKind(StrEnum):
    """What an item reports."""

    #: A promise (a commitment record).
    PROMISE = "promise"
    #: Someone said yes to another's request or proposal (an agreement record citing it).
    ACCEPTED = "accepted"
    #: Someone said no to another's request or proposal (a refusal record citing it).
    DECLINED = "declined"
    #: A proposal and everyone who agreed to it (agreement records of one proposal, grouped).
    AGREEMENT = "agreement"


class ItemStatus(StrEnum):
    """Where a promise stands, as of the question."""

    OPEN = "open"
    OVERDUE = "overdue"
    DONE = "done"
    CANCELLED = "cancelled"
    #: Not a promise (an agreement, a reply to a request): no status of its own.
    NONE = "none"


@dataclass(frozen=True, slots=True)
class AnswerItem:
    """One record (or one proposal's agreements) as an answer tells it."""

    kind: ItemKind
    owner: str
    owner_name: str
    #: What was promised or agreed, as told to the asker ("send Bea the draft", "send you the draft").
    action: str
    said_at: datetime
    recipient: str = ""
    recipient_name: str = ""
    condition: str = ""
    due_at: datetime | None = None
    status: ItemStatus = ItemStatus.NONE
    #: The line it came from, whole when the log still holds it; "" when it says no more than ``action``.
    quote: str = ""
    #: For ACCEPTED, DECLINED and AGREEMENT: who asked or proposed, and their line.
    proposer_name: str = ""
    proposal: str = ""
    #: For AGREEMENT: everyone who agreed, by name; and who said no to it or to a part of it, with their words.
    parties: tuple[str, ...] = ()
    refusals: tuple[tuple[str, str], ...] = ()
    #: The action could not be told without a "you" nobody knows: ``action`` is the words as said.
    verbatim: bool = False
    fact_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Answer:
    """What Heyan answers: the items, or why there are none, in the asker's language and zone."""

    ask: Ask
    lang: Lang
    zone: str
    now: datetime
    items: tuple[AnswerItem, ...] = ()
    #: Items beyond those shown ("and 3 more").
    more: int = 0
    #: The people the question named, by name, and whether it asked about promises made to the asker.
    owners: tuple[str, ...] = ()
    to_asker: bool = False
    #: The question's topic as written ("saturdays"), when no record matched it: the items are the
    #: others that might answer it.
    missed_topic: str = ""
    #: Names that fit several members: (as said, the names of those members).
    unclear: tuple[tuple[str, tuple[str, ...]], ...] = ()


def answered_line(fact: Fact) -> str:
    """The message a yes or no answers (its source after the answer itself; the proposer's own closing
    "就先这么定" cites their proposal too), "" when it cites none."""
    said = fact.sources[0].message_id if fact.sources else ""
    return next((s.message_id for s in fact.sources[1:] if s.message_id != said), "")
