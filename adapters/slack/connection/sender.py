"""Posting to Slack: the outbox's ``PostSender`` and the mediator's thread replies.

A post goes to its session's channel (its thread when there is one) with its workspace's token
(``Bridge.at``; uninstalled: a permanent failure). A dispute's opening thread is remembered for
catch-up. Only ``Mention`` spans become ``<@U…>``, the rest is escaped and ``link_names`` is off, so
nothing else pings. An unabsorbed 429 carries ``Retry-After``; a channel lost to the bot is permanent.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.connection.workspaces import NotInstalled
from adapters.slack.display.card_blocks import post_blocks
from adapters.slack.display.render import render
from adapters.slack.events.mapping import split_session
from bot.delivery.deliverer import DeliveryError
from bot.delivery.outbox import Post, PostKind
from bot.text.richtext import RichText

if TYPE_CHECKING:
    from adapters.slack.bridge import Bridge, Here

__all__ = ["PERMANENT_ERRORS", "SlackSender"]

log = logging.getLogger(__name__)

#: Slack errors that retrying the same post cannot fix: the post is dead-lettered with the reason.
PERMANENT_ERRORS = frozenset({
    "channel_not_found", "not_in_channel", "is_archived", "msg_too_long", "no_text", "invalid_blocks",
    "restricted_action", "restricted_action_read_only_channel", "restricted_action_thread_only_channel",
    "restricted_action_non_threadable_channel", "cannot_reply_to_message", "team_access_not_granted",
    "account_inactive", "token_revoked", "invalid_auth", "not_authed", "missing_scope", "ekm_access_denied",
    "not_allowed_token_type", "channel_is_archived", "thread_not_found",
})

_REASONS = {
    "channel_not_found": "the channel no longer exists or the bot was removed from it",
    "not_in_channel": "the bot is not a member of the channel (it was removed)",
    "is_archived": "the channel is archived",
    "token_revoked": "the workspace uninstalled Heyan or revoked its token",
    "account_inactive": "the workspace uninstalled Heyan or was deleted",
    "invalid_auth": "the bot token is no longer valid",
    "missing_scope": "the bot token lacks a scope (the installer was told which)",
}


class SlackSender:
    """Sends posts to Slack with each workspace's bot token; returns the message ``ts``."""

    platform = "slack"

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    def __repr__(self) -> str:
        return f"SlackSender({self.bridge.workspaces!r})"

    async def send(self, post: Post) -> str:
        try:
            here = await self.bridge.at(post.tenant)
        except NotInstalled:
            raise DeliveryError(f"Heyan is no longer installed in {post.tenant}", permanent=True) from None
        channel, thread = split_session(post.session)
        # an answer to a top-level mention goes in a thread under that message (ids are <channel>:<ts>)
        answered = post.ref.get("reply_to", "").rpartition(":")[2] or None
        ts = await self.post(here, channel, post.body, thread_ts=post.ref.get("thread_ts") or thread or answered,
                             post_id=post.id, buttons=post)
        if post.kind is PostKind.DISPUTE_OPENED and thread is None:
            await self.bridge.places.add_thread(post.tenant, post.session, ts)
        return ts

    async def post(self, here: Here, channel: str, body: RichText, *, thread_ts: str | None = None,
                   post_id: str | None = None, buttons: Post | None = None) -> str:
        """Post ``body`` in ``channel`` (in the thread ``thread_ts``) of ``here``'s workspace; raise
        ``DeliveryError``. ``post_id``: the outbox post's id, carried in the message's metadata (Slack
        has no idempotency key for chat.postMessage; the metadata lets a repeat be found afterwards)."""
        text = render(body)
        blocks = post_blocks(buttons, text) if buttons is not None else None  # a card's Confirm / Refuse
        client: AsyncWebClient = here.client
        metadata = {"event_type": "heyan_post", "event_payload": {"post_id": post_id}} if post_id else None
        try:
            response = await client.chat_postMessage(
                channel=channel, text=text, thread_ts=thread_ts, link_names=False,
                unfurl_links=False, unfurl_media=False, metadata=metadata, blocks=blocks,
            )
        except SlackApiError as exc:
            needed = exc.response.get("needed") if exc.response.get("error") == "missing_scope" else None
            if needed and self.bridge.scopes is not None:
                await self.bridge.scopes.missing(here, str(needed))
            raise _delivery_error(exc, channel) from exc
        except (TimeoutError, SlackClientError, aiohttp.ClientError, OSError) as exc:
            raise DeliveryError(f"cannot reach Slack: {type(exc).__name__}: {exc}") from exc
        return str(response["ts"])


def _delivery_error(exc: SlackApiError, channel: str) -> DeliveryError:
    response = exc.response
    if response.status_code == 429:
        retry_after = _retry_after(response.headers)
        return DeliveryError(f"Slack rate limit (Retry-After {retry_after:g} s)", retry_after=retry_after)
    error = str(response.get("error") or f"HTTP {response.status_code}")
    reason = f"{error}: {_REASONS.get(error, 'Slack refused the post')} (channel {channel})"
    return DeliveryError(reason, permanent=error in PERMANENT_ERRORS)


def _retry_after(headers: object) -> float:
    value: object = None
    if isinstance(headers, dict):
        for key, v in headers.items():
            if str(key).lower() == "retry-after":
                value = v[0] if isinstance(v, list | tuple) and v else v
    try:
        return max(1.0, float(str(value)))
    except (TypeError, ValueError):
        return 1.0
