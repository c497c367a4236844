"""``heyan commitments``: list commitments, mark them done, or move their due time — as the local
operator, through the moderation service."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from adapters.cli.cli_common import (
    SESSION_HELP,
    TENANT_HELP,
    console,
    fail,
    find_in_tenants,
    one_of,
    tenant_names,
    with_runtime,
)
from adapters.cli.cli_people import checked_tenants, members_in
from adapters.cli.cli_style import Typer
from adapters.cli.clock_cli import ZONE_HELP, checked_zone, display_zones
from bot.actors import Actor

if TYPE_CHECKING:  # the commands import what they use: `heyan --help` stays light
    from adapters.runtime.composition import Runtime
    from memory.models import Fact

__all__ = ["app"]

app = Typer(no_args_is_help=True, help="Commitments and their follow-ups.")

#: How ``commitment_view`` shows a status: active and disputed commitments are "open".
_STATUSES = ("open", "overdue", "done", "cancelled", "superseded", "rejected", "expired")


@app.command("list")
def commitments_list(
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
    session: Annotated[str | None, typer.Option(help=SESSION_HELP)] = None,
    status: Annotated[str | None, typer.Option(help="only this status: " + ", ".join(_STATUSES) + " (default: all)")]
    = None,
    user: Annotated[str | None, typer.Option(help="only the commitments this member made or was made "
                                                  "(a name or a user id)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
    zone: Annotated[str | None, typer.Option(help=ZONE_HELP)] = None,
) -> None:
    """List commitments: owner → recipient, the action and its condition, the due time (in the tenant's
    zone, named), the status as of now, and reminders sent (the tenant column appears when there are
    several)."""
    from adapters.cli.views import commitment_view, commitments_table
    from memory.models import utcnow

    if status is not None:
        one_of("status", status, _STATUSES)
    checked_zone(zone)

    async def body(rt: Runtime) -> list[dict[str, Any]]:
        views: list[dict[str, Any]] = []
        tenants = await checked_tenants(rt, tenant)
        members = await members_in(rt, tenants, user) if user is not None else None
        if members is not None:
            tenants = [t for t in tenants if t in members]
        names = await tenant_names(rt, set(tenants))
        zones = await display_zones(rt, tenants, zone)
        now = utcnow()
        for t in tenants:
            facts = await rt.moderation.commitments(Actor.operator(t), session=session, include_closed=True)
            if members is not None:
                facts = [f for f in facts if members[t] in (f.subject, f.recipient)]
            views += [commitment_view(f, names, zones[t], now)
                      for f in sorted(facts, key=lambda f: (f.created_at, f.id))]
        return [v for v in views if status is None or v["status"] == status]

    views = with_runtime(body)
    if as_json:
        print(json.dumps(views, ensure_ascii=False, indent=1))
    else:
        console.print(commitments_table(views))


@app.command("done")
def commitments_done(
    fact_id: Annotated[str, typer.Argument(help="a commitment id (a unique prefix is enough)")],
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
    reason: Annotated[str, typer.Option(help="why (kept in the audit trail)")] = "",
) -> None:
    """Mark a commitment done: its reminder will not fire."""

    async def body(rt: Runtime) -> Fact:
        return await find_in_tenants(
            rt, tenant, lambda actor: rt.moderation.commitment_done(actor, fact_id, reason), f"the commitment {fact_id}"
        )

    fact = with_runtime(body)
    console.print(f"done: {fact.subject_name or fact.subject} — {fact.value}", markup=False)


@app.command("snooze")
def commitments_snooze(
    fact_id: Annotated[str, typer.Argument(help="a commitment id (a unique prefix is enough)")],
    until: Annotated[str, typer.Argument(help="the new due time, ISO-8601 with an offset, e.g. 2026-12-01T15:00+08:00")],
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
    reason: Annotated[str, typer.Option(help="why (kept in the audit trail)")] = "",
) -> None:
    """Move a commitment's due time; its follow-up moves with it."""
    try:
        when = datetime.fromisoformat(until)
    except ValueError:
        raise fail(f"{until!r} is not an ISO-8601 time (e.g. 2026-12-01T15:00+08:00)") from None
    if when.tzinfo is None:
        raise fail(f"{until!r} has no UTC offset; add one, e.g. +08:00 or Z")

    async def body(rt: Runtime) -> Fact:
        return await find_in_tenants(
            rt, tenant, lambda actor: rt.moderation.commitment_snooze(actor, fact_id, when, reason),
            f"the commitment {fact_id}",
        )

    fact = with_runtime(body)
    from bot.text.clock import show_time
    from bot.text.zones import offset_name

    due = show_time(fact.due_at, offset_name(fact.due_at) or "UTC", "en") if fact.due_at else "-"
    console.print(f"snoozed: {fact.subject_name or fact.subject} — {fact.value}, due {due}", markup=False)
