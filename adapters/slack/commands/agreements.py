"""The agreement card and common ground on Slack: ``/heyan dispute close`` with the card,
``/heyan dispute common-ground``, and their Block Kit actions.

``SlackSender`` gives a card post Confirm and Refuse (a modal asks why); common ground is reviewed in
an ephemeral answer with an Endorse button per statement. A button's value is ``<session>|<id>``;
answers are ephemeral through ``response_url``, and the service checks the presser again as actor.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.webhook.async_client import AsyncWebhookClient

from adapters.slack.bridge import Bridge, NotInstalled
from adapters.slack.commands.invocation import Answer, Invocation
from adapters.slack.commands.privately import tell_privately
from adapters.slack.display.blocks import Block, section
from adapters.slack.display.card_blocks import (
    CARD_CONFIRM,
    CARD_REFUSE,
    CARD_REFUSE_MODAL,
    GROUND_ENDORSE,
    GROUND_OPEN,
    button,
    card_text,
    post_blocks,
)
from adapters.slack.display.render import escape
from adapters.slack.display.texts import t
from bot.actors import Actor, ModerationError
from bot.delivery.outbox import Post, PostKind
from bot.limits import SlowDown
from bot.moderation import ClosedDispute, GroundView
from bot.text.richtext import RichText
from memory.models import Lang, utcnow

__all__ = ["CARD_CONFIRM", "CARD_REFUSE", "GROUND_ENDORSE", "GROUND_OPEN", "common_ground", "digest", "dispute_close",
           "post_blocks", "register"]

log = logging.getLogger(__name__)

# --- the slash commands -----------------------------------------------------------------------------


async def dispute_close(inv: Invocation) -> Answer:
    """``/heyan dispute close [--force] [reason]``: close with the agreement card (``--force``: moderators
    close now, without the parties' confirmation)."""
    session = await inv.dispute()
    words = inv.words(1)
    force = bool(words) and words[0].lower() == "--force"  # moderators: close without confirmations
    reason = await inv.plain(words[1] if force and len(words) > 1 else "" if force else inv.rest)
    outcome = await inv.bridge.port.moderation.dispute_close_card(inv.actor, session, reason, force=force)
    closed = outcome.closed
    if closed is None:
        pending = outcome.votes.pending if outcome.votes else ()
        names = ", ".join(f"<@{u}>" for u in pending) or "—"  # Slack shows each name; an ephemeral pings nobody
        return Answer(card_text(inv.lang, "waiting", pending=names))
    return await closed_answer(inv, session, closed)


async def common_ground(inv: Invocation) -> Answer:
    """``/heyan dispute common-ground``: draft the statements and ask each party privately."""
    view = await inv.bridge.port.moderation.common_ground_draft(inv.actor, await inv.dispute())
    names = ", ".join(f"<@{u}>" for u in view.participants)
    return Answer(card_text(inv.lang, "ground.asked", n=len(view.statements), who=names))


# --- the buttons ---------------------------------------------------------------------------------------


def _ground_blocks(view: GroundView, lang: Lang) -> list[Block]:
    blocks: list[Block] = [section(escape(card_text(lang, "ground.head")))]
    for n, statement in enumerate(view.statements, 1):
        marks = []
        if statement.id in view.endorsed:
            marks.append(card_text(lang, "ground.endorsed"))
        if statement.id in view.posted:
            marks.append(card_text(lang, "ground.posted"))
        block = section(f"{n}. {escape(statement.text)}" + (f"\n_{' · '.join(marks)}_" if marks else ""))
        if statement.id not in view.endorsed:
            block["accessory"] = button(GROUND_ENDORSE, card_text(lang, "ground.endorse", n=n),
                                         f"{view.session}|{view.round_id}|{statement.id}")
        blocks.append(block)
    return blocks


async def _say(response_url: str, text: str, blocks: list[Block] | None = None, *, replace: bool = False) -> None:
    if not response_url:
        log.warning("no response_url to answer a Heyan button with %d characters", len(text))
        return
    response = await AsyncWebhookClient(response_url).send(text=text, blocks=blocks, response_type="ephemeral",
                                                            replace_original=replace)
    if response.status_code != 200:
        log.warning("response_url answered %s", response.status_code)


async def _attempt(actor: Actor, call: Callable[[], Awaitable[str]]) -> str:
    try:
        return await call()
    except (ModerationError, SlowDown) as exc:
        return escape(exc.text(actor.lang))
    except Exception:
        log.exception("a Heyan card button failed for %s in %s", actor.user_id, actor.tenant)
        return t("failed", actor.lang)


def _split(value: str, parts: int) -> list[str]:
    found = value.split("|")
    return found if len(found) == parts and all(found) else []


def register(app: AsyncApp, bridge: Bridge) -> None:
    """The card's and common ground's actions and the Refuse modal."""
    moderation = bridge.port.moderation

    async def presser(body: Mapping[str, Any], context: Any) -> Actor:
        tenant = await bridge.tenant(context, body)
        here = await bridge.at(tenant)
        return await here.people.actor(tenant, str(body["user"]["id"]))

    @app.action(CARD_CONFIRM)
    async def on_confirm(ack: Any, body: dict[str, Any], context: Any) -> None:
        await ack()
        try:
            actor = await presser(body, context)
        except NotInstalled:
            return
        value = _split(str(body["actions"][0].get("value") or ""), 2)

        async def confirm() -> str:
            if not value:
                return t("failed", actor.lang)
            outcome = await moderation.card_confirm(actor, value[0], value[1])
            return escape(card_text(actor.lang, "changed" if outcome.changed else
                             "agreed" if outcome.stored is not None else "confirmed"))

        await _say(str(body.get("response_url") or ""), await _attempt(actor, confirm))

    @app.action(CARD_REFUSE)
    async def on_refuse(ack: Any, body: dict[str, Any], context: Any, client: Any) -> None:
        await ack()
        try:
            actor = await presser(body, context)
        except NotInstalled:
            return
        value = str(body["actions"][0].get("value") or "")
        lang = actor.lang
        metadata = f"{value}|{body.get('response_url') or ''}"
        await client.views_open(trigger_id=body["trigger_id"], view={
            "type": "modal", "callback_id": CARD_REFUSE_MODAL, "private_metadata": metadata[:3000],
            "title": {"type": "plain_text", "text": card_text(lang, "refuse.title")[:24]},
            "submit": {"type": "plain_text", "text": card_text(lang, "refuse.submit")[:24]},
            "blocks": [{"type": "input", "block_id": "reason", "optional": True,
                        "label": {"type": "plain_text", "text": card_text(lang, "refuse.reason")[:2000]},
                        "element": {"type": "plain_text_input", "action_id": "reason", "multiline": True,
                                    "max_length": 500}}]})

    @app.view(CARD_REFUSE_MODAL)
    async def on_refuse_submitted(ack: Any, body: dict[str, Any], view: dict[str, Any], context: Any) -> None:
        await ack()
        try:
            actor = await presser(body, context)
        except NotInstalled:
            return
        session, _, rest = str(view.get("private_metadata") or "").partition("|")
        card, _, response_url = rest.partition("|")
        values = (view.get("state") or {}).get("values") or {}
        reason = str(((values.get("reason") or {}).get("reason") or {}).get("value") or "")

        async def refuse() -> str:
            await moderation.card_refuse(actor, session, reason, card or None)
            return escape(card_text(actor.lang, "refused"))

        text = await _attempt(actor, refuse)
        try:  # the modal may be submitted after its button's response_url expired (30 min): then their DM
            await tell_privately(await bridge.at(actor.tenant), actor.user_id, response_url, text)
        except NotInstalled:
            return

    @app.action(GROUND_OPEN)
    async def on_ground_open(ack: Any, body: dict[str, Any], context: Any) -> None:
        await ack()
        try:
            actor = await presser(body, context)
        except NotInstalled:
            return
        value = _split(str(body["actions"][0].get("value") or ""), 2)
        response_url = str(body.get("response_url") or "")
        try:
            view = await moderation.common_ground_view(actor, value[0] if value else "")
        except (ModerationError, SlowDown) as exc:
            await _say(response_url, escape(exc.text(actor.lang)))
            return
        blocks = _ground_blocks(view, actor.lang)
        await _say(response_url, blocks[0]["text"]["text"], blocks)

    @app.action(GROUND_ENDORSE)
    async def on_ground_endorse(ack: Any, body: dict[str, Any], context: Any) -> None:
        await ack()
        try:
            actor = await presser(body, context)
        except NotInstalled:
            return
        value = _split(str(body["actions"][0].get("value") or ""), 3)
        response_url = str(body.get("response_url") or "")
        if not value:
            await _say(response_url, t("failed", actor.lang))
            return
        session, round_id, statement = value
        try:
            mine = await moderation.common_ground_view(actor, session)
            view = await moderation.common_ground_endorse(actor, session, [*mine.endorsed, statement], round_id)
        except (ModerationError, SlowDown) as exc:
            await _say(response_url, escape(exc.text(actor.lang)))
            return
        blocks = _ground_blocks(view, actor.lang)
        await _say(response_url, blocks[0]["text"]["text"], blocks, replace=True)


_CHANNEL = re.compile(r"<#([CG][A-Z0-9]+)(?:\|[^>]*)?>")
_SCHEDULES = ("daily", "weekly", "off")


async def digest(inv: Invocation) -> Answer:
    """``/heyan digest [#channel] [daily|weekly|off]``: with words, set the moderators' channel and the
    digest's schedule; without, show the digest now (moderators only, both)."""
    moderation = inv.bridge.port.moderation
    channels = _CHANNEL.findall(inv.rest)
    schedules = [w.lower() for w in inv.words() if w.lower() in _SCHEDULES]
    if channels or schedules:
        values: dict[str, str] = {}
        if channels:
            values["digest_channel"] = channels[0]
        if schedules:
            values["digest_schedule"] = schedules[0]
        updated = await moderation.update_community_settings(inv.actor, **values)
        where = f"<#{updated.digest_channel}>" if updated.digest_channel else "—"
        return Answer(card_text(inv.lang, "digest.set", channel=where, schedule=updated.digest_schedule))
    found = await moderation.digest(inv.actor)
    text = escape(found.body().plain())
    if found.undeliverable:
        text += "\n\n" + card_text(inv.lang, "digest.undeliverable", channel=f"<#{found.undeliverable[0]}>",
                                   error=escape(found.undeliverable[1]))
    return Answer(text)


async def closed_answer(inv: Invocation, session: str, closed: ClosedDispute) -> Answer:
    """A dispute ``inv`` closed: say so in its thread (through the outbox, so it is posted even if
    Slack is slow now), and answer the closer with the summary."""
    stamp = int((closed.info.closed_at or utcnow()).timestamp())
    notice = t("dispute.closed_post", inv.lang, title=closed.info.title, who=inv.actor.display)
    await inv.bridge.port.outbox.append(Post(
        id=f"dispute-close:{inv.tenant}:{session}:{stamp}", tenant=inv.tenant, session=session,
        body=RichText.of(notice), kind=PostKind.DISPUTE_CLOSED, lang=inv.lang))
    text = t("dispute.closed", inv.lang, title=escape(closed.info.title), cancelled=closed.cancelled_followups)
    if closed.summary is not None:
        text += "\n\n" + t("dispute.summary", inv.lang, text=escape(closed.summary.text))
    return Answer(text)
