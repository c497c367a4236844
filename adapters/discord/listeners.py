"""Gateway events in, engine calls out: messages, edits, deletions, guilds joined and left.

Thin listeners (parse, call, render). What they decide is only what Discord's events mean:

* A message *addresses* Heyan when it mentions the bot's user (its raw ``<@id>`` in the content —
  ``ClientUser.mentioned_in`` is also true for @everyone, and a mention of the bot's managed role is
  not a mention of the bot), when it replies to one of Heyan's messages, or when it is a DM. Then
  ``engine.handle`` runs under a typing indicator and the reply goes back to that thread or channel.
* Any other message feeds memory (``engine.observe``) only in a thread where a dispute is open, and
  only when its content is readable (the Message Content intent configured): Discord sends empty
  content otherwise, and an empty turn must not enter the window.
* Heyan's own messages, other bots' and webhooks' are ignored, as are system messages.
* An edit re-extracts (``engine.revise``) when the text really changed; a deletion takes back what
  came only from that message (``engine.retract``). Both only in sessions Heyan has seen.
* Leaving a guild schedules its tenant's purge after ``HEYAN_DISCORD_LEAVE_PURGE_DAYS``; joining
  again cancels it. An outage (a guild becoming unavailable) is neither.
"""

from __future__ import annotations

import contextlib
import logging

import discord
from discord.ext import commands

from adapters.discord.client import AnyBot, Heyan
from adapters.discord.mapping import dm_tenant, guild_tenant, message_text, tenant_of_channel, to_message
from adapters.discord.render import render, split_message
from bot.departures import tenant_left, tenant_returned
from bot.models import Reply
from memory.models import Scope

__all__ = ["Listeners"]

log = logging.getLogger(__name__)

#: Message types people write; joins, pins, thread-created notices and the like are not turns.
_CONVERSATION = frozenset({discord.MessageType.default, discord.MessageType.reply})


class Listeners(commands.Cog):
    """Messages, edits, deletions and guild membership."""

    def __init__(self, bot: AnyBot, heyan: Heyan) -> None:
        self.bot = bot
        self.heyan = heyan

    # --- what a message is -----------------------------------------------------------------------

    def _me(self) -> int:
        assert self.bot.user is not None, "events arrive only after log-in"
        return self.bot.user.id

    def _ignored(self, message: discord.Message) -> bool:
        return message.author.bot or message.webhook_id is not None or message.type not in _CONVERSATION

    def _addressed(self, message: discord.Message) -> bool:
        if message.guild is None:
            return True  # a DM is said to Heyan
        if self._me() in message.raw_mentions:
            return True
        ref = message.reference
        replied = ref.resolved if ref is not None else None
        if ref is not None and not isinstance(replied, discord.Message):
            replied = ref.cached_message
        return isinstance(replied, discord.Message) and replied.author.id == self._me()

    def _readable(self, message: discord.Message) -> bool:
        """Discord sends the content of DMs and of messages whose mentions include the bot (a reply
        that pings it too); the rest needs the privileged intent."""
        me = self._me()
        return message.guild is None or self.heyan.reads_content or any(u.id == me for u in message.mentions)

    @staticmethod
    def _tenant(message: discord.Message) -> str:
        if message.guild is not None:
            return guild_tenant(message.guild.id)
        return dm_tenant(message.author.id)

    # --- messages ----------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if self._ignored(message):
            return
        addressed = self._addressed(message)
        if not self._readable(message):
            return
        text = message_text(message, self._me())
        if not text and not addressed:
            return
        rt = self.heyan.rt
        tenant = self._tenant(message)
        msg = to_message(message, tenant=tenant, text=text, mention=addressed)
        if not addressed:
            if isinstance(message.channel, discord.Thread) and await rt.sessions.is_open(tenant, msg.session):
                await rt.engine.observe(msg)
            return
        async with contextlib.AsyncExitStack() as typing:
            try:
                await typing.enter_async_context(message.channel.typing())
            except discord.HTTPException as exc:  # typing is a courtesy; the reply still matters
                log.info("no typing indicator in %s: %s", message.channel.id, exc)
            reply = await rt.engine.handle(msg, confirm=True)
        if reply is not None:
            await self._reply(message, reply)
            await rt.engine.answered(msg)  # only once it was posted: a crash before leaves it to answer

    async def _reply(self, message: discord.Message, reply: Reply) -> None:
        """The reply, its first piece as a Discord reply to the message (which needs Read Message
        History; without it, a plain message in the same place)."""
        content, mentions = render(reply.body)
        channel = message.channel
        try:
            for i, piece in enumerate(split_message(content)):
                if i > 0:
                    await channel.send(piece, allowed_mentions=mentions)
                    continue
                try:
                    await channel.send(piece, allowed_mentions=mentions,
                                       reference=message.to_reference(fail_if_not_exists=False))
                except discord.Forbidden:
                    await channel.send(piece, allowed_mentions=mentions)
        except discord.Forbidden as exc:
            log.warning("cannot reply in channel %s (Send Messages / Send Messages in Threads missing?): %s",
                        channel.id, exc)

    @commands.Cog.listener()
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        message = payload.message
        if self._ignored(message) or message.edited_at is None:  # embeds unfurling are not edits
            return
        if not self._readable(message):
            return
        rt = self.heyan.rt
        tenant = self._tenant(message)
        msg = to_message(message, tenant=tenant, text=message_text(message, self._me()),
                         mention=self._addressed(message))
        scope = Scope(tenant=tenant, session=msg.session)
        if await rt.sessions.get(tenant, msg.session) is None:
            return  # a session Heyan never saw holds nothing from this message
        held = await rt.window.get_many(scope, [msg.id])
        if held and held[0].text == msg.text:
            return  # same text: re-reading it would take its memories back for nothing
        await rt.engine.revise(msg)

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        cached = payload.cached_message
        if cached is not None and (cached.author.bot or cached.webhook_id is not None):
            return
        await self._retract(payload.guild_id, payload.channel_id, [payload.message_id])

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        await self._retract(payload.guild_id, payload.channel_id, sorted(payload.message_ids))

    async def _retract(self, guild_id: int | None, channel_id: int, message_ids: list[int]) -> None:
        tenant = guild_tenant(guild_id) if guild_id is not None else await self._dm_tenant(channel_id)
        if tenant is None:
            log.info("deleted message(s) in unknown DM channel %s: nothing to take back", channel_id)
            return
        rt = self.heyan.rt
        session = str(channel_id)
        if await rt.sessions.get(tenant, session) is None:
            return
        for message_id in message_ids:
            changed = await rt.engine.retract(Scope(tenant=tenant, session=session), str(message_id))
            log.info("message %s deleted in %s: %d memories changed", message_id, session, changed)

    async def _dm_tenant(self, channel_id: int) -> str | None:
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except discord.HTTPException as exc:
                log.info("cannot resolve DM channel %s: %s", channel_id, exc)
                return None
        return tenant_of_channel(channel)

    # --- guilds ------------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        rt = self.heyan.rt
        grace = self.heyan.discord.leave_purge_days * 86400
        await tenant_left(rt.redis, rt.queue, guild_tenant(guild.id), grace_seconds=grace)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        if await tenant_returned(self.heyan.rt.redis, guild_tenant(guild.id)):
            log.info("back in guild %s: its pending purge is cancelled", guild.id)
