"""Slack events → the engine: mentions answered in their thread with the thread read back,
dispute channels and threads remembered, edits re-read, deletions (and tombstones) taken back.

bolt acks every event first, so Slack never sends it again: each listener decides from the payload
whether it concerns Heyan, claims it (``EventGate``), calls one engine method and records the
``Outcomes``; a failed delivery is re-queued (``adapters.slack.events.redo``). Other messages are observed
only where a dispute is open (``adapters.slack.events.places``). Workspace events: ``adapters.slack.events.lifecycle``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from slack_bolt.async_app import AsyncApp

from adapters.slack.bridge import Bridge, Here, NotInstalled
from adapters.slack.commands.home import publish_home
from adapters.slack.display.texts import t
from adapters.slack.events.history import HistoryRefused, reader
from adapters.slack.events.mapping import MalformedPayload, message_id, tenant_from
from bot.delivery.deliverer import DeliveryError
from bot.delivery.posts import reply_post
from bot.limits import SlowDown
from bot.models import Message, Reply
from bot.ports import HistoryReader
from memory.models import Scope, utcnow

__all__ = ["Handler", "answer_mention", "deliver", "observe", "register", "route"]

log = logging.getLogger(__name__)

Work = Callable[[str], Awaitable[str]]
#: A listener body: (bridge, the request body, bolt's context, whether it is a re-run) → None.
Handler = Callable[[Bridge, Mapping[str, Any], Mapping[str, Any], bool], Awaitable[None]]

#: The text Slack puts in a deleted thread parent that keeps its replies.
TOMBSTONE_TEXT = "This message was deleted."


async def deliver(bridge: Bridge, body: Mapping[str, Any], context: Mapping[str, Any], work: Work,
                  *, message: str | None = None, redo: bool = False) -> None:
    """Run ``work(tenant)`` once per delivery id (and ``client_msg_id``), recording the outcome.

    A failure releases the claim and re-queues the event (``adapters.slack.events.redo``): Slack will not
    send an acked event again. On a re-run (``redo``) the failure is raised for the job to retry.
    A workspace Heyan is no longer installed in has nothing left to do: "not-installed"."""
    event_id = str(body.get("event_id") or "")
    ids = (f"event:{event_id}" if event_id else None, f"msg:{message}" if message else None)
    tenant = ""
    try:
        tenant = await bridge.tenant(context, body)
        async with bridge.gate.first(tenant, *ids) as fresh:
            outcome = await work(tenant) if fresh else "duplicate"
    except (NotInstalled, MalformedPayload) as exc:
        log.warning("Slack event %s dropped: %s", event_id, exc)
        outcome = "not-installed" if isinstance(exc, NotInstalled) else "malformed"
    except Exception:
        if redo:
            raise
        log.exception("Slack event %s (%s) failed; re-queued", event_id, (body.get("event") or {}).get("type"))
        outcome = "requeued" if tenant and await bridge.redo.put(tenant, body) else "failed"
    await bridge.outcomes.record(event_id, outcome)


# --- replies ------------------------------------------------------------------------------------


async def _reply(bridge: Bridge, here: Here, msg: Message, reply: Reply, channel: str, thread_ts: str | None) -> str:
    """Post the mediator's reply; a failure Slack may recover from (a rate limit, a network error)
    goes through the outbox — retried, and dead-lettered with the reason if it never goes out —
    rather than being lost. A permanent refusal (the bot was removed meanwhile) is logged."""
    try:
        await bridge.sender.post(here, channel, reply.body, thread_ts=thread_ts)
        return "replied"
    except DeliveryError as exc:
        if exc.permanent:
            log.error("reply to %s could not be posted: %s", msg.id, exc.reason)
            return "reply-failed"
        post = reply_post(msg, reply, ref={"thread_ts": thread_ts} if thread_ts else None)
        await bridge.port.outbox.append(post, not_before=utcnow() + timedelta(seconds=exc.retry_after or 0))
        log.warning("reply to %s queued in the outbox: %s", msg.id, exc.reason)
        return "reply-queued"


class _Refusals:
    """Wraps a HistoryReader to remember why Slack refused it (the engine answers from memory)."""

    def __init__(self, read: HistoryReader) -> None:
        self.read = read
        self.refused: HistoryRefused | None = None

    async def __call__(self) -> Sequence[Message]:
        try:
            return await self.read()
        except HistoryRefused as exc:
            self.refused = exc
            raise


async def _addressed(bridge: Bridge, tenant: str, event: Mapping[str, Any], *, dm: bool) -> str:
    here = await bridge.at(tenant)
    channel, ts, thread_ts = str(event["channel"]), str(event["ts"]), event.get("thread_ts")
    session = await bridge.places.session(tenant, channel, thread_ts, ts, mention=True, dm=dm)
    msg = await here.people.message(tenant, event, mention=True, session=session)

    async def to_message(raw: Mapping[str, Any], where: str) -> Message:
        return await here.people.message(tenant, raw, mention=False, session=where)

    history = _Refusals(reader(here.reads, channel, thread_ts, ts, session, to_message))
    reply = await bridge.port.engine.hear(msg, history=history, confirm=True)
    if await bridge.port.engine.in_dispute(tenant, session):  # followed for catch-up only while a dispute is open
        await bridge.places.seen(tenant, session, ts, thread_ts)
    if reply is None:
        return "not-answered"
    refused = history.refused
    if refused is not None and refused.error == "missing_scope" and refused.needed:
        await bridge.scopes.missing(here, refused.needed)
        note = t("history.scope", reply.lang, scope=refused.needed)
        reply = replace(reply, body=reply.body + "\n\n" + note)
    elif refused is not None:
        log.warning("answered %s without its thread: Slack refused %s", msg.id, refused)
    thread = thread_ts or (None if dm else ts)
    outcome = await _reply(bridge, here, msg, reply, channel, thread)
    if outcome != "reply-failed":  # posted, or safe in the outbox: answered
        await bridge.port.engine.answered(msg)
    return outcome


async def answer_mention(bridge: Bridge, tenant: str, event: Mapping[str, Any]) -> str:
    """A mention read back after downtime (``adapters.slack.events.catchup``): answered as a live one."""
    return await _addressed(bridge, tenant, event, dm=False)


def _from_a_person(event: Mapping[str, Any]) -> bool:
    return isinstance(event.get("user"), str) and not event.get("bot_id") and event.get("user") != "USLACKBOT"


# --- the handlers -------------------------------------------------------------------------------


async def on_mention(bridge: Bridge, body: Mapping[str, Any], context: Mapping[str, Any], redo: bool = False) -> None:
    event = body["event"]
    if not _from_a_person(event):
        await bridge.outcomes.record(str(body.get("event_id") or ""), "ignored")
        return
    await deliver(bridge, body, context, lambda tenant: _addressed(bridge, tenant, event, dm=False),
                  message=event.get("client_msg_id"), redo=redo)


async def observe(bridge: Bridge, tenant: str, event: Mapping[str, Any], session: str) -> str:
    """A person's message in the open dispute ``session``: remembered (``Engine.hear``), and its
    place recorded for catch-up. Used by live events and by catch-up alike."""
    here = await bridge.at(tenant)
    msg = await here.people.message(tenant, event, mention=False, session=session)
    await bridge.port.engine.hear(msg)
    await bridge.places.seen(tenant, session, str(event["ts"]), event.get("thread_ts"))
    return "observed"


async def on_message(bridge: Bridge, body: Mapping[str, Any], context: Mapping[str, Any], redo: bool = False) -> None:
    event = body["event"]
    event_id = str(body.get("event_id") or "")
    if not _from_a_person(event):
        await bridge.outcomes.record(event_id, "ignored")
        return
    if event.get("channel_type") == "im":  # a direct message to Heyan addresses it
        await deliver(bridge, body, context, lambda tenant: _addressed(bridge, tenant, event, dm=True),
                      message=event.get("client_msg_id"), redo=redo)
        return
    tenant = tenant_from(context, body)
    try:
        here = await bridge.at(tenant)
    except NotInstalled:
        await bridge.outcomes.record(event_id, "not-installed")
        return
    if f"<@{here.bot_user_id}>" in str(event.get("text") or ""):
        await bridge.outcomes.record(event_id, "ignored")  # app_mention brings the same message
        return
    channel, ts = str(event.get("channel") or ""), str(event.get("ts") or "")
    session = await bridge.places.session(tenant, channel, event.get("thread_ts"), ts, mention=False)
    if not await bridge.port.engine.in_dispute(tenant, session):  # the engine's policy, asked before the gate
        await bridge.outcomes.record(event_id, "ignored")  # no dispute here: not Heyan's business
        return
    await deliver(bridge, body, context, lambda tenant: observe(bridge, tenant, event, session),
                  message=event.get("client_msg_id"), redo=redo)


async def _known_sessions(bridge: Bridge, tenant: str, channel: str, thread_ts: str | None, ts: str) -> list[str]:
    """The sessions the message may belong to that Heyan saw (the engine's policy: only those can
    hold anything of it)."""
    return await bridge.port.engine.known(tenant, bridge.places.candidates(channel, thread_ts, ts))


async def _retract(bridge: Bridge, tenant: str, channel: str, thread_ts: str | None, ts: str) -> str:
    sessions = await _known_sessions(bridge, tenant, channel, thread_ts, ts)
    for session in sessions:
        await bridge.port.engine.retract(Scope(tenant=tenant, session=session), message_id(channel, ts))
    return "retracted" if sessions else "ignored"


def _tombstone(message: Mapping[str, Any]) -> bool:
    """A deleted thread parent whose replies stay: Slack edits it into a tombstone."""
    return message.get("subtype") == "tombstone" or (
        message.get("hidden") is True and message.get("text") == TOMBSTONE_TEXT and not _from_a_person(message))


async def on_changed(bridge: Bridge, body: Mapping[str, Any], context: Mapping[str, Any], redo: bool = False) -> None:
    event = body["event"]
    new, old = event.get("message") or {}, event.get("previous_message") or {}
    channel = str(event["channel"])

    async def revise(tenant: str) -> str:
        here = await bridge.at(tenant)
        sessions = await _known_sessions(bridge, tenant, channel, new.get("thread_ts"), str(new["ts"]))
        for session in sessions:
            msg = await here.people.message(tenant, {**new, "channel": channel}, mention=False, session=session)
            await bridge.port.engine.revise(msg)
        return "revised" if sessions else "ignored"  # never seen there: nothing was remembered from it

    if _tombstone(new):
        await deliver(bridge, body, context, lambda tenant: _retract(bridge, tenant, channel, None, str(new["ts"])),
                      redo=redo)
        return
    if not _from_a_person(new) or new.get("text") == old.get("text"):
        await bridge.outcomes.record(str(body.get("event_id") or ""), "ignored")  # an unfurl, a bot
        return
    await deliver(bridge, body, context, revise, redo=redo)


async def on_deleted(bridge: Bridge, body: Mapping[str, Any], context: Mapping[str, Any], redo: bool = False) -> None:
    event = body["event"]
    old = event.get("previous_message") or {}
    channel, ts = str(event["channel"]), str(event["deleted_ts"])
    await deliver(bridge, body, context, lambda tenant: _retract(bridge, tenant, channel, old.get("thread_ts"), ts),
                  redo=redo)


async def on_home(bridge: Bridge, body: Mapping[str, Any], context: Mapping[str, Any], redo: bool = False) -> None:
    event = body["event"]

    async def work(tenant: str) -> str:
        here = await bridge.at(tenant)
        try:
            await publish_home(bridge, here, await here.people.actor(tenant, str(event["user"])))
        except SlowDown:
            return "slow-down"  # opened too often: the tab keeps what it showed last
        return "home"

    if event.get("tab", "home") != "home":
        await bridge.outcomes.record(str(body.get("event_id") or ""), "ignored")
        return
    await deliver(bridge, body, context, work, redo=redo)


def route(body: Mapping[str, Any]) -> Handler | None:
    """The handler of a stored event (a re-queued delivery), as bolt would have routed it."""
    event = body.get("event") or {}
    kind, subtype = event.get("type"), event.get("subtype")
    if kind == "app_mention":
        return on_mention
    if kind == "app_home_opened":
        return on_home
    if kind == "message":
        if subtype == "message_changed":
            return on_changed
        if subtype == "message_deleted":
            return on_deleted
        if subtype in (None, "thread_broadcast", "file_share"):
            return on_message
    return None


def register(app: AsyncApp, bridge: Bridge) -> None:
    """Add the event listeners to ``app`` (order matters: bolt runs the first listener that matches)."""

    def listen(handler: Handler) -> Callable[..., Awaitable[None]]:
        async def listener(body: dict[str, Any], context: Any) -> None:
            await handler(bridge, body, context, False)

        return listener

    app.event("app_mention")(listen(on_mention))
    app.event({"type": "message", "subtype": "message_changed"})(listen(on_changed))
    app.event({"type": "message", "subtype": "message_deleted"})(listen(on_deleted))
    app.event({"type": "message", "subtype": (None, "thread_broadcast", "file_share")})(listen(on_message))

    @app.event("message")
    async def on_other_message(body: dict[str, Any]) -> None:
        """Joins, topics, bot posts and the other subtypes: acked (so Slack does not retry) and ignored."""
        await bridge.outcomes.record(str(body.get("event_id") or ""), "ignored")

    app.event("app_home_opened")(listen(on_home))
