"""Sessions and disputes: what Heyan knows about a thread beyond its messages.

A session is a thread or channel; it is a dispute once opened there (title, members, opener, ``open``
until closed; retention counts from ``closed_at``). Its visibility is recorded when first seen. One
Redis hash per session (``heyan:session:<tenant>:<session>``), shared by every process; title and close
reason are sealed, ids, states and times stay clear.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from redis.asyncio import Redis

from bot.privacy.sealing import Advance, open_fields, reseal_hash_field, reseal_keys, seal_fields
from memory.models import Visibility, utcnow
from memory.store.crypto import Cipher

__all__ = ["DisputeState", "SessionBook", "SessionInfo"]

_PREFIX = "heyan:session:"


class DisputeState(StrEnum):
    NONE = "none"  # a thread Heyan has seen, never opened as a dispute
    OPEN = "open"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One session of one tenant, and its dispute if there is one."""

    tenant: str
    session: str
    visibility: Visibility = Visibility.PUBLIC
    state: DisputeState = DisputeState.NONE
    title: str = ""
    members: tuple[str, ...] = ()
    opened_by: str | None = None
    opened_at: datetime | None = None
    closed_by: str | None = None
    closed_at: datetime | None = None
    close_reason: str = ""
    #: Where a platform put the dispute when it differs from the session id (e.g. a parent channel).
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def is_open(self) -> bool:
        return self.state is DisputeState.OPEN

    def to_json(self, cipher: Cipher | None = None) -> str:
        """The stored form; with ``cipher`` the title and close reason are sealed."""
        data: dict[str, Any] = asdict(self)
        data["visibility"] = self.visibility.value
        data["state"] = self.state.value
        for key in ("opened_at", "closed_at"):
            value = getattr(self, key)
            data[key] = value.isoformat() if value else None
        secret = {key: data.pop(key) for key in _SECRET}
        return json.dumps(seal_fields(data, secret, cipher, _context(self.tenant, self.session)), ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str | bytes, cipher: Cipher | None = None) -> SessionInfo:
        data: dict[str, Any] = json.loads(raw)
        data = open_fields(data, cipher, _context(data["tenant"], data["session"]))
        return cls(
            tenant=data["tenant"],
            session=data["session"],
            visibility=Visibility(data.get("visibility") or "public"),
            state=DisputeState(data.get("state") or "none"),
            title=data.get("title") or "",
            members=tuple(data.get("members") or ()),
            opened_by=data.get("opened_by"),
            opened_at=datetime.fromisoformat(data["opened_at"]) if data.get("opened_at") else None,
            closed_by=data.get("closed_by"),
            closed_at=datetime.fromisoformat(data["closed_at"]) if data.get("closed_at") else None,
            close_reason=data.get("close_reason") or "",
            extra={str(k): str(v) for k, v in (data.get("extra") or {}).items()},
        )


_SECRET = ("title", "close_reason")


def _context(tenant: str, session: str) -> str:
    return f"session/{tenant}/{session}"


class SessionBook:
    """Session records in Redis."""

    #: The keys holding member text (``reseal`` rewrites them).
    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_PREFIX}*",)

    def __init__(self, redis: Redis, *, cipher: Cipher | None = None) -> None:
        self.redis = redis
        self.cipher = cipher

    @staticmethod
    def _key(tenant: str, session: str) -> str:
        return f"{_PREFIX}{tenant}:{session}"

    async def get(self, tenant: str, session: str) -> SessionInfo | None:
        raw = await self.redis.hget(self._key(tenant, session), "data")  # type: ignore[misc]
        return SessionInfo.from_json(raw, self.cipher) if raw else None

    async def put(self, info: SessionInfo) -> SessionInfo:
        await self.redis.hset(self._key(info.tenant, info.session), "data", info.to_json(self.cipher))  # type: ignore[misc]
        return info

    async def seen(self, tenant: str, session: str, visibility: Visibility) -> None:
        """Record a session the first time a message arrives in it (one HSETNX, nothing if known)."""
        info = SessionInfo(tenant=tenant, session=session, visibility=visibility)
        await self.redis.hsetnx(self._key(tenant, session), "data", info.to_json(self.cipher))  # type: ignore[misc]

    async def open(
        self,
        tenant: str,
        session: str,
        *,
        title: str,
        opened_by: str,
        members: Sequence[str],
        visibility: Visibility,
        extra: dict[str, str] | None = None,
    ) -> SessionInfo:
        current = await self.get(tenant, session) or SessionInfo(tenant=tenant, session=session)
        info = replace(
            current,
            visibility=visibility,
            state=DisputeState.OPEN,
            title=title,
            members=tuple(dict.fromkeys((opened_by, *members))),
            opened_by=opened_by,
            opened_at=utcnow(),
            closed_by=None,
            closed_at=None,
            close_reason="",
            extra={**current.extra, **(extra or {})},
        )
        return await self.put(info)

    async def close(self, info: SessionInfo, *, closed_by: str, reason: str = "") -> SessionInfo:
        closed = replace(info, state=DisputeState.CLOSED, closed_by=closed_by, closed_at=utcnow(), close_reason=reason)
        return await self.put(closed)

    async def is_open(self, tenant: str, session: str) -> bool:
        info = await self.get(tenant, session)
        return info is not None and info.is_open

    async def all_sessions(self) -> list[SessionInfo]:
        """Every recorded session of every tenant (the purge: a scan)."""
        found: list[SessionInfo] = []
        async for key in self.redis.scan_iter(match=f"{_PREFIX}*", count=500):
            raw = await self.redis.hget(key, "data")  # type: ignore[misc]
            if raw:
                found.append(SessionInfo.from_json(raw, self.cipher))
        return found

    async def tenant_sessions(self, tenant: str) -> list[SessionInfo]:
        """Every recorded session of a tenant (admin use: a scan)."""
        found: list[SessionInfo] = []
        async for key in self.redis.scan_iter(match=f"{_PREFIX}{tenant}:*", count=500):
            raw = await self.redis.hget(key, "data")  # type: ignore[misc]
            if raw:
                found.append(SessionInfo.from_json(raw, self.cipher))
        return sorted(found, key=lambda s: s.session)

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: seal every session record with the first key (compare-and-set); returns how
        many were rewritten. ``advance(1)`` per session visited."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher
        return await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance, lambda key: reseal_hash_field(
            self.redis, key, "data", cipher, lambda raw: SessionInfo.from_json(raw, cipher).to_json(cipher)))
