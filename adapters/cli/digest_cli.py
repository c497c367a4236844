"""``heyan digest``: the moderators' digest of one community, as the local operator."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from adapters.cli.cli_common import NOW_HELP, console, fail, parse_time, with_runtime
from adapters.cli.dispute_cli import TENANT

if TYPE_CHECKING:  # the command imports what it uses: `heyan --help` stays light
    from adapters.runtime.composition import Runtime
    from bot.agreements.digest import Digest

__all__ = ["digest"]


def digest(
    tenant: Annotated[str, typer.Option(help=TENANT)],
    period: Annotated[str | None, typer.Option(help="daily or weekly (default: the community's digest_schedule)")]
    = None,
    days: Annotated[float, typer.Option(help="list disputes open longer than this many days")] = 7.0,
    channel: Annotated[str | None, typer.Option(help="first set the moderators' channel (digests and alerts go there; "
                                                     "'' for none)")] = None,
    schedule: Annotated[str | None, typer.Option(help="first set how often it is posted: daily, weekly or off")]
    = None,
    now: Annotated[str | None, typer.Option(help=NOW_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="the digest as JSON")] = False,
) -> None:
    """The moderators' digest: overdue and due-soon commitments, disputes open longer than N days, the
    review queue, erasures done and escalation alerts sent (--channel / --schedule set where and how
    often it is posted, audited like any settings change)."""
    when = parse_time(now)
    if period is not None and period not in ("daily", "weekly"):
        raise fail(f"unknown period {period!r}; use daily or weekly")
    if days < 0:
        raise fail("--days must be 0 or more")

    if schedule is not None and schedule not in ("daily", "weekly", "off"):
        raise fail(f"unknown schedule {schedule!r}; use daily, weekly or off")

    async def body(rt: Runtime) -> Digest:
        from bot.actors import Actor

        values = {k: v for k, v in (("digest_channel", channel), ("digest_schedule", schedule)) if v is not None}
        if values:
            await rt.moderation.update_community_settings(Actor.operator(tenant), **values)

        chosen: Literal["daily", "weekly"] | None = "weekly" if period == "weekly" else (
            "daily" if period == "daily" else None)
        return await rt.moderation.digest(Actor.operator(tenant), now=when, period=chosen, stale_days=days)

    result = with_runtime(body)
    if as_json:
        print(json.dumps(result.as_dict(), ensure_ascii=False, indent=1))
        return
    from adapters.cli.digest_views import digest_tables

    console.print(result.body().plain(), markup=False, highlight=False)
    if result.undeliverable:
        channel, error = result.undeliverable
        console.print(f"notice: Heyan cannot post in the moderators' channel {channel} ({error}); set another "
                      "digest_channel", markup=False)
    for table in digest_tables(result):
        console.print(table)
