"""How the console shows memories, commitments and audit entries: rich tables and ``--json`` shapes."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from bot.audit import AuditEntry
from bot.moderation import fact_view
from memory.models import OPEN_COMMITMENT, Fact, FactStatus

__all__ = ["audit_table", "commitment_view", "commitments_table", "fact_view", "memory_table"]


def _many_tenants(facts: list[Fact]) -> bool:
    return len({f.tenant for f in facts}) > 1


def memory_table(facts: list[Fact], title: str) -> Table:
    """A rich table of facts: who, what, status, and who said it when (the tenant when several)."""
    table = Table(title=title, show_lines=False)
    tenants = _many_tenants(facts)
    for col in (("tenant",) if tenants else ()) + ("id", "kind", "who", "attribute", "value", "status", "conf", "said"):
        table.add_column(col, overflow="fold")
    for f in facts:
        said = f.sources[0] if f.sources else None
        table.add_row(
            *((f.tenant,) if tenants else ()),
            f.id[:8], f.kind.value, f.subject_name or f.subject, f.attribute, f.value, f.status.value,
            f.confidence.value, f"{said.author_name or said.author_id} {said.ts:%m-%d %H:%M}" if said else "",
        )
    return table


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
        "visibility": fact.visibility.value,
        "sources": [s.model_dump(mode="json") for s in fact.sources],
        "reminders_sent": [t.isoformat() for t in fact.reminders_sent],
    }


def commitments_table(views: list[dict[str, Any]]) -> Table:
    table = Table(title=f"{len(views)} commitments")
    tenants = len({v["tenant"] for v in views}) > 1
    for col in (("tenant",) if tenants else ()) + ("id", "owner", "description", "due", "status", "reminders"):
        table.add_column(col, overflow="fold")
    for v in views:
        table.add_row(*((v["tenant"],) if tenants else ()), v["id"][:8], v["owner_name"] or v["owner"],
                      v["description"], v["due_at"] or "-", v["status"], str(len(v["reminders_sent"])))
    return table


def audit_table(entries: list[AuditEntry], title: str) -> Table:
    table = Table(title=title)
    for col in ("at", "who", "action", "target", "reason", "before", "after"):
        table.add_column(col, overflow="fold")
    for e in entries:
        table.add_row(f"{e.at:%Y-%m-%d %H:%M}", e.actor_name or e.actor_id, e.action, e.target[:12], e.reason,
                      _brief(e.before), _brief(e.after))
    return table


def _brief(data: Any) -> str:
    if not data:
        return ""
    return ", ".join(f"{k}={v}" for k, v in dict(data).items())
