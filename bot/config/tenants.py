"""Per-tenant settings: declared defaults, per-tenant overrides (the shape of Red-DiscordBot's Config).

``TenantSettings`` declares each setting and its default; ``TenantConfig`` reads and writes a tenant's
overrides, one Redis hash per tenant (``heyan:tenant-settings:<tenant>``). Only overrides are stored,
so a changed default moves every tenant that never set its own and a new field needs no migration.
Why Redis: docs/ARCHITECTURE.md, "Why the protocols are as they are"; backup: docs/DEPLOY.md, "Operations".
"""

from __future__ import annotations

import inspect
import json
import logging
import math
from collections.abc import Awaitable
from datetime import timedelta
from typing import Any, Literal, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from redis.asyncio import Redis

from bot.extraction.candidates import DEFAULT_TTL
from memory.errors import HeyanError
from memory.models import Kind

__all__ = ["KEY_PREFIX", "MAX_DAYS", "TenantConfig", "TenantSettingError", "TenantSettings", "check_days",
           "check_timezone", "parse_days"]

log = logging.getLogger(__name__)

#: ``<prefix><tenant>`` is the hash of one tenant's overrides.
KEY_PREFIX = "heyan:tenant-settings:"

T = TypeVar("T")


#: The longest a community keeps anything, or waits before purging or forgetting: ten years. A number
#: of days beyond it (or NaN, or infinity, which JSON and ``float()`` accept) is refused where it is
#: typed, never stored — the purge loop that serves every community turns days into a timedelta.
MAX_DAYS = 3650.0


class TenantSettingError(HeyanError, ValueError):
    """A per-tenant setting was unknown or invalid; the message says what is accepted."""


def check_days(value: float, what: str, *, zero: bool = True, top: float = MAX_DAYS, unit: str = "days") -> float:
    """``value`` when it is a finite number from 0 (or above 0 without ``zero``) to ``top``;
    TenantSettingError saying what ``what`` accepts otherwise."""
    span = f"from 0 to {top:g}" if zero else f"above 0, up to {top:g}"
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or (
            value < 0 if zero else value <= 0) or value > top:
        raise TenantSettingError(f"{what} must be a number{' of ' + unit if unit else ''} {span}; got {value!r}")
    return float(value)


def parse_days(text: str, what: str, *, keep: tuple[str, ...] = (), zero: bool = True,
               top: float = MAX_DAYS, unit: str = "days") -> float | None:
    """A number typed in a form, a command or the CLI: finite, within range (``check_days``); one of
    the ``keep`` words ("keep", "off") gives None. "nan", "inf" and "1e999" are refused by name."""
    raw = text.strip()
    if raw.lower() in keep:
        return None
    words = f" or {' / '.join(keep)}" if keep else ""
    noun = f"number of {unit}" if unit else "number"
    try:
        value = float(raw)
    except ValueError:
        raise TenantSettingError(f"{what} must be a {noun}{words}; got {raw[:40]!r}") from None
    if not math.isfinite(value):
        raise TenantSettingError(f"{what} must be a finite {noun}{words}; got {raw[:40]!r}")
    return check_days(value, what, zero=zero, top=top, unit=unit)


def check_timezone(value: str) -> str:
    """``value`` if it names an IANA timezone, else TenantSettingError naming the accepted form."""
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise TenantSettingError(
            f"unknown timezone {value!r}: give an IANA name — Area/City, case-sensitive — such as "
            "'Asia/Shanghai', 'America/New_York', 'Europe/Berlin', or 'UTC'"
        ) from None
    return value


class TenantSettings(BaseModel):
    """Every per-tenant setting and its value; the declared defaults come from Settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timezone: str = "UTC"
    #: The language Heyan answers in: ``auto`` (the asker's / the interaction's locale), ``zh`` or ``en``.
    language: Literal["auto", "zh", "en"] = "auto"
    #: Days each kind of memory is kept (``None``: until erased), overriding the defaults
    #: (``bot.extraction.candidates.DEFAULT_TTL``: emotions a day, commitments and events a year, …).
    retention_days: dict[str, float | None] = Field(default_factory=dict)
    #: Days after a dispute is closed before everything of its session is purged.
    closed_purge_days: float = 30.0
    #: Days after a dispute is closed before forgetting (``bot.privacy.forgetting``) gives its records of low
    #: weight a TTL (``None``: never). Open commitments and disputed records are never given one.
    forget_after_days: float | None = 14.0
    #: The weight (``memory.recall.importance``, 0-1) under which such a record is forgotten.
    forget_below: float = 0.2
    #: Platform groups whose members moderate Heyan in this community, beside the platform's own
    #: administrators: Discord role ids, Slack user-group ids. Platforms turn membership into
    #: ``Capability.MODERATE`` when they build an ``Actor``.
    moderator_roles: list[str] = Field(default_factory=list)
    #: Who may open a dispute: ``members`` (anyone who can talk there) or ``moderators`` only.
    dispute_openers: Literal["members", "moderators"] = "members"
    #: Channels where disputes may be opened (platform channel ids; a thread counts as its parent
    #: channel). Empty: anywhere Heyan is.
    dispute_channels: list[str] = Field(default_factory=list)
    #: The moderators' channel (a platform channel id): the digest and early escalation alerts are
    #: posted there. Empty: nowhere (``heyan digest`` still shows the digest).
    digest_channel: str = ""
    #: How often the moderators' digest is posted: ``daily`` or ``weekly`` (Mondays), at 09:00 in the
    #: community's timezone; ``off`` posts none.
    digest_schedule: Literal["off", "daily", "weekly"] = "daily"

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        return check_timezone(value)

    @field_validator("digest_channel")
    @classmethod
    def _channel(cls, value: str) -> str:
        value = value.strip()
        if any(c.isspace() for c in value) or len(value) > 200:
            raise ValueError(f"digest_channel must be one channel id (no spaces), got {value[:40]!r}")
        return value

    @field_validator("retention_days")
    @classmethod
    def _kinds(cls, value: dict[str, float | None]) -> dict[str, float | None]:
        kinds = {k.value for k in Kind}
        for kind, days in value.items():
            if kind not in kinds:
                raise ValueError(f"unknown kind {kind!r} in retention_days; kinds: {', '.join(sorted(kinds))}")
            if days is not None:
                check_days(days, f"retention for {kind}", zero=False)
        return value

    @field_validator("closed_purge_days", "forget_after_days")
    @classmethod
    def _finite(cls, value: float | None, info: ValidationInfo) -> float | None:
        return None if value is None else check_days(value, str(info.field_name))

    @field_validator("forget_below")
    @classmethod
    def _weight(cls, value: float) -> float:
        return check_days(value, "forget_below (a weight)", top=1.0, unit="")

    def ttl(self) -> dict[Kind, timedelta | None]:
        """How long each kind is kept in this tenant (the defaults with its overrides)."""
        out = dict(DEFAULT_TTL)
        for kind, days in self.retention_days.items():
            out[Kind(kind)] = timedelta(days=days) if days is not None else None
        return out

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)


def _causes(exc: ValidationError) -> str:
    """A validation error in one line: each cause's own words, or "<setting>: <what pydantic says>"."""
    out = []
    for e in exc.errors():
        cause = e.get("ctx", {}).get("error")
        where = ".".join(str(p) for p in e.get("loc", ()))
        out.append(str(cause) if cause is not None else f"{where}: {e.get('msg', 'invalid')}")
    return "; ".join(dict.fromkeys(out)) or str(exc)


async def _aw(value: Awaitable[T] | T) -> T:
    """redis-py types its asyncio commands as ``Awaitable[T] | T``; this awaits either."""
    return await value if inspect.isawaitable(value) else value


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class TenantConfig:
    """Per-tenant settings over Redis: ``await get(tenant)`` is the defaults with its overrides."""

    def __init__(self, redis: Redis, defaults: TenantSettings) -> None:
        self.redis = redis
        self.defaults = defaults

    @staticmethod
    def key(tenant: str) -> str:
        if not tenant:
            raise TenantSettingError("a tenant id is needed (e.g. discord:<guild id>, console:local)")
        return KEY_PREFIX + tenant

    async def overrides(self, tenant: str) -> dict[str, Any]:
        """The values this tenant set itself (known fields only)."""
        raw: dict[Any, Any] = await _aw(self.redis.hgetall(self.key(tenant)))
        out: dict[str, Any] = {}
        for k, v in raw.items():
            name = _text(k)
            if name not in TenantSettings.model_fields:
                continue  # a field a newer version wrote, or one that was removed: ignore it
            try:
                out[name] = json.loads(_text(v))
            except json.JSONDecodeError:
                log.warning("tenant %s: unreadable setting %s ignored", tenant, name)
        return out

    async def get(self, tenant: str) -> TenantSettings:
        """The tenant's settings; an override that no longer validates is logged and ignored."""
        values = self.defaults.model_dump()
        for name, value in (await self.overrides(tenant)).items():
            try:
                TenantSettings.model_validate({**values, name: value})
            except ValidationError:
                log.warning("tenant %s: invalid %s=%r ignored; using %r", tenant, name, value, values[name])
                continue
            values[name] = value
        return TenantSettings.model_validate(values)

    async def set(self, tenant: str, **values: Any) -> TenantSettings:
        """Override some settings of one tenant; validates them all before writing any."""
        unknown = sorted(set(values) - set(TenantSettings.model_fields))
        if unknown:
            known = ", ".join(TenantSettings.model_fields)
            raise TenantSettingError(f"unknown tenant setting(s) {', '.join(unknown)}; known: {known}")
        current = await self.get(tenant)
        try:
            updated = TenantSettings.model_validate({**current.model_dump(), **values})
        except ValidationError as exc:
            raise TenantSettingError(_causes(exc)) from None
        mapping = {k: json.dumps(v, ensure_ascii=False) for k, v in values.items()}
        await _aw(self.redis.hset(self.key(tenant), mapping=mapping))
        return updated

    async def reset(self, tenant: str, *names: str) -> TenantSettings:
        """Drop the tenant's overrides (only ``names`` when given): back to the defaults."""
        if names:
            await _aw(self.redis.hdel(self.key(tenant), *names))
        else:
            await _aw(self.redis.delete(self.key(tenant)))
        return await self.get(tenant)

    async def tenants(self) -> list[str]:
        """Every tenant with at least one override, sorted."""
        found = [
            _text(k).removeprefix(KEY_PREFIX)
            async for k in self.redis.scan_iter(match=f"{KEY_PREFIX}*", count=500)
        ]
        return sorted(found)
