"""Delivering Heyan's own posts on Discord (follow-ups, dispute openings): the outbox's ``PostSender``.

A post names its tenant and session (a thread or channel id). The sender finds that channel, checks
it belongs to the post's tenant (a post can never land in another guild), renders the ``RichText``
with ``render()`` — structured mentions become ``<@id>``, all other text is made inert — splits it
on line boundaries below Discord's 2,000 characters, and sends each piece with ``allowed_mentions``
that let through only the users the post means to ping. The id of the first piece is the post's.
Each piece carries a nonce derived from the post id and the piece's index (``Post.piece_key``), and
discord.py sets ``enforce_nonce`` whenever a nonce is given: for a few minutes Discord returns the
message it already created for that nonce instead of posting it again (docs/RELIABILITY.md).

Failures become ``DeliveryError``s the outbox understands:

* permanent (dead-lettered at once, with the reason): the thread or channel was deleted (404), the
  bot can no longer see it or lacks a permission there (403), the thread is archived and locked
  (50083), any other 4xx (the request itself is wrong), a session that is not a channel id;
* retryable: Discord's 5xx and network errors, and 401 — the bot token was reset or revoked: no post
  is at fault, so none is dead-lettered; they wait for a process with a valid token (the gateway's
  close code 4004 stops ``heyan run`` with what to do). 429s rarely get here: discord.py waits them
  out itself, and Heyan adds no retry loop of its own on top of that; one asking for more than
  ``client.MAX_RATELIMIT_WAIT`` is retried by the outbox after the wait Discord asked for.

An archived thread that is not locked is unarchived by the post itself (Discord does that when the
bot may send there), so a follow-up can revive a quiet dispute.
"""

from __future__ import annotations

import logging

import aiohttp
import discord

from adapters.discord.agreements import post_view
from adapters.discord.mapping import tenant_of_channel
from adapters.discord.render import render, split_message
from bot.delivery import DeliveryError
from bot.outbox import Post

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
    """Sends one post to its thread or channel; returns the Discord message id."""

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
