"""Communities by name: what the console calls a tenant.

Names are learnt when a moderator signs in and kept in ``heyan:web:community-names`` (tenant → name),
so the operator and API tokens see them too; an unseen tenant gets a readable label ("Discord server
100"), never the bare id.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Iterable, Mapping
from typing import TypeVar

from redis.asyncio import Redis

__all__ = ["CommunityNames", "fallback_label"]

_KEY = "heyan:web:community-names"
#: Longest name kept (Discord allows 100 characters, Slack 21 for a workspace name).
MAX_NAME = 100
T = TypeVar("T")


async def _aw(value: Awaitable[T] | T) -> T:
    return await value if inspect.isawaitable(value) else value


def fallback_label(tenant: str, lang: str = "en") -> str:
    """A tenant's label from its id alone: "Discord server 100", "Slack workspace T1"."""
    platform, _, rest = tenant.partition(":")
    zh = lang == "zh"
    if platform == "discord":
        if rest.startswith("dm:"):
            return f"Discord 私信（{rest[3:]}）" if zh else f"Discord direct messages ({rest[3:]})"
        return f"Discord 服务器 {rest}" if zh else f"Discord server {rest}"
    if platform == "slack":
        return f"Slack 工作区 {rest}" if zh else f"Slack workspace {rest}"
    if platform == "console":
        return f"控制台 {rest}" if zh else f"Console {rest}"
    return tenant


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class CommunityNames:
    """Tenant → the name its platform gave it, as last seen by a sign-in."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    def __repr__(self) -> str:
        return "CommunityNames()"

    async def learn(self, names: Mapping[str, str]) -> None:
        """Remember names seen just now (a blank one is skipped)."""
        clean = {t: " ".join(n.split())[:MAX_NAME] for t, n in names.items() if n.strip()}
        if clean:
            await _aw(self.redis.hset(_KEY, mapping=clean))

    async def names(self, tenants: Iterable[str]) -> dict[str, str]:
        """The known names of ``tenants`` (those never seen are left out)."""
        wanted = list(tenants)
        if not wanted:
            return {}
        found = await _aw(self.redis.hmget(_KEY, wanted))
        return {t: _text(v) for t, v in zip(wanted, found, strict=True) if v}

    async def label(self, tenant: str, lang: str = "en") -> str:
        """The name of ``tenant``, else its label from the id."""
        return (await self.names([tenant])).get(tenant) or fallback_label(tenant, lang)
