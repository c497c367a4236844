"""How many gateway connections (shards) this process opens, and which.

``HEYAN_DISCORD_SHARDS``: ``-1`` (default) asks ``GET /gateway/bot`` (one connection, or an
``AutoShardedBot`` with Discord's count), ``0`` one connection, ``n`` exactly n. Split over processes
with ``HEYAN_DISCORD_SHARD_COUNT`` and ``_SHARD_IDS`` (same count, own ids); a contradiction stops
``heyan run`` with one line. Each process sees only its shards' guilds (``guilds.owned_by``). When to
use which: docs/DEPLOY.md, "Discord sharding".
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

import discord

from adapters.runtime.startup import StartupError
from bot.config.settings import DiscordSettings

__all__ = ["ShardPlan", "parse_shard_ids", "plan", "recommended_shards"]

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
#: Discord's own ceiling per process is far above this; a typo like "0-99999" is not a plan.
MAX_SHARDS = 4096


@dataclass(frozen=True)
class ShardPlan:
    """``count`` None: one plain connection. Otherwise an ``AutoShardedBot`` of ``count`` shards in all,
    running ``ids`` here (None: all of them). ``ask`` is true until ``GET /gateway/bot`` decided."""

    count: int | None = None
    ids: tuple[int, ...] | None = None
    ask: bool = False

    @property
    def sharded(self) -> bool:
        return self.count is not None


def parse_shard_ids(raw: str, count: int) -> tuple[int, ...]:
    """``"0,2,4-7"`` → ``(0, 2, 4, 5, 6, 7)``, each below ``count``, no repeats; StartupError otherwise."""
    ids: list[int] = []
    for part in (p.strip() for p in raw.split(",")):
        match = _RANGE.fullmatch(part)
        if match is None:
            raise StartupError(f"HEYAN_DISCORD_SHARD_IDS must be shard numbers and ranges such as 0,1 or 2-3 "
                               f"(got {raw!r})")
        low = int(match[1])
        high = int(match[2]) if match[2] else low
        if high < low:
            raise StartupError(f"HEYAN_DISCORD_SHARD_IDS: the range {part} runs backwards; write {high}-{low}")
        ids.extend(range(low, high + 1))
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise StartupError(f"HEYAN_DISCORD_SHARD_IDS names shard(s) {', '.join(map(str, repeated))} twice")
    outside = [i for i in ids if i >= count]
    if outside:
        raise StartupError(f"HEYAN_DISCORD_SHARD_IDS: shard(s) {', '.join(map(str, outside))} do not exist with "
                           f"HEYAN_DISCORD_SHARD_COUNT={count} (shards are numbered 0 to {count - 1})")
    return tuple(ids)


def plan(settings: DiscordSettings) -> ShardPlan:
    """The shard plan the settings ask for (``ask`` when Discord's recommendation decides)."""
    count, raw_ids, shards = settings.shard_count, settings.shard_ids, settings.shards
    if raw_ids is not None and raw_ids.strip() and count is None:
        raise StartupError("HEYAN_DISCORD_SHARD_IDS needs HEYAN_DISCORD_SHARD_COUNT too: the total number of shards "
                           "over all processes (the same in each), e.g. SHARD_COUNT=4 with SHARD_IDS=0-1 and 2-3")
    if count is not None:
        if not 1 <= count <= MAX_SHARDS:
            raise StartupError(f"HEYAN_DISCORD_SHARD_COUNT must be between 1 and {MAX_SHARDS} (got {count})")
        if shards not in (-1, count):
            raise StartupError(f"HEYAN_DISCORD_SHARDS={shards} contradicts HEYAN_DISCORD_SHARD_COUNT={count}: set only "
                               "HEYAN_DISCORD_SHARD_COUNT (with HEYAN_DISCORD_SHARD_IDS) to split shards over processes")
        ids = parse_shard_ids(raw_ids, count) if raw_ids and raw_ids.strip() else None
        return ShardPlan(count=count, ids=ids)
    if shards == 0:
        return ShardPlan()
    if shards > 0:
        return ShardPlan(count=shards)
    return ShardPlan(ask=True)


async def recommended_shards(token: str) -> int:
    """Discord's recommended shard count (``GET /gateway/bot``), with discord.py's own HTTP client and
    rate-limit handling. ``discord.LoginFailure`` for a rejected token."""
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(token)
        shards, _, _ = await http.get_bot_gateway()
        return int(shards)
    finally:
        await http.close()
