"""Abuse limits of the console, apart from the chat commands' limits (``bot.limits``).

Anyone: sign-in starts and bad API tokens, per client address (an address over the bad-token limit
is refused before its token is checked). Signed-in callers: ``views`` and ``changes``, generous. A fixed
window per minute in the shared Redis (``heyan:web:limit:<what>:<who>:<minute>``), so every process
counts together; over it: ``TooMany`` (429, ``Retry-After``).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from redis.asyncio import Redis

from memory.errors import HeyanError

__all__ = ["Throttle", "ThrottleRules", "TooMany", "What"]

_PREFIX = "heyan:web:limit:"
#: The window every limit counts in.
WINDOW = 60
What = Literal["view", "change", "sign_in", "bad_token"]


class TooMany(HeyanError):
    """Over a console limit: ``retry_after`` seconds until the window turns."""

    def __init__(self, what: What, retry_after: float) -> None:
        self.what = what
        self.retry_after = max(1, int(retry_after + 0.999))
        super().__init__(what)

    def text(self, lang: str) -> str:
        zh = lang == "zh"
        if self.what in ("sign_in", "bad_token"):
            return (f"来自你的地址的登录尝试太多了；请 {self.retry_after} 秒后再试" if zh
                    else f"too many sign-in attempts from your address; try again in {self.retry_after} s")
        return (f"请慢一点：请求太快了；请 {self.retry_after} 秒后再试" if zh
                else f"slow down: too many requests in a minute; try again in {self.retry_after} s")


@dataclass(frozen=True, slots=True)
class ThrottleRules:
    """Requests allowed per minute (``WebSettings``)."""

    views: int = 600
    changes: int = 120
    sign_ins: int = 10
    bad_tokens: int = 10

    def limit(self, what: What) -> int:
        return {"view": self.views, "change": self.changes, "sign_in": self.sign_ins, "bad_token": self.bad_tokens}[what]


class Throttle:
    """The console's counters in Redis; ``clock`` is epoch seconds (tests move it)."""

    def __init__(self, redis: Redis, rules: ThrottleRules | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.redis = redis
        self.rules = rules or ThrottleRules()
        self.clock = clock

    def __repr__(self) -> str:
        return f"Throttle({self.rules!r})"

    def _key(self, what: What, who: str) -> tuple[str, float]:
        now = self.clock()
        window = int(now // WINDOW)
        # an address or a user id of any length or alphabet: a digest keeps the key short and plain
        digest = hashlib.sha256(who.encode()).hexdigest()[:32]
        return f"{_PREFIX}{what}:{digest}:{window}", (window + 1) * WINDOW - now

    async def hit(self, what: What, who: str) -> None:
        """Count one ``what`` by ``who``; TooMany once the minute's allowance is used up."""
        key, left = self._key(what, who)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, WINDOW * 2)
            count, _ = await pipe.execute()
        if int(count) > self.rules.limit(what):
            raise TooMany(what, left)

    async def check(self, what: What, who: str) -> None:
        """TooMany when ``who`` already used up the minute's ``what`` (nothing is counted)."""
        key, left = self._key(what, who)
        held = await self.redis.get(key)
        if held is not None and int(held) >= self.rules.limit(what):
            raise TooMany(what, left)
