"""The message shortcut "Open a dispute here": a dispute on one thread.

A shortcut knows its message (unlike a slash command), so the session is its thread
``<channel>:<thread ts>``; title from its first words, members its author and whoever it mentions. The
opening goes into the thread. The checks of ``/heyan dispute open`` apply (the thread counts as its
channel); the answer is ephemeral.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp

from adapters.slack.bridge import Bridge, NotInstalled
from adapters.slack.commands.invocation import Invocation
from adapters.slack.commands.slash import open_dispute
from adapters.slack.display.render import escape
from adapters.slack.display.texts import t
from adapters.slack.events.mapping import mentioned_users, readable
from bot.actors import ModerationError
from bot.limits import SlowDown

__all__ = ["OPEN_DISPUTE", "register"]

log = logging.getLogger(__name__)

#: The shortcut's callback id (adapters/slack/manifest.yaml).
OPEN_DISPUTE = "heyan_open_dispute"
#: Characters of the message used as the dispute's title.
TITLE_CHARS = 80


def register(app: AsyncApp, bridge: Bridge) -> None:
    @app.shortcut(OPEN_DISPUTE)
    async def on_open_dispute(ack: Any, body: dict[str, Any], context: Any, respond: Any) -> None:
        await ack()
        try:
            tenant = await bridge.tenant(context, body)
            here = await bridge.at(tenant)
        except NotInstalled:
            return
        actor = await here.people.actor(tenant, str(body["user"]["id"]))
        message = body.get("message") or {}
        channel = str((body.get("channel") or {}).get("id") or "")
        thread = str(message.get("thread_ts") or message.get("ts") or body.get("message_ts") or "")
        raw = str(message.get("text") or "")
        title = " ".join(readable(raw).split())[:TITLE_CHARS] or t("shortcut.no_title", actor.lang)
        author = message.get("user")
        members = ([author] if isinstance(author, str) else []) + mentioned_users(raw)
        zone = await bridge.zone(tenant, actor.user_id)
        inv = Invocation(bridge, here, actor, channel, raw, zone)
        try:
            text = await open_dispute(inv, f"{channel}:{thread}", title=title, members=members, channel=channel)
        except (ModerationError, SlowDown) as exc:
            text = escape(exc.text(actor.lang))
        except Exception:
            log.exception("opening a dispute on %s/%s failed", channel, thread)
            text = t("failed", actor.lang)
        await respond(text=text, response_type="ephemeral", replace_original=False)
