"""Putting Heyan's parts on a bot: the cogs and the stateless buttons (called from ``setup_hook``)."""

from __future__ import annotations

from adapters.discord.commands.agreements import (
    Agreements,
    CardButton,
    DigestCommands,
    GroundOpen,
    GroundPick,
)
from adapters.discord.commands.commitments import CommitmentDone, CommitmentsPage
from adapters.discord.commands.disputes import Disputes
from adapters.discord.commands.member_commands import (
    CorrectPick,
    EraseAsk,
    EraseCancel,
    EraseConfirm,
    MemberCommands,
    MyMemoryPage,
)
from adapters.discord.commands.memory_commands import MemoryCommands, MemoryPage
from adapters.discord.commands.review import ReviewAction, ReviewTurn
from adapters.discord.commands.settings_commands import SettingsCommands
from adapters.discord.connection.client import AnyBot, Heyan
from adapters.discord.events.guilds import Guilds
from adapters.discord.events.listeners import Listeners

__all__ = ["install"]


async def install(bot: AnyBot, heyan: Heyan) -> None:
    """Add the listeners and command cogs, and register every ``DynamicItem`` so clicks on
    messages sent before a restart still reach their handlers."""
    await bot.add_cog(Listeners(bot, heyan))
    await bot.add_cog(Guilds(bot, heyan))
    await bot.add_cog(Disputes(bot, heyan))
    await bot.add_cog(MemoryCommands(bot, heyan))
    await bot.add_cog(MemberCommands(bot, heyan))
    await bot.add_cog(SettingsCommands(bot, heyan))
    await bot.add_cog(Agreements(bot, heyan))
    await bot.add_cog(DigestCommands(bot, heyan))
    bot.add_dynamic_items(ReviewAction, ReviewTurn, CorrectPick, EraseAsk, EraseConfirm, EraseCancel, CommitmentDone,
                          CommitmentsPage, MemoryPage, MyMemoryPage, CardButton, GroundOpen, GroundPick)
