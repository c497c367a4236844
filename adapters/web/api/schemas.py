"""What the REST API sends and accepts (pydantic models: the OpenAPI schema at /api/v1/openapi.json
is generated from them). Built from the moderation service's results; nothing is decided here."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from adapters.web.views.heat_view import point_rows
from adapters.web.views.links import message_link
from bot.agreements.card_votes import CardVotes
from bot.config.tenants import MAX_DAYS, TenantSettings
from bot.moderation import CommitmentBoard, DisputeDetail, ErasureRequest, Member, MemberRecords, ThreadHeat
from bot.moderation.views import CommitmentLine, commitment_line
from bot.privacy.audit import AuditEntry
from bot.text import kinds
from bot.text.names import NameBook
from memory.models import Fact, HistoryEntry, Kind, Source, utcnow

__all__ = [
    "AuditOut",
    "CommitmentOut",
    "CommitmentsOut",
    "DisputeOut",
    "DisputesOut",
    "EditIn",
    "ErasedOut",
    "ErasureOut",
    "ErrorOut",
    "MemberOut",
    "MemberSummaryOut",
    "MemoryDetail",
    "MemoryList",
    "MemoryOut",
    "ReasonIn",
    "ReviewOut",
    "SettingsIn",
    "SettingsOut",
    "SnoozeIn",
    "TemperatureOut",
    "TenantOut",
    "memory_out",
]


class ErrorOut(BaseModel):
    """Every refusal: a status code and this body. ``error`` is stable, ``detail`` says what to do."""

    error: str
    detail: str


class TenantOut(BaseModel):
    id: str
    name: str
    platform: str


class SourceOut(BaseModel):
    message_id: str
    author_id: str
    author_name: str
    ts: datetime
    quote: str
    #: The message on its platform, when a link can be made.
    link: str | None = None


class VersionOut(BaseModel):
    version: int
    value: str
    asserted_by: str
    status: str
    valid_from: datetime
    valid_to: datetime
    sources: list[SourceOut]


class CommitmentOut(BaseModel):
    """A commitment as people read it: owner → recipient, the action, its condition, the due time in
    the community's zone (named) and where it stands now (``open``, ``overdue``, ``done``, …)."""

    owner: str
    owner_name: str
    recipient: str | None
    recipient_name: str | None
    action: str
    condition: str | None
    due_at: datetime | None
    timezone: str
    due: str | None
    status: str

    @classmethod
    def of(cls, line: CommitmentLine) -> CommitmentOut:
        return cls.model_validate(line.as_dict())


class MemoryOut(BaseModel):
    """A memory with its sources (quote, author, time, link), earlier versions and status. ``kind`` is
    the kind every surface shows (``bot.text.kinds``: "claim", "agreement", …; ``stored_kind`` the store's),
    ``status`` is as of now (an open promise past due is ``overdue``)."""

    id: str
    tenant: str
    session: str | None
    kind: str
    stored_kind: str
    subject: str
    subject_name: str
    attribute: str
    value: str
    status: str
    confidence: str
    asserted_by: str
    visibility: str
    version: int
    sources: list[SourceOut]
    history: list[VersionOut]
    contested: list[VersionOut]
    users: list[str]
    due_at: datetime | None
    expires_at: datetime | None
    created_at: datetime
    updated_at: datetime
    #: Set for a commitment.
    commitment: CommitmentOut | None = None


def _source(fact: Fact, s: Source, slack_domain: str) -> SourceOut:
    return SourceOut(message_id=s.message_id, author_id=s.author_id, author_name=s.author_name, ts=s.ts,
                     quote=s.quote, link=message_link(fact.tenant, fact.session, s.message_id, slack_domain=slack_domain))


def _version(fact: Fact, h: HistoryEntry, slack_domain: str) -> VersionOut:
    return VersionOut(version=h.version, value=h.value, asserted_by=h.asserted_by, status=h.status.value,
                      valid_from=h.valid_from, valid_to=h.valid_to,
                      sources=[_source(fact, s, slack_domain) for s in h.sources])


def memory_out(fact: Fact, slack_domain: str = "", zone: str = "UTC", names: NameBook | None = None) -> MemoryOut:
    now = utcnow()
    line = commitment_line(fact, zone=zone, now=now, names=names) if fact.kind is Kind.COMMITMENT else None
    return MemoryOut(
        id=fact.id, tenant=fact.tenant, session=fact.session, kind=kinds.label(fact), stored_kind=fact.kind.value,
        subject=fact.subject, subject_name=fact.subject_name, attribute=fact.attribute, value=fact.value,
        status=fact.status_at(now).value, commitment=CommitmentOut.of(line) if line is not None else None,
        confidence=fact.confidence.value, asserted_by=fact.asserted_by, visibility=fact.visibility.value,
        version=fact.version, sources=[_source(fact, s, slack_domain) for s in fact.sources],
        history=[_version(fact, h, slack_domain) for h in fact.history],
        contested=[_version(fact, h, slack_domain) for h in fact.contested], users=list(fact.users),
        due_at=fact.due_at, expires_at=fact.expires_at, created_at=fact.created_at, updated_at=fact.updated_at,
    )


class MemoryList(BaseModel):
    total: int
    offset: int
    items: list[MemoryOut]


class AuditOut(BaseModel):
    id: str
    at: datetime
    actor_id: str
    actor_name: str
    action: str
    target: str
    reason: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    users: list[str]

    @classmethod
    def of(cls, e: AuditEntry) -> AuditOut:
        return cls(id=e.id, at=e.at, actor_id=e.actor_id, actor_name=e.actor_name, action=e.action, target=e.target,
                   reason=e.reason, before=dict(e.before) if e.before is not None else None,
                   after=dict(e.after) if e.after is not None else None, users=list(e.users))


class MemoryDetail(BaseModel):
    memory: MemoryOut
    audit: list[AuditOut]


class ReviewOut(BaseModel):
    total: int
    offset: int
    items: list[MemoryOut]


class WeekOut(BaseModel):
    week: str
    kept: int
    overdue: int


class CommitmentsOut(BaseModel):
    open: list[MemoryOut]
    overdue: list[MemoryOut]
    done: list[MemoryOut]
    weeks: list[WeekOut]

    @classmethod
    def of(cls, board: CommitmentBoard, slack_domain: str = "", zone: str = "UTC") -> CommitmentsOut:
        names = NameBook.of((*board.open, *board.overdue, *board.done))
        return cls(open=[memory_out(f, slack_domain, zone, names) for f in board.open],
                   overdue=[memory_out(f, slack_domain, zone, names) for f in board.overdue],
                   done=[memory_out(f, slack_domain, zone, names) for f in board.done],
                   weeks=[WeekOut(week=w.start.isoformat(), kept=w.kept, overdue=w.overdue) for w in board.weeks])


class MemberOut(BaseModel):
    user: str
    name: str
    summaries: int
    memories: list[MemoryOut]
    audit: list[AuditOut]

    @classmethod
    def of(cls, rec: MemberRecords, slack_domain: str = "", zone: str = "UTC") -> MemberOut:
        names = NameBook.of(rec.facts)
        return cls(user=rec.user, name=rec.name, summaries=rec.summaries,
                   memories=[memory_out(f, slack_domain, zone, names) for f in rec.facts],
                   audit=[AuditOut.of(e) for e in rec.audit])


class MemberSummaryOut(BaseModel):
    """A member in the directory: their latest name, earlier ones, what Heyan holds of them."""

    user: str
    name: str
    aliases: list[str]
    records: int
    open_commitments: int
    overdue: int
    last_seen: datetime | None

    @classmethod
    def of(cls, m: Member) -> MemberSummaryOut:
        return cls(user=m.user, name=m.name, aliases=list(m.aliases), records=m.records,
                   open_commitments=m.open_commitments, overdue=m.overdue, last_seen=m.last_seen)


class PersonOut(BaseModel):
    id: str
    #: The latest display name seen for the id in this community (the id when none is known).
    name: str


class DisputeOut(BaseModel):
    """A dispute, or a thread that crossed the alert threshold without being opened as one
    (``state`` "none"), with its temperature."""

    session: str
    title: str
    state: Literal["open", "closed", "none"]
    visibility: str
    members: list[PersonOut]
    opened_by: str | None
    opened_at: datetime | None
    closed_at: datetime | None
    #: The last message's temperature cooled to now.
    temperature: float
    peak: float
    threshold: float
    last_at: datetime | None
    #: Messages measured (the timeline keeps the last 50), and how many were at or above the threshold.
    messages: int
    crossings: int
    #: The timeline's temperatures, oldest first (the sparkline).
    temperatures: list[float]

    @classmethod
    def of(cls, h: ThreadHeat) -> DisputeOut:
        i = h.info
        return cls(session=h.session, title=i.title, state=i.state.value, visibility=i.visibility.value,
                   members=[PersonOut(id=m, name=h.name(m)) for m in i.members], opened_by=i.opened_by,
                   opened_at=i.opened_at, closed_at=i.closed_at, temperature=round(h.now, 3), peak=round(h.peak, 3),
                   threshold=h.threshold, last_at=h.last_at, messages=len(h.points), crossings=h.crossings,
                   temperatures=[round(p.temperature, 3) for p in h.points])


class DisputesOut(BaseModel):
    """Open disputes (hottest now first), threads that ran hot without being opened as a dispute, then
    disputes closed in the last 30 days."""

    items: list[DisputeOut]


class HeatPointOut(BaseModel):
    """One message's point: the thread's temperature after it, its own score, the signals it showed
    (``insult``, ``accusation``, …), its author and, when a link can be made, the message."""

    at: datetime
    temperature: float
    score: float
    above_threshold: bool
    message_id: str
    author: PersonOut
    signals: list[str]
    link: str | None = None


class CardStateOut(BaseModel):
    card: str
    state: str
    proposed_at: datetime
    confirmed: list[PersonOut]
    pending: list[PersonOut]
    refused: list[PersonOut]

    @classmethod
    def of(cls, votes: CardVotes, h: ThreadHeat) -> CardStateOut:
        def people(ids: tuple[str, ...]) -> list[PersonOut]:
            return [PersonOut(id=u, name=h.name(u)) for u in ids]

        return cls(card=votes.card_id, state=votes.state.value, proposed_at=votes.proposed_at,
                   confirmed=people(votes.confirmed_by), pending=people(votes.pending),
                   refused=people(votes.refused_by))


class TemperatureOut(BaseModel):
    """A thread's temperature timeline (oldest first), its stage, open commitments and agreement card."""

    dispute: DisputeOut
    stage: str
    points: list[HeatPointOut]
    open_commitments: list[MemoryOut]
    card: CardStateOut | None

    @classmethod
    def of(cls, d: DisputeDetail, slack_domain: str = "", zone: str = "UTC") -> TemperatureOut:
        h = d.heat
        points = [HeatPointOut(at=r.point.at, temperature=round(r.point.temperature, 3), score=round(r.point.score, 3),
                               above_threshold=r.hot, message_id=r.point.message_id,
                               author=PersonOut(id=r.point.author, name=r.name), signals=list(r.point.signals),
                               link=r.link) for r in point_rows(h, "en", slack_domain)]
        names = NameBook.of(d.open_commitments, names=h.names)
        return cls(dispute=DisputeOut.of(h), stage=d.stage, points=points,
                   open_commitments=[memory_out(f, slack_domain, zone, names) for f in d.open_commitments],
                   card=CardStateOut.of(d.card, h) if d.card is not None else None)


class ErasureOut(BaseModel):
    """Step one of an erasure: what would go; repeat the DELETE with ``?confirm=<token>`` to erase."""

    error: Literal["confirmation_required"] = "confirmation_required"
    detail: str
    user: str
    memories: int
    summaries: int
    token: str

    @classmethod
    def of(cls, req: ErasureRequest, detail: str) -> ErasureOut:
        return cls(detail=detail, user=req.user, memories=req.facts, summaries=req.summaries, token=req.token)


class ErasedOut(BaseModel):
    user: str
    erased: int


class SettingsOut(BaseModel):
    """The community's settings as they apply now (the deployment's defaults with its own values)."""

    tenant: str
    values: dict[str, Any]

    @classmethod
    def of(cls, tenant: str, values: TenantSettings) -> SettingsOut:
        return cls(tenant=tenant, values=values.model_dump(mode="json"))


class ReasonIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field("", max_length=500)


class EditIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: str = Field(min_length=1, max_length=2000)
    reason: str = Field("", max_length=500)


class SnoozeIn(BaseModel):
    """The new due time, with its offset (within two years: ``bot.moderation.members.SNOOZE_HORIZON``)."""

    model_config = ConfigDict(extra="forbid")
    until: datetime
    reason: str = Field("", max_length=500)


#: A number of days as the API accepts it: finite (JSON's NaN and 1e999 are refused here), within the
#: range every surface allows (``bot.config.tenants.MAX_DAYS``; the service says more when it is out of it).
Days = Annotated[float, Field(allow_inf_nan=False, ge=0, le=MAX_DAYS)]


class SettingsIn(BaseModel):
    """Only the settings to change; ``null`` for ``forget_after_days`` turns forgetting off, and for a
    kind in ``retention_days`` keeps it until erased."""

    model_config = ConfigDict(extra="forbid")
    timezone: str | None = Field(None, max_length=64)
    language: Literal["auto", "zh", "en"] | None = None
    retention_days: dict[str, Days | None] | None = None
    closed_purge_days: Days | None = None
    forget_after_days: Days | None = None
    forget_below: float | None = Field(None, allow_inf_nan=False, ge=0, le=1)
    moderator_roles: list[str] | None = None
    dispute_openers: Literal["members", "moderators"] | None = None
    dispute_channels: list[str] | None = None
    digest_channel: str | None = Field(None, max_length=200)
    digest_schedule: Literal["off", "daily", "weekly"] | None = None
    reason: str = Field("", max_length=500)
