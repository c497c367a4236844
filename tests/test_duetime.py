"""Due-time resolution: a table of Chinese and English phrases against fixed message times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.text.duetime import (
    beside_times,
    counts_from_now,
    find_due_span,
    only_time,
    parse_number,
    resolve_due,
    turned_down,
)
from bot.text.zones import named_zone, without_clock_words

SH = "Asia/Shanghai"
NY = "America/New_York"
# Wednesday 2026-11-04 10:00 in Shanghai
WED = datetime(2026, 11, 4, 10, 0, tzinfo=ZoneInfo(SH))
SAT = datetime(2026, 11, 7, 10, 0, tzinfo=ZoneInfo(SH))
SUN = datetime(2026, 11, 8, 10, 0, tzinfo=ZoneInfo(SH))
FRI = datetime(2026, 11, 6, 10, 0, tzinfo=ZoneInfo(SH))
LATE = datetime(2026, 11, 4, 22, 30, tzinfo=ZoneInfo(SH))


def sh(day: int, hour: int, minute: int = 0, month: int = 11, year: int = 2026) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=ZoneInfo(SH))


TABLE: list[tuple[str, datetime, datetime]] = [
    # Chinese: day and time of day
    ("我明天下午三点前把草稿发给你", WED, sh(5, 15)),
    ("明天下午3点", WED, sh(5, 15)),
    ("明天3点", WED, sh(5, 15)),  # bare 1–7 o'clock is afternoon
    ("明早", WED, sh(5, 12)),
    ("今天晚上八点", WED, sh(4, 20)),
    ("下午三点前", WED, sh(4, 15)),
    ("八点前", WED, sh(5, 8)),  # already past today: tomorrow
    ("三点半", WED, sh(4, 15, 30)),
    ("15:30前", WED, sh(4, 15, 30)),
    ("今晚", WED, sh(4, 21)),
    ("今晚", LATE, sh(4, 23, 59)),
    # Chinese: weekdays and periods
    ("周五前", WED, sh(6, 23, 59)),
    # a holiday on a fixed date as the deadline: this year's, or next year's once past
    ("圣诞节前把礼物寄出", WED, sh(25, 23, 59, month=12)),
    ("万圣节之前", WED, sh(31, 23, 59, month=10, year=2027)),
    ("I'll mail the cards before Christmas Eve", WED, sh(24, 23, 59, month=12)),
    ("by New Year's", WED, sh(1, 23, 59, month=1, year=2027)),
    ("星期五之前", WED, sh(6, 23, 59)),
    ("礼拜五", WED, sh(6, 23, 59)),
    ("周五前", FRI, sh(6, 23, 59)),  # said on Friday: today
    ("周五前", SAT, sh(13, 23, 59)),  # said on Saturday: next Friday
    ("下周一", WED, sh(9, 23, 59)),
    ("下周一", SUN, sh(9, 23, 59)),  # said on Sunday: tomorrow, Monday of next week
    ("下下周三", WED, sh(18, 23, 59)),
    ("周五下午五点前", WED, sh(6, 17)),
    ("后天", WED, sh(6, 23, 59)),
    ("大后天", WED, sh(7, 23, 59)),
    ("月底前", WED, sh(30, 23, 59)),
    ("下个月底", WED, sh(31, 23, 59, month=12)),
    ("本周内", WED, sh(8, 23, 59)),
    ("12月3日", WED, sh(3, 23, 59, month=12)),
    ("十二月三号", WED, sh(3, 23, 59, month=12)),
    ("3月1日", WED, sh(1, 23, 59, month=3, year=2027)),  # already past this year
    ("5号前", WED, sh(5, 23, 59)),
    # Chinese: durations (hours and minutes elapsed, days calendar)
    ("两小时内", WED, sh(4, 12)),
    ("2小时内", WED, sh(4, 12)),
    ("两个小时之内", WED, sh(4, 12)),
    ("两分钟内", WED, sh(4, 10, 2)),
    ("十分钟内", WED, sh(4, 10, 10)),
    ("半小时内", WED, sh(4, 10, 30)),
    ("一个半小时内", WED, sh(4, 11, 30)),
    ("三天内", WED, sh(7, 23, 59)),
    ("十一分钟后", WED, sh(4, 10, 11)),
    ("我会在十秒内把材料发过来", WED, WED + timedelta(seconds=10)),
    ("三十秒钟之内", WED, WED + timedelta(seconds=30)),
    ("90秒内", WED, WED + timedelta(seconds=90)),
    # English
    ("I'll send it by Friday", WED, sh(6, 23, 59)),
    ("by Friday", SAT, sh(13, 23, 59)),
    ("by Friday", FRI, sh(6, 23, 59)),
    ("tonight", WED, sh(4, 21)),
    ("in 2 hours", WED, sh(4, 12)),
    ("in 10 minutes", WED, sh(4, 10, 10)),
    ("within two minutes", WED, sh(4, 10, 2)),
    ("in 30 seconds", WED, WED + timedelta(seconds=30)),
    ("within ten secs", WED, WED + timedelta(seconds=10)),
    ("in half an hour", WED, sh(4, 10, 30)),
    ("in an hour", WED, sh(4, 11)),
    ("tomorrow at 3pm", WED, sh(5, 15)),
    ("3 p.m. tomorrow", WED, sh(5, 15)),
    ("tomorrow", WED, sh(5, 23, 59)),
    ("tomorrow morning", WED, sh(5, 12)),
    ("next Monday", WED, sh(9, 23, 59)),
    ("next Friday", WED, sh(13, 23, 59)),
    ("this Friday", WED, sh(6, 23, 59)),
    ("by end of day", WED, sh(4, 23, 59)),
    ("by the end of the week", WED, sh(8, 23, 59)),
    ("by the end of the month", WED, sh(30, 23, 59)),
    ("by 5pm", WED, sh(4, 17)),
    ("by 9am", WED, sh(5, 9)),
    ("by noon tomorrow", WED, sh(5, 12)),
    ("on 3 Dec", WED, sh(3, 23, 59, month=12)),
    ("on December 3rd at 10:30am", WED, sh(3, 10, 30, month=12)),
    ("Friday at 5pm", WED, sh(6, 17)),
    ("in 2 days", WED, sh(6, 23, 59)),
    ("the day after tomorrow", WED, sh(6, 23, 59)),
    # issue 10: weekends, "Wednesday next week", a bare hour after at/by, day of month, lunch, night
    ("by the weekend", WED, sh(8, 23, 59)),
    ("这周末前", WED, sh(8, 23, 59)),
    ("before the weekend", WED, sh(6, 23, 59)),  # the working week's end
    ("before the weekend", SAT, sh(13, 23, 59)),
    ("by Wednesday next week", WED, sh(11, 23, 59)),
    ("by 8 tonight", WED, sh(4, 20)),
    ("tonight at 8", WED, sh(4, 20)),
    ("by the 15th", WED, sh(15, 23, 59)),
    ("by lunchtime", WED, sh(4, 12)),
    ("by Sunday night", WED, sh(8, 21)),
    ("晚上十一点前", WED, sh(4, 23)),
]


@pytest.mark.parametrize(("text", "now", "expected"), TABLE)
def test_resolves(text: str, now: datetime, expected: datetime) -> None:
    got = resolve_due(text, now, SH)
    assert got == expected, f"{text!r}: {got} != {expected}"
    assert got is not None and got.utcoffset() == timedelta(hours=8)  # returned in the tenant's zone


@pytest.mark.parametrize(
    "text",
    [
        "没有时间的句子",
        "I sent it yesterday",
        "they froze the writeups yesterday at noon",  # a time of a day gone
        "I sent it last night at 11",
        "昨天晚上8点我就发了",
        "我有一点生气",
        "快一点好吗",
        "I may 3 things",
        "两小时",
        "",
        "over 2 hours",
        "I'll be back in a second",
        # a time that starts or conditions something is not a deadline
        "no music after 11pm",
        "starting tonight",
        "from Monday on",
        "晚上十一点以后不放音乐",
        "晚上十一点后",
        "从明天起",
        "every night",
        # a holiday named but no deadline
        "put it on your christmas list",
        "圣诞快乐",
    ],
)
def test_no_due_phrase(text: str) -> None:
    assert resolve_due(text, WED, SH) is None
    assert find_due_span(text) is None


def test_dst_fall_back_wall_clock() -> None:
    # Saturday 2026-10-31 12:00 EDT; New York falls back at 02:00 on Sunday 2026-11-01.
    now = datetime(2026, 10, 31, 12, 0, tzinfo=ZoneInfo(NY))
    got = resolve_due("tomorrow at 3pm", now, NY)
    assert got is not None
    assert (got.hour, got.minute, got.day) == (15, 0, 1)
    assert got.astimezone(UTC) == datetime(2026, 11, 1, 20, 0, tzinfo=UTC)  # 15:00 EST


def test_dst_fall_back_elapsed_hours() -> None:
    # 01:30 EDT (05:30 UTC), before the repeated hour: two elapsed hours are 07:30 UTC = 02:30 EST.
    now = datetime(2026, 11, 1, 5, 30, tzinfo=UTC)
    got = resolve_due("in 2 hours", now, NY)
    assert got is not None
    assert got - now == timedelta(hours=2)
    assert (got.hour, got.minute) == (2, 30)
    assert got.utcoffset() == timedelta(hours=-5)
    zh = resolve_due("两小时内", now, NY)
    assert zh == got


def test_dst_spring_forward_gap_moves_forward() -> None:
    # 2026-03-08 02:30 does not exist in New York; it resolves past the gap, never before now.
    now = datetime(2026, 3, 7, 12, 0, tzinfo=ZoneInfo(NY))
    got = resolve_due("tomorrow at 2:30am", now, NY)
    assert got is not None
    assert got.astimezone(UTC) == datetime(2026, 3, 8, 7, 30, tzinfo=UTC)  # 03:30 EDT


def test_result_is_in_tenant_zone_for_utc_message_time() -> None:
    now = datetime(2026, 11, 4, 2, 0, tzinfo=UTC)  # 10:00 in Shanghai
    assert resolve_due("周五前", now, SH) == sh(6, 23, 59)


def test_naive_now_is_rejected() -> None:
    with pytest.raises(ValueError, match="aware"):
        resolve_due("tomorrow", datetime(2026, 11, 4, 10, 0), SH)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("我会在周五前交草稿", "在周五前"),
        ("我明天下午三点前把草稿发给你", "明天下午三点前"),
        ("I'll send the draft by Friday.", "by Friday"),
        ("I will pay you tomorrow at 3pm, promise", "tomorrow at 3pm"),
        ("两小时内回复", "两小时内"),
    ],
)
def test_find_due_span(text: str, phrase: str) -> None:
    span = find_due_span(text)
    assert span is not None
    assert text[span[0] : span[1]] == phrase


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("十", 10),
        ("十一", 11),
        ("十二", 12),
        ("二十三", 23),
        ("两", 2),
        ("12", 12),
        ("two", 2),
        ("一百", 100),
    ],
)
def test_parse_number(text: str, value: int) -> None:
    assert parse_number(text) == value


# --- times as members give them ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a time turned down yields to the one offered
        ("not wednesday, I'm on night shifts all week. next thursday morning?", sh(12, 12)),
        ("can't do thursday, work trip. wednesday night ok?", sh(4, 21)),
        ("wednesday is tight... thursday evening?", sh(5, 21)),
        ("周四不太行，这周项目赶死了。周五早上给你行不行？", sh(6, 12)),
        ("我可以做轴，不过周三前不可能，周四给你们？", sh(5, 23, 59)),
        ("今晚不行，还在公司。明天中午前给你", sh(5, 12)),
        ("碰撞bug周五搞不定，改成周六中午吧", sh(7, 12)),
        ("make that saturday not friday", sh(7, 23, 59)),
        # away then, or not happening then: the time offered instead
        ("friday I'm at a conference all day, monday morning?", sh(9, 12)),
        ("this weekend I'll be away. tuesday evening?", sh(10, 21)),
        ("thursday we're travelling, friday noon works", sh(6, 12)),
        ("the report isn't happening tonight, sorry. tomorrow noon", sh(5, 12)),
        ("周五晚上交不了了，改到周六中午吧", sh(7, 12)),
        ("周四我要出差，周五给你", sh(6, 23, 59)),
        # a part of day narrowed by the hour said after it
        ("tomorrow morning my time, before 9", sh(5, 9)),
        ("friday afternoon before 5", sh(6, 17)),
        ("tomorrow evening at 8", sh(5, 20)),  # the part says which half of the day the hour is in
        ("friday night, by 10 my time", sh(6, 22)),
        ("tomorrow night at 11", sh(5, 23)),
        ("tomorrow evening at 8pm", sh(5, 20)),
        # the only time said stays the deadline, turned down or not
        ("I can't do it before Friday", sh(6, 23, 59)),
        # abbreviations, a weekday with its date, a bare ordinal answer, a weekend named by its date
        ("by Thu 9pm", sh(5, 21)),
        ("Fri noon", sh(6, 12)),
        ("not this week — wed the 18th?", sh(18, 23, 59)),
        ("ready by next Wednesday, the 18th", sh(18, 23, 59)),  # the date decides which Wednesday
        ("yes, 17th even", sh(17, 23, 59)),
        ("the weekend of the 14th", sh(15, 23, 59)),
    ],
)
def test_times_as_members_give_them(text: str, expected: datetime) -> None:
    assert resolve_due(text, WED, SH) == expected


def test_a_line_turning_a_time_down_and_offering_another() -> None:
    assert turned_down("the deck isn't happening tonight, sorry — tomorrow noon London time") == (
        "tonight", "tomorrow noon London time")
    assert turned_down("第三稿周日晚上交不了了，字体要重新排。改到周一中午（伦敦时间）吧") == ("周日晚上", "周一中午（伦敦时间）")
    assert turned_down("I'll send it friday") is None and turned_down("I can't do it before Friday") is None


@pytest.mark.parametrize("text", ["I sat down and cried", "the 3rd time since sept", "my 2nd try", "night shifts again",
                                  "I slept badly last night", "before Noa's next night", "every evening at the dome"])
def test_words_that_only_look_like_times(text: str) -> None:
    assert resolve_due(text, WED, SH) is None


def test_a_zone_named_in_words_replaces_the_speakers() -> None:
    paris = resolve_due("I'll upload Sunday morning Paris time", WED, SH)
    assert paris == datetime(2026, 11, 8, 12, 0, tzinfo=ZoneInfo("Europe/Paris"))
    assert resolve_due("明天晚上九点前，东京时间", WED, SH) == datetime(2026, 11, 5, 21, 0, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert resolve_due("by friday noon pacific", WED, SH) == datetime(2026, 11, 6, 12, 0, tzinfo=ZoneInfo("America/Los_Angeles"))
    # "my time", "我这边" and words that only contain "time" keep the speaker's clock
    assert resolve_due("by Thu 9pm my time", WED, SH) == sh(5, 21)
    assert resolve_due("周五前，我这边时间", WED, SH) == sh(6, 23, 59)
    assert resolve_due("by Friday, last time it slipped", WED, SH) == sh(6, 23, 59)


def test_an_island_or_a_place_named_in_other_ways_is_its_clock() -> None:
    """A territory without "Island" ("Norfolk time"), a place's own clock ("on Niue's clock", "my watch in Tashkent"),
    a city's side in Chinese ("比绍那边")."""
    assert resolve_due("by 5pm Norfolk time", WED, SH) == datetime(2026, 11, 4, 17, 0, tzinfo=ZoneInfo("Pacific/Norfolk"))
    assert named_zone("when was it due on Niue's clock?") == "Pacific/Niue"
    assert named_zone("by my watch in Tashkent") == "Asia/Tashkent"
    assert named_zone("by my calendar in Havana") == "America/Havana"
    assert resolve_due("比绍那边明早九点以前发你", WED, SH) == datetime(2026, 11, 5, 9, 0, tzinfo=ZoneInfo("Africa/Bissau"))
    assert named_zone("Bob's time is up") is None and named_zone("书林那边还没回") is None
    assert named_zone("Jordan's time to pay, not mine") is None  # a member's turn, not the country's clock


def test_a_span_counts_from_now() -> None:
    assert counts_from_now("out within 48 hours") and counts_from_now("三天内")
    assert not counts_from_now("by Friday") and not counts_from_now("before 8pm") and not counts_from_now("no time here")


@pytest.mark.parametrize("text", ["by 8 on Friday", "by 8am on Friday", "by 8 on Friday morning", "before 8 on Friday"])
def test_an_hour_before_on_and_a_day_is_the_deadline_that_day(text: str) -> None:
    """ "by 8 on Friday morning": "on" names the day; only "from 8 on" starts something."""
    assert resolve_due(text, WED, SH) == sh(6, 8)
    assert resolve_due("from 8 on", WED, SH) is None


def test_a_bare_day_asked_of_someone_ends_in_their_zone() -> None:
    # asked in Shanghai "by Friday", taken on in Madrid: Friday 23:59 in Madrid
    assert resolve_due("by Friday", WED, SH, owner="Europe/Madrid") == datetime(2026, 11, 6, 23, 59, tzinfo=ZoneInfo("Europe/Madrid"))
    # a time of day stays the asker's instant
    assert resolve_due("by Friday 3pm", WED, SH, owner="Europe/Madrid") == sh(6, 15)


def test_a_nights_of_someone_yields_to_the_date_said_after_it() -> None:
    said = "yes, I'll have it in before Noa's next night — Monday the 29th, 18:00 my time"
    assert resolve_due(said, datetime(2027, 3, 24, 18, 9, tzinfo=UTC), "-05:00") == datetime.fromisoformat(
        "2027-03-29T18:00:00-05:00")


@pytest.mark.parametrize(("text", "expected"), [
    ("周五（6号）下班以后弄，晚上9点前", sh(6, 21)),  # the hour, a clause later, narrows the day
    ("I'll send it Friday after the meeting, by 8pm", sh(6, 20)),
    ("周五交，晚上10点我要加班", sh(6, 23, 59)),  # an hour that is no deadline leaves the day alone
    ("周五交，周六晚上10点前去吃饭", sh(6, 23, 59)),  # another day comes first
    ("Friday works, at 9 I have a call", sh(6, 23, 59)),
])
def test_an_hour_said_as_a_later_clause_narrows_the_day(text: str, expected: datetime) -> None:
    assert resolve_due(text, WED, SH) == expected


@pytest.mark.parametrize(("text", "now", "expected"), [
    ("初六之前发群里", sh(2, 10, month=2, year=2032), sh(16, 23, 59, month=2, year=2032)),  # 正月初一 is 11 Feb 2032
    ("正月十五前交", sh(2, 10, month=2, year=2032), sh(25, 23, 59, month=2, year=2032)),
    ("除夕那天还你", sh(20, 10, month=12, year=2031), sh(10, 23, 59, month=2, year=2032)),
    ("春节前寄出", sh(20, 10, month=1, year=2031), sh(23, 23, 59, month=1, year=2031)),
])
def test_days_of_the_spring_festival(text: str, now: datetime, expected: datetime) -> None:
    assert resolve_due(text, now, SH) == expected


@pytest.mark.parametrize("text", ["初一的学生都很吵", "初三那年我搬过家"])
def test_chu_that_is_no_spring_festival_day_names_none(text: str) -> None:
    assert resolve_due(text, sh(2, 10, month=2, year=2032), SH) is None


@pytest.mark.parametrize(("text", "tail", "inside"), [
    ("下周六之前给你回复，伦敦时间", "下周六之前给你回复", "下周六之前给你回复"),
    ("周五前发，下周才有时间", "周五前发，下周才有时间", "周五前发，下周才有时间"),  # no clock named
    ("pay half, $21, Wednesday the 3rd my time", "pay half, $21, Wednesday the 3rd", "pay half, $21, Wednesday the 3rd"),
    ("by Friday your time please", "by Friday your time please", "by Friday please"),
    ("周五前给你我这边", "周五前给你", "周五前给你"),
    # a place said right after an hour is the clock, when it is one ("Team" is none)
    ("Monday, 6pm London", "Monday, 6pm", "Monday, 6pm"),
    ("before 10am Bogotá", "before 10am", "before 10am"),
    ("by 5pm Team", "by 5pm Team", "by 5pm Team"),
])
def test_a_promise_leaves_out_the_clock_it_names(text: str, tail: str, inside: str) -> None:
    assert without_clock_words(text) == tail
    assert without_clock_words(text, inside=True) == inside


@pytest.mark.parametrize(("text", "expected", "action"), [
    ("I'll send it by EOD Friday", sh(6, 23, 59), "I'll send it"),  # the day named after "EOD" is the day
    ("reply by close of business Thursday", sh(5, 23, 59), "reply"),
    ("fix it by end of day Friday", sh(6, 23, 59), "fix it"),
    ("export the games by the end of Thursday", sh(5, 23, 59), "export the games"),
    ("post it Thursday EOD", sh(5, 23, 59), "post it"),
    ("send it by EOD", sh(4, 23, 59), "send it"),  # "EOD" alone: today
])
def test_the_end_of_a_named_day(text: str, expected: datetime, action: str) -> None:
    assert resolve_due(text, WED, SH) == expected
    span = find_due_span(text)
    assert span is not None and text[: span[0]].strip() == action and not text[span[1] :].strip()


@pytest.mark.parametrize(("text", "expected"), [
    ("I'll pull the log of my Tuesday leg and drop it here by Friday", sh(6, 23, 59)),  # the Friday, not the leg's Tuesday
    ("I'll send the Sunday games over by Thursday", sh(5, 23, 59)),
    ("the Thursday meeting notes", sh(5, 23, 59)),  # a day naming a thing, and no other: still the day
])
def test_a_day_that_names_a_thing_yields_to_a_deadline(text: str, expected: datetime) -> None:
    assert resolve_due(text, WED, SH) == expected


def test_arvo_is_the_afternoon() -> None:
    assert resolve_due("yep, I can — Friday arvo, before 4 my time", WED, SH) == sh(6, 16)
    assert resolve_due("this arvo", WED, SH) == sh(4, 18)


def test_an_hour_said_a_clause_later_leaves_the_deed_between_in_the_action() -> None:
    from bot.offline.actions import split_due

    assert split_due("明天把原始记录整理出来发群里，晚上9点前") == ("把原始记录整理出来发群里", "明天 晚上9点前")
    assert split_due("I'll send it Friday after the meeting, by 8pm") == ("I'll send it after the meeting", "Friday by 8pm")
    assert split_due("send it by Friday") == ("send it", "by Friday")


@pytest.mark.parametrize(("text", "expected"), [
    ("给我到周二，德黑兰这边夜里十点，全打包给你。", (2046, 4, 24, 22, 0)),
    ("给我到下周二，我这边中午以前，钱进你的账户。", (2046, 4, 24, 12, 0)),
])
def test_a_clock_named_between_the_day_and_its_hour_leaves_the_hour_to_the_day(text: str, expected: tuple[int, ...]) -> None:
    tehran = ZoneInfo("Asia/Tehran")
    got = resolve_due(text, datetime(2046, 4, 20, 10, 0, tzinfo=tehran), tehran)  # a Friday
    assert got is not None and got.timetuple()[:5] == expected, got


@pytest.mark.parametrize("text", ["by Tuesday", "Monday then", "ok, Saturday noon instead", "how about Friday?",
                                  "Friday noon, my time", "sorry — Wednesday's boat", "周六吧", "那就周五晚上",
                                  "抱歉，改到下周二", "下周二，晚上10点前", "Thursday 6pm London"])
def test_a_time_and_nothing_else(text: str) -> None:
    assert only_time(text)


@pytest.mark.parametrize("text", ["Friday or Monday", "by Tuesday, if the printer is back", "周六发群里",
                                  "I'll send it Friday", "the boat", "", "明天问问"])
def test_a_time_and_something_more(text: str) -> None:
    assert not only_time(text)


def test_what_an_answer_says_beside_its_times() -> None:
    assert beside_times("周五晚上8点前发群里。") == "发群里"
    assert beside_times("Friday, my time") == ""
    assert beside_times("whenever you like") is None


@pytest.mark.parametrize(("text", "expected"), [
    ("Thursday, before 8 in the evening", sh(5, 20)),
    ("by 8 in the evening", sh(4, 20)),
    ("Friday before 7 in the morning", sh(6, 7)),
    ("Friday, 9 at night", sh(6, 21)),
    ("at 3 in the afternoon tomorrow", sh(5, 15)),
    ("by seven o'clock in the evening", sh(4, 19)),
])
def test_the_part_of_day_said_after_the_hour(text: str, expected: datetime) -> None:
    assert resolve_due(text, WED, SH) == expected


def test_a_clock_said_with_whose_side_it_is_names_its_zone() -> None:
    text = "行，给我到11月6号，按你马那瓜的时间中午以前上线。"
    assert resolve_due(text, WED, SH) == datetime(2026, 11, 6, 12, 0, tzinfo=ZoneInfo("America/Managua"))


def test_a_city_by_its_usual_name_a_weekday_in_brackets_and_a_clock_said_first() -> None:
    """"Laayoune time" (CLDR says "El Aaiún"), names typed without accents, "3月20号（礼拜一）夜里十一点前" (the weekday in
    brackets between the day and its hour), "东京时间明天中午十二点之前" (the clock said before the time it is on)."""
    assert named_zone("by 10, Laayoune time") == "Africa/El_Aaiun" and named_zone("El Aaiun time") == "Africa/El_Aaiun"
    assert named_zone("Sao Paulo time") == "America/Sao_Paulo"
    assert resolve_due("11月20号（礼拜五）夜里十一点前", WED, SH) == sh(20, 23, 0)
    assert resolve_due("the 20th of November (a Friday) by 8pm", WED, SH) == sh(20, 20, 0)
    assert only_time("东京时间明天中午十二点之前。") and not only_time("有时间明天再说")
    assert resolve_due("东京时间明天中午十二点之前", WED, SH) == datetime(2026, 11, 5, 12, 0, tzinfo=ZoneInfo("Asia/Tokyo"))
