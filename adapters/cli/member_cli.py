"""``heyan member``: a member's promise-keeping record, as the local operator (a moderator's view); the
member named by their name or user id."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from adapters.cli.cli_common import NOW_HELP, console, parse_time, with_runtime
from adapters.cli.cli_style import Typer
from adapters.cli.clock_cli import ZONE_HELP, checked_zone, display_zones
from adapters.cli.dispute_cli import TENANT

if TYPE_CHECKING:  # the commands import what they use: `heyan --help` stays light
    from adapters.runtime.composition import Runtime
    from bot.agreements.promises import PromiseRecord
    from memory.models import Fact

__all__ = ["app"]

app = Typer(no_args_is_help=True, help="What Heyan knows of a member's promises.")


@app.command("record")
def member_record(
    tenant: Annotated[str, typer.Option(help=TENANT)],
    user: Annotated[str, typer.Option(help="the member: their name (as Heyan knows it) or user id")],
    now: Annotated[str | None, typer.Option(help=NOW_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="the record as JSON")] = False,
    zone: Annotated[str | None, typer.Option(help=ZONE_HELP)] = None,
) -> None:
    """A member's promise-keeping record: kept on time, kept late, overdue, cancelled (and not due yet),
    each commitment listed with its id, whom it was made to, its action and due time. A name nobody
    in the community goes by is refused with the closest ones."""
    when = parse_time(now)
    checked_zone(zone)

    async def body(rt: Runtime) -> tuple[PromiseRecord, dict[str, Fact], str]:
        from adapters.cli.cli_people import member_in
        from bot.actors import Actor
        from memory.models import Kind

        await rt.moderation.check_tenant(tenant)
        member = await member_in(rt, tenant, user)
        actor = Actor.operator(tenant)
        record = await rt.moderation.promise_record(actor, member, now=when)
        facts = await rt.moderation.memory_list(actor, user=member, kind=Kind.COMMITMENT)
        shown = (await display_zones(rt, [tenant], zone))[tenant]
        return record, {f.id: f for f in facts}, shown

    record, facts, shown = with_runtime(body)
    from bot.moderation.views import commitment_line

    if as_json:
        data = record.as_dict()
        for line in data["commitments"]:
            fact = facts.get(line["id"])
            if fact is not None:
                view = commitment_line(fact, zone=shown, now=record.as_of).as_dict()
                line.update({k: view[k] for k in ("recipient", "recipient_name", "condition", "timezone", "due")})
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return
    from adapters.cli.views import promise_record_table

    console.print(record.text("en"), markup=False, highlight=False)
    if record.lines:
        console.print(promise_record_table(record, facts, shown))
