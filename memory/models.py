"""The memory model: typed facts, session summaries and the scope every store call needs.

A fact is one statement about a dispute: who (subject) has what (attribute) with which value,
who said it (asserted_by), where it came from (sources with quotes), how sure we are (confidence)
and where it stands (status). Facts are versioned: an update keeps the old value in ``history``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memory import clock

__all__ = [
    "EMBED_TEXT_LIMIT",
    "NAMESPACE",
    "OPEN_COMMITMENT",
    "RECALLABLE",
    "Confidence",
    "Fact",
    "FactStatus",
    "HistoryEntry",
    "Kind",
    "Lang",
    "Scope",
    "ScoredFact",
    "Source",
    "Summary",
    "SummaryVersion",
    "Visibility",
    "embed_text",
    "fact_id",
    "summary_id",
    "utcnow",
]

#: Embedded text is cut to this many characters; longer values are recorded as truncated.
EMBED_TEXT_LIMIT = 4000

#: Namespace for deterministic point ids (uuid5), so replaying an extraction writes the same ids.
NAMESPACE = uuid.UUID("6f1c0f1e-4e0b-5d0a-9a57-686579616e00")

Lang = Literal["zh", "en"]


#: The current time, timezone-aware, in UTC: the process clock (``memory.clock``).
utcnow = clock.now


class Kind(StrEnum):
    """The kinds of record the mediator keeps: six kinds of fact, and relations between people,
    things and groups (``memory.recall.relations``: subject, relation and object, linked to the facts and
    messages they came from)."""

    PERSON = "person"
    EVENT = "event"
    DEMAND = "demand"
    EMOTION = "emotion"
    COMMITMENT = "commitment"
    CONSENSUS = "consensus"
    RELATION = "relation"


class FactStatus(StrEnum):
    """Where a fact stands. Only ``active``, ``disputed`` and ``unverified`` facts are recalled by default."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    DISPUTED = "disputed"
    UNVERIFIED = "unverified"
    DONE = "done"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    #: A commitment past its due time and not done: derived where it is read (``Fact.status_at``),
    #: never stored by Heyan now (records from before may carry it; they read the same).
    OVERDUE = "overdue"
    #: A moderator reviewed the record and found it wrong; kept for the audit, never recalled.
    REJECTED = "rejected"
    #: Written by a message that tried to instruct the bot or speak as someone else
    #: (``bot.guard.poisoning``): kept for moderators, never recalled or recited.
    FLAGGED = "flagged"


class Visibility(StrEnum):
    """Who may see a record: everyone in the tenant, or only its own session (a private thread, a DM,
    a private channel), moderators, and the members it concerns."""

    PUBLIC = "public"
    PRIVATE = "private"


#: Statuses a default recall returns; the rest are history.
RECALLABLE = frozenset(
    {FactStatus.ACTIVE, FactStatus.DISPUTED, FactStatus.UNVERIFIED, FactStatus.DONE, FactStatus.OVERDUE}
)

#: A commitment in one of these statuses is still open: reminders and follow-ups apply.
OPEN_COMMITMENT = frozenset({FactStatus.ACTIVE, FactStatus.DISPUTED, FactStatus.OVERDUE})


class Confidence(StrEnum):
    HIGH = "high"
    LOW = "low"


NonEmpty = Annotated[str, Field(min_length=1)]


class Scope(BaseModel):
    """Who a memory operation is about. ``tenant`` is required; ``session`` and ``user`` narrow it.

    tenant is ``discord:<guild>``, ``slack:<team>`` or ``console:<name>``; session is a thread or
    channel; user is a platform user id.
    """

    model_config = ConfigDict(frozen=True)

    tenant: str
    session: str | None = None
    user: str | None = None

    @field_validator("tenant")
    @classmethod
    def _tenant_required(cls, value: str) -> str:
        if not value or not value.strip():
            raise ValueError("a Scope needs a tenant (e.g. 'discord:<guild id>'); got an empty one")
        return value

    def narrow(self, *, session: str | None = None, user: str | None = None) -> Scope:
        """The same tenant, with a session and/or user added."""
        return Scope(tenant=self.tenant, session=session or self.session, user=user or self.user)

    def __str__(self) -> str:
        parts = [self.tenant]
        if self.session:
            parts.append(f"session={self.session}")
        if self.user:
            parts.append(f"user={self.user}")
        return " ".join(parts)


class Source(BaseModel):
    """The message a fact came from, with the words that carry it."""

    model_config = ConfigDict(frozen=True)

    message_id: str
    author_id: str
    author_name: str = ""
    ts: datetime
    quote: str


class HistoryEntry(BaseModel):
    """An earlier value of a fact, valid from ``valid_from`` until ``valid_to``."""

    model_config = ConfigDict(frozen=True)

    version: int
    value: str
    asserted_by: str
    status: FactStatus
    valid_from: datetime
    valid_to: datetime
    sources: tuple[Source, ...] = ()


class Fact(BaseModel):
    """One typed fact in a tenant's memory.

    ``subject`` is a user id where known, else an entity name. ``asserted_by`` is the user id of who
    said it: a claim about someone else keeps the speaker here and is never the other person's own
    statement. ``attribute`` names the slot ("deliver draft", "wants", "feels"), ``value`` fills it.
    """

    model_config = ConfigDict(frozen=True)

    id: str = ""
    tenant: NonEmpty
    session: str | None = None
    kind: Kind
    subject: NonEmpty
    subject_name: str = ""
    attribute: NonEmpty
    value: NonEmpty
    sources: tuple[Source, ...] = ()
    asserted_by: str
    confidence: Confidence = Confidence.HIGH
    status: FactStatus = FactStatus.ACTIVE
    valid_from: datetime = Field(default_factory=utcnow)
    valid_to: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    version: int = 1
    history: tuple[HistoryEntry, ...] = ()
    due_at: datetime | None = None
    expires_at: datetime | None = None
    lang: Lang = "en"
    truncated: bool = False
    #: Every user id this fact is about or comes from: subject (when a user), asserter, source authors.
    users: tuple[str, ...] = ()
    #: Reminders sent for a commitment, so each reminder fires once.
    reminders_sent: tuple[datetime, ...] = ()
    #: When a commitment was kept, as its owner said it (the time of the message that reported it),
    #: else when it was marked done; None while it is not done. Tells "kept on time" from "kept late".
    done_at: datetime | None = None
    #: Competing values from other speakers, held for moderator review while the fact is ``disputed``.
    contested: tuple[HistoryEntry, ...] = ()
    #: The visibility of the session it was said in: a private session's records stay in it.
    visibility: Visibility = Visibility.PUBLIC
    #: Whom a commitment or demand is made to, when extraction knew (the person named, addressed or
    #: answered): their user id, and the name they went by (so "you" in the value can be told as
    #: theirs to anyone else). Empty when unknown.
    recipient: str = ""
    recipient_name: str = ""
    #: What a commitment holds only on, as said ("if the usage log backs Aylin up", "如果房东同意"), when
    #: extraction found one (``bot.offline.acts``); sealed like the value. Empty on other records.
    condition: str = ""
    #: Which statement of its speaker this record holds (``"<family>:<digest>"``, from the words of the
    #: quote; see ``bot.offline.slots``): two claims of one speaker are two records. Empty on records
    #: written before slots existed, whose key is the attribute.
    slot: str = ""
    #: Bookkeeping for the record's weight (``memory.recall.importance``), all clear fields (counts and
    #: times, never text): how many replies used it and when one last did (folded in from Redis by
    #: ``bot.usage``), when a moderator confirmed it, when its dispute was closed (``settled_at``;
    #: None while open or outside a dispute), and when forgetting gave it its ``expires_at``
    #: (``forgotten_at``; cleared, with the kind's own expiry back, if it matters again).
    uses: int = 0
    used_at: datetime | None = None
    confirmed_at: datetime | None = None
    settled_at: datetime | None = None
    forgotten_at: datetime | None = None
    #: A relation's object (kind ``relation``: ``subject`` ``attribute`` ``value`` reads "Bob manages
    #: the Discord bot"): the member's user id when the object is a member, else its normalised name
    #: (``memory.recall.relations.entity_name``); ``value`` is the object as said. Empty on other kinds.
    target: str = ""
    #: The ids of the facts a relation was extracted beside (from the same message), which recall's
    #: one-hop expansion adds as candidates (``memory.recall.hops``). Empty on other kinds.
    links: tuple[str, ...] = ()

    @field_validator("value", "attribute", "subject")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty or whitespace")
        return value.strip()

    def with_id(self) -> Fact:
        """This fact with its deterministic id filled in."""
        return self if self.id else self.model_copy(update={"id": fact_id(self)})

    def status_at(self, now: datetime) -> FactStatus:
        """The status as of ``now``, derived where it is read: an open promise (active or overdue) is
        overdue once its due time has passed, else active; every other status is as stored. Nothing
        stores the flip, so a passing due time never changes a record."""
        if self.kind is Kind.COMMITMENT and self.status in (FactStatus.ACTIVE, FactStatus.OVERDUE):
            return FactStatus.OVERDUE if self.due_at is not None and self.due_at < now else FactStatus.ACTIVE
        return self.status

    @property
    def scope(self) -> Scope:
        return Scope(tenant=self.tenant, session=self.session)

    @property
    def key(self) -> tuple[str, str | None, str, str, str]:
        """The consolidation key: one record per (tenant, session, subject, kind, slot) — the slot
        being the statement (see ``slot``), or the attribute for a record without one."""
        return (self.tenant, self.session, self.subject, self.kind.value, self.slot or _norm(self.attribute))

    def embed_text(self) -> str:
        """The text embedded for this fact (the seed template, in the fact's language)."""
        return embed_text(self.kind, self.subject_name or self.subject, self.attribute, self.value, self.lang)


class SummaryVersion(BaseModel):
    """An earlier text of a session summary: when it was written and whose words it carried.

    ``users`` is every author whose messages this text read, directly or through the texts it was
    rolled forward from; empty on versions written before contributors were tracked (then anyone's
    words may be in it, and erasing anyone drops it).
    """

    model_config = ConfigDict(frozen=True)

    text: str
    version: int = 0
    written_at: datetime | None = None
    users: tuple[str, ...] = ()


class Summary(BaseModel):
    """A session summary: issues, agreements, open differences and next steps. Versioned.

    A new version is written from the previous text and the recent messages, so a summary carries
    words forward from every message it ever read: ``users`` are all those authors (accumulated over
    the versions, not just the authors of the last messages), so erasing a member finds every summary
    that may hold their words. ``tracked`` is False for a summary rolled forward from one written
    before contributors were tracked (its ``users`` may miss someone). ``stale``: a message it may
    have read was deleted or its author erased; the text was rolled back to a version from before
    that, and the next summary job (or the next recall, which queues one) writes it again.
    """

    model_config = ConfigDict(frozen=True)

    id: str = ""
    tenant: NonEmpty
    session: NonEmpty
    text: NonEmpty
    lang: Lang = "en"
    version: int = 1
    turns: int = 0
    history: tuple[SummaryVersion, ...] = ()
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    users: tuple[str, ...] = ()
    truncated: bool = False
    visibility: Visibility = Visibility.PUBLIC
    tracked: bool = False
    stale: bool = False

    @field_validator("history", mode="before")
    @classmethod
    def _plain_history(cls, value: object) -> object:
        """History written before versions carried their authors was a list of texts."""
        if isinstance(value, list | tuple):
            return tuple({"text": v} if isinstance(v, str) else v for v in value)
        return value

    def with_id(self) -> Summary:
        return self if self.id else self.model_copy(update={"id": summary_id(self.tenant, self.session)})

    def versions(self) -> list[SummaryVersion]:
        """Every text of this summary, oldest first, the current one last."""
        current = SummaryVersion(text=self.text, version=self.version, written_at=self.updated_at,
                                 users=self.users if self.tracked else ())
        return [*self.history, current]


_KIND_ZH = {
    Kind.PERSON: "人物",
    Kind.EVENT: "事件",
    Kind.DEMAND: "诉求",
    Kind.EMOTION: "情绪",
    Kind.COMMITMENT: "承诺",
    Kind.CONSENSUS: "共识",
    Kind.RELATION: "关系",
}


def embed_text(kind: Kind, subject: str, attribute: str, value: str, lang: Lang) -> str:
    """The seed template: "关于<类型><名>的事实：<属性>是<值>" / "About <kind> <subject>: <attribute> is <value>";
    a relation reads as said: "张三 投诉 产品B" / "Bob manages the Discord bot"."""
    if kind is Kind.RELATION:
        return f"{subject}{attribute}{value}" if lang == "zh" else f"{subject} {attribute} {value}"
    if lang == "zh":
        return f"关于{_KIND_ZH[kind]}{subject}的事实：{attribute}是{value}"
    return f"About {kind.value} {subject}: {attribute} is {value}"


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def fact_id(fact: Fact) -> str:
    """Deterministic point id from the consolidation key: the same fact slot always has the same id."""
    return str(uuid.uuid5(NAMESPACE, "fact\x1f" + "\x1f".join(str(p) for p in fact.key)))


def summary_id(tenant: str, session: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"summary\x1f{tenant}\x1f{session}"))


@dataclass(frozen=True, slots=True)
class ScoredFact:
    """A recalled fact: its fused ``score``, its dense score (None if it came from BM25 alone, or the
    method was sparse), its 1-based rank in the best BM25 list it appeared in (None if not found by
    BM25), and its weight (``memory.recall.importance``) when it was recalled — what the prompt budget keeps
    it by, beside the score."""

    fact: Fact
    score: float
    dense: float | None
    sparse_rank: int | None
    weight: float = 0.0
