"""The conversation a mention came from, read back from Discord for the reply (``bot.ports.HistoryReader``).

``ConversationReader`` reads the channel's messages before the mention (at most
``bot.context.HISTORY_LIMIT``) for that one reply; none is stored. It checks permissions first, so a
403 (no View Channel) or an empty answer (no Read Message History) names the missing one in
``refused``; without the Message Content intent others' empty messages are left out, as are bots',
webhooks' and system messages.
"""

from __future__ import annotations

import logging

import discord

from adapters.discord.events.mapping import message_text, to_message
from bot.context import HISTORY_LIMIT
from bot.models import Message

__all__ = ["ConversationReader", "conversation"]

log = logging.getLogger(__name__)

#: Message types people write; joins, pins, thread-created notices and the like are not turns.
CONVERSATION = frozenset({discord.MessageType.default, discord.MessageType.reply})


def conversation(message: discord.Message) -> bool:
    """Is this a member's message (not a bot's, a webhook's or a system notice)?"""
    return not message.author.bot and message.webhook_id is None and message.type in CONVERSATION


class ConversationReader:
    """Reads the messages before ``before`` in its channel, once, as the engine asks."""

    def __init__(self, before: discord.Message, *, tenant: str, me: int, limit: int = HISTORY_LIMIT) -> None:
        self.before = before
        self.tenant = tenant
        self.me = me
        self.limit = limit
        #: The permission Discord's answer was missing (``read_message_history``, ``view_channel``), if any.
        self.refused: str | None = None

    def __repr__(self) -> str:
        return f"ConversationReader(channel={self.before.channel.id}, limit={self.limit}, refused={self.refused})"

    def _missing(self) -> str | None:
        channel = self.before.channel
        guild = self.before.guild
        if guild is None or not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return None  # a DM: nothing to check
        perms = channel.permissions_for(guild.me)
        if not perms.view_channel:
            return "view_channel"
        if not perms.read_message_history:
            return "read_message_history"
        return None

    async def __call__(self) -> list[Message]:
        """The earlier messages, oldest first; empty when Discord will not give them."""
        self.refused = self._missing()
        if self.refused is not None:
            log.info("cannot read the history of channel %s: Heyan lacks %s there", self.before.channel.id,
                     self.refused)
            return []
        channel = self.before.channel
        try:
            found = [m async for m in channel.history(limit=self.limit, before=self.before)]
        except discord.Forbidden as exc:  # the cached permissions were stale
            self.refused = "view_channel" if exc.code == 50001 else "read_message_history"
            log.info("Discord refused the history of channel %s (%s): %s", channel.id, exc.code, exc.text)
            return []
        except discord.RateLimited as exc:  # a long 429: answer from memory now rather than late
            log.warning("history of channel %s not read: Discord asked to wait %.0f s", channel.id, exc.retry_after)
            return []
        read = []
        for m in reversed(found):
            if not conversation(m):
                continue
            text = message_text(m, self.me)
            if text:
                read.append(to_message(m, tenant=self.tenant, text=text, mention=False))
        return read
