"""Guilds and conversations coming and going: departures, returns, deleted threads and channels.

Leaving a guild (not an outage) schedules its tenant's purge after ``HEYAN_DISCORD_LEAVE_PURGE_DAYS``;
joining again cancels it. Heyan keeps the guilds it is in (``heyan:discord-guilds``), so each READY
reconciles departures and returns while offline, within this process's shards (first READY: seeded
from the sessions held). A deleted thread or channel closes its dispute (``bot.privacy.session_deletion``).
"""

from __future__ import annotations

import logging

import discord
from discord.ext import commands
from redis.asyncio import Redis

from adapters.discord.connection.client import AnyBot, Heyan
from adapters.discord.events.mapping import guild_tenant

__all__ = ["GUILDS_KEY", "GuildRoster", "Guilds", "forget_deleted", "owned_by"]

log = logging.getLogger(__name__)

#: The guild ids Heyan is in, as far as it knows (a set; only ids).
GUILDS_KEY = "heyan:discord-guilds"
_PREFIX = "discord:"


class GuildRoster:
    """The guild ids Heyan is in (``GUILDS_KEY``, a Redis set shared by every shard's process)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    def __repr__(self) -> str:
        return "GuildRoster()"

    async def kept(self) -> bool:
        """Has this deployment kept the set yet (False before its first READY with departures)?"""
        return bool(await self.redis.exists(GUILDS_KEY))

    async def ids(self) -> set[int]:
        return {int(raw) for raw in await self.redis.smembers(GUILDS_KEY)}  # type: ignore[misc]

    async def add(self, *guild_ids: int | str) -> None:
        if guild_ids:
            await self.redis.sadd(GUILDS_KEY, *(str(g) for g in guild_ids))  # type: ignore[misc]

    async def remove(self, guild_id: int) -> None:
        await self.redis.srem(GUILDS_KEY, str(guild_id))  # type: ignore[misc]


def owned_by(bot: discord.Client, guild_id: int) -> bool:
    """Does this process's connection carry ``guild_id``? (Discord routes a guild to shard
    ``(guild_id >> 22) % shard_count``; a process may run only some shards.)"""
    count = bot.shard_count or 1
    ids = getattr(bot, "shard_ids", None) or ([bot.shard_id] if bot.shard_id is not None else list(range(count)))
    return (guild_id >> 22) % count in ids


async def forget_deleted(heyan: Heyan, tenant: str, session: str) -> None:
    """A thread or channel was deleted: forget what Heyan held from it and close its dispute."""
    if await heyan.port.deletions.forget(tenant, session) is not None:
        await heyan.marks.stop(tenant, session)


class Guilds(commands.Cog):
    """Departures, returns and deletions."""

    def __init__(self, bot: AnyBot, heyan: Heyan) -> None:
        self.bot = bot
        self.heyan = heyan
        self._ready = False

    async def _left(self, guild_id: int) -> None:
        grace = self.heyan.discord.leave_purge_days * 86400
        await self.heyan.port.departures.left(guild_tenant(guild_id), grace_seconds=grace)
        await self.heyan.guilds.remove(guild_id)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self._left(guild.id)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.heyan.guilds.add(guild.id)
        if await self.heyan.port.departures.returned(guild_tenant(guild.id)):
            log.info("back in guild %s: its pending purge is cancelled", guild.id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        self._ready = True
        await self._reconcile()

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        """A shard of a sharded bot identified again after its first READY (the first is ``on_ready``'s)."""
        if self._ready:
            await self._reconcile()

    async def _reconcile(self) -> None:
        try:
            await self.reconcile()
        except Exception:
            log.exception("reconciling guild departures at READY failed; it runs again at the next READY")

    async def reconcile(self) -> list[int]:
        """Schedule the purge of guilds left while Heyan was offline; returns their ids."""
        roster, departures = self.heyan.guilds, self.heyan.port.departures
        present = {g.id for g in self.bot.guilds}  # unavailable ones too: an outage is not a departure
        if not await roster.kept():
            await self._seed()
        known = await roster.ids()
        gone = sorted(g for g in known - present if owned_by(self.bot, g))
        for guild_id in gone:
            if self.bot.get_guild(guild_id) is not None:
                continue  # joined (again) while this ran
            if await departures.pending(guild_tenant(guild_id)):
                await roster.remove(guild_id)
                continue
            log.warning("guild %s no longer lists Heyan (it was removed while Heyan was offline): its data is "
                        "purged in %s day(s) unless Heyan is added back", guild_id,
                        self.heyan.discord.leave_purge_days)
            await self._left(guild_id)
        for guild_id in sorted(present):
            # a guild left while this ran (its own event recorded that) must not be counted back in
            if self.bot.get_guild(guild_id) is None:
                continue
            await roster.add(guild_id)
            if self.bot.get_guild(guild_id) is not None and await departures.returned(guild_tenant(guild_id)):
                log.info("Heyan was added back to guild %s while offline: its pending purge is cancelled", guild_id)
        return gone

    async def _seed(self) -> None:
        """The first READY with departures kept: the guilds Heyan holds sessions of."""
        guilds = {info.tenant.removeprefix(_PREFIX) for info in await self.heyan.port.sessions.all_sessions()
                  if info.tenant.startswith(_PREFIX)}
        ids = [g for g in guilds if g.isdigit()]  # not discord:dm:<user>
        await self.heyan.guilds.add(*ids)

    # --- deleted conversations ------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self._deleted(payload.guild_id, payload.thread_id)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self._deleted(channel.guild.id, channel.id)

    async def _deleted(self, guild_id: int, channel_id: int) -> None:
        await forget_deleted(self.heyan, guild_tenant(guild_id), str(channel_id))
