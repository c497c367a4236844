"""Due times in Chinese and English: find "周五前" / "by Friday" in a message and resolve it.

``resolve_due(text, now, tz)`` resolves against the message time in the tenant's zone and returns an
aware datetime in that zone, or None; its docstring lists the conventions (one rule each).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import lru_cache
from itertools import pairwise

from bot.text.zones import named_zone, without_clock_words, without_zh_clock_asides, zone_of
from memory.numerals import chinese_number

__all__ = ["CANNOT_DO_ZH", "Shift", "beside_times", "counts_from_now", "find_due_span", "find_due_spans", "find_shift", "names_a_day", "only_time", "parse_number", "resolve_due",
           "shifted", "turned_down"]

_ZH_NUMERAL = re.compile(r"[零〇一二两三四五六七八九十百]+")
_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "forty-five": 45, "sixty": 60, "a couple of": 2, "couple of": 2,
    "a few": 3, "few": 3,
}  # fmt: skip

NUM_ZH = r"[0-9０-９零〇一二两三四五六七八九十百]+"
NUM_EN = r"a\s+couple\s+of|couple\s+of|a\s+few|forty-five|\d+|" + "|".join(
    sorted((k for k in _EN_NUMBERS if " " not in k and "-" not in k), key=len, reverse=True)
)
_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
#: The year a date may end with: "7 Nov 2049", "March 3rd, 2031" (not "Nov 7, 18:00").
_YEAR = r"(?:,?\s+(?P<y>(?:19|20)\d\d)\b(?![:.]\d))?"
_WEEKDAYS_EN = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
#: Weekdays as people type them: "Thu 9pm", "by wed", "Fri." ("sat"/"sun" only capitalised: "I sat down").
_WEEKDAY_ABBR = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "weds": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
                 "sat": 5, "sun": 6}
_WEEKDAY_RE = "|".join(_WEEKDAYS_EN) + "|mon|tues?|weds?|thu(?:rs?)?|fri|(?-i:Sat|Sun|SAT|SUN)"
#: What an ordinal counts when it is no date: "the 3rd time", "the 2nd floor".
_COUNTED = r"(?:time|times|floor|place|try|attempt|round|row|leg|episode|ep|chapter|grade|person|one|week|month|year|day)\b"
_WEEKDAY_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}

# Deadlines for a part of day said without an hour: the end of that part (see ``resolve_due``).
_PART_END = {"morning": 12, "noon": 12, "afternoon": 18, "dusk": 19, "evening": 21, "night": 21, "early": 6}
_PARTS = {
    "凌晨": "early", "早上": "morning", "早晨": "morning", "上午": "morning", "中午": "noon",
    "下午": "afternoon", "傍晚": "dusk", "晚上": "evening", "夜里": "night", "晚": "evening", "早": "morning", "morning": "morning",
    "afternoon": "afternoon", "arvo": "afternoon", "evening": "evening", "night": "night", "noon": "noon", "midday": "noon",
}  # fmt: skip
_PM_PARTS = frozenset({"afternoon", "dusk", "evening", "night"})
_EOD = (23, 59)


def parse_number(text: str) -> int | None:
    """An integer from digits (full-width too), Chinese numerals (cn2an: 十二, 二十三, 两百, 〇) or
    English words; else None."""
    s = text.strip().lower()
    if not s:
        return None
    if s.isdigit():
        return int(s)  # int() also reads full-width digits
    key = " ".join(s.split())
    if key in _EN_NUMBERS:
        return _EN_NUMBERS[key]
    if not _ZH_NUMERAL.fullmatch(s):
        return None
    return chinese_number(s)  # None for what cn2an reads as no number ("十十")


# --- the patterns -------------------------------------------------------------------------------
# Three families: durations (absolute), days (a date, maybe with a part of day) and times of day.
# A day and a time next to each other ("明天下午三点", "tomorrow at 3pm", "5pm on Friday") combine.

_I = re.IGNORECASE
_DURATIONS = [
    re.compile(
        rf"(?:(?P<n>{NUM_ZH})\s*个?)?(?P<half>半)?个?(?P<unit>小时|钟头|分钟|秒钟|秒|天|周|星期|礼拜)(?:之内|以内|内|之后|以后|后)"
    ),
    re.compile(
        rf"\b(?:in|within)\s+(?:the\s+next\s+|the\s+(?=hour\b))?(?:(?P<n>{NUM_EN})\s*)?(?P<half>half\s+(?:an?\s+)?)?"
        rf"(?P<unit>hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?)\b",
        _I,
    ),
]
_DAYS = [
    re.compile(r"(?P<rel>大后天|后天|明天|明日|明早|明晚|今天|今日|今早|今晚|当天)"),
    re.compile(r"\b(?P<rel>the\s+day\s+after\s+tomorrow|tomorrow|tmrw|tmr|today|tonight|tonite|2nite)\b", _I),
    re.compile(r"(?P<mod>下下个?|下个?|这个?|本|上个?)?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])"),
    re.compile(
        rf"\b(?:(?P<mod>next|this|coming|the\s+following)\s+)?(?P<wdn>{_WEEKDAY_RE})\b"
        r"(?:\s+(?P<nextweek>(?:of\s+)?next\s+week)\b)?",
        _I,
    ),
    # "wed the 20th", "next Wednesday, the 2nd": the date decides, the weekday only confirms it
    re.compile(rf"\b(?:(?:next|this|coming|the)\s+)?(?:{_WEEKDAY_RE})\.?,?\s+(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:{_MONTH_RE})\b)", _I),
    # "the weekend of the 19th": that weekend's Sunday
    re.compile(r"\b(?:the\s+)?(?:weekend|wknd)\s+of\s+(?:the\s+)?(?P<wkd>\d{1,2})(?:st|nd|rd|th)?\b", _I),
    # "before the weekend": the working week's end, Friday ("这周末前" is by the weekend, read below)
    re.compile(r"(?P<period>\bbefore\s+the\s+(?:weekend|wknd)\b)", _I),
    re.compile(r"(?P<period>(?:这个?|本|下个?)?月[底末中初]|年[底末]|(?:这个?|本)月(?![底末中初0-9０-９零一二两三四五六七八九十])|(?:这个?|本|下个?)(?:周|星期)内|(?:这个?|本|下个?)?周末"
               r"|(?:这个?|本|下个?)(?:周|星期)(?![一二三四五六日天末内]))"),
    re.compile(r"\b(?P<period>(?:this\s+|next\s+|the\s+)?(?:weekend|wknd)|(?:this|next)\s+week|this\s+month)\b", _I),
    re.compile(
        r"\b(?:the\s+)?(?P<period>end\s+of\s+(?:the\s+|this\s+|next\s+)?(?:day|week|month|year)|eod|eow|eom|cob"
        r"|close\s+of\s+business)\b",
        _I,
    ),
    re.compile(rf"(?:(?P<y>\d{{4}})年)?(?P<m>{NUM_ZH})月(?P<d>{NUM_ZH})[日号]"),
    re.compile(rf"(?P<mrel>下个?|这个?|本)月(?P<d>{NUM_ZH})[日号]"),
    re.compile(rf"(?<![月\d])(?P<d>{NUM_ZH})号(?![楼线房床])"),
    re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MONTH_RE})\b\.?{_YEAR}", _I),
    re.compile(rf"\bthe\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:{_MONTH_RE})\b)(?!\s+{_COUNTED})", _I),
    # a bare ordinal as a whole answer's date: "yes, 17th even", "by 20th?" (not "my 3rd try")
    re.compile(r"(?<!the\s)\b(?P<d>\d{1,2})(?:st|nd|rd|th)\b(?=\s*(?:$|[,.;!?)]|(?:even|then|instead|latest|at|by|is|works|ok|okay|pls|please)\b))", _I),
    re.compile(rf"\b(?P<mon>{_MONTH_RE})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b{_YEAR}", _I),
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
    # holidays on a fixed date: "万圣节之前", "before Christmas"
    # (as a deadline only: "put it on your christmas list" names no day)
    # the days of the Spring Festival: "初六之前", "正月十五前", "除夕那天", "春节前" (not "初一的学生": a deadline only)
    re.compile(r"(?<!月)(?P<lunar>(?:正月|大年)?初(?P<lday>[一二三四五六七八九十])|正月(?P<lday2>十[一二三四五]?)|除夕|大年三十|春节|元宵节?)"
               r"(?=之前|以前|前|那天|当天|晚上|早上|上午|下午|中午)"),
    re.compile(r"(?P<hol>万圣节|圣诞节?|平安夜|元旦|情人节|国庆节?|劳动节|儿童节)(?=之前|以前|前|那天|当天)"
               r"|\b(?:by|before|until|till|on)\s+(?P<hol_en>halloween|christmas(?:\s+eve)?|xmas"
               r"|new\s+year'?s(?:\s+(?:eve|day))?|valentine'?s(?:\s+day)?)\b", _I),
]
#: 正月初一 (the Spring Festival) of each year, as computed by the ``lunardate`` package (data, not a dependency).
_SPRING_FESTIVAL = {
    2020: (1, 25), 2021: (2, 12), 2022: (2, 1), 2023: (1, 22), 2024: (2, 10), 2025: (1, 29), 2026: (2, 17),
    2027: (2, 6), 2028: (1, 26), 2029: (2, 13), 2030: (2, 3), 2031: (1, 23), 2032: (2, 11), 2033: (1, 31),
    2034: (2, 19), 2035: (2, 8), 2036: (1, 28), 2037: (2, 15), 2038: (2, 4), 2039: (1, 24), 2040: (2, 12),
    2041: (2, 1), 2042: (1, 22), 2043: (2, 10), 2044: (1, 30), 2045: (2, 17), 2046: (2, 6), 2047: (1, 26),
    2048: (2, 14), 2049: (2, 2),
}
#: (month, day) of each holiday ``_DAYS`` reads, by its first two letters or characters.
_HOLIDAYS = {"万圣": (10, 31), "圣诞": (12, 25), "平安": (12, 24), "元旦": (1, 1), "情人": (2, 14), "国庆": (10, 1),
             "劳动": (5, 1), "儿童": (6, 1), "ha": (10, 31), "ch": (12, 25), "xm": (12, 25), "va": (2, 14)}
_TIMES = [
    re.compile(
        rf"(?<!第)(?P<part>凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|(?<![今明昨傍当])晚|(?<![今明清])早)?(?P<h>{NUM_ZH})(?:点钟|点|时)(?!间)"
        rf"(?:(?P<half>半)|(?P<quarter>一刻|三刻)|(?P<mi>{NUM_ZH})分?)?"
    ),
    re.compile(r"(?<![\d:])(?P<h>[01]?\d|2[0-4])[:：](?P<mi>[0-5]\d)(?:\s*(?P<ampm>[ap])\.?m\b\.?)?", _I),
    re.compile(r"\b(?P<h>\d{1,2})\s*(?P<ampm>[ap])\.?m\b\.?", _I),
    # "8 in the evening", "7 o'clock in the morning", "9 at night": the part of day said after the hour
    re.compile(rf"\b(?P<h>\d{{1,2}}|{NUM_EN})(?:[:.](?P<mi>[0-5]\d))?\s+(?:o'?clock\s+)?(?:in\s+the\s+|at\s+)"
               r"(?P<part>morning|afternoon|evening|night)\b", _I),
    re.compile(rf"\b(?P<h>{NUM_EN})\s+o'?clock\b", _I),
    re.compile(r"\b(?P<kw>noon|midday|midnight|lunch(?:time)?)\b", _I),
    # "by 9 tomorrow evening": a bare hour whose part of day comes after its day
    re.compile(r"\b(?:at|by|before|until|till|around)\s+(?P<h>\d{1,2})(?=\s+(?:today|tomorrow|tmrw)\s+"
               r"(?P<part>morning|afternoon|evening|night)\b)", _I),
    # "by 8 tonight", "tonight at 8": a bare hour after at/by (not "by 5 people", "at 3.5%")
    re.compile(r"\b(?:at|by|before|until|till|around)\s+(?P<h>\d{1,2})\b(?![:.]\d|\s*(?:%|percent|people|persons|of\b|dollars|euros|yuan|items|times)"
               r"|\s+(?:o'?clock\s+)?(?:in\s+the|at)\s+(?:morning|afternoon|evening|night)\b"
               rf"|(?:st|nd|rd|th)\b|\s+(?:of\s+)?(?:{_MONTH_RE})\b)", _I),  # not "by 20 Oct", "by 5th"
    re.compile(r"(?P<part>凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里)"),
    # not "last night", "every evening", "Noa's next night" (a night of someone's, not a deadline)
    re.compile(r"\b(?<!\blast\s)(?<!\bnext\s)(?<!\bevery\s)(?<!\bone\s)(?<!\ba\s)(?:this\s+)?"
               r"(?P<part>morning|afternoon|arvo|evening|night)\b(?!\s+(?:shifts?|person|people|owl|class(?:es)?"
               r"|runs?|routine|mode|sky|news|light|out|market)\b)", _I),
]
# A day and a time combine when only these words stand between them.
_JOIN = re.compile(r"[\s,，)）]*(?:[（(][^（()）\n]{1,8}[）)])?[\s,，]*(?:at|by|before|around|on|of|的)?[\s,，]*", _I)  # "3月20号（礼拜一）夜里"
# Words around a due expression that belong to it: "在周五前", "by Friday", "两小时之内为止".
_PREFIX = re.compile(
    r"(?:最晚|最迟|不晚于|在|于|到|\b(?:by|before|until|till|no\s+later\s+than|on)(?:\s+the)?|\bat"
    r"|(?:\b(?:by|before|until|till)\s+)?(?:the\s+)?\b(?:end|close)\s+of)\s*$", _I  # "by the end of Tuesday"
)
_SUFFIX = re.compile(r"^\s*(?:之前|以前|前|为止|之内|以内|(?i:eod|cob)\b)")  # "Thursday EOD"
# "一点" is also "a little" (快一点, 早一点): only a clock time when something says so.
_LITTLE = re.compile(r"[有快早晚多少慢好点]$")
# A time that starts or conditions something is not its deadline: "after 11pm", "starting tonight",
# "from Monday on", "晚上11点以后", "从明天起", "明天开始".
_START_BEFORE = re.compile(
    r"\b(?:after|past|from|starting|since|as\s+of|beginning|every|each)\s+(?:the\s+|this\s+)?$|每个?$", _I
)
_START_AFTER = re.compile(r"\s*(?:以后|之后|后(?!天)|起|开始|on\b|onwards?\b)")
#: A time said as a deadline: "by 8", "before noon" (the word inside the time's match, or just before it).
_BY = r"(?:by|before|until|till|no\s+later\s+than)"
_DEADLINE_LEAD = re.compile(_BY + r"\b", re.IGNORECASE)
_DEADLINE_BEFORE = re.compile(r"\b" + _BY + r"\s+$", re.IGNORECASE)
_MODIFIER = re.compile(r"的|'s\b|’s\b")
#: A day gone before a time of day: "yesterday at noon", "last night at 11", "昨天晚上", "前天下午".
_PAST_BEFORE = re.compile(r"(?:\byesterday|\blast\s+(?:night|week)|昨天|昨晚|前天)\s*(?:at|around|in\s+the)?\s*$", _I)
#: Words before a day that make it say which thing, when a noun follows: "my Tuesday leg", "the Sunday round".
_NAMES_A_THING = re.compile(r"\b(?:my|your|his|her|our|their|the)\s+$", _I)
#: The noun such a day names: a word that is no part of day, time word or verb of being ("leg", "games").
_THING_AFTER = re.compile(r"\s+(?!(?:not|is|was|works?|then|instead|at|by|before|until|or|and|ok|okay|fine|night|morning"
                          r"|evening|afternoon|noon|midnight|eod|cob|the|at|after|next|week|of)\b)[a-z]", _I)
#: How far around a match the context checks look: they are about the adjacent words only, and a
#: bounded window keeps ``_hits`` linear in the text (slicing to the start of the text was quadratic).
_WINDOW = 24
#: The end of today said in words, which a day named right after it replaces ("EOD Thursday").
_END_OF_DAY = re.compile(r"(?:the\s+)?(?:end\s+of\s+(?:the\s+)?day|eod|cob|close\s+of\s+business)", _I)
#: A day and a time further apart than this are not one expression ("tomorrow … at 3pm").
_JOIN_MAX = 16


@dataclass(frozen=True, slots=True)
class _Hit:
    start: int
    end: int
    family: str  # "dur" | "day" | "time"
    m: re.Match[str]


def _hits(text: str) -> list[_Hit]:
    found: list[_Hit] = []
    starts: list[tuple[int, int]] = []  # spans of start/condition times: nothing inside them is a deadline
    for family, patterns in (("dur", _DURATIONS), ("day", _DAYS), ("time", _TIMES)):
        for pattern in patterns:
            for m in pattern.finditer(text):
                if family != "dur" and _starts_something(m, text):
                    starts.append((m.start(), m.end()))
                elif _valid(family, m, text):
                    found.append(_Hit(m.start(), m.end(), family, m))
    if starts:  # "晚上十一点后": not "晚上" either
        found = [h for h in found if not any(s <= h.start and h.end <= e for s, e in starts)]
    # earliest first; at the same start the longest ("下午三点" over "下午"), durations before days
    found.sort(key=lambda h: (h.start, -(h.end - h.start)))
    return found


def _starts_something(m: re.Match[str], text: str) -> bool:
    """ "after 11pm", "starting tonight", "从明天起": a start or a condition, not a deadline."""
    before = text[max(0, m.start() - _WINDOW) : m.start()]
    if _DEADLINE_LEAD.match(m.group()) or _DEADLINE_BEFORE.search(before):
        return False  # "by 8 on Friday morning": "on" names the day, it does not start anything
    return bool(_START_BEFORE.search(before) or _START_AFTER.match(text, m.end(), m.end() + _WINDOW))


def _valid(family: str, m: re.Match[str], text: str) -> bool:
    groups = m.groupdict()
    before = text[max(0, m.start() - _WINDOW) : m.start()]
    if groups.get("rel") == "当天" and re.search(r"[\u4e00-\u9fff]$", before) \
            and not re.search(r"(?:[我你他她们就也都在了，]|今天|那天)$", before):
        return False  # "发布当天", "搬家当天": the day of that event, which the words do not date
    if family == "time" and _PAST_BEFORE.search(before):
        return False  # "froze the writeups yesterday at noon", "昨天晚上8点": a time gone, no deadline
    if family == "dur":
        if (groups.get("unit") or "").lower().startswith("sec") and (groups.get("n") or "").lower() in ("a", "an"):
            return False  # "in a second" means soon, not a due time
        return bool(groups.get("n") or groups.get("half") or re.search(r"\bthe\s+hour$", m.group(), _I))
    if family == "day":
        if (groups.get("mod") or "").startswith("上"):
            return False  # last week's Friday is not a due time
        mon = groups.get("mon")
        # "may" is usually the verb; the month is written "May"
        return not (mon and mon.lower() == "may" and not mon.startswith("M"))
    if groups.get("h") in ("一", "1") and not groups.get("part") and "点" in m.group(0):
        if groups.get("mi") or groups.get("half") or groups.get("quarter"):
            return True
        if _LITTLE.search(before):
            return False
        return text[m.end() : m.end() + 1] in ("前", "之", "以")
    return True


#: What one cannot do, in Chinese: "交不了", "做不完", "搞不定", "来不及", "没办法" (a time turned down here; a
#: promise made impossible in ``bot.offline.actions``).
CANNOT_DO_ZH = r"[\u4e00-\u9fff](?:不了|不完|不齐|不到|不动|不成|不出来|不过来)|搞不定|来不及|赶不上|做不到|没法弄|没办法"
#: Words that turn a time down: "not wednesday", "can't do thursday", "instead of Friday", "周四不行",
#: "周五搞不定", "wednesday is tight", "isn't happening tonight", "saturday I'm at a wedding", "周日交不了了".
_REFUSED_BEFORE = re.compile(r"(?:\bnot|n't(?:\s+(?:do|make|happening|happen|work(?:ing)?))?|\bnever|\binstead\s+of"
                             r"|\brather\s+than|\bother\s+than"
                             r"|\bexcept)\s+(?:(?:on|by|before|until|the|this)\s+)?$|(?:不是|除了|而不是)\s*$", _I)
_REFUSED_AFTER = re.compile(
    r"\s*(?:'s|’s|is|are)?\s*(?:(?:a\s+bit|too|really|pretty|kinda|very)\s+)?(?:tight|bad|out|no\s+good|impossible|too\s+(?:soon|early|late)"
    r"|not\s+(?:possible|going\s+to\s+work|gonna\s+work)|doesn'?t\s+work|won'?t\s+work|isn'?t\s+(?:possible|going\s+to\s+work)|is\s+off)\b"
    # away then: "saturday I'm at my cousin's wedding", "this weekend I'll be away", "friday we're travelling"
    r"|\s*,?\s*(?:I'?m|I\s+am|im|I'?ll\s+be|I\s+will\s+be|we'?re|we\s+are|we'?ll\s+be)\s+(?:at|away|out|off|busy"
    r"|travell?ing|flying|working|on\s+(?:a|my|the|night|double)\b|visiting|stuck|gone|booked|in\s+(?:a|the)\s+(?:air|hospital|office))\b"
    r"|\s*(?:之?前|以前|之内|以内)?(?:的话)?(?:肯定|可能|应该|真的|实在)?(?:不行|不太行|不可以|不可能|没空|不方便|不太方便|不够"
    r"|" + CANNOT_DO_ZH + r"|(?:我)?(?:要|得)?(?:出差|值班|加班|有事|不在))", _I)


_BROAD = re.compile(r"(?:这个?|本)(?:周|星期)|this\s+week|(?:这个?|本)月|this\s+month", _I)


def _broad(hit: _Hit, text: str) -> bool:
    """Is ``hit`` a whole week or month said without "by"/"前" ("这周项目…", "this week is chaos")?"""
    return bool(hit.family == "day" and _BROAD.fullmatch(hit.m.group()) and not _SUFFIX.match(text[hit.end:])
                and not _PREFIX.search(text[max(0, hit.start - _WINDOW) : hit.start]))


def _refused(hit: _Hit, text: str) -> bool:
    """Is the time at ``hit`` turned down by the words around it?"""
    before = text[max(0, hit.start - _WINDOW) : hit.start]
    return bool(_REFUSED_BEFORE.search(before) or _REFUSED_AFTER.match(text, hit.end, hit.end + _WINDOW))


def find_due_span(text: str) -> tuple[int, int] | None:
    """The (start, end) of the first due-time phrase in ``text``, with its "在…前"/"by" words; or None."""
    found = _pick(text)
    if found is None:
        return None
    start, end = found[0].start, found[-1].end
    window = max(0, start - _WINDOW)
    prefix = _PREFIX.search(text[window:start])
    if prefix:
        start = window + prefix.start()
    suffix = _SUFFIX.match(text[end:])
    if suffix:
        end += suffix.end()
    elif _HOUR_THEN_DAY.search(text, start, end) and (part := _PART_AFTER.match(text, end)) is not None:
        end = part.end()  # "by 9 tomorrow evening": the part of day that gave the hour its half is the phrase's too
    return start, end


_HOUR_THEN_DAY = re.compile(r"\b(?:at|by|before|until|till|around)\s+\d{1,2}\s+(?:today|tomorrow|tmrw)$", re.IGNORECASE)
_PART_AFTER = re.compile(r"\s+(?:morning|afternoon|evening|night)\b", re.IGNORECASE)


#: What may stand beside a time in an answer that says nothing else ("Monday then", "ok, Saturday noon
#: instead", "how about Friday?", "sorry, Wednesday's boat", "那就周六吧", "抱歉，改到周五").
_BESIDE_TIME = re.compile(r"\b(?:then|instead|please|pls|ok(?:ay)?|maybe|sorry|how\s+about|what\s+about|i\s+can\s+do|the|still|same\s+as\s+before"
                          r"|eod|cob|end\s+of\s+(?:the\s+)?day|my\s+time)\b"
                          # "Wednesday's boat", "Monday's post": the day the carrier goes
                          r"|(?:'s|’s)\s+(?:boat|ferry|post|mail|flight|train|bus|van|truck|courier|delivery|shipment|run"
                          r"|pickup|collection)\b"
                          r"|抱歉|不好意思|我这边的?时间|那就|还是|照旧|依旧|改[到成]?|[吧呢啊吗好了]|[\s,，.。!！?？~—–-]", re.IGNORECASE)


def names_a_day(text: str) -> bool:
    """Does the first due-time phrase of ``text`` name a day ("by Wednesday the 25th, before 9pm"), not only an
    hour ("by 14:00 my time") or a span?"""
    found = _pick(text)
    return found is not None and any(h.family == "day" for h in found)


def beside_times(text: str) -> str | None:
    """What ``text`` says beside its due times and the words that go with them ("好。周五晚上8点前发群里。" →
    "发群里"), or None when it names no time."""
    rest, found = without_clock_words(text), False
    while (span := find_due_span(rest)) is not None:
        rest, found = rest[: span[0]] + " " + rest[span[1]:], True
    return _BESIDE_TIME.sub("", rest) if found else None


def only_time(text: str) -> bool:
    """Is ``text`` due times and nothing else ("by Tuesday", "周六吧", "Monday then", "Friday noon, my time",
    "下周二，晚上10点前")?"""
    return beside_times(text) == ""


def counts_from_now(text: str) -> bool:
    """Is the first due time ``text`` names a span from now ("within 48 hours", "三天内"), not a day or an hour?"""
    picked = _pick(text)
    return picked is not None and picked[0].family == "dur"


def find_due_spans(text: str) -> list[tuple[int, int]]:
    """The due-time phrase of ``text`` as one span, or as two when its hour is said in a later clause
    ("明天把记录整理出来发群里，晚上9点前": "明天" and "晚上9点前", the deed between them kept)."""
    span = find_due_span(text)
    found = _pick(text)
    if span is None or found is None or len(found) < 2:
        return [span] if span is not None else []
    gaps = [text[a.end : b.start] for a, b in pairwise(found)]
    if all(_JOIN.fullmatch(g) or _NARROWS.fullmatch(g) for g in gaps):  # "Friday arvo, before 4": one phrase
        return [span]
    first_end = found[0].end
    if (aside := re.match(r"\s*[（(][^）)]{1,12}[）)]", text[first_end:])) is not None:  # "周五（6号）"
        first_end += aside.end()
    start = found[-1].start
    if (prefix := _PREFIX.search(text[max(0, start - _WINDOW) : start])) is not None:  # "…, by 8pm"
        start = max(0, start - _WINDOW) + prefix.start()
    return [(span[0], first_end), (start, span[1])]


def _refusals(hits: Sequence[_Hit], text: str) -> list[bool]:
    """Which of ``hits`` the words around them turn down; a day goes with the time turned down right
    after it ("周日晚上交不了了")."""
    refused = [_refused(h, text) for h in hits]
    for i in range(len(hits) - 2, -1, -1):
        a, b = hits[i], hits[i + 1]
        if refused[i + 1] and a.family != b.family and b.start - a.end <= _JOIN_MAX and _JOIN.fullmatch(text[a.end : b.start]):
            refused[i] = True
    return refused


_ZONE_AFTER = re.compile(r"\s*[（(]?\s*[^\s,，。;；()（）]{1,24}?\s*(?:time|时间)\s*[)）]?", _I)


def turned_down(text: str) -> tuple[str, str] | None:
    """(the time turned down, the time offered after it) when ``text`` turns one time down and offers
    another ("glossary isn't happening tonight … tomorrow noon", "周日晚上交不了了，改到周一中午"); else None."""
    hits = _hits(text)
    refused = _refusals(hits, text)
    if not any(refused):
        return None
    first = refused.index(True)
    last = first
    while last + 1 < len(hits) and refused[last + 1]:
        last += 1
    if not any(not r for r in refused[last + 1 :]):
        return None
    offered = find_due_span(text[hits[last].end :])
    if offered is None:
        return None
    start = hits[last].end
    end = start + offered[1]
    if zone := _ZONE_AFTER.match(text, end):  # "tomorrow noon London time", "周一中午（伦敦时间）": the clock it is on
        end = zone.end()
    return text[hits[first].start : hits[last].end], text[start + offered[0] : end].lstrip("到至 ").rstrip()


@lru_cache(maxsize=512)
def _pick(text: str) -> tuple[_Hit, ...] | None:
    """The first due expression: one hit, or a day and a time that belong together.

    Cached: extraction asks about the same clause several times (its core, its action, its slot)."""
    hits = _hits(text)
    # "这周的群公告我来写，周五发": a time that only says which thing ("这周的", "this week's") yields to a
    # deadline said after it, when there is one
    hits = [h for h in hits if not _MODIFIER.match(text, h.end)] or hits
    # "my Tuesday leg … by Friday": a day that names which thing ("my Tuesday leg", "the Sunday games") yields
    # to a day said as a deadline later
    hits = [h for h in hits if not (h.family == "day" and _NAMES_A_THING.search(text[max(0, h.start - _WINDOW) : h.start])
                                    and _THING_AFTER.match(text, h.end) and not _SUFFIX.match(text[h.end :]))] or hits
    # "not wednesday … next thursday morning?", "周五搞不定，改成周六中午": a time turned down yields to one
    # that is not, when there is one
    hits = [h for h, no in zip(hits, _refusals(hits, text), strict=True) if not no] or hits
    # "这周项目赶死了，周五早上给你": a bare week or month that a later day narrows is no deadline itself
    if hits and _broad(hits[0], text):
        day = next((h for h in hits if h.family == "day" and h.start > hits[0].end and not h.m.groupdict().get("period")), None)
        hits = [h for h in hits if h.start >= day.start] if day is not None else hits
    if not hits:
        return None
    first = hits[0]
    if first.family == "dur":
        return (first,)
    if _weekday_only(first) and (date := next((h for h in hits[1:] if h.family == "day"), None)) is not None \
            and _dated(date) and _WEEKDAY_DATE.fullmatch(text[first.end : date.start]):
        # "Sat 7 Nov, 18:00", "周六（11月7日）": the date decides, the weekday only confirms it
        return (first, *_joined(date, [h for h in hits if h.start >= date.start], text))
    return _joined(first, hits, text)


#: Between a weekday and the date it names: "Sat 7 Nov", "Saturday, November 7", "周六（11月7日）".
_WEEKDAY_DATE = re.compile(r"[\s,，.]*(?:the\s+)?[（(]?\s*", _I)


def _weekday_only(hit: _Hit) -> bool:
    return hit.family == "day" and bool(hit.m.groupdict().get("wdn") or hit.m.groupdict().get("wd")) \
        and not hit.m.groupdict().get("d")


def _dated(hit: _Hit) -> bool:
    """Is ``hit`` a calendar date with its month ("7 Nov", "11月7日", "2049-11-07")?"""
    g = hit.m.groupdict()
    return bool(g.get("d") and (g.get("mon") or g.get("m")))


def _joined(first: _Hit, hits: Sequence[_Hit], text: str) -> tuple[_Hit, ...]:
    """``first`` and the hits that complete it: a day and its hour, a part of day and its clock."""
    if (first.family == "day" and _END_OF_DAY.fullmatch(first.m.group()) and len(hits) > 1
            and hits[1].family == "day" and hits[1].start - first.end <= _JOIN_MAX
            and _JOIN.fullmatch(text[first.end : hits[1].start])):
        return (first, hits[1])  # "EOD Thursday", "by close of business Friday": the end of that day
    other = "time" if first.family == "day" else "day"
    for hit in hits[1:]:
        if hit.start - first.end > _JOIN_MAX:
            break  # hits are in order: the rest are further still
        if hit.family == other and hit.start >= first.end and _JOIN.fullmatch(text[first.end : hit.start]):
            return (first, *_clock_after(hit, hits, text))
    if first.family == "day" and (hour := _hour_clause_after(first, hits, text)) is not None:
        return (first, hour)
    return (first,)


def _hour_clause_after(day: _Hit, hits: Sequence[_Hit], text: str) -> _Hit | None:
    """An hour said as a clause of its own later in the sentence that names the day ("周二（6号）落地多哈以后写，
    晚上10点前", "Thursday after the meeting, by 8pm"): it narrows that day, when no other day comes between."""
    for hit in hits:
        if hit.start < day.end:
            continue
        between = text[day.end : hit.start]
        if hit.family == "day" and _weekday_only(hit) and _dated(day) and re.fullmatch(r"[\s,，(（]*", between):
            continue  # "9月10号，周二，…": the weekday only confirms the date
        if hit.family == "day" and not re.fullmatch(r"\s*[（(]\s*", text[day.end : hit.start]):
            return None  # another day said first
        if hit.family == "time" and hit.m.groupdict().get("h") and len(between) <= _CLAUSE_GAP \
                and not _SENTENCE_END.search(between) and (
                    re.search(r"[,，]\s*(?:(?:still|again|same\s+as\s+before)\s+)?(?:by|before|until|till)\s*$", between, _I)
                    # ("下周二，圣地亚哥时间晚上六点以前": the clock it is on named before the hour)
                    or (re.search(r"[,，]\s*(?:还是|还|仍然|照旧|依旧)?\s*(?:按)?(?:[\u4e00-\u9fff]{2,8}?时间)?\s*$", between)
                        and re.match(r"\s*(?:之?前|以前)", text[hit.end :]))):
            return hit  # a deadline: "…, by 8pm", "…，晚上10点前" (not "…，晚上10点我要出门")
    return None


#: How far an hour said in a later clause may come after its day, and what ends the sentence between.
_CLAUSE_GAP = 24
_SENTENCE_END = re.compile(r"[。.!！?？;；\n]")
#: Between a part of day and the hour that narrows it: "tomorrow morning my time, before 9".
_NARROWS = re.compile(r"[\s,，]*(?:(?:my|your|our|his|her|their)\s+time)?[\s,，]*(?:at|by|before|until|till|around)?\s*", _I)


def _clock_after(part: _Hit, hits: Sequence[_Hit], text: str) -> tuple[_Hit, ...]:
    """A part of day ("morning", "night") and the hour said right after it ("…, before 9", "night, by 10"):
    both, the part saying which half of the day the hour is in (``resolve_due``); else the part alone."""
    if not part.m.groupdict().get("part") or part.m.groupdict().get("h"):
        return (part,)
    later = next((h for h in hits if h.start >= part.end), None)
    if later is None or later.family != "time" or not later.m.groupdict().get("h") \
            or not _NARROWS.fullmatch(text[part.end : later.start]):
        return (part,)
    return (part, later)


def resolve_due(text: str, now: datetime, tz: str | tzinfo, *, owner: str | tzinfo | None = None) -> datetime | None:
    """The due time ``text`` names, resolved against ``now`` (aware) in zone ``tz`` (an IANA name, an
    offset such as ``+08:00``, or a tzinfo: the speaker's clock); or None.

    One rule each, so reminders are predictable: a day without a time is due 23:59 local; a part of
    day at its end (morning/中午 12:00, afternoon 18:00, 傍晚 19:00, evening/今晚 21:00, or 23:59 when
    said after 21:00); an hour without am/pm 1–7 means 13:00–19:00; a time without a day is today, or
    tomorrow once passed; a bare weekday is its next occurrence, today included; "下周一"/"next
    Monday" is in the next calendar week (weeks start Monday); "this week"/"周末" is Sunday 23:59,
    "月底" the month's last day, "月中" the 15th, "月初" the 5th, "年底" 31 Dec; a date without a
    year rolls to next year (a bare "5号" to next month) once past; a start or condition ("after
    11pm", "从明天起") is no deadline; a zone the words name ("Paris time", "东京时间", "noon pacific")
    replaces ``tz``; a day without a time said for someone else (``owner``: the zone of the one who
    will do it, as in "can you … by Friday?" — "yep") ends at 23:59 in the owner's zone. Hours and minutes are elapsed time added in UTC (exact across
    DST); days and weeks are calendar days, due at the end of the last. A wall time skipped by a
    spring-forward moves forward by the gap; an ambiguous one takes its first occurrence.
    """
    if now.tzinfo is None:
        raise ValueError("resolve_due needs an aware 'now' (the message timestamp)")
    # a clock said between a day and its hour ("给我到周二，德黑兰这边夜里十点") is read past, so the hour still
    # narrows the day (the zone it names is read from the whole text)
    picked = _pick(without_zh_clock_asides(text, "，"))
    if picked is None:
        return None
    named = named_zone(text)
    zone = zone_of(named or tz)
    local_now = now.astimezone(zone)
    if picked[0].family == "dur":
        return _duration(picked[0].m, now, local_now, zone)
    day = next((h.m for h in reversed(picked) if h.family == "day"), None)  # "EOD Friday": the day named last
    times = [h.m for h in picked if h.family == "time"]
    clock = times[-1] if times else None
    target, day_part = _day(day, local_now) if day is not None else (None, None)
    if len(times) == 2:  # "Friday night, by 10": the hour, in the part of day said before it
        day_part = _PARTS.get(times[0].group("part").lower()) or day_part
    if day is not None and target is None:
        return None  # an impossible date ("2月30日")
    hour_minute = _clock(clock, day_part) if clock is not None else None
    if hour_minute is None and day_part is not None:
        hour_minute = (_PART_END[day_part], 0)
    if target is None:
        if hour_minute is None:
            return None
        result = _local(local_now.date(), hour_minute, zone)
        return (
            result if result > local_now else _local(local_now.date() + timedelta(days=1), hour_minute, zone)
        )
    if hour_minute is None and owner is not None and named is None:
        return _local(target, _EOD, zone_of(owner))  # "by Friday" asked of someone: Friday where they are
    result = _local(target, hour_minute or _EOD, zone)
    if clock is None and day_part is not None and target == local_now.date() and result <= local_now:
        return _local(target, _EOD, zone)  # "今晚" said at 22:30: the rest of today
    return result


def _local(day: date, hour_minute: tuple[int, int], zone: tzinfo) -> datetime:
    """A wall-clock time in ``zone``; the UTC round trip moves times a DST gap skips past the gap."""
    hour, minute = hour_minute
    naive = (
        datetime(day.year, day.month, day.day, 23, 59)
        if hour >= 24
        else datetime(day.year, day.month, day.day, hour, minute)
    )
    return naive.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)


def _duration(m: re.Match[str], now: datetime, local_now: datetime, zone: tzinfo) -> datetime:
    n = parse_number(m.group("n")) if m.group("n") else (1 if "the" in m.group().lower() else 0)  # "within the hour"
    amount = (n or 0) + (0.5 if m.group("half") else 0.0)
    unit = m.group("unit").lower()
    if unit.startswith(("小时", "钟头", "h")):
        return (now.astimezone(UTC) + timedelta(hours=amount)).astimezone(zone)
    if unit.startswith(("分", "m")):
        return (now.astimezone(UTC) + timedelta(minutes=amount)).astimezone(zone)
    if unit.startswith(("秒", "s")):
        return (now.astimezone(UTC) + timedelta(seconds=amount)).astimezone(zone)
    days = amount * (7 if unit in ("周", "星期", "礼拜") or unit.startswith("w") else 1)
    if days != int(days):  # "半天": half a day is elapsed time, like hours
        return (now.astimezone(UTC) + timedelta(days=days)).astimezone(zone)
    return _local(local_now.date() + timedelta(days=int(days)), _EOD, zone)


_REL_DAYS: dict[str, tuple[int, str | None]] = {
    "今天": (0, None), "今日": (0, None), "当天": (0, None), "今早": (0, "morning"), "今晚": (0, "evening"),
    "明天": (1, None), "明日": (1, None), "明早": (1, "morning"), "明晚": (1, "evening"), "后天": (2, None),
    "大后天": (3, None), "today": (0, None), "tonight": (0, "evening"), "tomorrow": (1, None),
    "tmrw": (1, None), "tmr": (1, None), "tonite": (0, "evening"), "2nite": (0, "evening"),
    "the day after tomorrow": (2, None),
}  # fmt: skip


def _day(m: re.Match[str], local_now: datetime) -> tuple[date | None, str | None]:
    """The date a day expression names, and the part of day it implies ("今晚" → evening)."""
    g = m.groupdict()
    today = local_now.date()
    if g.get("rel"):
        offset, part = _REL_DAYS[" ".join(g["rel"].lower().split())]
        return today + timedelta(days=offset), part
    if lunar := g.get("lunar"):
        return _festival_day(lunar, g.get("lday") or g.get("lday2") or "", today), None
    if hol := (g.get("hol") or g.get("hol_en") or "").lower():
        if hol.startswith("new"):
            month, day = (12, 31) if hol.endswith("eve") else (1, 1)
        else:
            month, day = _HOLIDAYS[hol[:2]]
            day -= hol.endswith("eve") and hol.startswith("ch")
        return _calendar_date({"m": str(month), "d": str(day)}, today), None
    if g.get("wd") or g.get("wdn"):
        wd = _WEEKDAY_ZH[g["wd"]] if g.get("wd") else _weekday(g["wdn"])
        mod = "next" if g.get("nextweek") else (g.get("mod") or "").lower()
        if mod.startswith(("下", "next", "the")):
            weeks = 2 if mod.startswith("下下") else 1
            return today - timedelta(days=today.weekday()) + timedelta(days=7 * weeks + wd), None
        return today + timedelta(days=(wd - today.weekday()) % 7), None
    if g.get("period"):
        return _period(" ".join(g["period"].lower().split()), today), None
    if g.get("wkd"):  # "the weekend of the 19th": the Sunday ending it
        found = _calendar_date({"d": g["wkd"]}, today)
        return (found + timedelta(days=6 - found.weekday()) if found is not None else None), None
    return _calendar_date(g, today), None


def _festival_day(word: str, lunar_day: str, today: date) -> date | None:
    """The date of a day of the Spring Festival said near it (60 days before to 20 after): 初N and 正月N are
    the festival's day N, 除夕 the day before it, 元宵 its 15th; None far from one (初六 of another month)."""
    if word.startswith(("除夕", "大年三十")):
        offset = -1
    elif word.startswith("元宵"):
        offset = 14
    elif word.startswith("春节"):
        offset = 0
    else:
        n = parse_number(lunar_day)
        if n is None:
            return None
        offset = n - 1
    for year in (today.year, today.year + 1):
        if year in _SPRING_FESTIVAL:
            first = date(year, *_SPRING_FESTIVAL[year])
            if first - timedelta(days=60) <= today <= first + timedelta(days=20):
                return first + timedelta(days=offset)
    return None


def _weekday(word: str) -> int:
    word = word.lower().rstrip(".")
    return _WEEKDAYS_EN.index(word) if word in _WEEKDAYS_EN else _WEEKDAY_ABBR[word]


def _period(p: str, today: date) -> date:
    nxt = p.startswith("下") or "next" in p
    if "月" in p or p.endswith("month") or p == "eom":
        year, month = (
            (today.year + (today.month == 12), today.month % 12 + 1) if nxt else (today.year, today.month)
        )
        if p.endswith(("月中", "月初")):  # the 15th, the 5th; this month's when still ahead, else next month's
            found = date(year, month, 15 if p.endswith("中") else 5)
            if found < today:
                year, month = today.year + (today.month == 12), today.month % 12 + 1
                found = date(year, month, found.day)
            return found
        return date(year, month, calendar.monthrange(year, month)[1])
    if "年" in p or p.endswith("year"):
        return date(today.year, 12, 31)
    if p.startswith("before"):  # "before the weekend": Friday
        friday = today + timedelta(days=4 - today.weekday() + (7 if nxt else 0))
        return friday if friday >= today else friday + timedelta(days=7)
    if "周" in p or "星期" in p or p.endswith(("week", "weekend", "wknd")) or p == "eow":
        return today + timedelta(days=6 - today.weekday() + (7 if nxt else 0))
    return today  # end of day, EOD, close of business


def _calendar_date(g: dict[str, str | None], today: date) -> date | None:
    day = parse_number(g["d"] or "")
    if g.get("mrel"):  # "下个月15号", "这个月20号"
        later = (g["mrel"] or "").startswith("下")
        year, month_of = (today.year + (today.month == 12), today.month % 12 + 1) if later else (today.year, today.month)
        try:
            return date(year, month_of, day) if day is not None else None
        except ValueError:
            return None
    if g.get("mon"):
        month: int | None = _MONTHS[(g["mon"] or "").lower()]
    elif g.get("m"):
        month = parse_number(g["m"] or "")
    else:
        month = None
    if day is None:
        return None
    try:
        if month is None:  # "5号": this month, or next month when it has passed
            found = date(today.year, today.month, day)
            if found < today:
                y, mo = today.year + (today.month == 12), today.month % 12 + 1
                found = date(y, mo, day)
            return found
        if g.get("y"):
            return date(int(g["y"] or 0), month, day)
        found = date(today.year, month, day)
        return found if found >= today else date(today.year + 1, month, day)
    except ValueError:
        return None


def _clock(m: re.Match[str], day_part: str | None) -> tuple[int, int] | None:
    """(hour, minute) of a time-of-day expression; a part of day without an hour gives its end."""
    g = m.groupdict()
    if g.get("kw"):
        return (24, 0) if g["kw"].lower() == "midnight" else (12, 0)
    part = _PARTS.get((g.get("part") or "").lower()) or day_part
    if not g.get("h"):
        return (_PART_END[part], 0) if part else None
    hour = parse_number(g["h"] or "")
    if hour is None or hour > 24:
        return None
    minute = 30 if g.get("half") else 0
    if g.get("quarter"):
        minute = 15 if g["quarter"] == "一刻" else 45
    elif g.get("mi"):
        minute = parse_number(g["mi"] or "") or 0
    ampm = (g.get("ampm") or "").lower()
    hour = _adjust_hour(hour, ampm, part)
    return (hour, minute) if minute < 60 else None


_HOUR_RULES: dict[str, Callable[[int], int]] = {
    "p": lambda h: h + 12 if h < 12 else h,
    "a": lambda h: 0 if h == 12 else h,
    "noon": lambda h: h + 12 if h < 6 else h,
    "pm-part": lambda h: 24 if h == 12 else (h + 12 if h < 12 else h),
    "bare": lambda h: h + 12 if 1 <= h <= 7 else h,  # working hours: "3点" at work means 15:00
}


def _adjust_hour(hour: int, ampm: str, part: str | None) -> int:
    if ampm:
        return _HOUR_RULES[ampm](hour)
    if part in _PM_PARTS:
        return _HOUR_RULES["pm-part"](hour)
    if part == "noon":
        return _HOUR_RULES["noon"](hour)
    if part is not None:
        return hour
    return _HOUR_RULES["bare"](hour)


# --- a deadline moved by a span -------------------------------------------------------------------

_UNIT_EN = r"(?P<unit>days?|weeks?|hours?)\b"
_UNIT_ZH = r"个?(?P<unit>天|日|周|星期|礼拜|小时|钟头)"
#: "push it back a week", "slide the payout by two days", "two days later", "another 48 hours", "bring it forward a
#: day", "往后挪两天", "推迟一周", "再给我两天", "提前一天", "早一天": the span a deadline moves by (earlier ones marked).
_SHIFTS = [
    re.compile(rf"\b(?:push|move|shift|bump|slide|slip|delay|put\s+off|postpone|extend|nudge)(?:s|es|ed|d|ing)?"
               rf"(?P<what>\s+[^,.;!?]{{1,40}}?)??\s+(?:back\s+|out\s+|off\s+)?(?:by\s+)?(?P<n>{NUM_EN})\s+{_UNIT_EN}"
               r"(?!\s+(?:earlier|sooner|ago|before))", _I),
    re.compile(rf"\b(?P<earlier>bring|pull|move)(?:s|ed|ing)?(?P<what>\s+[^,.;!?]{{1,40}}?)??\s+(?:forward|up)\s+(?:by\s+)?"
               rf"(?P<n>{NUM_EN})\s+{_UNIT_EN}", _I),
    re.compile(rf"\b(?P<n>{NUM_EN})\s+{_UNIT_EN}\s+(?:(?P<later>later)|(?P<earlier>earlier|sooner))\b", _I),
    re.compile(rf"\b(?:another\s+(?:(?P<n>{NUM_EN})\s+)?|(?P<n2>{NUM_EN})\s+(?:more|extra)\s+|an?\s+extra\s+){_UNIT_EN}", _I),
    re.compile(rf"(?:往后|向后)?(?:推迟|延迟|延期|顺延|推后|延后|拖后|宽限|推|挪|延|拖|缓|晚)了?\s*(?P<n>{NUM_ZH})\s*{_UNIT_ZH}"
               r"|(?:再|多)给(?:我|你|他|她)?\s*(?P<n2>[0-9０-９零〇一二两三四五六七八九十百]+)\s*个?(?P<unit2>天|日|周|星期|礼拜|小时|钟头)"),
    re.compile(rf"(?P<earlier>提前|提早|往前(?:挪|提|推)?|早)了?\s*(?P<n>{NUM_ZH})\s*{_UNIT_ZH}"),
    # "the $150 needs a week more", "two days more"
    re.compile(rf"\b(?:(?P<n>{NUM_EN})|an?)\s+{_UNIT_EN}\s+more\b", _I),
]

_BARE_SHIFTS = (_SHIFTS[2], _SHIFTS[3], _SHIFTS[6])


@dataclass(frozen=True, slots=True)
class Shift:
    """A deadline moved by a span: where the words are, how far (negative: earlier), and what it names ("" if
    nothing: "push the walk-through back a week" names "the walk-through")."""

    start: int
    end: int
    by: timedelta
    what: str = ""
    #: Said with a verb of moving ("push it back a week", "往后挪两天"), not bare ("two days later"): a bare span
    #: moves a deadline only when it is all a line says.
    verbal: bool = True


def find_shift(text: str) -> Shift | None:
    """The first span ``text`` moves a deadline by ("can we push it back a week?", "分轨往后挪两天"), or None."""
    found = [(m.start(), i, m) for i, pattern in enumerate(_SHIFTS) for m in pattern.finditer(text)]
    for _, _, m in sorted(found, key=lambda x: (x[0], x[1])):
        g = m.groupdict()
        raw = g.get("n") or g.get("n2")
        n = parse_number(raw) if raw else 1  # "another week"
        unit = (g.get("unit") or g.get("unit2") or "").lower()
        if not n:
            continue
        if unit.startswith(("小时", "钟头", "h")):
            by = timedelta(hours=n)
        else:
            by = timedelta(days=n * (7 if unit in ("周", "星期", "礼拜") or unit.startswith("w") else 1))
        what = (g.get("what") or "").strip()
        return Shift(m.start(), m.end(), -by if g.get("earlier") else by,
                     "" if re.fullmatch(r"(?:it|that|this|them|mine)", what, _I) else what, verbal=m.re not in _BARE_SHIFTS)
    return None


def shifted(due: datetime, by: timedelta, zone: str | tzinfo) -> datetime:
    """``due`` moved by ``by``: days and weeks on the wall clock of ``zone`` (the same hour across a clock
    change), hours as elapsed time."""
    if by % timedelta(days=1):
        return due + by
    local = due.astimezone(zone_of(zone))
    return _local(local.date() + by, (local.hour, local.minute), local.tzinfo or UTC)
