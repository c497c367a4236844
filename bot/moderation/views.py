"""What the moderation service returns: pages, statuses and requests (platform-neutral data)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.offline.actions import promised_action
from bot.offline.perspective import for_everyone
from bot.sessions import SessionInfo
from bot.text.clock import local, show_due
from bot.text.kinds import label as kind_label
from bot.text.names import NameBook
from bot.text.zones import zone_label
from memory.models import (
    OPEN_COMMITMENT,
    Fact,
    FactStatus,
    Kind,
    Lang,
    Summary,
    utcnow,
)

__all__ = ["ClosedDispute", "CommitmentLine", "DisputeStatus", "ErasureRequest", "Recovered", "ReviewPage",
           "commitment_line", "commitment_status", "condition_of", "fact_view", "outline"]

@dataclass(frozen=True, slots=True)
class ReviewPage:
    """One page of the review queue, newest change first."""

    items: tuple[Fact, ...]
    offset: int
    total: int


@dataclass(frozen=True, slots=True)
class DisputeStatus:
    """Where a session stands: its dispute record (None if never opened), stage, open commitments."""

    tenant: str
    session: str
    info: SessionInfo | None
    stage: str
    turns: int
    open_commitments: tuple[Fact, ...]
    summary: Summary | None


@dataclass(frozen=True, slots=True)
class ClosedDispute:
    info: SessionInfo
    summary: Summary | None
    cancelled_followups: int


@dataclass(frozen=True, slots=True)
class ErasureRequest:
    """What erasing ``user`` would remove; confirm with ``token`` within ``ERASE_CONFIRM_SECONDS``.
    ``tenant``: the one community it applies to (records elsewhere are erased there, not here)."""

    user: str
    facts: int
    summaries: int
    token: str
    tenant: str = ""


@dataclass(frozen=True, slots=True)
class Recovered:
    """A flagged record confirmed as ordinary: the records its message yields now, and the flagged
    record, retired (``superseded``)."""

    retired: Fact
    recovered: tuple[Fact, ...]


def condition_of(fact: Fact) -> str:
    """The condition a promise was made on ("if the numbers back you up"), when its record holds one
    (a ``condition`` field, as extraction writes it); "" otherwise."""
    value = getattr(fact, "condition", "")
    return value.strip() if isinstance(value, str) else ""


def commitment_status(fact: Fact, now: datetime) -> str:
    """Where a commitment stands at ``now``, in the words every surface uses: ``open`` (active or
    disputed, not past due), ``overdue`` (open — disputed too — and past due: read from the clock,
    never stored), or its stored status (``done``, ``cancelled``, …)."""
    status = fact.status_at(now)
    if status in OPEN_COMMITMENT:  # a disputed promise past due is overdue too (as digests and records count it)
        return "overdue" if status is FactStatus.OVERDUE or (fact.due_at is not None and fact.due_at < now) else "open"
    return status.value


@dataclass(frozen=True, slots=True)
class CommitmentLine:
    """A commitment as lists, cards, digests and exports show it: owner → recipient, the action,
    its condition (when it has one), the due time in ``zone`` and where it stands (at ``as_of``)."""

    id: str
    tenant: str
    session: str | None
    owner: str
    owner_name: str
    #: Whom it was promised to ("" when the record does not know).
    recipient: str
    recipient_name: str
    action: str
    condition: str
    due_at: datetime | None
    zone: str
    status: str

    def due(self, lang: Lang = "en") -> str:
        """The due time with its zone ("Fri 6 Nov (UTC)"), "" when it has none."""
        return show_due(self.due_at, self.zone, lang) if self.due_at else ""

    def people(self) -> str:
        """"Bob → Ann" (the owner alone when the recipient is not known)."""
        return f"{self.owner_name} → {self.recipient_name}" if self.recipient_name else self.owner_name

    def text(self, lang: Lang = "en") -> str:
        """One line: "Bob → Ann: send the draft (if the numbers back you up) — due Fri 6 Nov (UTC) — overdue"."""
        cond = (f"（条件：{self.condition}）" if lang == "zh" else f" (if: {self.condition})") if self.condition else ""
        due = self.due(lang)
        when = ((f"，{due}到期" if lang == "zh" else f" — due {due}") if due else "")
        return f"{self.people()}: {self.action}{cond}{when} — {self.status}"

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "owner": self.owner, "owner_name": self.owner_name, "recipient": self.recipient or None,
                "recipient_name": self.recipient_name or None, "action": self.action,
                "condition": self.condition or None,
                "due_at": local(self.due_at, self.zone).isoformat() if self.due_at else None,
                "timezone": zone_label(self.zone), "due": self.due() or None, "status": self.status}


def commitment_line(fact: Fact, *, zone: str = "UTC", now: datetime | None = None,
                    names: NameBook | None = None) -> CommitmentLine:
    """``fact`` (a commitment) as a line; people by their latest names when ``names`` knows them."""
    book = names or NameBook.of([fact])
    recipient_name = (book.name(fact.recipient, fact.recipient_name) if fact.recipient else fact.recipient_name)
    return CommitmentLine(
        id=fact.id, tenant=fact.tenant, session=fact.session, owner=fact.subject,
        owner_name=book.name(fact.subject, fact.subject_name), recipient=fact.recipient,
        recipient_name=recipient_name.strip(), action=for_everyone(promised_action(fact.value), fact), condition=condition_of(fact),
        due_at=fact.due_at, zone=zone, status=commitment_status(fact, now or utcnow()))


def fact_view(fact: Fact, *, zone: str = "UTC", now: datetime | None = None,
              names: NameBook | None = None) -> dict[str, Any]:
    """Every field of a fact as JSON-ready data (exports, `--json`), its kind named as everywhere
    else (``bot.text.kinds``: "agreement"/"refusal" for a consensus, "claim" for a reported event), its
    status as of ``now`` (an open promise past due is ``overdue``: read from the clock); a commitment
    also as people read it (``commitment``: owner → recipient, action, condition, due in ``zone``)."""
    when = now or utcnow()
    view = fact.model_dump(mode="json") | {"kind": kind_label(fact), "status": fact.status_at(when).value}
    if fact.kind is Kind.COMMITMENT:
        view["commitment"] = commitment_line(fact, zone=zone, now=when, names=names).as_dict()
    return view


def outline(fact: Fact) -> dict[str, Any]:
    """A record named without its text: what an audit entry keeps of something erased."""
    return {"kind": fact.kind.value, "subject": fact.subject, "attribute": fact.attribute, "status": fact.status.value}


