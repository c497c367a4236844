"""Time words in a query, as the window of time they point at: "last week", "in March", "上周", "三月".

``query_window(text, now)`` returns the ``TimeWindow`` meant, or None: "last week" is the previous
Monday–Sunday, "in March" this year's March (last year's while still ahead), "early May" its first ten
days, "recently"/"最近" fourteen days. ``wants_latest`` says whether it asks how things stand now.
Linear: fixed patterns, one pass each; no calendar or locale data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from memory.numerals import chinese_number

__all__ = ["TimeWindow", "query_window", "wants_latest"]

#: "Recently", "lately", "最近", "近来": the last this many days.
RECENT_DAYS = 14


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """A half-open span of time ``[start, end)`` a query points at (naive or aware as ``now`` was)."""

    start: datetime
    end: datetime

    def holds(self, when: datetime) -> bool:
        return self.start <= when < self.end


_EN_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        ("january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
         "august aug", "september sep sept", "october oct", "november nov", "december dec")
    )
    for name in names.split()
}

_ZH_MONTH = re.compile(r"(?<![\d一二三四五六七八九十])(十[一二]|[一二三四五六七八九十]|1[0-2]|[1-9])月(?:份)?(初|上旬|中旬|下旬|底|末)?")
_EN_MONTH = re.compile(
    r"\b(early|mid|late|end of|beginning of|start of)?\s*(?:in\s+)?"
    r"(january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\b\.?(?:\s+(\d{4}))?",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?:\bin\s+|(?<!\d))((?:19|20)\d{2})(?:\s*年)?(?!\d)")
_RELATIVE = [
    (re.compile(r"上周|上个?星期|上个?礼拜|\blast week\b|\bthe week before\b", re.IGNORECASE), "last_week"),
    (re.compile(r"这周|本周|这个?星期|这个?礼拜|\bthis week\b", re.IGNORECASE), "this_week"),
    (re.compile(r"上个月|上月|\blast month\b", re.IGNORECASE), "last_month"),
    (re.compile(r"这个月|本月|\bthis month\b", re.IGNORECASE), "this_month"),
    (re.compile(r"前天|\bthe day before yesterday\b", re.IGNORECASE), "day_before"),
    (re.compile(r"昨天|昨晚|\byesterday\b", re.IGNORECASE), "yesterday"),
    (re.compile(r"今天|今早|今晚|\btoday\b|\btonight\b", re.IGNORECASE), "today"),
    (re.compile(r"去年|\blast year\b", re.IGNORECASE), "last_year"),
    (re.compile(r"今年|\bthis year\b", re.IGNORECASE), "this_year"),
    (re.compile(r"最近|近来|这几天|这些天|\brecently\b|\blately\b|\bthese days\b", re.IGNORECASE), "recent"),
]
_LATEST = re.compile(
    r"现在|目前|如今|最新|最后|后来|还在|仍然|\bnow\b|\bcurrently\b|\bcurrent\b|\bstill\b|\blatest\b|"
    r"\bin the end\b|\bfinally\b|\bthese days\b",
    re.IGNORECASE,
)


def _zh_number(text: str) -> int:
    """A month number as written: "12", "十二", "三" (cn2an reads the Chinese ones)."""
    number = int(text) if text.isdigit() else chinese_number(text)
    if number is None:
        raise ValueError(f"not a month number: {text!r}")
    return number


def _day(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def _month(year: int, month: int, like: datetime) -> datetime:
    return like.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0)


def _next_month(start: datetime) -> datetime:
    return start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)


def _month_window(month: int, part: str, now: datetime, year: int | None = None) -> TimeWindow:
    if year is None:
        year = now.year if month <= now.month else now.year - 1
    start = _month(year, month, now)
    end = _next_month(start)
    part = part.lower()
    if part in ("初", "上旬", "early", "beginning of", "start of"):
        return TimeWindow(start, start + timedelta(days=10))
    if part in ("中旬", "mid"):
        return TimeWindow(start + timedelta(days=10), start + timedelta(days=20))
    if part in ("下旬", "底", "末", "late", "end of"):
        return TimeWindow(start + timedelta(days=20), end)
    return TimeWindow(start, end)


def _relative(kind: str, now: datetime) -> TimeWindow:
    today = _day(now)
    monday = today - timedelta(days=today.weekday())
    if kind == "last_week":
        return TimeWindow(monday - timedelta(days=7), monday)
    if kind == "this_week":
        return TimeWindow(monday, today + timedelta(days=1))
    if kind == "last_month":
        this = today.replace(day=1)
        return TimeWindow(_month(this.year - (this.month == 1), 12 if this.month == 1 else this.month - 1, now), this)
    if kind == "this_month":
        return TimeWindow(today.replace(day=1), _next_month(today.replace(day=1)))
    if kind == "day_before":
        return TimeWindow(today - timedelta(days=2), today - timedelta(days=1))
    if kind == "yesterday":
        return TimeWindow(today - timedelta(days=1), today)
    if kind == "today":
        return TimeWindow(today, today + timedelta(days=1))
    if kind == "last_year":
        return TimeWindow(_month(now.year - 1, 1, now), _month(now.year, 1, now))
    if kind == "this_year":
        return TimeWindow(_month(now.year, 1, now), _month(now.year + 1, 1, now))
    return TimeWindow(today - timedelta(days=RECENT_DAYS), today + timedelta(days=1))  # recent


def query_window(text: str, now: datetime) -> TimeWindow | None:
    """The span of time ``text`` asks about, read against ``now``; None when it names none.

    The first match wins, in this order: a named month ("三月", "5月初", "in March 2023", "early
    May"), a relative word ("上周", "last month", "最近"), a year ("in 2022").
    """
    zh = _ZH_MONTH.search(text)
    if zh:
        return _month_window(_zh_number(zh.group(1)), zh.group(2) or "", now)
    en = _EN_MONTH.search(text)
    # "may" is also a verb: only read as a month with a part word, "in", or a year next to it
    if en and (en.group(2).lower() != "may" or en.group(1) or en.group(3) or re.search(r"\bin\s+may\b", text, re.I)):
        year = int(en.group(3)) if en.group(3) else None
        return _month_window(_EN_MONTHS[en.group(2).lower().rstrip(".")], en.group(1) or "", now, year)
    for pattern, kind in _RELATIVE:
        if pattern.search(text):
            return _relative(kind, now)
    year_match = _YEAR.search(text)
    if year_match:
        year = int(year_match.group(1))
        return TimeWindow(_month(year, 1, now), _month(year + 1, 1, now))
    return None


def wants_latest(text: str) -> bool:
    """True when the question asks how things stand now, or how they ended ("现在", "后来", "still")."""
    return _LATEST.search(text) is not None
