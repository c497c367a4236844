"""The audit trail: who changed what in a tenant's memory, when, why, and from what to what.

Every change made through the moderation service (a moderator's edit, a member's correction, a
dispute opened or closed, an erasure) appends one ``AuditEntry`` to the tenant's stream in Redis
(``heyan:audit:<tenant>``, newest last). Moderators list it, optionally for one member. ``before``
and ``after`` hold the fields that changed; a deletion or an erasure records what was removed by id,
kind and owner, never its text (erasing a memory must not leave a copy of it here).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from redis.asyncio import Redis

from memory.models import utcnow

__all__ = ["AuditEntry", "AuditLog"]

_PREFIX = "heyan:audit:"

#: Entries kept per tenant (approximately: Redis trims whole nodes). Enough for years of moderation.
MAX_ENTRIES = 100_000


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One change: ``action`` (e.g. ``memory.edit``) on ``target`` (a memory id, a session) by an actor."""

    tenant: str
    actor_id: str
    actor_name: str
    action: str
    target: str
    reason: str = ""
    before: Mapping[str, Any] | None = None
    after: Mapping[str, Any] | None = None
    #: The members the change concerns (owners, asserters), so a member's history can be listed.
    users: tuple[str, ...] = ()
    at: datetime = field(default_factory=utcnow)
    id: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "at": self.at.isoformat(), "tenant": self.tenant, "actor_id": self.actor_id,
            "actor_name": self.actor_name, "action": self.action, "target": self.target, "reason": self.reason,
            "before": dict(self.before) if self.before is not None else None,
            "after": dict(self.after) if self.after is not None else None, "users": list(self.users),
        }


def _decode(entry_id: str, raw: str) -> AuditEntry:
    data: dict[str, Any] = json.loads(raw)
    return AuditEntry(
        id=entry_id,
        at=datetime.fromisoformat(data["at"]),
        tenant=data["tenant"],
        actor_id=data["actor_id"],
        actor_name=data.get("actor_name") or "",
        action=data["action"],
        target=data.get("target") or "",
        reason=data.get("reason") or "",
        before=data.get("before"),
        after=data.get("after"),
        users=tuple(data.get("users") or ()),
    )


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class AuditLog:
    """Per-tenant audit streams in Redis."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def record(self, entry: AuditEntry) -> AuditEntry:
        data = entry.as_dict()
        del data["id"]
        entry_id = await self.redis.xadd(
            _PREFIX + entry.tenant, {"data": json.dumps(data, ensure_ascii=False)},
            maxlen=MAX_ENTRIES, approximate=True,
        )
        return AuditEntry(**{**_fields(entry), "id": _text(entry_id)})

    async def entries(
        self, tenant: str, *, user: str | None = None, target: str | None = None, limit: int = 50
    ) -> list[AuditEntry]:
        """The newest ``limit`` entries, newest first; only those concerning ``user`` / ``target`` if given."""
        out: list[AuditEntry] = []
        last = "+"
        while len(out) < limit:
            batch: Sequence[tuple[Any, dict[Any, Any]]] = await self.redis.xrevrange(
                _PREFIX + tenant, max=last, min="-", count=200
            )
            if not batch:
                break
            for entry_id, fields in batch:
                raw = fields.get(b"data") or fields.get("data")
                if raw is None:
                    continue
                entry = _decode(_text(entry_id), _text(raw))
                if user is not None and user not in entry.users and entry.actor_id != user:
                    continue
                if target is not None and entry.target != target:
                    continue
                out.append(entry)
                if len(out) >= limit:
                    break
            last = "(" + _text(batch[-1][0])
        return out


def _fields(entry: AuditEntry) -> dict[str, Any]:
    return {name: getattr(entry, name) for name in AuditEntry.__dataclass_fields__}
