"""Timezones by name: IANA zones ("Asia/Shanghai") and fixed UTC offsets ("+08:00").

A speaker's zone comes from the platform when it knows one (Slack's user ``tz``), or from the
offset of a timestamp the speaker wrote (a console script line's ``ts``). Tenants and
``HEYAN_TIMEZONE`` always use IANA names. Everything that turns a zone name into a ``tzinfo``
goes through ``zone_of`` so both spellings work everywhere.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["is_zone", "offset_name", "speaker_zone", "zone_label", "zone_of", "zone_or_utc"]

_OFFSET = re.compile(r"^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)


def zone_of(name: str | tzinfo) -> tzinfo:
    """The zone ``name`` names: an IANA name, ``UTC``, or an offset such as ``+08:00`` / ``-0500``.

    Raises ValueError for anything else.
    """
    if isinstance(name, tzinfo):
        return name
    text = name.strip()
    m = _OFFSET.match(text)
    if m:
        sign, hours, minutes = m.group(1), int(m.group(2)), int(m.group(3) or 0)
        if hours > 14 or minutes >= 60:
            raise ValueError(f"UTC offset out of range: {name!r}")
        delta = timedelta(hours=hours, minutes=minutes)
        return timezone(-delta if sign == "-" else delta)
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"unknown timezone {name!r}: give an IANA name such as 'Asia/Shanghai' or an offset such as '+08:00'"
        ) from None


def zone_or_utc(name: str | tzinfo | None) -> tzinfo:
    """``zone_of(name)``, or UTC when ``name`` is missing or unknown (never stops extraction)."""
    if name is None:
        return ZoneInfo("UTC")
    try:
        return zone_of(name)
    except ValueError:
        return ZoneInfo("UTC")


def offset_name(ts: datetime) -> str | None:
    """``+08:00`` for a timestamp written with that offset; None for naive or UTC timestamps
    (a ``Z`` or ``+00:00`` usually means "machine time", not the speaker's own clock)."""
    offset = ts.utcoffset()
    if offset is None or offset == timedelta(0):
        return None
    total = int(offset.total_seconds() // 60)
    sign = "-" if total < 0 else "+"
    hours, minutes = divmod(abs(total), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def is_zone(name: str) -> bool:
    """True when ``zone_of`` accepts ``name``."""
    try:
        zone_of(name)
    except ValueError:
        return False
    return True


def speaker_zone(speaker: str | None, tenant: str) -> str:
    """The zone wall-clock words of a speaker are read in: their own when known, else the tenant's."""
    return speaker if speaker and is_zone(speaker) else tenant


def zone_label(name: str) -> str:
    """How a zone is named next to a time shown to people: its IANA name, ``UTC`` or ``UTC+08:00``."""
    return f"UTC{name}" if _OFFSET.match(name.strip()) and not name.upper().startswith(("UTC", "GMT")) else name
