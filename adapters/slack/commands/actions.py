"""Interactivity: the buttons on memory cards, the list pages, the review page, and the Correct modal.

Everything is acked within Slack's 3 s, then the presser is made an ``Actor`` again and the service
checks permission; the result goes back where the button was (``response_url``, the page, the Home
tab). Correct's ``trigger_id`` also expires in 3 s, so its modal opens at once ("looking it up") and
is filled by ``views.update``; its origin travels in ``private_metadata``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError, SlackClientError

from adapters.slack.bridge import Bridge, Here, NotInstalled
from adapters.slack.commands.home import publish_home
from adapters.slack.commands.privately import tell_privately
from adapters.slack.display.blocks import (
    CONFIRM,
    CORRECT,
    CORRECT_MODAL,
    DELETE,
    DONE,
    PAGE_NEXT,
    PAGE_PREV,
    REVIEW_PAGE,
    ModalOrigin,
    Paging,
    correct_modal,
    loading_modal,
    notice_modal,
    review_blocks,
)
from adapters.slack.display.render import escape
from adapters.slack.display.texts import t
from bot.actors import Actor, ModerationError
from bot.limits import SlowDown

__all__ = ["register"]

log = logging.getLogger(__name__)

Do = Callable[[Actor, str], Awaitable[str]]
#: Re-renders a paged list for a page button (``adapters.slack.commands.slash.page``).
PageRenderer = Callable[[Bridge, Here, Actor, Paging], Awaitable[tuple[str, list[dict[str, Any]]]]]


def _from_home(body: Mapping[str, Any]) -> bool:
    return (body.get("container") or {}).get("type") == "view"


async def _attempt(actor: Actor, call: Callable[[], Awaitable[str]]) -> str:
    """The call's text, or the refusal or failure as text for the presser."""
    try:
        return await call()
    except ModerationError as exc:
        return escape(exc.text(actor.lang))
    except SlowDown as exc:
        return escape(exc.text(actor.lang))
    except SlackApiError as exc:
        return t("slack.failed", actor.lang, error=exc.response.get("error"))
    except Exception:
        log.exception("a Heyan button failed for %s in %s", actor.user_id, actor.tenant)
        return t("failed", actor.lang)


async def _tell(bridge: Bridge, here: Here, actor: Actor, text: str, *, home: bool, response_url: str) -> None:
    """Show ``text`` to the presser where they pressed: the Home tab, or the message (ephemeral)."""
    if home:
        await publish_home(bridge, here, actor, notice=text)
    else:  # a modal's response_url may have expired (30 min) meanwhile: then their DM
        await tell_privately(here, actor.user_id, response_url, text)


async def _presser(bridge: Bridge, body: Mapping[str, Any], context: Any) -> tuple[Here, Actor]:
    tenant = await bridge.tenant(context, body)
    here = await bridge.at(tenant)
    return here, await here.people.actor(tenant, str(body["user"]["id"]))


def register(app: AsyncApp, bridge: Bridge, render_page: PageRenderer) -> None:
    moderation = bridge.port.moderation

    def button(action_id: str, do: Do) -> None:
        @app.action(action_id)
        async def on_button(ack: Any, body: dict[str, Any], context: Any) -> None:
            await ack()
            try:
                here, actor = await _presser(bridge, body, context)
            except NotInstalled:
                return
            value = str(body["actions"][0].get("value") or "")
            text = await _attempt(actor, lambda: do(actor, value))
            await _tell(bridge, here, actor, text, home=_from_home(body),
                        response_url=str(body.get("response_url") or ""))

    async def confirm(actor: Actor, ref: str) -> str:
        fact = await moderation.memory_confirm(actor, ref)
        return t("memory.confirmed", actor.lang, id=fact.id[:8], status=fact.status.value)

    async def delete(actor: Actor, ref: str) -> str:
        fact = await moderation.memory_delete(actor, ref)
        return t("memory.deleted", actor.lang, id=fact.id[:8], what=escape(f"{fact.kind.value}: {fact.attribute}"))

    async def done(actor: Actor, ref: str) -> str:
        fact = await moderation.commitment_done(actor, ref)
        return t("commitments.done", actor.lang, id=fact.id[:8])

    button(CONFIRM, confirm)
    button(DELETE, delete)
    button(DONE, done)

    @app.action(CORRECT)
    async def on_correct(ack: Any, body: dict[str, Any], context: Any, client: Any) -> None:
        await ack()
        ref = str(body["actions"][0].get("value") or "")
        origin = ModalOrigin(ref, str(body.get("response_url") or ""), _from_home(body))
        try:  # first, while the trigger is fresh: nothing is looked up before this
            opened = (await client.views_open(trigger_id=body["trigger_id"], view=loading_modal(origin)))["view"]
        except (SlackApiError, SlackClientError, OSError, TimeoutError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
            log.warning("the Correct modal could not be opened (%s)", error)
            try:
                here, actor = await _presser(bridge, body, context)
            except NotInstalled:
                return
            await _tell(bridge, here, actor, t("slack.failed", actor.lang, error=error), home=origin.home,
                        response_url=origin.response_url)
            return
        try:
            here, actor = await _presser(bridge, body, context)
        except NotInstalled:
            return

        async def fill() -> str:
            fact = await moderation.memory_show(actor, ref)  # may they see it at all?
            modal = correct_modal(fact, actor.lang, ModalOrigin(fact.id, origin.response_url, origin.home))
            await here.client.views_update(view_id=opened["id"], hash=opened.get("hash"), view=modal)
            return ""

        text = await _attempt(actor, fill)
        if text:  # refused or failed: the modal says so
            try:
                await here.client.views_update(view_id=opened["id"], view=notice_modal(actor.lang, text))
            except SlackApiError as exc:  # closed meanwhile: say it where the button was
                log.info("the Correct modal was gone (%s)", exc.response.get("error"))
                await _tell(bridge, here, actor, text, home=origin.home, response_url=origin.response_url)

    @app.action(re.compile(r"^heyan_review_(prev|next)$"))
    async def on_review_page(ack: Any, body: dict[str, Any], context: Any, respond: Any) -> None:
        await ack()
        _, actor = await _presser(bridge, body, context)
        value = str(body["actions"][0].get("value") or "0")
        offset = int(value) if value.isdigit() else 0
        try:
            page = await moderation.review_queue(actor, offset=offset, limit=REVIEW_PAGE)
        except (ModerationError, SlowDown) as exc:
            await respond(text=escape(exc.text(actor.lang)), response_type="ephemeral", replace_original=False)
            return
        zone = await bridge.zone(actor.tenant, actor.user_id)
        blocks = review_blocks(page, actor, zone)
        await respond(text=blocks[0]["text"]["text"], blocks=blocks, replace_original=True)

    @app.action(re.compile(f"^({PAGE_PREV}|{PAGE_NEXT})$"))
    async def on_page(ack: Any, body: dict[str, Any], context: Any, respond: Any) -> None:
        await ack()
        here, actor = await _presser(bridge, body, context)
        try:
            paging = Paging.load(str(body["actions"][0].get("value") or ""))
        except ValueError:
            log.warning("a page button without its list; ignored")
            return
        if paging.kind == "home":
            await publish_home(bridge, here, actor, offset=paging.offset)
            return
        try:
            text, blocks = await render_page(bridge, here, actor, paging)
        except (ModerationError, SlowDown) as exc:
            await respond(text=escape(exc.text(actor.lang)), response_type="ephemeral", replace_original=False)
            return
        await respond(text=text, blocks=blocks, replace_original=True)

    @app.view(CORRECT_MODAL)
    async def on_correct_submitted(ack: Any, body: dict[str, Any], view: dict[str, Any], context: Any) -> None:
        values = (view.get("state") or {}).get("values") or {}
        value = str(((values.get("value") or {}).get("value") or {}).get("value") or "").strip()
        reason = str(((values.get("reason") or {}).get("reason") or {}).get("value") or "").strip()
        tenant = await bridge.tenant(context, body)
        if not value:  # answered in the modal, from what is at hand (no Slack call before the ack)
            here = await bridge.at(tenant)
            profile = here.people.directory.cached(str(body["user"]["id"]))
            lang = await here.people.lang(tenant, profile) if profile else (await bridge.port.tenants.get(tenant)).language
            await ack(response_action="errors", errors={"value": t("modal.empty", "zh" if lang == "zh" else "en")})
            return
        try:
            origin = ModalOrigin.load(str(view.get("private_metadata") or ""))
        except ValueError:
            log.warning("a Correct modal came back without its origin; ignored")
            await ack()
            return
        await ack()  # closes the modal; the change is made after the ack
        here, actor = await _presser(bridge, body, context)

        async def save() -> str:
            if actor.is_moderator:
                fact = await moderation.memory_edit(actor, origin.fact_id, value, reason)
                return t("memory.edited", actor.lang, id=fact.id[:8], version=fact.version)
            fact = await moderation.correct(actor, origin.fact_id, value, reason)
            key = "memory.corrected" if fact.value == value else "memory.contested"
            return t(key, actor.lang, id=fact.id[:8])

        text = await _attempt(actor, save)
        await _tell(bridge, here, actor, text, home=origin.home, response_url=origin.response_url)
