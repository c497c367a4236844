"""A deadline moved by a span rather than to a date ("can we push it back a week?", "能不能提前一天？", "two more
days?"): the span is read (``bot.text.duetime.find_shift``), the move found in the thread
(``bot.offline.reschedule``) and the promise's due time moved by it, on the owner's clock
(``bot.extraction.completions.move``). Also a weekday written beside its date ("Sat 7 Nov"): the date decides."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.extraction.candidates import Utterance
from bot.models import Message
from bot.offline.provider import OfflineProvider
from bot.offline.reschedule import moved_value, reschedules
from bot.text.duetime import find_due_span, find_shift, resolve_due, shifted
from memory.models import Kind, Scope
from tests.jobs_helpers import Start, settings

pytestmark = [pytest.mark.dated]  # fixed dates: `make any-day` runs them years ahead too

ROME = ZoneInfo("Europe/Rome")
WED = datetime(2049, 10, 20, 9, tzinfo=UTC)  # a Wednesday


@pytest.mark.parametrize(("said", "days"), [
    ("can we push it back a week?", 7), ("I need to push the arches back by two days", 2), ("two more days?", 2),
    ("give me another 48 hours", 2), ("bring the payout forward a day", -1), ("分轨能不能往后挪两天？", 2),
    ("推迟一周吧", 7), ("再给我两天", 2), ("能不能提前一天？", -1), ("晚两天交", 2),
])
def test_a_span_a_deadline_moves_by(said: str, days: int) -> None:
    shift = find_shift(said)
    assert shift is not None and shift.by == timedelta(days=days)


def test_a_span_moves_on_the_wall_clock_across_a_clock_change() -> None:
    due = datetime(2049, 10, 29, 18, 0, tzinfo=ROME)  # Friday before the clocks go back
    assert shifted(due, timedelta(days=7), ROME) == datetime(2049, 11, 5, 18, 0, tzinfo=ROME)
    assert shifted(due, timedelta(hours=48), ROME) - due == timedelta(hours=48)


@pytest.mark.parametrize(("said", "moves"), [
    ("Ana, sorry, can we push it back a week? The scanner is broken.", "push it back a week"),
    ("锣鼓经我得推迟一周，琴坏了。", "推迟一周"),
    ("ugh, scanner died. two more days?", "two more days"),
    ("they pushed the festival back a week", None),
    ("we met two days later", None),
    ("要是片方同意延期一周，我下周一前把注释补上", None),
    ("夏令时开始了。现在我比伦敦晚四个钟头，不是五个了。", None),
    ("B、续费一律提前30天，至少两个人有后台权限。", None),
    ("Bo, the mixdown needs one more week: the studio is shut until Monday.", "one more week"),
    ("Bo, three more days on the liner notes, please: the printer wants a new bleed.", "three more days"),
    ("the trip takes two more days than planned", None),
])
def test_only_the_speakers_own_move_by_a_span_is_one(said: str, moves: str | None) -> None:
    found = reschedules([Utterance("m2", "u-a", "Ana", said, WED)], [Utterance("m1", "u-b", "Bo", "hi", WED)])
    assert [m.when for m in found] == ([moves] if moves else [])


@pytest.mark.parametrize(("text", "day", "hour"), [
    ("Sat 7 Nov", "2049-11-07", "23:59"), ("by Sat, 7 Nov, 18:00", "2049-11-07", "18:00"),
    ("on Saturday, November 7", "2049-11-07", "23:59"), ("周六（11月7日）晚上8点前", "2049-11-07", "20:00"),
    ("by 20 Oct 2049", "2049-10-20", "23:59"), ("7 Nov 2049 at 6pm", "2049-11-07", "18:00"),
])
def test_a_weekday_beside_its_date_and_a_date_with_its_year(text: str, day: str, hour: str) -> None:
    due = resolve_due(text, WED, ROME)
    assert due is not None and (due.date().isoformat(), due.strftime("%H:%M")) == (day, hour)


def test_a_time_alone_after_the_speakers_own_line_completes_only_a_promise_made_there() -> None:
    said = [Utterance("m1", "u-b", "Bo", "Ana, the quote: yes. The scan, in the group folder.", WED),
            Utterance("m2", "u-b", "Bo", "Friday, before 6pm.", WED)]
    [move] = reschedules(said[1:], said[:1])
    assert (move.when, move.follows) == ("Friday, before 6pm", "m1")
    assert reschedules([Utterance("m3", "u-b", "Bo", "Friday?", WED)], said[:1]) == []


@pytest.mark.parametrize(("asked", "said", "when"), [
    ("Bo, could the €40 wait until Thursday the 12th? I'm away that week.", "Thursday the 12th, then, before 5pm on my clock.",
     "Thursday the 12th, before 5pm"),
    ("Bo, could my chapters wait until after the 24th? I'm re-recording one.", "Then the 27th. Still the whole day, my time.",
     "the 27th"),
])
def test_a_time_taken_with_then_after_a_wait_asked_for_moves_the_promise(asked: str, said: str, when: str) -> None:
    found = reschedules([Utterance("m2", "u-b", "Bo", said, WED)], [Utterance("m1", "u-a", "Ana", asked, WED)])
    assert [m.when for m in found] == [when]


@pytest.mark.parametrize(("said", "when", "what"), [
    ("小林，设计稿那件事得顺延一周：总监在外地，要他签字。还是夜里九点以前。", "顺延一周", "设计稿那件事"),
    ("小林，那80欧得改到5月6号：经费五月初才进来。", "5月6号", "80欧"),
    ("小林，合同得晚几天：原件还在路上，改成3月31号以前发。", "3月31号以前", ""),
])
def test_a_move_said_before_its_reason_after_a_colon(said: str, when: str, what: str) -> None:
    [move] = reschedules([Utterance("m2", "u-a", "阿珍", said, WED)], [Utterance("m1", "u-b", "小林", "好的", WED)])
    assert move.when == when and what in move.what


def test_a_move_whose_time_goes_on_in_the_clauses_after() -> None:
    [move] = reschedules([Utterance("m2", "u-a", "大熊", "分红还得改，改到11月10号，周三，还是晚上六点以前。这两天比索跌得太狠。", WED)],
                         [Utterance("m1", "u-b", "小满", "好的", WED)])
    assert (move.when, move.what) == ("11月10号，周三，还是晚上六点以前", "分红还得改")
    due = resolve_due(move.when, WED, ROME)
    assert due is not None and due.strftime("%Y-%m-%d %H:%M") == "2049-11-10 18:00"


def test_a_number_after_by_is_a_clock_only_when_nothing_says_otherwise() -> None:
    assert find_due_span("split it by 5 people") is None
    due = resolve_due("by 20 Oct", WED, ROME)
    assert due is not None and due.day == 20 and due.hour == 23


T = "slack:T1"
SESSION = Scope(tenant=T, session="C1:1.1")


@pytest.fixture(autouse=True)
def _on_wednesday(clock_at: Callable[[datetime], None]) -> None:
    clock_at(WED)


def _said(mid: str, user: str, name: str, text: str, minutes: int) -> Message:
    return Message(id=mid, scope=SESSION.narrow(user=user), author_name=name, text=text, ts=WED + timedelta(minutes=minutes),
                   speaker_zone="Europe/Rome")


@pytest.mark.parametrize(("lines", "due"), [
    # asked by the owner, agreed by the one owed: a week later, same hour
    ([("u-ana", "Ana", "Bo, can you send me the scan of the score by Friday 6pm?"), ("u-bo", "Bo", "Sure, Friday 6pm."),
      ("u-bo", "Bo", "Ana, sorry, can we push it back a week? The scanner is broken."), ("u-ana", "Ana", "ok fine")],
     "2049-10-29 18:00"),
    # asked by the one owed, taken by the owner: a day earlier
    ([("u-mei", "阿梅", "老贺，周五前把分轨发我可以吗？"), ("u-he", "老贺", "行，周五晚上八点前。"),
      ("u-mei", "阿梅", "老贺，能不能提前一天？我周四就要用。"), ("u-he", "老贺", "行")], "2049-10-21 20:00"),
    # a promise said over two messages, its time alone in the second
    ([("u-ana", "Ana", "Bo, I want to see the printer's quote. All of it."),
      ("u-bo", "Bo", "Ana, the quote: yes. The scan and the invoice, both in the group folder."), ("u-bo", "Bo", "Friday, before 6pm.")],
     "2049-10-22 18:00"),
    # the one owed asks for it sooner ("能不能明天就给？"), the owner says yes with the hour: no agreement, the promise moves
    ([("u-mei", "阿梅", "老贺，合同给我看看。"), ("u-he", "老贺", "阿梅，合同可以看：后天中午以前，连同发票一起发你邮箱。"),
      ("u-mei", "阿梅", "能不能明天就给？我明天下午要用。"), ("u-he", "老贺", "行，那就明天中午以前。")], "2049-10-21 12:00"),
    # the one owed asks "when?" after the yes: the time given completes the promise
    ([("u-kofi", "Kofi", "Dana, can you restore my deleted post?"), ("u-dana", "Dana", "sure"), ("u-kofi", "Kofi", "when?"),
      ("u-dana", "Dana", "Friday 6pm, my time")], "2049-10-22 18:00"),
    ([("u-wang", "小王", "小李，耳机你拿去修一下行吗？"), ("u-li", "小李", "行"), ("u-wang", "小王", "什么时候？"),
      ("u-li", "小李", "周五晚上八点前")], "2049-10-22 20:00"),
    # the owner says the thing needs a span more, the reason after a colon: a week later, same hour
    ([("u-ana", "Ana", "Bo, can you send me the scan of the score by Friday 6pm?"), ("u-bo", "Bo", "Sure, Friday 6pm."),
      ("u-bo", "Bo", "Ana, the scan needs one more week: the scanner is broken. Same hour.")], "2049-10-29 18:00"),
])
async def test_a_promise_moves_by_the_span_agreed(lines: list[tuple[str, str, str]], due: str, tmp_path: Path,
                                                  redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    for i, (user, name, text) in enumerate([*lines, ("u-x", "Xu", "brb")]):  # ten minutes apart, as a replay would
        await rt.advance_clock(WED + timedelta(minutes=10 * i))
        await rt.drain(60)
        await rt.engine.observe(_said(f"m{i}", user, name, text, 10 * i))
        await rt.drain(60)
    facts = await rt.memory.list_facts(Scope(tenant=T))
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == lines[1][0] and promise.due_at is not None, promise
    assert not [f for f in facts if f.kind is Kind.CONSENSUS], "a move let through is no agreement"
    assert promise.due_at.astimezone(ROME).strftime("%Y-%m-%d %H:%M") == due, promise.value


@pytest.mark.parametrize(("value", "when", "moved"), [
    ("一万二三个人分，一人四千，你那份从我卡上打给你", "28号礼拜二，夜里十一点以前，里斯本时间",
     "28号礼拜二，夜里十一点以前，里斯本时间，一万二三个人分，一人四千，你那份从我卡上打给你"),
    ("send the $90 to Lea", "Tuesday the 13th, then, before 6pm Lisbon time",
     "send the $90 to Lea by Tuesday the 13th before 6pm Lisbon time"),
    ("have the copy by Thursday noon", "Friday noon", "have the copy by Friday noon"),
])
def test_a_moved_promise_reads_its_new_time_as_one_phrase(value: str, when: str, moved: str) -> None:
    """The new time goes into the promise's words as a phrase of its own, with the clock it was said on (the move's
    due time is read from them), without a "then"."""
    assert moved_value(value, when) == moved
