"""How a time is shown to people: one set of functions for every surface, each naming its zone.

Every surface shows times through here, so one instant never appears as two clocks. ``reply_zone``:
the person's zone when the platform tells it, else the tenant's (default ``HEYAN_TIMEZONE``); console
tables use the tenant's zone and name it in the heading. Forms: ``show_time`` ("Thu 5 Nov 15:00
(UTC+08:00)"), ``show_due`` (no hour at 23:59), ``show_day`` ("5 Nov"), ``show_stamp`` (table cells).
"""

from __future__ import annotations

from datetime import UTC, datetime

from bot.text.zones import is_zone, offset_name, speaker_zone, zone_label, zone_or_utc

__all__ = ["aware", "local", "reply_zone", "show_day", "show_due", "show_stamp", "show_time", "zone_heading"]

_WEEKDAYS_EN = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_WEEKDAYS_ZH = "一二三四五六日"
_MONTHS_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: A deadline at this wall-clock time is "the end of that day" and shown without the hour.
_END_OF_DAY = (23, 59)


def aware(when: datetime) -> datetime:
    """``when`` with a zone: a naive time (an old record, a script line without an offset) is UTC."""
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def reply_zone(asker_zone: str | None, tenant_zone: str) -> str:
    """The zone to show times in to a person: theirs when known, else the tenant's."""
    return speaker_zone(asker_zone, tenant_zone)


def local(when: datetime, zone: str) -> datetime:
    """``when`` on the wall clock of ``zone`` (UTC when the zone is unknown)."""
    return when.astimezone(zone_or_utc(zone))


def show_day(when: datetime, zone: str, lang: str) -> str:
    """The day: "5 Nov" / "11月5日"."""
    at = local(when, zone)
    return f"{at.month}月{at.day}日" if lang == "zh" else f"{at.day} {_MONTHS_EN[at.month - 1]}"


def _dated(at: datetime, lang: str) -> str:
    if lang == "zh":
        return f"{at.month}月{at.day}日周{_WEEKDAYS_ZH[at.weekday()]}"
    return f"{_WEEKDAYS_EN[at.weekday()]} {at.day} {_MONTHS_EN[at.month - 1]}"


def _zoned(text: str, zone: str, lang: str) -> str:
    label = zone_label(zone) if is_zone(zone) else "UTC"  # an unknown zone was shown in UTC: say so
    return f"{text}（{label}）" if lang == "zh" else f"{text} ({label})"


def show_time(when: datetime, zone: str, lang: str) -> str:
    """A time with its zone: "Thu 5 Nov 15:00 (UTC+08:00)" / "11月5日周四 15:00（UTC+08:00）"."""
    at = local(when, zone)
    return _zoned(f"{_dated(at, lang)} {at:%H:%M}", zone, lang)


def show_due(when: datetime, zone: str, lang: str) -> str:
    """A deadline with its zone; the end of a day is shown as the day: "Fri 6 Nov (UTC)". A deadline
    kept on the clock it was set on (the owner's offset) that ends a day there is that day wherever it
    is read: "by the 22nd" said in the Marquesas is "Thu 22 Jun (UTC-09:30)", not the 23rd elsewhere. A clock
    time that falls on another day where it was set says that day too: "Thu 1 Apr 02:00 (Europe/Bucharest) =
    Wed 31 Mar 18:00 (UTC-05:00)"."""
    at = local(when, zone)
    if when.tzinfo is not None and (when.hour, when.minute) == _END_OF_DAY and (at.date(), at.hour) != (when.date(), 23):
        return _zoned(_dated(when, lang), offset_name(when) or "UTC", lang)
    if (at.hour, at.minute) == _END_OF_DAY:
        return _zoned(_dated(at, lang), zone, lang)
    shown = show_time(when, zone, lang)
    own = offset_name(when)
    if own is not None and when.date() != at.date():  # another day where it was set: say that day too
        said = _zoned(f"{_dated(when, lang)} {when:%H:%M}", own, lang)
        return f"{shown}，即{said}" if lang == "zh" else f"{shown} = {said}"
    return shown


def show_stamp(when: datetime, zone: str) -> str:
    """A table cell: "Thu 11-05 15:00", in ``zone``, whose name the column heading carries."""
    return f"{local(when, zone):%a %m-%d %H:%M}"


def zone_heading(title: str, zone: str) -> str:
    """A column heading that names the zone its times are in: "due (UTC+08:00)"."""
    return f"{title} ({zone_label(zone) if is_zone(zone) else 'UTC'})"
