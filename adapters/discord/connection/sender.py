"""Delivering Heyan's own posts on Discord (follow-ups, dispute openings): the outbox's ``PostSender``.

A post only lands in a channel of its own tenant; its text is rendered inert but for the mentions it
means, split below 2,000 characters, each piece with a nonce (``Post.piece_key``). Failures become
``DeliveryError``s: 404, 403, 50083 and other 4xx permanent; 401, 5xx and network errors retried.
Why: docs/RELIABILITY.md, "What each platform guarantees".
"""

from __future__ import annotations

import logging

import aiohttp
import discord

from adapters.discord.commands.agreements import post_view
from adapters.discord.display.render import render, split_message
from adapters.discord.events.mapping import tenant_of_channel
from bot.delivery.deliverer import DeliveryError
from bot.delivery.outbox import Post

__all__ = ["DiscordSender", "delivery_error", "rate_limited"]

log = logging.getLogger(__name__)

#: Discord's JSON error codes the sender names.
UNKNOWN_CHANNEL = 10003
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013
THREAD_ARCHIVED = 50083


def delivery_error(exc: discord.HTTPException, where: str) -> DeliveryError:
    """A Discord HTTP error as a permanent or retryable ``DeliveryError`` naming the problem."""
    detail = f"{exc.status} {exc.text or exc.__class__.__name__}, Discord code {exc.code}"
    if exc.status == 401:
        return DeliveryError(f"Discord rejected Heyan's token posting to {where} ({detail}): the token was reset "
                             "or revoked; put the new one in HEYAN_DISCORD_TOKEN and restart")
    if isinstance(exc, discord.NotFound):
        what = "no longer exists (deleted)" if exc.code == UNKNOWN_CHANNEL else "was not found"
        return DeliveryError(f"{where} {what} ({detail})", permanent=True)
    if isinstance(exc, discord.Forbidden):
        if exc.code == MISSING_ACCESS:
            return DeliveryError(f"Heyan can no longer see {where}: it was removed from the channel or the "
                                 f"server ({detail})", permanent=True)
        return DeliveryError(f"Heyan lacks a permission to post in {where} (Send Messages / Send Messages in "
                             f"Threads) ({detail})", permanent=True)
    if exc.code == THREAD_ARCHIVED:
        return DeliveryError(f"{where} is an archived, locked thread; a moderator must unlock it ({detail})",
                             permanent=True)
    if exc.status == 429 or exc.status >= 500:
        return DeliveryError(f"Discord could not take the post to {where} now ({detail})")
    return DeliveryError(f"Discord refused the post to {where} ({detail})", permanent=True)


def rate_limited(exc: discord.RateLimited, where: str) -> DeliveryError:
    """A 429 longer than discord.py sits out (``client.MAX_RATELIMIT_WAIT``): retried after it."""
    return DeliveryError(f"Discord asked Heyan to wait {exc.retry_after:.0f} s before posting to {where}",
                         retry_after=exc.retry_after)


class DiscordSender:
    """Sends one post to its thread or channel; returns the Discord message id.

    discord.py waits out 429s itself (no retry loop here); one asking more than
    ``client.MAX_RATELIMIT_WAIT`` is retried by the outbox after the wait asked for. A 401 (token
    reset) dead-letters nothing: posts wait for a valid token. An archived, unlocked thread is
    unarchived by the post itself, so a follow-up can revive a quiet dispute.
    """

    platform = "discord"

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"DiscordSender(user={self.client.user})"

    async def _channel(self, post: Post) -> discord.abc.Messageable:
        where = f"channel {post.session}"
        try:
            channel_id = int(post.session)
        except ValueError:
            raise DeliveryError(f"session {post.session!r} is not a Discord channel id", permanent=True) from None
        channel = self.client.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.client.fetch_channel(channel_id)
            except discord.HTTPException as exc:
                raise delivery_error(exc, where) from exc
            except discord.RateLimited as exc:
                raise rate_limited(exc, where) from exc
        if tenant_of_channel(channel) != post.tenant:
            raise DeliveryError(f"{where} does not belong to {post.tenant}; refusing to post there", permanent=True)
        if not isinstance(channel, discord.abc.Messageable):
            raise DeliveryError(f"{where} is a {type(channel).__name__}, not a place for messages", permanent=True)
        return channel

    async def send(self, post: Post) -> str:
        channel = await self._channel(post)
        content, mentions = render(post.body)
        first: str | None = None
        try:
            pieces = split_message(content)
            for i, piece in enumerate(pieces):
                # a stable nonce per piece: discord.py sends it with enforce_nonce, so Discord answers a
                # repeat (a retry after a lost acknowledgement) with the message it already created
                view = post_view(post) if i == len(pieces) - 1 else None  # a card's buttons: on its last piece
                if view is None:
                    sent = await channel.send(piece, allowed_mentions=mentions, nonce=post.piece_key(i))
                else:
                    sent = await channel.send(piece, allowed_mentions=mentions, nonce=post.piece_key(i), view=view)
                first = first or str(sent.id)
        except discord.HTTPException as exc:
            raise delivery_error(exc, f"channel {post.session}") from exc
        except discord.RateLimited as exc:
            raise rate_limited(exc, f"channel {post.session}") from exc
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise DeliveryError(f"network error posting to channel {post.session}: {exc!r}") from exc
        if first is None:
            raise DeliveryError(f"post {post.id} has no text to send", permanent=True)
        log.info("post %s delivered to %s as %s", post.id, post.session, first)
        return first
