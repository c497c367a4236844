"""What the moderation service returns: pages, statuses and requests (platform-neutral data)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.kinds import label as kind_label
from bot.sessions import SessionInfo
from memory.models import (
    Fact,
    Summary,
)

__all__ = ["ClosedDispute", "DisputeStatus", "ErasureRequest", "Recovered", "ReviewPage", "fact_view", "outline"]

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


def fact_view(fact: Fact) -> dict[str, Any]:
    """Every field of a fact as JSON-ready data (exports, `--json`), its kind named as everywhere
    else (``bot.kinds``: "agreement"/"refusal" for a consensus, "claim" for a reported event)."""
    return fact.model_dump(mode="json") | {"kind": kind_label(fact)}


def outline(fact: Fact) -> dict[str, Any]:
    """A record named without its text: what an audit entry keeps of something erased."""
    return {"kind": fact.kind.value, "subject": fact.subject, "attribute": fact.attribute, "status": fact.status.value}


