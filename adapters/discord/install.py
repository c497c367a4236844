"""Putting Heyan's parts on a bot: the cogs and the stateless buttons (called from ``setup_hook``)."""

from __future__ import annotations

from adapters.discord.agreements import Agreements, CardButton, DigestCommands, GroundOpen, GroundPick
from adapters.discord.client import AnyBot, Heyan
from adapters.discord.commitments import CommitmentDone, CommitmentsPage
from adapters.discord.disputes import Disputes
from adapters.discord.guilds import Guilds
from adapters.discord.listeners import Listeners
from adapters.discord.member_commands import (
    CorrectPick,
    EraseAsk,
    EraseCancel,
    EraseConfirm,
    MemberCommands,
    MyMemoryPage,
)
from adapters.discord.memory_commands import MemoryCommands, MemoryPage
from adapters.discord.review import ReviewAction, ReviewTurn
from adapters.discord.settings_commands import SettingsCommands

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
