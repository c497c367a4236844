"""Shards: Discord's recommendation decides between one connection and an ``AutoShardedBot``;
``HEYAN_DISCORD_SHARD_COUNT`` / ``HEYAN_DISCORD_SHARD_IDS`` split shards over processes, and a process
reconciles departures only for the guilds of its own shards. Bad settings stop with one line."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest

from adapters.discord.connection.sharding import ShardPlan, parse_shard_ids, plan
from adapters.discord.events.guilds import GUILDS_KEY, Guilds, owned_by
from adapters.runtime.composition import StartupError
from bot.config.settings import DiscordSettings
from tests.discord_harness import hash_embedder, heyan_on_discord, redis_url
from tests.discord_standin import DiscordStandIn, default_guild

__all__ = ["hash_embedder", "redis_url"]


def test_shard_settings_are_validated_with_what_to_set() -> None:
    assert plan(DiscordSettings()) == ShardPlan(ask=True)
    assert plan(DiscordSettings(shards=0)) == ShardPlan()
    assert plan(DiscordSettings(shards=3)) == ShardPlan(count=3)
    assert plan(DiscordSettings(shard_count=4, shard_ids="0-1")) == ShardPlan(count=4, ids=(0, 1))
    assert plan(DiscordSettings(shard_count=4)) == ShardPlan(count=4)
    assert parse_shard_ids(" 3, 0-1 ", 4) == (3, 0, 1)
    with pytest.raises(StartupError, match="needs HEYAN_DISCORD_SHARD_COUNT"):
        plan(DiscordSettings(shard_ids="0"))
    with pytest.raises(StartupError, match=r"shard\(s\) 4 do not exist"):
        plan(DiscordSettings(shard_count=4, shard_ids="2-4"))
    with pytest.raises(StartupError, match="twice"):
        plan(DiscordSettings(shard_count=4, shard_ids="0,0-1"))
    with pytest.raises(StartupError, match="such as 0,1"):
        plan(DiscordSettings(shard_count=4, shard_ids="zero"))
    with pytest.raises(StartupError, match="contradicts"):
        plan(DiscordSettings(shards=2, shard_count=4))
    with pytest.raises(StartupError, match="between 1 and"):
        plan(DiscordSettings(shard_count=0))


def two_shard_world() -> DiscordStandIn:
    standin = DiscordStandIn(shard_count=2)
    while len({(g.id >> 22) % 2 for g in standin.guilds}) < 2:
        standin.guilds.append(default_guild(standin.ids, standin.bot_user, name=f"guild-{len(standin.guilds)}"))
    return standin


async def test_discords_recommendation_decides_the_bot_class(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:  # Discord recommends one shard
        assert isinstance(h.platform.bot, discord.ext.commands.Bot)
        assert not isinstance(h.platform.bot, discord.AutoShardedClient)
        assert h.discord.find_requests("GET", r"/gateway/bot")
    async with heyan_on_discord(tmp_path / "b", redis_url, standin=two_shard_world()) as h:
        assert isinstance(h.platform.bot, discord.AutoShardedClient)
        assert sorted(p["shard"] for p in h.discord.identify_payloads) == [[0, 2], [1, 2]]


async def test_a_process_runs_its_own_shards_and_reconciles_only_their_guilds(tmp_path: Path, redis_url: str) -> None:
    standin = two_shard_world()
    async with heyan_on_discord(tmp_path, redis_url, standin=standin, shard_count=2, shard_ids="1") as h:
        assert [p["shard"] for p in h.discord.identify_payloads] == [[1, 2]]
        bot = h.platform.bot
        assert bot is not None
        theirs = next(g for g in h.discord.guilds if (g.id >> 22) % 2 == 0)
        mine = next(g for g in h.discord.guilds if (g.id >> 22) % 2 == 1)
        assert owned_by(bot, mine.id) and not owned_by(bot, theirs.id)
        assert {g.id for g in bot.guilds} == {g.id for g in h.discord.guilds if (g.id >> 22) % 2 == 1}
        # the other process's guild is not "gone" for this one: no purge is scheduled for it
        await h.rt.redis.sadd(GUILDS_KEY, str(theirs.id))
        cog = bot.get_cog("Guilds")
        assert isinstance(cog, Guilds)
        assert await cog.reconcile() == []
        assert await h.rt.redis.get(f"heyan:tenant-left:discord:{theirs.id}") is None
