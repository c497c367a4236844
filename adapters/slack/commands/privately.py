"""Answering one member privately after a delay: through the interaction's ``response_url`` while it
still works, else in their DM with Heyan.

A ``response_url`` takes up to 5 messages within 30 minutes (Slack's docs), and a modal may be
submitted later; then the answer goes to their DM (``conversations.open`` + ``chat.postMessage``), and
only if that fails too is it just logged.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.webhook.async_client import AsyncWebhookClient

from adapters.slack.bridge import Here

__all__ = ["tell_privately"]

log = logging.getLogger(__name__)


async def tell_privately(here: Here, user_id: str, response_url: str, text: str,
                         blocks: list[dict[str, Any]] | None = None, *, replace: bool = False) -> str:
    """Show ``text`` (and ``blocks``) to ``user_id`` only; returns how: ``response_url``, ``dm`` or ``lost``."""
    if response_url:
        try:
            response = await AsyncWebhookClient(response_url).send(
                text=text, blocks=blocks, response_type="ephemeral", replace_original=replace)
        except (SlackClientError, OSError, TimeoutError) as exc:
            log.warning("response_url unreachable (%s); answering %s in their DM", type(exc).__name__, user_id)
        else:
            if response.status_code == 200:
                return "response_url"
            log.info("response_url answered %s %s (used or expired); answering %s in their DM",
                     response.status_code, str(response.body)[:40], user_id)
    try:
        dm = (await here.client.conversations_open(users=user_id))["channel"]["id"]
        await here.client.chat_postMessage(channel=dm, text=text, blocks=blocks, link_names=False,
                                           unfurl_links=False, unfurl_media=False)
    except (SlackApiError, SlackClientError, OSError, TimeoutError) as exc:
        error = exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
        log.warning("could not tell %s an answer of %d characters (%s)", user_id, len(text), error)
        return "lost"
    return "dm"
