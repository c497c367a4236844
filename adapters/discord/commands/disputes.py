"""``/dispute open|status|summary|close``: disputes live in threads; the moderation service keeps them.

``open`` checks the community's policy and Heyan's channel permissions before making a thread, which
is private only where Heyan may also manage threads: a thread the service then refuses is deleted
again, so none is left with only Heyan in it. Used in a thread, it opens the dispute there. The
service posts the opening through the outbox; opening and closing start and stop the catch-up mark.
"""

from __future__ import annotations

import logging
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from adapters.discord.commands.agreements import close_with_card, common_ground
from adapters.discord.commands.interactions import (
    MissingPermission,
    Refusal,
    actor,
    answer,
    defer,
    require_guild,
)
from adapters.discord.connection.client import AnyBot, Heyan
from adapters.discord.display.embeds import status_embed, summary_embed
from adapters.discord.display.translate import permission_label, t
from adapters.discord.events.mapping import guild_tenant, visibility_of
from bot.text.richtext import Mention
from memory.models import Visibility

__all__ = ["Disputes"]

log = logging.getLogger(__name__)

#: A week: quiet disputes stay open long enough for follow-ups (Discord's longest auto-archive).
AUTO_ARCHIVE_MINUTES: Literal[10080] = 10080
MEMBER = "A member the dispute concerns"


class Disputes(commands.Cog):
    """The /dispute group (guild only)."""

    dispute = app_commands.Group(name="dispute", description="Open and follow a dispute in a thread", guild_only=True)

    def __init__(self, bot: AnyBot, heyan: Heyan) -> None:
        self.bot = bot
        self.heyan = heyan

    @dispute.command(name="open", description="Open a dispute in a new thread with the members it concerns")
    @app_commands.describe(title="What the dispute is about", member1=MEMBER, member2=MEMBER, member3=MEMBER,
                           member4=MEMBER, member5=MEMBER)
    async def open_dispute(
        self, interaction: discord.Interaction, title: app_commands.Range[str, 1, 100],
        member1: discord.Member | None = None, member2: discord.Member | None = None,
        member3: discord.Member | None = None, member4: discord.Member | None = None,
        member5: discord.Member | None = None,
    ) -> None:
        require_guild(interaction)
        await defer(interaction)
        who = await actor(interaction, self.heyan)
        named = [m for m in (member1, member2, member3, member4, member5) if m is not None and not m.bot]
        members = list({m.id: m for m in named}.values())
        channel = self._channel(interaction)
        perms = interaction.app_permissions
        moderation = self.heyan.port.moderation
        notes: list[str] = []
        if isinstance(channel, discord.Thread):
            await moderation.check_dispute_place(who, str(channel.parent_id) if channel.parent_id else None)
            if not perms.send_messages_in_threads:
                raise MissingPermission("send_messages_in_threads")
            await self._join(channel)
            thread, created = channel, False
        elif isinstance(channel, discord.TextChannel):
            await moderation.check_dispute_place(who, str(channel.id))
            thread, created = await self._new_thread(channel, title, perms), True
            if thread.type is discord.ChannelType.public_thread and perms.create_private_threads \
                    and not perms.manage_threads and not channel.is_news():
                notes.append(t(who.lang, "dispute.public_why", perm=permission_label("manage_threads", who.lang)))
        else:
            raise Refusal("text_channel_only")
        try:
            await self._add_members(thread, [interaction.user, *members])
            info = await moderation.dispute_open(
                who, str(thread.id), title=title, members=[Mention(str(m.id), m.display_name) for m in members],
                visibility=visibility_of(thread), channel=str(thread.parent_id) if thread.parent_id else None)
        except BaseException:
            if created:
                await self._discard(thread, perms)
            raise
        await self.heyan.marks.start(guild_tenant(thread.guild.id), str(thread.id), interaction.id)
        if not self.heyan.reads_content:
            notes.append(t(who.lang, "dispute.mentions_only", me=f"<@{self.bot.user.id if self.bot.user else 0}>"))
        key = "dispute.opened_private" if info.visibility is Visibility.PRIVATE else "dispute.opened"
        await answer(interaction, "\n".join([t(who.lang, key, thread=thread.mention), *notes]))

    @staticmethod
    def _channel(interaction: discord.Interaction) -> object:
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel | discord.Thread) and interaction.guild is not None:
            channel = interaction.guild.get_channel_or_thread(interaction.channel_id or 0) or channel
        return channel

    @staticmethod
    async def _new_thread(channel: discord.TextChannel, title: str, perms: discord.Permissions) -> discord.Thread:
        """A private thread where Heyan may make one and manage it (never in announcement channels),
        else public: a private thread Heyan could not delete again would be left with only Heyan."""
        if not perms.view_channel:
            raise MissingPermission("view_channel")
        if not perms.send_messages_in_threads:
            raise MissingPermission("send_messages_in_threads")
        private = perms.create_private_threads and perms.manage_threads and not channel.is_news()
        if not private and not perms.create_public_threads:
            raise MissingPermission("create_public_threads")
        # an announcement channel's threads are ANNOUNCEMENT_THREADs, a text channel's public or private
        # (``developers/resources/channel.mdx``, "Channel Types")
        kind = (discord.ChannelType.news_thread if channel.is_news()
                else discord.ChannelType.private_thread if private else discord.ChannelType.public_thread)
        try:
            return await channel.create_thread(name=" ".join(title.split())[:100] or "dispute", type=kind,
                                               invitable=False, auto_archive_duration=AUTO_ARCHIVE_MINUTES,
                                               reason="Heyan: /dispute open")
        except discord.Forbidden as exc:
            raise MissingPermission("create_private_threads" if private else "create_public_threads") from exc

    @staticmethod
    async def _join(thread: discord.Thread) -> None:
        """Be a member of an existing thread, or Discord may not send Heyan its messages."""
        if thread.me is not None:
            return
        try:
            await thread.join()
        except discord.Forbidden as exc:
            raise MissingPermission("manage_threads") from exc

    @staticmethod
    async def _add_members(thread: discord.Thread, people: list[discord.Member | discord.User]) -> None:
        for person in people:
            try:
                await thread.add_user(person)
            except discord.Forbidden as exc:
                raise MissingPermission("manage_threads") from exc

    @staticmethod
    async def _discard(thread: discord.Thread, perms: discord.Permissions) -> None:
        if not perms.manage_threads:  # only a public thread is ever made without it: members can see it
            log.warning("thread %s made for a dispute that did not open stays: deleting it needs Manage Threads",
                        thread.id)
            return
        try:
            await thread.delete(reason="Heyan: the dispute could not be opened")
        except discord.HTTPException as exc:
            log.warning("could not delete thread %s made for a dispute that did not open: %s", thread.id, exc)

    @dispute.command(name="status", description="Where this dispute stands")
    async def status(self, interaction: discord.Interaction) -> None:
        require_guild(interaction)
        await defer(interaction)
        who = await actor(interaction, self.heyan)
        found = await self.heyan.port.moderation.dispute_status(who, str(interaction.channel_id))
        if found.info is None and found.turns == 0:
            await answer(interaction, t(who.lang, "dispute.none"))
            return
        await answer(interaction, embeds=[status_embed(found, who.lang)])

    @dispute.command(name="summary", description="Summarise this dispute so far")
    async def summary(self, interaction: discord.Interaction) -> None:
        require_guild(interaction)
        await defer(interaction)
        who = await actor(interaction, self.heyan)
        found = await self.heyan.port.moderation.dispute_summary(who, str(interaction.channel_id))
        if found is None:
            await answer(interaction, t(who.lang, "dispute.no_summary"))
            return
        await answer(interaction, embeds=[summary_embed(found, who.lang)])

    @dispute.command(name="close", description="Close this dispute with its agreement card (each party confirms)")
    @app_commands.describe(reason="Why (kept in the audit trail)",
                           force="Moderators: close now, without the parties' confirmation")
    async def close(self, interaction: discord.Interaction, reason: app_commands.Range[str, 0, 500] = "",
                    force: bool = False) -> None:
        require_guild(interaction)
        await defer(interaction, ephemeral=False)  # everyone in the thread should see it closed
        outcome = await close_with_card(self.heyan, interaction, reason, force=force)
        if outcome.closed is not None:
            await self.heyan.marks.stop(outcome.card.tenant, str(interaction.channel_id))

    @dispute.command(name="common-ground", description="Draft statements everyone might endorse; each party picks privately")
    async def common_ground(self, interaction: discord.Interaction) -> None:
        require_guild(interaction)
        await common_ground(self.heyan, interaction)
