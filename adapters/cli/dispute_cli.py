"""``heyan dispute``: a dispute's agreement card and common ground, at the console, as the local
operator (or as a named member, for what only they may do: confirm a card, endorse a statement) —
through the moderation service, like ``/dispute`` on Discord and ``/heyan dispute`` on Slack.

Posts the service makes (the card, the statements) go to the tenant's outbox; a console tenant's are
printed by the next ``heyan chat`` in that data dir, a Discord or Slack tenant's by ``heyan run``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from adapters.cli.cli_common import NOW_HELP, console, parse_time, with_runtime
from adapters.cli.cli_style import Typer

if TYPE_CHECKING:  # the commands import what they use: `heyan --help` stays light
    from adapters.runtime.composition import Runtime
    from bot.actors import Actor
    from bot.moderation import CardOutcome, GroundView

__all__ = ["app", "member_actor"]

app = Typer(no_args_is_help=True, help="A dispute's agreement card and common ground.")

TENANT = "the tenant, e.g. console:local or discord:<guild id>"
SESSION = "the thread or channel id of the dispute"
def member_actor(tenant: str, user: str, name: str = "") -> Actor:
    """A member acting for themself at the console (no moderator capability, not rate limited)."""
    from bot.actors import Actor

    return Actor(tenant=tenant, user_id=user, name=name or user, unlimited=True)


def _emit(outcome: CardOutcome, as_json: bool) -> None:
    data: dict[str, Any] = {"state": outcome.state, "changed": outcome.changed,
                            "votes": outcome.votes.as_dict() if outcome.votes else None,
                            "record": outcome.stored.id if outcome.stored else None, **outcome.card.as_dict()}
    if outcome.closed is not None:
        data["closed"] = {"summary": outcome.closed.summary.id if outcome.closed.summary else None,
                          "cancelled_followups": outcome.closed.cancelled_followups}
    if as_json:
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return
    console.print(outcome.card.body(ask=False).plain(), markup=False, highlight=False)
    if outcome.changed:
        console.print("memory changed since the card was posted: a new card was posted for confirmation",
                      markup=False)
    if outcome.closed is not None:
        console.print(f"dispute closed ({outcome.closed.cancelled_followups} follow-ups cancelled)", markup=False)
    elif outcome.votes is not None:
        v = outcome.votes
        pending = ", ".join(outcome.card.participants.get(u, u) for u in v.pending) or "nobody"
        console.print(f"card {v.card_id}: {v.state.value}; waiting for {pending}", markup=False)


@app.command("close")
def dispute_close(
    tenant: Annotated[str, typer.Option(help=TENANT)],
    session: Annotated[str, typer.Option(help=SESSION)],
    reason: Annotated[str, typer.Option(help="why (kept in the audit trail)")] = "",
    force: Annotated[bool, typer.Option("--force", help="close now, without the parties' confirmation")] = False,
    now: Annotated[str | None, typer.Option(help=NOW_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="the card as JSON")] = False,
) -> None:
    """Close a dispute with its agreement card: posted for the participants to confirm (the dispute
    closes when all have); nothing agreed: the card says so and the dispute closes now."""
    when = parse_time(now)

    async def body(rt: Runtime) -> CardOutcome:
        from bot.actors import Actor

        return await rt.moderation.dispute_close_card(Actor.operator(tenant), session, reason, now=when,
                                                      force=force)

    _emit(with_runtime(body), as_json)


@app.command("card")
def dispute_card(
    tenant: Annotated[str, typer.Option(help=TENANT)],
    session: Annotated[str, typer.Option(help=SESSION)],
    now: Annotated[str | None, typer.Option(help=NOW_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="the card as JSON")] = False,
) -> None:
    """Show the agreement card memory holds for a session now, and who confirmed it (changes nothing)."""
    when = parse_time(now)

    async def body(rt: Runtime) -> CardOutcome:
        from bot.actors import Actor

        return await rt.moderation.agreement_card(Actor.operator(tenant), session, now=when)

    _emit(with_runtime(body), as_json)


@app.command("confirm-card")
def dispute_confirm_card(
    tenant: Annotated[str, typer.Option(help=TENANT)],
    session: Annotated[str, typer.Option(help=SESSION)],
    user: Annotated[str, typer.Option(help="the participant confirming (their user id)")],
    card: Annotated[str | None, typer.Option(help="the card id you were shown (refused if it was replaced)")] = None,
    refuse: Annotated[bool, typer.Option("--refuse", help="refuse the card instead (say why with --reason)")] = False,
    reason: Annotated[str, typer.Option(help="why you refuse (posted and kept in the audit trail)")] = "",
    now: Annotated[str | None, typer.Option(help=NOW_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="the card and its confirmations as JSON")] = False,
) -> None:
    """Confirm (or with --refuse, refuse) the agreement card waiting in a session, as one participant."""
    when = parse_time(now)

    async def body(rt: Runtime) -> CardOutcome:
        actor = member_actor(tenant, user)
        if refuse:
            return await rt.moderation.card_refuse(actor, session, reason, card)
        return await rt.moderation.card_confirm(actor, session, card, now=when)

    _emit(with_runtime(body), as_json)


def _emit_ground(view: GroundView, as_json: bool) -> None:
    if as_json:
        print(json.dumps(view.as_dict(), ensure_ascii=False, indent=1))
        return
    for n, statement in enumerate(view.statements, 1):
        marks = []
        if statement.id in view.endorsed:
            marks.append(f"endorsed by {view.user}")
        if statement.id in view.posted:
            marks.append("endorsed by everyone: posted")
        tail = f"  ({'; '.join(marks)})" if marks else ""
        console.print(f"{n}. [{statement.id}] {statement.text}{tail}", markup=False, highlight=False)
    who = ", ".join(view.participants.values())
    console.print(f"asked privately: {who} ({view.source} statements, round {view.round_id})", markup=False)


@app.command("common-ground")
def dispute_common_ground(
    tenant: Annotated[str, typer.Option(help=TENANT)],
    session: Annotated[str, typer.Option(help=SESSION)],
    user: Annotated[str | None, typer.Option(help="show the statements as this participant sees them (no new draft)")]
    = None,
    now: Annotated[str | None, typer.Option(help=NOW_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="the statements as JSON")] = False,
) -> None:
    """Draft 2-3 neutral statements of common ground from each side's demands and feelings, and ask each
    party privately which they endorse (with --user: show one party's view of the current statements)."""
    when = parse_time(now)

    async def body(rt: Runtime) -> GroundView:
        from bot.actors import Actor

        if user is not None:
            return await rt.moderation.common_ground_view(member_actor(tenant, user), session)
        return await rt.moderation.common_ground_draft(Actor.operator(tenant), session, now=when)

    _emit_ground(with_runtime(body), as_json)


@app.command("endorse")
def dispute_endorse(
    tenant: Annotated[str, typer.Option(help=TENANT)],
    session: Annotated[str, typer.Option(help=SESSION)],
    user: Annotated[str, typer.Option(help="the participant endorsing (their user id)")],
    statement: Annotated[list[str], typer.Option(help="a statement's number or id (repeat for several)")],
    as_json: Annotated[bool, typer.Option("--json", help="the statements as JSON")] = False,
) -> None:
    """Endorse statements of common ground as one participant (replaces their earlier choice); a
    statement every party endorsed is posted and remembered."""

    async def body(rt: Runtime) -> GroundView:
        return await rt.moderation.common_ground_endorse(member_actor(tenant, user), session, statement)

    _emit_ground(with_runtime(body), as_json)
