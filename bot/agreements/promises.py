"""The promise-keeping record of one member: how their commitments turned out.

Each commitment a member owns counts once by where it stands at an explicit ``now`` (``outcome``: kept
on time, kept late, overdue, cancelled, open); it was done at ``Fact.done_at`` (else its last change).
Rejected, flagged, reported, superseded and expired records are left out. Only moderators and the
member themself may see it (``MemberRecords.promise_record`` enforces that).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from bot.offline.perspective import for_everyone
from memory.models import OPEN_COMMITMENT, Fact, FactStatus, Kind

__all__ = ["GRACE", "Outcome", "PromiseLine", "PromiseRecord", "done_time", "outcome", "promise_record"]

#: Done within this long after the due time still counts as on time: a report posted a moment after
#: the deadline ("done!" at 17:00:30 for a promise due 17:00) is not a broken promise.
GRACE = timedelta(minutes=1)

#: Statuses that are the member's own promise at all (the rest were never theirs to keep).
_COUNTED = OPEN_COMMITMENT | {FactStatus.DONE, FactStatus.CANCELLED}


class Outcome(StrEnum):
    """How one commitment stands."""

    ON_TIME = "kept_on_time"
    LATE = "kept_late"
    OVERDUE = "overdue"
    CANCELLED = "cancelled"
    OPEN = "open"


def done_time(fact: Fact) -> datetime | None:
    """When a done commitment was kept (``done_at``, else its last change); None when not done."""
    if fact.status is not FactStatus.DONE:
        return None
    return fact.done_at or fact.updated_at


def outcome(fact: Fact, now: datetime) -> Outcome | None:
    """Where ``fact`` stands at ``now``; None when it is not a promise of its owner to count."""
    if fact.kind is not Kind.COMMITMENT or fact.status not in _COUNTED:
        return None
    if fact.status is FactStatus.CANCELLED:
        return Outcome.CANCELLED
    if fact.status is FactStatus.DONE:
        done = done_time(fact)
        if fact.due_at is None or done is None or done <= fact.due_at + GRACE:
            return Outcome.ON_TIME
        return Outcome.LATE
    if fact.status is FactStatus.OVERDUE or (fact.due_at is not None and fact.due_at < now):
        return Outcome.OVERDUE
    return Outcome.OPEN


@dataclass(frozen=True, slots=True)
class PromiseLine:
    """One commitment in the record: its id (the source record), what was promised, when it was due
    and done, and how it stands."""

    fact_id: str
    session: str | None
    action: str
    due_at: datetime | None
    done_at: datetime | None
    outcome: Outcome

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.fact_id, "session": self.session, "action": self.action,
                "due_at": self.due_at.isoformat() if self.due_at else None,
                "done_at": self.done_at.isoformat() if self.done_at else None, "outcome": self.outcome.value}


@dataclass(frozen=True, slots=True)
class PromiseRecord:
    """A member's commitments counted by outcome, as of ``as_of``; ``lines`` list each one (the
    overdue and late ones first), so every count can be traced to its records."""

    tenant: str
    user: str
    name: str
    as_of: datetime
    lines: tuple[PromiseLine, ...] = field(default=())

    def count(self, which: Outcome) -> int:
        return sum(1 for line in self.lines if line.outcome is which)

    @property
    def kept_on_time(self) -> int:
        return self.count(Outcome.ON_TIME)

    @property
    def kept_late(self) -> int:
        return self.count(Outcome.LATE)

    @property
    def overdue(self) -> int:
        return self.count(Outcome.OVERDUE)

    @property
    def cancelled(self) -> int:
        return self.count(Outcome.CANCELLED)

    @property
    def open(self) -> int:
        return self.count(Outcome.OPEN)

    @property
    def total(self) -> int:
        return len(self.lines)

    def counts(self) -> dict[str, int]:
        return {o.value: self.count(o) for o in Outcome}

    def as_dict(self) -> dict[str, Any]:
        return {"tenant": self.tenant, "user": self.user, "name": self.name, "as_of": self.as_of.isoformat(),
                **self.counts(), "total": self.total, "commitments": [line.as_dict() for line in self.lines]}

    def text(self, lang: str) -> str:
        """One line for people: "Bob: 3 kept on time, 1 late, 2 overdue, 0 cancelled (1 not due yet)"."""
        who = self.name or self.user
        if lang == "zh":
            head = (f"{who}的承诺记录：按时完成 {self.kept_on_time}，逾期完成 {self.kept_late}，"
                    f"已逾期未完成 {self.overdue}，已取消 {self.cancelled}")
            return head + (f"（另有 {self.open} 项未到期）" if self.open else "")
        head = (f"{who}'s promises: {self.kept_on_time} kept on time, {self.kept_late} kept late, "
                f"{self.overdue} overdue, {self.cancelled} cancelled")
        return head + (f" ({self.open} not due yet)" if self.open else "")


_ORDER = {Outcome.OVERDUE: 0, Outcome.LATE: 1, Outcome.OPEN: 2, Outcome.ON_TIME: 3, Outcome.CANCELLED: 4}


def promise_record(tenant: str, user: str, facts: Iterable[Fact], now: datetime, *, name: str = "") -> PromiseRecord:
    """The record of ``user`` from ``facts`` (any records of the tenant: only commitments they own count)."""
    lines: list[PromiseLine] = []
    for fact in facts:
        if fact.subject != user:
            continue
        result = outcome(fact, now)
        if result is None:
            continue
        name = name or fact.subject_name
        lines.append(PromiseLine(fact_id=fact.id, session=fact.session, action=for_everyone(fact.value, fact),
                                 due_at=fact.due_at,
                                 done_at=done_time(fact), outcome=result))
    far = datetime.max.replace(tzinfo=now.tzinfo)
    lines.sort(key=lambda line: (_ORDER[line.outcome], line.due_at or far, line.fact_id))
    return PromiseRecord(tenant=tenant, user=user, name=name, as_of=now, lines=tuple(lines))
