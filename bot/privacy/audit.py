"""The audit trail: who changed what in a tenant's memory, when, why, and from what to what.

Every change through the moderation service appends one ``AuditEntry`` to the tenant's Redis stream.
``before``/``after`` may hold a memory's text, so they are kept apart and expire with the retention of
the kind concerned (``detail_ttl``); removals are recorded by id, never text. ``scrub`` (erasure)
drops a member's details and words, keeping who did what and when; key rotation rebuilds the stream
with the same ids in one WATCH transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from redis.asyncio import Redis
from redis.exceptions import WatchError

from bot.config.tenants import TenantConfig
from bot.extraction.candidates import DEFAULT_TTL
from bot.privacy.sealing import (
    Advance,
    needs_reseal,
    open_fields,
    reseal_keys,
    reseal_value,
    scan,
    seal_fields,
)
from memory.models import Kind, utcnow
from memory.normalize import names_in
from memory.store.crypto import Cipher

__all__ = ["SYSTEM", "AuditEntry", "AuditLog", "detail_ttl"]

#: The actor of what Heyan's jobs do on their own (extraction, expiry, purges, an erasure's second pass).
SYSTEM = "system:heyan"

# The stream (newest last; actor name and reason sealed, bound to the clear fields) and, apart, each
# entry's before/after (sealed, bound to the entry id), which expire with the tenant's retention.
_PREFIX = "heyan:audit:"
_DETAIL = "heyan:audit-detail:"
#: Where a stream is rebuilt during rotation (inside one transaction: it never outlives it).
_REBUILD = "heyan:audit-reseal:"
_SECRET = ("actor_name", "reason")

#: Entries kept per tenant (approximately: Redis trims whole nodes). Enough for years of moderation.
MAX_ENTRIES = 100_000
#: How long details are kept when every kind of memory is kept until erased.
_LONGEST_DEFAULT = timedelta(days=365)


def detail_ttl(retention: Mapping[Kind, timedelta | None], kind: str | None) -> timedelta:
    """How long an entry's details are kept: the retention of the kind of memory it is about, or —
    for a kind kept until erased, or an entry about no memory — the longest retention of any kind."""
    longest = max((t for t in retention.values() if t is not None), default=_LONGEST_DEFAULT)
    own = retention.get(Kind(kind)) if kind in {k.value for k in Kind} else None
    return own if own is not None else longest


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
    #: The kind of memory the change is about (``memory.models.Kind``), when it is about one: its
    #: details expire with that kind's retention in the tenant.
    kind: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "at": self.at.isoformat(), "tenant": self.tenant, "actor_id": self.actor_id,
            "actor_name": self.actor_name, "action": self.action, "target": self.target, "reason": self.reason,
            "before": dict(self.before) if self.before is not None else None,
            "after": dict(self.after) if self.after is not None else None, "users": list(self.users),
            "kind": self.kind,
        }


def _entry_context(data: dict[str, Any]) -> str:
    return f"audit/{data['tenant']}/{data['at']}/{data['actor_id']}/{data['action']}/{data.get('target') or ''}"


def _seal_entry(data: dict[str, Any], cipher: Cipher | None) -> str:
    clear = {k: v for k, v in data.items() if k not in _SECRET}
    secret = {k: data.get(k) or "" for k in _SECRET}
    return json.dumps(seal_fields(clear, secret, cipher, _entry_context(data)), ensure_ascii=False)


def _decode(entry_id: str, raw: str, cipher: Cipher | None = None) -> AuditEntry:
    data: dict[str, Any] = json.loads(raw)
    data = open_fields(data, cipher, _entry_context(data))
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
        kind=data.get("kind"),
    )


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _detail_context(tenant: str, entry_id: str) -> str:
    return f"audit-detail/{tenant}/{entry_id}"


class AuditLog:
    """Per-tenant audit streams in Redis."""

    #: The keys holding member text (``reseal`` rewrites them).
    SEALED_PATTERNS: ClassVar[tuple[str, ...]] = (f"{_PREFIX}*", f"{_DETAIL}*")

    def __init__(self, redis: Redis, *, cipher: Cipher | None = None, tenants: TenantConfig | None = None) -> None:
        self.redis = redis
        self.cipher = cipher
        #: Each tenant's retention policy (without it, the default retention).
        self.tenants = tenants

    async def _detail_ttl(self, tenant: str, kind: str | None) -> timedelta:
        retention = (await self.tenants.get(tenant)).ttl() if self.tenants is not None else DEFAULT_TTL
        return detail_ttl(retention, kind)

    @staticmethod
    def _detail_key(tenant: str, entry_id: str) -> str:
        return f"{_DETAIL}{tenant}:{entry_id}"

    async def record(self, entry: AuditEntry) -> AuditEntry:
        data = entry.as_dict()
        del data["id"]
        detail = {"before": data.pop("before"), "after": data.pop("after")}
        entry_id = _text(await self.redis.xadd(
            _PREFIX + entry.tenant, {"data": _seal_entry(data, self.cipher)},
            maxlen=MAX_ENTRIES, approximate=True,
        ))
        if detail["before"] is not None or detail["after"] is not None:
            sealed = seal_fields({}, detail, self.cipher, _detail_context(entry.tenant, entry_id))
            ttl = await self._detail_ttl(entry.tenant, entry.kind)
            await self.redis.set(self._detail_key(entry.tenant, entry_id), json.dumps(sealed, ensure_ascii=False),
                                 ex=max(1, int(ttl.total_seconds())))
        return AuditEntry(**{**_fields(entry), "id": entry_id})

    async def expire_details(self) -> int:
        """Give details written before they expired (no TTL) the expiry their tenant's retention
        policy sets, counted from their entry's time (the hourly purge runs this; one scan of the
        detail keys, and a detail already expiring is left alone); returns how many were set."""
        count = 0
        ttls: dict[str, timedelta] = {}
        async for key in scan(self.redis, f"{_DETAIL}*"):
            tenant, _, entry_id = key[len(_DETAIL):].rpartition(":")
            if not tenant or not entry_id.split("-")[0].isdigit() or await self.redis.ttl(key) != -1:
                continue  # not a detail key of ours, or already expiring
            if tenant not in ttls:
                ttls[tenant] = await self._detail_ttl(tenant, None)
            at = datetime.fromtimestamp(int(entry_id.split("-")[0]) / 1000, UTC)
            if at + ttls[tenant] <= utcnow():
                count += int(await self.redis.delete(key))
            else:
                count += int(await self.redis.expireat(key, at + ttls[tenant]))
        return count

    async def scrub(self, tenant: str, user: str, names: Collection[str] = ()) -> int:
        """Erasure: take ``user`` out of the tenant's audit trail; returns how many entries changed.

        The details (before/after texts) of every entry that concerns them or names them (``names``:
        the names they were known by) are dropped; entries they made lose their name, and a reason
        they wrote or that names them is removed. Who did what to which record, and when, stays."""
        entries = await self.entries(tenant, limit=MAX_ENTRIES)
        # the names they acted under are theirs too
        names = [*names, user, *{e.actor_name for e in entries if e.actor_id == user and e.actor_name}]
        detail_keys: list[str] = []
        rewrite: set[str] = set()
        for e in entries:
            concerns = user in e.users or e.actor_id == user
            if (e.before is not None or e.after is not None) and \
                    (concerns or names_in(json.dumps([e.before, e.after], ensure_ascii=False), names)):
                detail_keys.append(self._detail_key(tenant, e.id))
            if (e.actor_id == user and e.actor_name) or (e.reason and (e.actor_id == user or names_in(e.reason, names))):
                rewrite.add(e.id)
        dropped = int(await self.redis.delete(*detail_keys)) if detail_keys else 0
        cipher = self.cipher

        def anonymised(entry_id: str, raw: str) -> str | None:
            if entry_id not in rewrite:
                return None
            data = json.loads(raw)
            data = open_fields(data, cipher, _entry_context(data))
            if data.get("actor_id") == user:
                data["actor_name"] = ""
            data["reason"] = "(removed by an erasure)" if data.get("reason") else ""
            return _seal_entry(data, cipher)

        if rewrite:
            await self._rebuild_stream(_PREFIX + tenant, anonymised)
        return len(set(detail_keys) | {self._detail_key(tenant, i) for i in rewrite}) if dropped or rewrite else 0

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
                entry = _decode(_text(entry_id), _text(raw), self.cipher)
                if user is not None and user not in entry.users and entry.actor_id != user:
                    continue
                if target is not None and entry.target != target:
                    continue
                out.append(entry)
                if len(out) >= limit:
                    break
            last = "(" + _text(batch[-1][0])
        if not out:
            return out
        details = await self.redis.mget([self._detail_key(tenant, e.id) for e in out])
        return [_with_detail(e, d, self.cipher) for e, d in zip(out, details, strict=True)]

    # --- key rotation --------------------------------------------------------------------------

    async def reseal(self, advance: Advance) -> int:
        """Key rotation: seal every entry and detail with the first key; returns how many keys were
        rewritten. ``advance(1)`` per stream or detail visited."""
        assert self.cipher is not None, "rotation needs the cipher"
        cipher = self.cipher
        written = await reseal_keys(self.redis, self.SEALED_PATTERNS[0], advance,
                                    lambda key: self._reseal_stream(key, cipher))
        async for key in scan(self.redis, self.SEALED_PATTERNS[1]):
            tenant, _, entry_id = key[len(_DETAIL):].rpartition(":")
            context = _detail_context(tenant, entry_id)

            def rewrite(raw: str, context: str = context) -> str:
                return json.dumps(seal_fields({}, open_fields(json.loads(raw), cipher, context), cipher, context),
                                  ensure_ascii=False)

            written += await reseal_value(self.redis, key, cipher, rewrite)
            advance(1)
        return written

    async def _reseal_stream(self, key: str, cipher: Cipher) -> int:
        """Rebuild one stream with every entry sealed with the first key and the same entry ids, in
        one transaction; 0 when nothing needed it. Entries appended meanwhile restart the rebuild."""
        def resealed(_: str, raw: str) -> str | None:
            if not needs_reseal(raw, cipher):
                return None
            return _seal_entry(open_fields(json.loads(raw), cipher, _entry_context(json.loads(raw))), cipher)

        return await self._rebuild_stream(key, resealed)

    async def _rebuild_stream(self, key: str, rewrite: Callable[[str, str], str | None]) -> int:
        """Rebuild one stream with ``rewrite(entry id, raw)`` applied (None: keep the entry) and the
        same entry ids, in one transaction (stream entries cannot change in place); 0 when no entry
        changed. Entries appended meanwhile restart the rebuild."""
        rebuild = _REBUILD + key[len(_PREFIX):]
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    entries: Sequence[tuple[Any, dict[Any, Any]]] = await pipe.xrange(key)
                    new = [(_text(i), _text(_field(f)), rewrite(_text(i), _text(_field(f)))) for i, f in entries]
                    if all(changed is None for _, _, changed in new):
                        await pipe.reset()  # type: ignore[no-untyped-call]
                        return 0
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.delete(rebuild)
                    for entry_id, raw, changed in new:
                        pipe.xadd(rebuild, {"data": changed if changed is not None else raw}, id=entry_id)
                    pipe.rename(rebuild, key)
                    await pipe.execute()
                    return 1
                except WatchError:
                    continue


def _field(fields: dict[Any, Any]) -> bytes | str:
    return fields.get(b"data") or fields.get("data") or "{}"


def _with_detail(entry: AuditEntry, raw: bytes | str | None, cipher: Cipher | None) -> AuditEntry:
    if raw is None:
        return entry
    detail = open_fields(json.loads(raw), cipher, _detail_context(entry.tenant, entry.id))
    return AuditEntry(**{**_fields(entry), "before": detail.get("before"), "after": detail.get("after")})


def _fields(entry: AuditEntry) -> dict[str, Any]:
    return {name: getattr(entry, name) for name in AuditEntry.__dataclass_fields__}
