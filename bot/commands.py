"""Platform-neutral command handlers: what /memory and `heyan memory|commitments` do, minus rendering."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memory.models import OPEN_COMMITMENT, Fact, FactStatus, Kind, Scope
from memory.ports import RecordFilter
from memory.service import MemoryService

__all__ = ["MemoryQuery", "commitment_view", "fact_view", "list_memories"]


@dataclass(frozen=True, slots=True)
class MemoryQuery:
    tenant: str
    session: str | None = None
    user: str | None = None
    kind: Kind | None = None
    status: FactStatus | None = None


async def list_memories(memory: MemoryService, q: MemoryQuery) -> list[Fact]:
    flt = RecordFilter(
        kinds=frozenset({q.kind.value}) if q.kind else frozenset(),
        statuses=frozenset({q.status.value}) if q.status else frozenset(),
    )
    return await memory.list_facts(Scope(tenant=q.tenant, session=q.session, user=q.user), flt)


def fact_view(fact: Fact) -> dict[str, Any]:
    """Every model field of a fact as JSON-ready data (the `--json` shape)."""
    return fact.model_dump(mode="json")


def commitment_view(fact: Fact) -> dict[str, Any]:
    """A commitment as `heyan commitments list --json` prints it."""
    status = fact.status.value
    if fact.status in OPEN_COMMITMENT:
        status = "overdue" if fact.status is FactStatus.OVERDUE else "open"
    return {
        "id": fact.id,
        "tenant": fact.tenant,
        "owner": fact.subject,
        "owner_name": fact.subject_name,
        "description": f"{fact.attribute}: {fact.value}",
        "due_at": fact.due_at.isoformat() if fact.due_at else None,
        "status": status,
        "session": fact.session,
        "sources": [s.model_dump(mode="json") for s in fact.sources],
        "reminders_sent": [t.isoformat() for t in fact.reminders_sent],
    }
