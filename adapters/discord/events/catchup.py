"""Catching up, at READY, with what was said in open disputes while Heyan was not connected.

Discord replays nothing to a bot that was away, so ``SeenMarks`` keeps per open dispute the last
message id taken in (one Redis hash per tenant, only moved forward; none: start at the opening), and
each READY reads the history after it through ``Engine.hear``, whose window drops an id it holds:
a message is taken in exactly once. Late mentions follow ``Engine.answers_late``; a sharded process
reads only its guilds; a deleted dispute thread is forgotten (``guilds.forget_deleted``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import discord
from redis.asyncio import Redis

from adapters.discord.events.mapping import guild_tenant
from bot.sessions import SessionBook, SessionInfo

__all__ = ["READ_AT_MOST", "CatchUp", "SeenMarks"]

log = logging.getLogger(__name__)

#: Messages read back per dispute at one READY (the mark moves, so the next READY reads on).
READ_AT_MOST = 1000
_PREFIX = "heyan:discord-seen:"

# Snowflakes are decimal strings of up to 20 digits: compare by length, then lexically (Lua numbers
# are doubles and would lose digits). Only an existing mark moves, and only forward.
_ADVANCE = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return 0 end
if #held > #ARGV[2] or (#held == #ARGV[2] and held >= ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


class SeenMarks:
    """The last message id taken in, per open dispute thread (``heyan:discord-seen:<tenant>``)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._advance = redis.register_script(_ADVANCE)

    def __repr__(self) -> str:
        return "SeenMarks()"

    @staticmethod
    def key(tenant: str) -> str:
        return _PREFIX + tenant

    async def start(self, tenant: str, session: str, message_id: int) -> None:
        """Begin following a dispute from ``message_id`` (kept if a later mark exists)."""
        await self.redis.hsetnx(self.key(tenant), session, str(message_id))  # type: ignore[misc]
        await self.advance(tenant, session, message_id)

    async def advance(self, tenant: str, session: str, message_id: int) -> bool:
        """Move the mark to ``message_id`` if the dispute is followed and it is newer."""
        return bool(await self._advance(keys=[self.key(tenant)], args=[session, str(message_id)]))

    async def get(self, tenant: str, session: str) -> int | None:
        raw = await self.redis.hget(self.key(tenant), session)  # type: ignore[misc]
        return int(raw) if raw else None

    async def stop(self, tenant: str, session: str) -> None:
        await self.redis.hdel(self.key(tenant), session)  # type: ignore[misc]


#: What the catch-up hands each message to: the listener's own path (``live=False``).
Hear = Callable[[discord.Message, bool], Awaitable[None]]
#: What it calls for a dispute thread Discord says no longer exists (deleted while Heyan was away).
Gone = Callable[[str, str], Awaitable[None]]
UNKNOWN_CHANNEL = 10003


class CatchUp:
    """Reads back the open disputes of the guilds a bot holds."""

    def __init__(self, bot: discord.Client, sessions: SessionBook, marks: SeenMarks, hear: Hear, gone: Gone) -> None:
        self.bot = bot
        self.sessions = sessions
        self.marks = marks
        self.hear = hear
        self.gone = gone

    def __repr__(self) -> str:
        return f"CatchUp(guilds={len(self.bot.guilds)})"

    async def run(self, shard_id: int | None = None) -> int:
        """Read every open dispute of this process's guilds (of one shard: a shard that had to
        identify again) since its mark; returns how many messages were read."""
        mine = {guild_tenant(g.id): g for g in self.bot.guilds
                if not g.unavailable and (shard_id is None or g.shard_id == shard_id)}
        read = 0
        for info in await self.sessions.all_sessions():
            guild = mine.get(info.tenant)
            if guild is None or not info.session.isdigit():
                continue
            if not info.is_open:
                await self.marks.stop(info.tenant, info.session)
                continue
            try:
                read += await self._dispute(guild, info)
            except discord.NotFound as exc:
                if exc.code != UNKNOWN_CHANNEL:
                    raise
                log.info("catch-up: dispute thread %s of %s was deleted while Heyan was away", info.session,
                         info.tenant)
                await self.gone(info.tenant, info.session)
            except discord.HTTPException as exc:
                log.warning("catch-up: cannot read dispute thread %s of %s (%s %s); it is read again at the next "
                            "start", info.session, info.tenant, exc.status, exc.text)
            except discord.RateLimited as exc:
                log.warning("catch-up: Discord asked to wait %.0f s reading dispute thread %s of %s; it is read "
                            "again at the next start", exc.retry_after, info.session, info.tenant)
        if read:
            log.info("catch-up: %d message(s) from open disputes read back", read)
        return read

    async def _dispute(self, guild: discord.Guild, info: SessionInfo) -> int:
        channel = guild.get_channel_or_thread(int(info.session))
        if channel is None:
            fetched = await self.bot.fetch_channel(int(info.session))
            channel = fetched if isinstance(fetched, discord.Thread | discord.TextChannel) else None
        if not isinstance(channel, discord.Thread | discord.TextChannel):
            return 0
        after = await self.marks.get(info.tenant, info.session)
        if after is None:
            opened = info.opened_at or datetime.now(UTC)
            after = discord.utils.time_snowflake(opened, high=False)
            await self.marks.start(info.tenant, info.session, after)
        perms = channel.permissions_for(guild.me)
        if not (perms.view_channel and perms.read_message_history):
            log.warning("catch-up: Heyan lacks View Channel / Read Message History in dispute thread %s of %s; "
                        "what was said there while it was away is not read", info.session, info.tenant)
            return 0
        count = 0
        async for message in channel.history(limit=READ_AT_MOST, after=discord.Object(after), oldest_first=True):
            await self.hear(message, False)
            await self.marks.advance(info.tenant, info.session, message.id)
            count += 1
        if count >= READ_AT_MOST:
            log.warning("catch-up: %d messages read back in dispute thread %s of %s; the rest at the next start",
                        count, info.session, info.tenant)
        return count
