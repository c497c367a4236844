"""A thread's temperature timeline in Redis: ``heyan:heat:<tenant>:<session>``, the last ``TIMELINE``
points of ``bot.disputes.escalation``'s signal (time, temperature, the message's score, its id and author id,
the signals it showed) — ids and numbers, never words. ``bot.disputes.escalation_alerts`` writes and shows it;
moderators read it through the moderation service (``thread_temperature``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from redis.asyncio import Redis

from memory.models import Scope

__all__ = ["KEEP_SECONDS", "TIMELINE", "HeatBook", "HeatPoint"]

#: Points kept per thread.
TIMELINE = 50
#: How long a quiet thread's timeline is kept (the conversation window's default).
KEEP_SECONDS = 14 * 24 * 3600


@dataclass(frozen=True, slots=True)
class HeatPoint:
    """One point of a thread's temperature timeline."""

    at: datetime
    temperature: float
    score: float
    message_id: str
    author: str
    signals: tuple[str, ...] = ()

    def to_json(self) -> str:
        return json.dumps({"t": self.at.isoformat(), "v": round(self.temperature, 3), "s": round(self.score, 3),
                           "m": self.message_id, "a": self.author, "g": list(self.signals)})

    @classmethod
    def from_json(cls, raw: str | bytes) -> HeatPoint:
        d: dict[str, Any] = json.loads(raw)
        return cls(at=datetime.fromisoformat(d["t"]), temperature=float(d["v"]), score=float(d["s"]),
                   message_id=str(d["m"]), author=str(d["a"]), signals=tuple(d.get("g") or ()))

    def as_dict(self) -> dict[str, Any]:
        return {"at": self.at.isoformat(), "temperature": round(self.temperature, 3), "score": round(self.score, 3),
                "message_id": self.message_id, "author": self.author, "signals": list(self.signals)}


class HeatBook:
    """Temperature timelines in Redis, one list per thread."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    @staticmethod
    def key(scope: Scope) -> str:
        return f"heyan:heat:{scope.tenant}:{scope.session}"

    async def timeline(self, scope: Scope) -> list[HeatPoint]:
        """The thread's points, oldest first."""
        raw = await self.redis.lrange(self.key(scope), 0, -1)  # type: ignore[misc]
        return [HeatPoint.from_json(r) for r in raw]

    async def timelines(self, tenant: str, sessions: Sequence[str]) -> dict[str, list[HeatPoint]]:
        """Several threads' points in one round trip, oldest first; a thread without any is left out."""
        if not sessions:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for session in sessions:
                pipe.lrange(self.key(Scope(tenant=tenant, session=session)), 0, -1)
            found = await pipe.execute()
        return {s: [HeatPoint.from_json(r) for r in raw] for s, raw in zip(sessions, found, strict=True) if raw}

    async def last(self, scope: Scope) -> HeatPoint | None:
        raw = await self.redis.lindex(self.key(scope), -1)  # type: ignore[misc]
        return HeatPoint.from_json(raw) if raw else None

    async def add(self, scope: Scope, point: HeatPoint) -> None:
        key = self.key(scope)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.rpush(key, point.to_json())
            pipe.ltrim(key, -TIMELINE, -1)
            pipe.expire(key, KEEP_SECONDS)
            await pipe.execute()

    async def forget(self, scope: Scope) -> None:
        await self.redis.delete(self.key(scope))
