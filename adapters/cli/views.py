"""How the console shows memories, commitments and audit entries: rich tables and ``--json`` shapes.

Tables fit 80 columns: only the free-text column wraps, never inside a word. People by their latest
name (``bot.text.names``); times in the tenant's zone (or ``--zone``), named in the heading, ISO-8601 with
the zone in ``--json`` (``bot.text.clock``). Every text cell goes through ``escape_controls``: a member's
escape sequence shows, it never drives the terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from rich.table import Table

from adapters.cli.terminal import shown as _safe
from bot.agreements.promises import PromiseRecord
from bot.guard.poisoning import flag_of
from bot.moderation import fact_view
from bot.moderation.views import commitment_line, condition_of
from bot.offline.perspective import for_everyone
from bot.privacy.audit import AuditEntry
from bot.text.clock import local, show_due, show_stamp, zone_heading
from bot.text.kinds import label
from bot.text.names import TenantNames
from bot.text.zones import zone_label
from memory.models import Confidence, Fact, FactStatus, Kind, utcnow
from memory.recall.importance import weight

__all__ = ["audit_table", "commitment_view", "commitments_table", "fact_view", "kind_label", "memory_table",
           "promise_record_table"]


def _table(title: str) -> Table:
    """A table without rules: one space between columns leaves the text column room at 80 columns."""
    return Table(title=_safe(title), box=None, padding=(0, 1), collapse_padding=True, pad_edge=False,
                 title_justify="left", header_style="bold underline")


def _fixed(table: Table, *names: str) -> None:
    for name in names:
        table.add_column(name, no_wrap=True, overflow="ellipsis")


def _longest_word(texts: list[str], cap: int) -> int:
    return min(cap, max((len(w) for t in texts for w in t.split()), default=4))


def _text(table: Table, name: str, texts: list[str]) -> None:
    """The column that wraps, at spaces: at least as wide as its longest word (up to 24), so a word
    is cut only when it is longer than that."""
    table.add_column(name, overflow="fold", ratio=1, min_width=max(len(name), _longest_word(texts, 24)))


def _names(table: Table, name: str, texts: list[str]) -> None:
    table.add_column(name, overflow="fold", min_width=max(len(name), _longest_word(texts, 14)), max_width=20)


def kind_label(fact: Fact) -> str:
    """The kind as a person reads it (``bot.text.kinds``: agreement/refusal for consensus, claim for a
    reported event), and which rule flagged a flagged message (instruction, impersonation, fake marker,
    encoded instruction; ``memory_table`` shows the whole reason with the text)."""
    if fact.status is FactStatus.FLAGGED:
        flag = flag_of(fact.attribute)
        return flag.value if flag is not None else fact.attribute
    return label(fact)


def _many_tenants(tenants: set[str]) -> bool:
    return len(tenants) > 1


def _zone_of(zones: Mapping[str, str] | None, tenant: str) -> str:
    """The zone a tenant's times are shown in: the one given (its setting, or ``--zone``), else UTC."""
    return (zones or {}).get(tenant, "UTC")


def _heading(title: str, zones: set[str]) -> str:
    """ "said (UTC)" when every row is in one zone; "said" when cells name their own."""
    return zone_heading(title, next(iter(zones))) if len(zones) == 1 else title


def _stamp(when: datetime, zone: str, named: bool, *, day_only: bool = False) -> str:
    text = f"{local(when, zone):%m-%d}" if day_only else show_stamp(when, zone)
    return text if not named else f"{text} {zone_label(zone)}"


def memory_table(facts: list[Fact], title: str, names: TenantNames | None = None,
                 zones: Mapping[str, str] | None = None, now: datetime | None = None) -> Table:
    """A table of facts: who, what, status, weight, and when it was said (the tenant when several);
    times in each tenant's zone (``zones``: tenant → zone), named in the heading (``bot.text.clock``). The
    weight (``memory.recall.importance``) is at ``now`` (default: the clock); a record forgetting put on
    notice says when it expires."""
    names = names or TenantNames(facts)
    now = now or utcnow()
    table = _table(title)
    tenants = _many_tenants({f.tenant for f in facts})
    shown = {_zone_of(zones, f.tenant) for f in facts} or {_zone_of(zones, "")}
    named = len(shown) > 1  # several zones: each cell names its own
    rows = []
    for f in facts:
        zone = _zone_of(zones, f.tenant)
        who = _safe(names.name(f.tenant, f.subject, f.subject_name))
        if f.recipient or f.recipient_name:  # whom a commitment or demand is made to
            who += f" → {_safe(names.name(f.tenant, f.recipient, f.recipient_name) if f.recipient else f.recipient_name)}"
        if f.asserted_by != f.subject:
            who += f" (per {_safe(names.name(f.tenant, f.asserted_by))})"
        what = _safe(f.value if f.kind not in (Kind.PERSON, Kind.RELATION) else
                     f"{f.attribute}: {f.value}" if f.kind is Kind.PERSON else f"{f.attribute} → {f.value}")
        if f.status is FactStatus.FLAGGED:  # why it was flagged (the kind column has the rule), then what was said
            what = f"{_safe(f.attribute.split(':', 1)[-1].strip())} — {what}"
        if condition_of(f):
            what += f" — if {_safe(condition_of(f))}"
        if f.due_at is not None:
            what += f" — due {show_due(f.due_at, zone, 'en')}"
        if f.forgotten_at is not None and f.expires_at is not None:
            what += f" — fading, expires {_stamp(f.expires_at, zone, named, day_only=True)}"
        status = f.status_at(now).value + (" (low)" if f.confidence is Confidence.LOW else "")
        said = f.sources[0].ts if f.sources else f.valid_from
        # several tenants take a column: the day alone leaves the text its room
        rows.append((*((_safe(f.tenant),) if tenants else ()), f.id[:8], kind_label(f), who, what, status,
                     f"{weight(f, now):.2f}", _stamp(said, zone, named, day_only=tenants)))
    _fixed(table, *(("tenant",) if tenants else ()), "id", "kind")
    offset = 3 if tenants else 2
    _names(table, "who", [r[offset] for r in rows])
    _text(table, "what", [r[offset + 1] for r in rows])
    _fixed(table, "status", "wt", _heading("said", shown))
    for row in rows:
        table.add_row(*row)
    return table


def commitment_view(fact: Fact, names: TenantNames | None = None, zone: str | None = None,
                    now: datetime | None = None) -> dict[str, Any]:
    """A commitment as `heyan commitments list --json` prints it: owner → recipient (their latest
    names), the action and its condition, the due time in ``zone`` (``due_at`` keeps the instant with
    that zone's offset; ``timezone`` names it; ``due`` is how replies and follow-ups write it) and the
    status as of ``now`` (default: the clock; ``bot.moderation.views.commitment_status``)."""
    zone = zone or "UTC"
    line = commitment_line(fact, zone=zone, now=now or utcnow(), names=names.book(fact.tenant) if names else None)
    return {
        "id": fact.id,
        "tenant": fact.tenant,
        **line.as_dict(),
        "description": fact.value,
        #: the promise as anyone reads it: "send Bea the draft", never "send you the draft"
        "promised": for_everyone(fact.value, fact),
        "session": fact.session,
        "visibility": fact.visibility.value,
        "sources": [s.model_dump(mode="json") for s in fact.sources],
        "reminders_sent": [t.isoformat() for t in fact.reminders_sent],
    }


def _people(v: Mapping[str, Any]) -> str:
    owner = _safe(v["owner_name"] or v["owner"])
    return f"{owner} → {_safe(v['recipient_name'] or v['recipient'])}" if v.get("recipient") or v.get(
        "recipient_name") else owner


def commitments_table(views: list[dict[str, Any]]) -> Table:
    """Commitments: owner → recipient, the action (and its condition), when it is due (in the zone the
    heading names, the one replies use), where it stands (tenant when several)."""
    table = _table(f"{len(views)} commitments")
    tenants = _many_tenants({v["tenant"] for v in views})
    _fixed(table, *(("tenant",) if tenants else ()), "id")
    people = [_people(v) for v in views]
    actions = [_safe(v["action"]) + (f" (if {_safe(v['condition'])})" if v.get("condition") else "") for v in views]
    _names(table, "owner → to", people)
    _text(table, "action", actions)
    zones = {v.get("timezone") or "UTC" for v in views} or {"UTC"}
    _fixed(table, _heading("due", zones), "status", "sent")
    for v, who, action in zip(views, people, actions, strict=True):
        due = "-"
        if v["due_at"]:
            zone = v.get("timezone") or "UTC"
            due = show_stamp(datetime.fromisoformat(v["due_at"]), zone) + (f" {zone}" if len(zones) > 1 else "")
        table.add_row(*((_safe(v["tenant"]),) if tenants else ()), v["id"][:8], who, action, due, v["status"],
                      str(len(v["reminders_sent"])))
    return table


def promise_record_table(record: PromiseRecord, facts: Mapping[str, Fact], zone: str = "UTC") -> Table:
    """A member's promise-keeping record, one commitment a row: how it turned out, owner → recipient,
    the action and its condition, due and done (in ``zone``, named in the headings)."""
    table = _table(f"{_safe(record.name or record.user)}: commitments")
    rows = []
    for line in record.lines:
        fact = facts.get(line.fact_id)
        shown = commitment_line(fact, zone=zone, now=record.as_of) if fact is not None else None
        to = shown.recipient_name if shown is not None else ""
        action = _safe(shown.action if shown is not None else line.action)
        if shown is not None and shown.condition:
            action += f" (if {_safe(shown.condition)})"
        rows.append((line.fact_id[:8], line.outcome.value, _safe(to) or "-", action,
                     show_stamp(line.due_at, zone) if line.due_at else "-",
                     show_stamp(line.done_at, zone) if line.done_at else "-"))
    _fixed(table, "id", "outcome")
    _names(table, "to", [r[2] for r in rows])
    _text(table, "action", [r[3] for r in rows])
    _fixed(table, zone_heading("due", zone), zone_heading("done", zone))
    for row in rows:
        table.add_row(*row)
    return table


def audit_table(entries: list[AuditEntry], title: str, zone: str = "UTC") -> Table:
    table = _table(title)
    _fixed(table, zone_heading("at", zone))
    _names(table, "who", [_safe(e.actor_name or e.actor_id) for e in entries])
    _fixed(table, "action", "target")
    _text(table, "reason", [_safe(e.reason) for e in entries])
    table.add_column("change", overflow="fold", ratio=1)
    for e in entries:
        change = " → ".join(part for part in (_brief(e.before), _brief(e.after)) if part)
        table.add_row(f"{local(e.at, zone):%m-%d %H:%M}", _safe(e.actor_name or e.actor_id), e.action, _safe(e.target[:8]),
                      _safe(e.reason), _safe(change))
    return table


def _brief(data: Any) -> str:
    if not data:
        return ""
    return ", ".join(f"{k}={v}" for k, v in dict(data).items())
