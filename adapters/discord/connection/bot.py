"""The discord.py bot: a ``commands.Bot`` (``AutoShardedBot`` when sharding is configured) with
minimal intents, no pings by default, Heyan's cogs, its command-tree translator and error handler."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

import discord
from discord.ext import commands

from adapters.discord.commands.interactions import HeyanTree
from adapters.discord.connection.client import (
    GUILD_READY_TIMEOUT,
    IDENTIFY_DELAY,
    MAX_RATELIMIT_WAIT,
    AnyBot,
    Heyan,
    intents_for,
)
from adapters.discord.display.translate import HeyanTranslator
from adapters.discord.install import install

if TYPE_CHECKING:
    from adapters.discord.connection.sharding import ShardPlan

__all__ = ["HeyanBot", "ShardedHeyanBot", "build_bot"]


class _HeyanHooks:
    """What both bot classes add to discord.py's: Heyan's setup and the identify pause."""

    heyan: Heyan
    identify_delay: float = IDENTIFY_DELAY

    async def setup_hook(self) -> None:
        """Install the translator, the cogs and the stateless buttons (runs once, at log-in)."""
        bot = cast(AnyBot, self)
        await bot.tree.set_translator(HeyanTranslator())
        await install(bot, self.heyan)

    async def on_message(self, message: discord.Message, /) -> None:
        """No prefix commands: messages are the listeners cog's, so "@Heyan help" is a question to
        the mediator, not a command lookup."""
        return None

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py's pause between IDENTIFYs (configurable so tests need not wait 5 s)."""
        if not initial and self.identify_delay > 0:
            await asyncio.sleep(self.identify_delay)


class HeyanBot(_HeyanHooks, commands.Bot):
    """One gateway connection."""


class ShardedHeyanBot(_HeyanHooks, commands.AutoShardedBot):
    """Several shards in one process (large deployments)."""


def build_bot(heyan: Heyan, *, guild_ready_timeout: float = GUILD_READY_TIMEOUT,
              identify_delay: float = IDENTIFY_DELAY, shards: ShardPlan | None = None) -> AnyBot:
    """The bot for a shard plan (``adapters.discord.connection.sharding``): one connection without one (or an
    unsharded plan), else an ``AutoShardedBot`` of ``shards.count`` running ``shards.ids``."""
    d = heyan.discord
    options: dict[str, Any] = {
        "command_prefix": commands.when_mentioned,
        "help_command": None,
        "intents": intents_for(d),
        "allowed_mentions": discord.AllowedMentions.none(),
        "tree_cls": HeyanTree,
        "guild_ready_timeout": guild_ready_timeout,
        # a 429 asking to wait longer raises ``discord.RateLimited`` instead of sleeping in a listener
        "max_ratelimit_timeout": MAX_RATELIMIT_WAIT,
    }
    bot: HeyanBot | ShardedHeyanBot
    if shards is None or not shards.sharded:
        bot = HeyanBot(**options)
    else:
        if shards.ids is not None:
            options["shard_ids"] = list(shards.ids)
        bot = ShardedHeyanBot(shard_count=shards.count, **options)
    bot.heyan = heyan
    bot.identify_delay = identify_delay
    return bot

