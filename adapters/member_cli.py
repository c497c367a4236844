"""``heyan member``: a member's promise-keeping record, as the local operator (a moderator's view)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from adapters.cli_common import NOW_HELP, console, parse_time, with_runtime
from adapters.cli_style import Typer
from adapters.dispute_cli import TENANT

if TYPE_CHECKING:  # the commands import what they use: `heyan --help` stays light
    from adapters.runtime import Runtime
    from bot.promises import PromiseRecord

__all__ = ["app"]

app = Typer(no_args_is_help=True, help="What Heyan knows of a member's promises.")


@app.command("record")
def member_record(
    tenant: Annotated[str, typer.Option(help=TENANT)],
    user: Annotated[str, typer.Option(help="the member's user id")],
    now: Annotated[str | None, typer.Option(help=NOW_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="the record as JSON")] = False,
) -> None:
    """A member's promise-keeping record: kept on time, kept late, overdue, cancelled (and not due yet),
    each commitment listed with its id."""
    when = parse_time(now)

    async def body(rt: Runtime) -> PromiseRecord:
        from bot.actors import Actor

        return await rt.moderation.promise_record(Actor.operator(tenant), user, now=when)

    record = with_runtime(body)
    if as_json:
        print(json.dumps(record.as_dict(), ensure_ascii=False, indent=1))
        return
    from adapters.features_views import promise_table

    console.print(record.text("en"), markup=False, highlight=False)
    if record.lines:
        console.print(promise_table(record))
