"""Rate limits on replies and commands, per user and per tenant, kept in Redis.

One member flooding the bot, or one busy server, must not starve everyone else (or run up the LLM
bill). The counting is the ``limits`` library's moving window over the same Redis every process
shares, so limits hold across the bot processes of the distributed shape. A refused call raises
``SlowDown`` saying when to try again; callers answer with a short "slow down", once per window.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Literal

from limits import RateLimitItem, parse
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter

from memory.errors import HeyanError

__all__ = ["Action", "LimitRules", "RateLimits", "SlowDown", "check_rule"]

log = logging.getLogger(__name__)

Action = Literal["reply", "command"]


class SlowDown(HeyanError):
    """Too many replies or commands: ``retry_after`` seconds until the next one is allowed.

    ``scope`` says whose limit it was: ``user`` (this member) or ``tenant`` (the whole server)."""

    def __init__(self, action: Action, scope: Literal["user", "tenant"], retry_after: float) -> None:
        self.action = action
        self.scope = scope
        self.retry_after = max(1.0, retry_after)
        who = "you are" if scope == "user" else "this community is"
        super().__init__(
            f"slow down: {who} sending {action}s faster than Heyan answers them; "
            f"try again in {int(self.retry_after + 0.5)} s"
        )

    def text(self, lang: str) -> str:
        """The refusal in ``lang`` (``zh`` or ``en``)."""
        if lang == "zh":
            who = "你" if self.scope == "user" else "这个社区"
            what = "回复请求" if self.action == "reply" else "命令"
            return f"请慢一点：{who}发送{what}的速度太快了，请 {int(self.retry_after + 0.5)} 秒后再试。"
        return str(self)


def check_rule(text: str) -> str:
    """``text`` if the ``limits`` library reads it as a rate ("6/minute", "100 per hour"); else ValueError."""
    try:
        parse(text)
    except ValueError:
        raise ValueError(f"not a rate limit: {text!r} (write e.g. '6/minute', '100/hour', '2/second')") from None
    return text


@dataclass(frozen=True, slots=True)
class LimitRules:
    """The rates, in the ``limits`` notation ("6/minute")."""

    replies_per_user: str = "6/minute"
    replies_per_tenant: str = "60/minute"
    commands_per_user: str = "20/minute"
    commands_per_tenant: str = "200/minute"


class RateLimits:
    """Per-user and per-tenant moving windows for replies and commands, over Redis at ``redis_url``."""

    def __init__(self, redis_url: str, rules: LimitRules | None = None) -> None:
        self.rules = rules or LimitRules()
        self._storage = RedisStorage(_storage_uri(redis_url), implementation="redispy", key_prefix="heyan:limits")
        self._limiter = MovingWindowRateLimiter(self._storage)
        self._items: dict[tuple[Action, str], RateLimitItem] = {
            ("reply", "user"): parse(self.rules.replies_per_user),
            ("reply", "tenant"): parse(self.rules.replies_per_tenant),
            ("command", "user"): parse(self.rules.commands_per_user),
            ("command", "tenant"): parse(self.rules.commands_per_tenant),
        }

    def __repr__(self) -> str:
        return f"RateLimits({self.rules!r})"

    async def hit(self, action: Action, tenant: str, user: str) -> None:
        """Count one ``action`` by ``user`` in ``tenant``; SlowDown when a limit is used up (then
        nothing is counted against the other limit)."""
        user_item, tenant_item = self._items[(action, "user")], self._items[(action, "tenant")]
        if not await self._limiter.test(user_item, action, tenant, user):
            raise SlowDown(action, "user", await self._wait(user_item, action, tenant, user))
        if not await self._limiter.hit(tenant_item, action, tenant):
            raise SlowDown(action, "tenant", await self._wait(tenant_item, action, tenant))
        if not await self._limiter.hit(user_item, action, tenant, user):
            raise SlowDown(action, "user", await self._wait(user_item, action, tenant, user))

    async def _wait(self, item: RateLimitItem, *identifiers: str) -> float:
        stats = await self._limiter.get_window_stats(item, *identifiers)
        return max(0.0, stats.reset_time - time.time())  # `limits` counts on the wall clock


def _storage_uri(redis_url: str) -> str:
    """The ``limits`` storage URI for a redis-py URL: ``redis://`` -> ``async+redis://``,
    ``unix:///sock?db=1`` -> ``async+redis+unix:///sock?db=1``."""
    if redis_url.startswith("unix://"):
        return "async+redis+" + redis_url
    if redis_url.startswith(("redis://", "rediss://")):
        return "async+" + redis_url
    return redis_url
