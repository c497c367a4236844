"""Slack events → the engine: mentions answered in their thread, dispute threads remembered,
edits re-read, deletions taken back, the Home tab, and leaving a workspace.

bolt acks every event before these listeners run (``process_before_response`` stays off), so Slack
gets its answer within its 3 s and the mediator takes the time it needs. Each listener decides from
the payload alone whether the event concerns Heyan, then claims it in ``EventGate`` (Slack retries
and bolt does not dedupe), then calls one engine method. What became of it goes to ``Outcomes``.

* ``app_mention`` and direct messages: ``Engine.handle`` and a reply in the thread (a reply to a
  top-level mention starts a thread under it; a DM is answered in the DM).
* Other messages: observed only where a dispute is open (``SessionBook.is_open``). Messages that
  mention the bot are left to ``app_mention``, which Slack sends for the same message.
* ``message_changed`` → ``Engine.revise``; ``message_deleted`` → ``Engine.retract``; both only in
  sessions Heyan has seen.
* ``app_uninstalled`` / ``tokens_revoked`` (the bot token) → ``bot.departures.tenant_left``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta
from typing import Any

from slack_bolt.async_app import AsyncApp

from adapters.slack.bridge import Bridge
from adapters.slack.home import publish_home
from adapters.slack.mapping import message_id, session_of, tenant_from
from bot.delivery import DeliveryError
from bot.departures import tenant_left
from bot.limits import SlowDown
from bot.models import Message, Reply
from bot.outbox import Post, PostKind
from memory.models import Scope, utcnow

__all__ = ["register"]

log = logging.getLogger(__name__)


Work = Callable[[str], Awaitable[str]]


async def _deliver(bridge: Bridge, body: Mapping[str, Any], context: Mapping[str, Any], work: Work,
                   *, message: str | None = None) -> None:
    """Run ``work(tenant)`` once per delivery id (and ``client_msg_id``), recording the outcome.
    A failure is logged with the event, its claim released so Slack's retry can try again."""
    event_id = str(body.get("event_id") or "")
    try:
        tenant = await bridge.tenant(context, body)
        ids = (f"event:{event_id}" if event_id else None, f"msg:{message}" if message else None)
        async with bridge.gate.first(tenant, *ids) as fresh:
            outcome = await work(tenant) if fresh else "duplicate"
    except Exception:
        log.exception("Slack event %s (%s) failed", event_id, (body.get("event") or {}).get("type"))
        outcome = "failed"
    await bridge.outcomes.record(event_id, outcome)


async def _reply(bridge: Bridge, msg: Message, reply: Reply, channel: str, thread_ts: str | None) -> str:
    """Post the mediator's reply; a failure Slack may recover from (a rate limit, a network error)
    goes through the outbox — retried, and dead-lettered with the reason if it never goes out —
    rather than being lost. A permanent refusal (the bot was removed meanwhile) is logged."""
    try:
        await bridge.sender.post(channel, reply.body, thread_ts=thread_ts)
        return "replied"
    except DeliveryError as exc:
        if exc.permanent:
            log.error("reply to %s could not be posted: %s", msg.id, exc.reason)
            return "reply-failed"
        post = Post(id=f"reply:{msg.scope.tenant}:{msg.id}", tenant=msg.scope.tenant, session=msg.session,
                    body=reply.body, kind=PostKind.NOTICE, lang=reply.lang,
                    ref={"thread_ts": thread_ts} if thread_ts else {})
        await bridge.rt.outbox.append(post, not_before=utcnow() + timedelta(seconds=exc.retry_after or 0))
        log.warning("reply to %s queued in the outbox: %s", msg.id, exc.reason)
        return "reply-queued"


async def _addressed(bridge: Bridge, tenant: str, event: Mapping[str, Any], *, dm: bool) -> str:
    msg = await bridge.people.message(tenant, event, mention=True)
    reply = await bridge.rt.engine.handle(msg, confirm=True)
    if reply is None:
        return "not-answered"
    thread = event.get("thread_ts") or (None if dm else event.get("ts"))
    outcome = await _reply(bridge, msg, reply, str(event["channel"]), thread)
    if outcome != "reply-failed":  # posted, or safe in the outbox: answered
        await bridge.rt.engine.answered(msg)
    return outcome


def _from_a_person(event: Mapping[str, Any]) -> bool:
    return isinstance(event.get("user"), str) and not event.get("bot_id")


def register(app: AsyncApp, bridge: Bridge) -> None:
    """Add the event listeners to ``app`` (order matters: bolt runs the first listener that matches)."""

    @app.event("app_mention")
    async def on_mention(body: dict[str, Any], event: dict[str, Any], context: Any) -> None:
        if not _from_a_person(event):
            await bridge.outcomes.record(str(body.get("event_id") or ""), "ignored")
            return
        await _deliver(bridge, body, context, lambda tenant: _addressed(bridge, tenant, event, dm=False),
                       message=event.get("client_msg_id"))

    @app.event({"type": "message", "subtype": "message_changed"})
    async def on_changed(body: dict[str, Any], event: dict[str, Any], context: Any) -> None:
        new, old = event.get("message") or {}, event.get("previous_message") or {}

        async def work(tenant: str) -> str:
            msg = await bridge.people.message(tenant, {**new, "channel": event["channel"]}, mention=False)
            if await bridge.rt.sessions.get(tenant, msg.session) is None:
                return "ignored"  # never seen there: nothing was remembered from it
            await bridge.rt.engine.revise(msg)
            return "revised"

        if not _from_a_person(new) or new.get("text") == old.get("text"):
            await bridge.outcomes.record(str(body.get("event_id") or ""), "ignored")  # an unfurl, a bot
            return
        await _deliver(bridge, body, context, work)

    @app.event({"type": "message", "subtype": "message_deleted"})
    async def on_deleted(body: dict[str, Any], event: dict[str, Any], context: Any) -> None:
        async def work(tenant: str) -> str:
            channel, ts = str(event["channel"]), str(event["deleted_ts"])
            old = event.get("previous_message") or {}
            session = session_of(channel, old.get("thread_ts"), ts)
            if await bridge.rt.sessions.get(tenant, session) is None:
                return "ignored"
            await bridge.rt.engine.retract(Scope(tenant=tenant, session=session), message_id(channel, ts))
            return "retracted"

        await _deliver(bridge, body, context, work)

    @app.event({"type": "message", "subtype": (None, "thread_broadcast", "file_share")})
    async def on_message(body: dict[str, Any], event: dict[str, Any], context: Any) -> None:
        event_id = str(body.get("event_id") or "")
        if not _from_a_person(event):
            await bridge.outcomes.record(event_id, "ignored")
            return
        if event.get("channel_type") == "im":  # a direct message to Heyan addresses it
            await _deliver(bridge, body, context, lambda tenant: _addressed(bridge, tenant, event, dm=True),
                           message=event.get("client_msg_id"))
            return
        if f"<@{bridge.bot_user_id}>" in str(event.get("text") or ""):
            await bridge.outcomes.record(event_id, "ignored")  # app_mention brings the same message
            return

        async def work(tenant: str) -> str:
            msg = await bridge.people.message(tenant, event, mention=False)
            await bridge.rt.engine.observe(msg)
            return "observed"

        tenant = tenant_from(context, body)
        session = session_of(str(event.get("channel") or ""), event.get("thread_ts"), event.get("ts"))
        if not await bridge.rt.sessions.is_open(tenant, session):
            await bridge.outcomes.record(event_id, "ignored")  # no dispute here: not Heyan's business
            return
        await _deliver(bridge, body, context, work, message=event.get("client_msg_id"))

    @app.event("message")
    async def on_other_message(body: dict[str, Any]) -> None:
        """Joins, topics, bot posts and the other subtypes: acked (so Slack does not retry) and ignored."""
        await bridge.outcomes.record(str(body.get("event_id") or ""), "ignored")

    @app.event("app_home_opened")
    async def on_home(body: dict[str, Any], event: dict[str, Any], context: Any) -> None:
        async def work(tenant: str) -> str:
            try:
                await publish_home(bridge, await bridge.people.actor(tenant, str(event["user"])))
            except SlowDown:
                return "slow-down"  # opened too often: the tab keeps what it showed last
            return "home"

        if event.get("tab", "home") != "home":
            await bridge.outcomes.record(str(body.get("event_id") or ""), "ignored")
            return
        await _deliver(bridge, body, context, work)

    async def leave(body: dict[str, Any], context: Any) -> None:
        tenant = tenant_from(context, body)  # not bridge.tenant(): that would count as coming back
        grace = bridge.rt.settings.slack.leave_purge_days * 24 * 3600
        await tenant_left(bridge.rt.redis, bridge.rt.queue, tenant, grace_seconds=grace)
        bridge.left(tenant)
        await bridge.outcomes.record(str(body.get("event_id") or ""), "left")

    @app.event("app_uninstalled")
    async def on_uninstalled(body: dict[str, Any], context: Any) -> None:
        await leave(body, context)

    @app.event("tokens_revoked")
    async def on_tokens_revoked(body: dict[str, Any], event: dict[str, Any], context: Any) -> None:
        if (event.get("tokens") or {}).get("bot"):
            await leave(body, context)
        else:
            await bridge.outcomes.record(str(body.get("event_id") or ""), "ignored")  # user tokens only
