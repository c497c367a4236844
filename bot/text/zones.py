"""Timezones by name: IANA zones ("Asia/Shanghai") and fixed UTC offsets ("+08:00").

A speaker's zone comes from the platform when it knows one (Slack's user ``tz``), or from the
offset of a timestamp the speaker wrote (a console script line's ``ts``). Tenants and
``HEYAN_TIMEZONE`` always use IANA names. Everything that turns a zone name into a ``tzinfo``
goes through ``zone_of`` so both spellings work everywhere.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["is_zone", "named_zone", "offset_name", "speaker_zone", "without_clock_words", "without_zh_clock_asides",
           "zh_clock_asides", "zone_label", "zone_of", "zone_or_utc"]

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


# --- zones named in words: "Paris time", "东京时间", "friday noon pacific", "墨尔本这边" ----------------------

#: Names no city or country list gives: the North American zone names, common abbreviations, China's.
_ZONE_WORDS = {
    "pacific": "America/Los_Angeles", "pt": "America/Los_Angeles", "pst": "America/Los_Angeles",
    "pdt": "America/Los_Angeles", "mountain": "America/Denver", "mt": "America/Denver", "central": "America/Chicago",
    "ct": "America/Chicago", "cdt": "America/Chicago", "eastern": "America/New_York", "et": "America/New_York",
    "est": "America/New_York", "edt": "America/New_York", "bst": "Europe/London", "uk": "Europe/London",
    "cet": "Europe/Paris", "cest": "Europe/Paris", "jst": "Asia/Tokyo", "kst": "Asia/Seoul",
    "aest": "Australia/Sydney", "aedt": "Australia/Sydney", "utc": "UTC", "gmt": "UTC",
    "北京": "Asia/Shanghai", "国内": "Asia/Shanghai", "中国": "Asia/Shanghai", "美东": "America/New_York",
    "美西": "America/Los_Angeles", "美中": "America/Chicago", "湾区": "America/Los_Angeles", "sf": "America/Los_Angeles",
    "la": "America/Los_Angeles", "nyc": "America/New_York", "ny": "America/New_York", "bay area": "America/Los_Angeles",
    # a city's usual English name where CLDR has another: "Laayoune time" (CLDR "El Aaiún")
    "laayoune": "Africa/El_Aaiun",
}  # fmt: skip
#: Words that name a zone on their own only beside a time ("noon pacific"); every other name needs "time".
_BARE_OK = frozenset({"pacific", "eastern", "central", "mountain", "pt", "pst", "pdt", "et", "est", "edt", "ct", "cdt",
                      "bst", "cet", "cest", "jst", "kst", "aest", "aedt", "utc", "gmt"})


#: Zones whose city is a common word or a person's name ("Christmas time", "Easter", "Davis"), not a place
#: anyone keeps time by.
_NOT_PLACES = ("Etc/", "Antarctica/", "Arctic/")
_NOT_CITIES = frozenset({"Indian/Christmas", "Pacific/Easter", "Pacific/Wake", "Pacific/Midway"})


@lru_cache(maxsize=1)
def _zone_names() -> dict[str, str]:
    """Lower-cased place name → IANA zone: every zone's city (CLDR, via Babel, in English and Chinese),
    every country with one zone, and ``_ZONE_WORDS``."""
    from babel import Locale
    from babel.core import get_global
    from babel.dates import get_timezone_location

    names: dict[str, str] = {}
    for loc in ("en", "zh"):
        for zone in get_global("zone_territories"):
            if "/" in zone and not zone.startswith(_NOT_PLACES) and zone not in _NOT_CITIES:
                names.setdefault(get_timezone_location(zone, locale=loc, return_city=True).casefold(), zone)
        territories = Locale.parse(loc).territories
        for code, zones in get_global("territory_zones").items():
            if len(zones) == 1 and code in territories:
                names.setdefault(territories[code].casefold(), zones[0])
    # the names as typed without accents ("El Aaiun", "Bogota"), and the zone's own city ("el aaiun" of Africa/El_Aaiun)
    for name, zone in list(names.items()):
        names.setdefault("".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)), zone)
    for zone in get_global("zone_territories"):
        if "/" in zone and not zone.startswith(_NOT_PLACES) and zone not in _NOT_CITIES:
            names.setdefault(zone.rsplit("/", 1)[1].replace("_", " ").casefold(), zone)
    # "Norfolk time", "on Pitcairn's clock": an island territory named without "Island(s)" ("cook" is a verb)
    for name, zone in list(names.items()):
        stem = re.sub(r"\s+islands?$", "", name)
        if stem != name and stem not in ("cook", "christmas"):
            names.setdefault(stem, zone)
    names.update(_ZONE_WORDS)
    return names


_NAMED_EN = re.compile(r"(?:\b(?:in|on)\s+)?\b(?P<name>[A-Za-z][A-Za-z .'-]{0,24}?)\s+(?:time|tz)\b(?!\s+in\s+[A-Z])"
                       # "before 7pm your time in Maputo": the clock of the place said after
                       r"|\b(?:my|your|our|their|his|her)\s+(?:time|clock|calendar|watch)\s+in\s+(?P<place>[A-Z][A-Za-z.'-]{1,20}(?:\s+[A-Z][A-Za-z.'-]{1,20})?)"
                       # "on Pitcairn's clock" (not "Jordan's time": a member's turn as often as a country's clock)
                       r"|\b(?P<poss>[A-Z][A-Za-z.-]{1,20}(?:\s+[A-Z][A-Za-z.-]{1,20})?)['’]s\s+clock\b"
                       r"|(?<=[\d\s])(?P<bare>[A-Za-z]{2,8})\b(?=\s*(?:$|[,.;!?)]))", re.IGNORECASE)
_NAMED_ZH = re.compile(r"(?P<name>[\u4e00-\u9fff]{2,6}?)(?:的)?(?:时间|这边时间|这边|那边时间|那边|时区)")


#: A clock named at the end of a promise's words: ", my time", "，我这边时间", "，伦敦时间", "（东京时间）", " Paris time".
_CLOCK_TAIL = re.compile(
    r"(?:[,，\s]*\b(?:my|your|our|their|his|her|local)\s+time\b(?:\s+in\s+[A-Z][A-Za-z.'-]{1,20}(?:\s+[A-Z][A-Za-z.'-]{1,20})?)?|[,，\s]*(?:按|以)?(?:我|你|他|她)?这边(?:的)?(?:时间)?"
    r"|[,，\s]*当地时间|[,，]\s*(?:按|以)?(?P<zh>[\u4e00-\u9fff]{2,6})时间|[（(]\s*(?P<zh2>[\u4e00-\u9fff]{2,6})时间\s*[)）]"
    r"|[,，\s]+(?:in\s+)?(?P<en>[A-Z][A-Za-z.'-]{1,20}(?:\s+[A-Z][A-Za-z.'-]{1,20})?)\s+time)\s*[。.!！]*\s*$")


#: A place named right after an hour, at the end: "before 10am Bogotá", "6pm London".
_CITY_TAIL = re.compile(r"(?:\d|am|pm|noon|midnight)\s+(?P<city>[A-Z][^\W\d_]+(?:\s+[A-Z][^\W\d_]+)?)\s*[.!]*\s*$")

#: The speaker's or the listener's own clock, anywhere: ", my time", "your time", "我这边时间".
_OWN_CLOCK = re.compile(r"[,，\s]*\b(?:my|your)\s+time\b|[,，\s]*我这边(?:时间)?", re.IGNORECASE)


def without_clock_words(text: str, *, inside: bool = False) -> str:
    """``text`` without the clock its words end by naming ("下周六之前给你回复，伦敦时间" → "下周六之前给你回复",
    "by Friday, my time" → "by Friday"): what a promise says it will do, its deadline read already.
    ``inside``: the speaker's or listener's own clock said anywhere goes too ("Wednesday the 3rd my time?")."""
    # a city's clock said before the time it is on: "坤甸时间明天十二点之前", "巴库时间明天晚上九点以前发你"
    text = _LEAD_CLOCK.sub(lambda m: m.group() if named_zone(m.group("city") + "时间") is None else "", text)
    if inside:
        text = _OWN_CLOCK.sub("", text)
        # a city's clock said between two clauses: "…每人两千，地拉那时间，打到各自账上", "…, Port-au-Prince time, …"
        text = _MID_CLOCK.sub(lambda m: m.group() if named_zone(m.group().strip(" ,，")) is None else "", text)
    if (city := _CITY_TAIL.search(text)) is not None and city.group("city").casefold() in _zone_names():
        return text[: city.start("city")].rstrip()  # "before 10am Bogotá", "Monday, 6pm London"
    m = _CLOCK_TAIL.search(text)
    if m is None:
        return text
    named = m.group("zh") or m.group("zh2") or m.group("en")
    if named and named_zone(m.group()) is None:
        return text  # "，下周才有时间": no clock named
    return text[: m.start()].rstrip()


_LEAD_CLOCK = re.compile(r"(?:^|(?<=[，,。：:\s]))(?:按|以)?(?P<city>[\u4e00-\u9fff]{2,6}?)的?时间(?=[\s，,]*(?:\d|[今明后]天|[今明]晚|[今明]早|周|星期|礼拜"
                         r"|下[周个午]|这[周个]|早上|中午|晚上|夜里|凌晨|傍晚|上午|[零一二三四五六七八九十两]+[点号日]))")
_MID_CLOCK = re.compile(r"[，,]\s*(?:按|以)?(?P<city>[\u4e00-\u9fff]{2,6}?)的?时间(?=\s*[，,])"
                        r"|,\s*(?P<en>[A-Z][\w'’.-]*(?:[\s-][A-Z][\w'’.-]*){0,2})\s+time(?=\s*,)")
#: A side whose clock a Chinese time is on: "我这边", "你那边的时间", "德黑兰这边", "按东京时间", "这边明晚".
_ZH_SIDE = re.compile(r"(?P<who>[\u4e00-\u9fff]{0,6}?)(?:这边|那边|这里|那里)(?:的)?(?:时间)?"
                      r"|(?:按|以)(?P<at>[\u4e00-\u9fff]{2,6}?)的?时间")
#: Whose side it is when it is no place: the speaker's or the listener's own clock.
_OWN_SIDES = ("我们", "咱们", "你们", "我", "你", "您")
#: A Chinese time right after a side ("杭州这边周三晚上", "这边，明晚10点"): a side said before a time is its clock.
_TIME_NEXT = re.compile(r"[\s，,]*(?:\d|[今明后]|周|星期|礼拜|下[周个午]|这[周个]|本周|早|中午|晚|夜|凌晨|傍晚|上午|月[底初中]"
                        r"|[零一二三四五六七八九十两]+[点号日])")


def zh_clock_asides(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each Chinese clock aside in ``text``: the speaker's side ("这边明晚10点前"), a member's
    own ("我这边", "你那边时间"), a place that names a zone ("德黑兰这边", "按东京时间") or any place right before a
    time ("杭州这边周三晚上"); never a side that is no clock ("客户那边的报价", "物业这边说不行")."""
    names, out = _zone_names(), []
    for m in _ZH_SIDE.finditer(text):
        group = "who" if m.group("at") is None else "at"
        word, start = m.group(group) or "", m.start(group) if m.group(group) is not None else m.start()
        timed = _TIME_NEXT.match(text, m.end()) is not None
        for cut in range(len(word) + 1):  # "给我到周二，德黑兰这边": the longest tail that is a side
            tail = word[cut:]
            if tail in _OWN_SIDES or tail in names or (not tail and not word) \
                    or (timed and tail and len(tail) <= 4 and group == "who"):
                begin = m.start() if group == "at" else start + cut  # "按你马那瓜的时间": the whole of it
                if group == "who" and text[begin - 1 : begin] in ("按", "以"):
                    begin -= 1
                out.append((begin, m.end()))
                break
    return out


def without_zh_clock_asides(text: str, put: str = "") -> str:
    """``text`` with each Chinese clock aside replaced by ``put``."""
    for start, end in reversed(zh_clock_asides(text)):
        text = text[:start] + put + text[end:]
    return text


def named_zone(text: str) -> str | None:
    """The IANA zone ``text`` names for its times ("by Friday noon Paris time", "东京时间", "noon pacific",
    "墨尔本这边周日晚上之前"), or None. "my time"/"我这边" name the speaker's own clock: None."""
    names = _zone_names()
    for m in _NAMED_ZH.finditer(text):
        word = m.group("name")
        for cut in range(len(word) - 2 + 1):  # "美国纽约时间", "在东京时间": the longest known tail
            if (zone := names.get(word[cut:])) is not None:
                return zone
    for m in _NAMED_EN.finditer(text):
        word = (m.group("name") or m.group("place") or m.group("poss") or m.group("bare") or "").strip(" .").casefold()
        if m.group("bare") and word not in _BARE_OK:
            continue
        parts = word.split()
        for cut in range(len(parts)):  # "friday noon paris time": the longest known tail
            if (zone := names.get(" ".join(parts[cut:]))) is not None:
                return zone
    return None
