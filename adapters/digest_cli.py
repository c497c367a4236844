"""``heyan digest``: the moderators' digest of one community, as the local operator."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from adapters.cli_common import console, fail, with_runtime
from adapters.dispute_cli import NOW_HELP, TENANT, parse_time

if TYPE_CHECKING:  # the command imports what it uses: `heyan --help` stays light
    from adapters.runtime import Runtime
    from bot.digest import Digest

__all__ = ["digest"]


def digest(
    tenant: Annotated[str, typer.Option(help=TENANT)],
    period: Annotated[str | None, typer.Option(help="daily or weekly (default: the community's digest_schedule)")]
    = None,
    days: Annotated[float, typer.Option(help="list disputes open longer than this many days")] = 7.0,
    now: Annotated[str | None, typer.Option(help=NOW_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="the digest as JSON")] = False,
) -> None:
    """The moderators' digest: overdue and due-soon commitments, disputes open longer than N days, the
    review queue, erasures done and escalation alerts sent."""
    when = parse_time(now)
    if period is not None and period not in ("daily", "weekly"):
        raise fail(f"unknown period {period!r}; use daily or weekly")
    if days < 0:
        raise fail("--days must be 0 or more")

    async def body(rt: Runtime) -> Digest:
        from bot.actors import Actor

        chosen: Literal["daily", "weekly"] | None = "weekly" if period == "weekly" else (
            "daily" if period == "daily" else None)
        return await rt.moderation.digest(Actor.operator(tenant), now=when, period=chosen, stale_days=days)

    result = with_runtime(body)
    if as_json:
        print(json.dumps(result.as_dict(), ensure_ascii=False, indent=1))
        return
    from adapters.features_views import digest_tables

    console.print(result.body().plain(), markup=False, highlight=False)
    if result.undeliverable:
        channel, error = result.undeliverable
        console.print(f"notice: Heyan cannot post in the moderators' channel {channel} ({error}); set another "
                      "digest_channel", markup=False)
    for table in digest_tables(result):
        console.print(table)
