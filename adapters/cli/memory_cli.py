"""``heyan memory``: the local operator reviews what Heyan remembers, through the moderation service.

Every command is the service's method called with ``Actor.operator(tenant)`` (all capabilities, no
rate limit) and rendered for the terminal; the same checks, audit entries and messages as on the
platforms. Without ``--tenant``, list-like commands cover every tenant and id lookups search them all.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.table import Table
from rich.text import Text

from adapters.cli.cli_common import (
    SESSION_HELP,
    TENANT_HELP,
    console,
    fail,
    find_in_tenants,
    one_of,
    run,
    tenant_names,
    with_runtime,
)
from adapters.cli.cli_people import checked_tenants, member_in, members_in
from adapters.cli.cli_style import Typer
from adapters.cli.clock_cli import ZONE_HELP, checked_zone, display_zones
from bot.actors import Actor
from bot.text import kinds
from bot.text.clock import show_due
from memory.models import Fact, FactStatus, Scope, utcnow
from memory.normalize import escape_controls

if TYPE_CHECKING:  # the commands import what they use: `heyan --help` stays light
    from adapters.runtime.composition import Runtime
    from bot.moderation import ReviewPage
    from bot.privacy.audit import AuditEntry
    from bot.privacy.erasure import ErasureReport
    from bot.text.names import TenantNames

__all__ = ["app", "as_records", "listed"]

app = Typer(no_args_is_help=True, help="Review what Heyan remembers.")

ID_HELP = "a memory id (a unique prefix of at least 4 characters is enough)"
REASON_HELP = "why (kept in the audit trail)"
KIND_HELP = "only this kind: " + ", ".join(kinds.LABELS) + " (or consensus: agreements and refusals)"
STATUS_HELP = "only this status: " + ", ".join(s.value for s in FactStatus)


def _kind(value: str | None) -> str | None:
    """A kind filter in any of its names (``bot.text.kinds``); refused with the accepted ones."""
    if value is None:
        return None
    try:
        kinds.parse(value)
    except ValueError as exc:
        raise fail(str(exc)) from None
    return value


def _status(value: str | None) -> FactStatus | None:
    return None if value is None else FactStatus(one_of("status", value, [s.value for s in FactStatus]))


@app.command("list")
def memory_list(
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
    session: Annotated[str | None, typer.Option(help=SESSION_HELP)] = None,
    user: Annotated[str | None, typer.Option(help="facts about or from this member (a name or a user id)")] = None,
    kind: Annotated[str | None, typer.Option(help=KIND_HELP)] = None,
    status: Annotated[str | None, typer.Option(help=STATUS_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
    zone: Annotated[str | None, typer.Option(help=ZONE_HELP)] = None,
) -> None:
    """List remembered facts with their weight (use, recency, confirmation, dispute state; 0-1) — the
    tenant column appears when there are several tenants."""
    from adapters.cli.views import memory_table

    k, st = _kind(kind), _status(status)
    checked_zone(zone)

    async def body(rt: Runtime) -> tuple[list[Fact], TenantNames, dict[str, str]]:
        facts = await listed(rt, tenant=tenant, session=session, user=user, kind=k, status=st)
        shown = {f.tenant for f in facts}
        return facts, await tenant_names(rt, shown), await display_zones(rt, shown, zone)

    facts, names, zones = with_runtime(body)
    now = utcnow()
    if as_json:
        print(json.dumps(as_records(facts, now), ensure_ascii=False, indent=1))
    else:
        console.print(memory_table(facts, f"{len(facts)} memories", names, zones, now))


async def listed(rt: Runtime, *, tenant: str | None = None, session: str | None = None, user: str | None = None,
                 kind: str | None = None, status: FactStatus | None = None) -> list[Fact]:
    """What ``heyan memory list`` lists: the facts of one tenant or of all, filtered."""
    facts: list[Fact] = []
    tenants = await checked_tenants(rt, tenant)
    users: dict[str, str | None] = dict.fromkeys(tenants)
    if user is not None:
        users = {**await members_in(rt, tenants, user)}
    for t, member in users.items():
        facts += await rt.moderation.memory_list(Actor.operator(t), user=member, kind=kind, status=status,
                                                 session=session)
    return facts


def as_records(facts: list[Fact], now: datetime) -> list[dict[str, object]]:
    """``heyan memory list --json``: every stored field, and the weight as the table shows it
    (memory.recall.importance)."""
    from adapters.cli.views import fact_view
    from memory.recall.importance import weight

    return [fact_view(f) | {"weight": weight(f, now)} for f in facts]


def _one(fact_id: str, tenant: str | None, call_name: str, *args: str) -> Fact:
    async def body(rt: Runtime) -> Fact:
        method = getattr(rt.moderation, call_name)
        return await find_in_tenants(rt, tenant, lambda actor: method(actor, fact_id, *args), f"the id {fact_id}")

    return with_runtime(body)


@app.command("show")
def memory_show(
    fact_id: Annotated[str, typer.Argument(help=ID_HELP)],
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a pretty print")] = False,
) -> None:
    """Show one memory with its sources and history."""
    from adapters.cli.views import fact_view

    fact = _one(fact_id, tenant, "memory_show")
    if as_json:
        print(json.dumps(fact_view(fact), ensure_ascii=False, indent=1))
    else:
        console.print_json(json.dumps(fact_view(fact), ensure_ascii=False))


@app.command("history")
def memory_history(
    fact_id: Annotated[str, typer.Argument(help=ID_HELP)],
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of tables")] = False,
) -> None:
    """A memory's versions, and who changed it, when and why."""
    from adapters.cli.views import audit_table

    async def body(rt: Runtime) -> tuple[Fact, list[AuditEntry]]:
        return await find_in_tenants(rt, tenant, lambda actor: rt.moderation.memory_history(actor, fact_id),
                                     f"the id {fact_id}")

    fact, entries = with_runtime(body)
    versions: list[dict[str, object]] = [{"version": h.version, "value": h.value, "status": h.status.value, "asserted_by": h.asserted_by,
                 "from": h.valid_from.isoformat(), "to": h.valid_to.isoformat()} for h in fact.history]
    versions.append({"version": fact.version, "value": fact.value, "status": fact.status_at(utcnow()).value,
                     "asserted_by": fact.asserted_by, "from": fact.valid_from.isoformat(), "to": None})
    if as_json:
        print(json.dumps({"id": fact.id, "versions": versions, "changes": [e.as_dict() for e in entries]},
                         ensure_ascii=False, indent=1))
        return
    table = Table(title=f"{fact.id[:8]}: {len(versions)} versions")
    for col in ("version", "value", "status", "said by", "from (UTC)", "to (UTC)"):
        table.add_column(col, overflow="fold")
    for v in versions:
        table.add_row(str(v["version"]), escape_controls(str(v["value"])), str(v["status"]),
                      escape_controls(str(v["asserted_by"])), _utc(v["from"]), _utc(v["to"]) if v["to"] else "now")
    console.print(table)
    console.print(audit_table(entries, f"{len(entries)} changes"))


def _utc(iso: object) -> str:
    """An ISO time of a version as a cell of a column headed "(UTC)"."""
    from bot.text.clock import show_stamp

    return show_stamp(datetime.fromisoformat(str(iso)), "UTC")


@app.command("edit")
def memory_edit(
    fact_id: Annotated[str, typer.Argument(help=ID_HELP)],
    value: Annotated[str, typer.Argument(help="what the memory should say")],
    reason: Annotated[str, typer.Option(help=REASON_HELP)] = "",
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
) -> None:
    """Correct a memory's value (the old value stays in its history)."""
    fact = _one(fact_id, tenant, "memory_edit", value, reason)
    console.print(f"edited {fact.id[:8]} (version {fact.version}): {fact.value}", markup=False)


@app.command("delete")
def memory_delete(
    fact_id: Annotated[str, typer.Argument(help=ID_HELP)],
    reason: Annotated[str, typer.Option(help=REASON_HELP)] = "",
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
) -> None:
    """Delete a memory everywhere it is stored."""
    fact = _one(fact_id, tenant, "memory_delete", reason)
    console.print(f"deleted {fact.id[:8]} ({fact.kind.value} of {fact.subject_name or fact.subject})", markup=False)


@app.command("confirm")
def memory_confirm(
    fact_id: Annotated[str, typer.Argument(help=ID_HELP)],
    reason: Annotated[str, typer.Option(help=REASON_HELP)] = "",
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
) -> None:
    """Confirm a disputed, unverified or low-confidence memory; a flagged one is confirmed as an
    ordinary message: it is read again and what it says is remembered (listed here)."""
    from bot.moderation.views import Recovered
    from bot.text.kinds import label as kind_label

    async def body(rt: Runtime) -> Fact | Recovered:
        async def confirm(actor: Actor) -> Fact | Recovered:
            found = await rt.moderation.memory_show(actor, fact_id)
            if found.status is FactStatus.FLAGGED:
                return await rt.moderation.recover_flagged(actor, fact_id, reason)
            return await rt.moderation.memory_confirm(actor, fact_id, reason)

        return await find_in_tenants(rt, tenant, confirm, f"the id {fact_id}")

    done = with_runtime(body)
    if isinstance(done, Fact):
        console.print(f"confirmed {done.id[:8]}: {done.status.value}", markup=False)
        return
    lines = [f"confirmed {done.retired.id[:8]} as an ordinary message (the flag is retired); "
             f"{len(done.recovered)} memor{'y' if len(done.recovered) == 1 else 'ies'} read from it:"]
    lines += [f"  {f.id[:8]} {kind_label(f)}: {f.value}" + (f" (due {show_due(f.due_at, 'UTC', 'en')})" if f.due_at else "")
              for f in done.recovered]
    console.print("\n".join(lines), markup=False)


@app.command("reject")
def memory_reject(
    fact_id: Annotated[str, typer.Argument(help=ID_HELP)],
    reason: Annotated[str, typer.Option(help=REASON_HELP)] = "",
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
) -> None:
    """Reject a memory as wrong: kept for the record, never recalled."""
    fact = _one(fact_id, tenant, "memory_reject", reason)
    console.print(f"rejected {fact.id[:8]}", markup=False)


@app.command("review")
def memory_review(
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
) -> None:
    """The review queue: disputed, unverified and low-confidence memories."""
    from adapters.cli.views import fact_view, memory_table

    async def body(rt: Runtime) -> tuple[list[Fact], TenantNames]:
        facts: list[Fact] = []
        for t in await checked_tenants(rt, tenant):
            page: ReviewPage = await rt.moderation.review_queue(Actor.operator(t), limit=10_000)
            facts += page.items
        return facts, await tenant_names(rt, {f.tenant for f in facts})

    facts, names = with_runtime(body)
    if as_json:
        print(json.dumps([fact_view(f) for f in facts], ensure_ascii=False, indent=1))
    else:
        console.print(memory_table(facts, f"{len(facts)} memories to review", names))


async def _tenants_of_user(rt: Runtime, tenant: str | None, user: str) -> list[str]:
    """``[tenant]``, or every tenant holding a memory or summary of ``user``."""
    if tenant:
        return [tenant]
    found = []
    for t in sorted(set(await rt.store.tenants("facts")) | set(await rt.store.tenants("summaries"))):
        scope = Scope(tenant=t, user=user)
        if await rt.store.count("facts", scope) or await rt.store.count("summaries", scope):
            found.append(t)
    return found


@app.command("export")
def memory_export(
    user: Annotated[str, typer.Option(help="the member (a name or a user id)")],
    tenant: Annotated[str | None, typer.Option(help=TENANT_HELP)] = None,
    out: Annotated[Path | None, typer.Option(help="write the JSON here instead of stdout")] = None,
) -> None:
    """Everything Heyan holds about or from one member (in one tenant or all), as JSON."""
    from bot.config.settings import load_settings

    async def body(rt: Runtime) -> dict[str, object]:
        if tenant:
            member = await member_in(rt, await rt.moderation.check_tenant(tenant), user)
            return await rt.moderation.export_member(Actor.operator(tenant), member)
        held = sorted(set(await rt.store.tenants("facts")) | set(await rt.store.tenants("summaries")))
        found = await members_in(rt, held, user)
        exports = [await rt.moderation.export_member(Actor.operator(t), member) for t, member in found.items()]
        ids = set(found.values())
        return {"user": ids.pop() if len(ids) == 1 else user, "tenants": exports}

    data = with_runtime(body)
    text = json.dumps(data, ensure_ascii=False, indent=1)
    if out is None:
        folder = load_settings().privacy.export_dir
        if folder is None:
            print(text)
            return
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        stamp = utcnow().strftime("%Y%m%dT%H%M%SZ")
        out = folder / f"{(tenant or 'all').replace(':', '_')}-{user.replace(':', '_')}-{stamp}.json"
    out.write_text(text + "\n", encoding="utf-8")
    out.chmod(0o600)  # it is a member's personal data
    console.print(f"wrote {out}", markup=False)


#: What an erasure reports per store, as the table names it.
_ERASED = {
    "facts": "memories deleted", "summaries_rewritten": "summaries rolled back (their words out)",
    "summaries_deleted": "summaries deleted", "messages": "messages (conversation windows)",
    "posts": "outbox posts emptied", "audit_entries": "audit entries scrubbed",
    "dead_letters": "dead-letter details dropped", "disputes": "dispute titles cleared",
}


def _erasure_table(report: ErasureReport) -> Table:
    table = Table(title=Text(f"erased {report.user} in {report.tenant} (only there)"), title_justify="left")
    table.add_column("store")
    table.add_column("removed", justify="right")
    for key, count in report.counts().items():
        table.add_row(_ERASED.get(key, key), str(count))
    return table


@app.command("forget")
def memory_forget(
    user: Annotated[str, typer.Option(help="the member's user id")],
    tenant: Annotated[str | None, typer.Option(help="erase in this tenant only, e.g. discord:<guild id>")] = None,
    all_tenants: Annotated[bool, typer.Option("--all-tenants", help="erase in every tenant holding their records")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="do not ask for confirmation")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
) -> None:
    """Erase everything about or from one member in one tenant — memories, their words in summaries,
    their messages, posts, audit details, dead-letter details — and print what went per store.
    A member with records in several tenants is erased only where asked: --tenant T, or every
    tenant with --all-tenants."""
    if tenant and all_tenants:
        raise fail("give --tenant T or --all-tenants, not both")

    async def body(rt: Runtime) -> tuple[list[ErasureReport], list[str]]:
        holding = await _tenants_of_user(rt, None, user)
        if tenant or all_tenants:
            targets = [tenant] if tenant else holding
        elif len(holding) > 1:
            raise fail(f"{user} has memories in {len(holding)} tenants ({', '.join(holding)}): give --tenant T to "
                       "erase in one of them, or --all-tenants to erase in every one")
        elif not holding:
            raise fail(f"no memories or summaries of {user} in any tenant; give --tenant T to erase their "
                       "messages, posts and audit details there")
        else:
            targets = holding
        requests = [(t, await rt.moderation.request_erasure(Actor.operator(t), user)) for t in targets]
        others = [t for t in holding if t not in targets]
        if not yes:
            facts = sum(r.facts for _, r in requests)
            summaries = sum(r.summaries for _, r in requests)
            where = ", ".join(targets) + (f" only (not {', '.join(others)})" if others else "")
            if not typer.confirm(f"erase {facts} memories of {user}, and their words in {summaries} summaries, "
                                 f"in {where}?", default=False):
                raise typer.Exit(1)
        reports = [await rt.moderation.erase_member(Actor.operator(t), r.token, user) for t, r in requests]
        return reports, others

    reports, others = with_runtime(body)
    if as_json:
        print(json.dumps({"user": user, "erased": [r.as_dict() for r in reports], "not_erased_in": others},
                         ensure_ascii=False, indent=1))
        return
    for report in reports:
        console.print(_erasure_table(report))
    if others:
        console.print(f"{user} also has memories in {', '.join(others)}: not erased there "
                      f"(run with --tenant {others[0]})", markup=False)


@app.command("audit")
def memory_audit(
    tenant: Annotated[str, typer.Option(help="the tenant, e.g. discord:<guild id>")],
    user: Annotated[str | None, typer.Option(help="only entries concerning this member (a name or a user id)")] = None,
    limit: Annotated[int, typer.Option(min=1, help="newest entries to show")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
) -> None:
    """Who changed what, when and why (newest first)."""
    from adapters.cli.views import audit_table

    async def body(rt: Runtime) -> list[AuditEntry]:
        await rt.moderation.check_tenant(tenant)
        member = await member_in(rt, tenant, user) if user else None
        return await rt.moderation.audit_log(Actor.operator(tenant), user=member, limit=limit)

    entries = with_runtime(body)
    if as_json:
        print(json.dumps([e.as_dict() for e in entries], ensure_ascii=False, indent=1))
    else:
        console.print(audit_table(entries, f"{len(entries)} audit entries in {tenant}"))


@app.command("reindex")
def memory_reindex() -> None:
    """Re-embed every memory with the configured embedder (after changing HEYAN_EMBEDDER)."""
    from adapters.maintenance.reindex import reindex

    outcome = run(lambda s: reindex(s, console=console))
    console.print(outcome.note, markup=False)
    console.print(f"re-indexed {outcome.total} records")


@app.command("migrate")
def memory_migrate(
    to: Annotated[str, typer.Option("--to", help="server (HEYAN_QDRANT_URL) or edge (the embedded store)")],
    merge: Annotated[bool, typer.Option("--merge", help="combine with what the target already holds")] = False,
) -> None:
    """Move every memory between the embedded store and a Qdrant server; safe to re-run."""
    from adapters.maintenance.migrate import counts_table, migrate

    if to not in ("server", "edge"):
        raise fail(f"--to must be server or edge, not {to!r}")
    direction: Literal["server", "edge"] = "server" if to == "server" else "edge"
    outcome = run(lambda s: migrate(s, to=direction, merge_target=merge, console=console))
    console.print(counts_table(outcome, f"{outcome.total} records in the {direction} store"))
    console.print(outcome.note, markup=False)
