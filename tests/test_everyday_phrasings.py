"""Everyday ways of saying a promise, a time or a question that no dispute corpus was written with: a verbless
"45 to your paypal before the weekend", the present said for the future ("I send it tomorrow"), a task taken on
whole ("下两周的值日我全包"), a time given when the one owed asks "when?", a condition whose topic comes first
("场地押金要是退回来，…"), a time that names the thing ("saturday's session"), and a question about what a member
said asked in words of advice ("老陈说押金怎么处理？")."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.extraction.candidates import Utterance
from bot.offline.actions import split_due
from bot.offline.acts import condition_of
from bot.offline.questions import Ask, read_question
from bot.offline.reschedule import reschedules
from bot.offline.templates import _promised
from memory.models import Kind
from tests.test_offline_acts import _facts

pytestmark = pytest.mark.usefixtures("hash_embedder")
T0 = datetime(2071, 6, 3, 9, tzinfo=UTC)
BERLIN = ZoneInfo("Europe/Berlin")  # the zone tests.test_offline_acts._facts speaks in


@pytest.mark.parametrize(("said", "words"), [
    ("45 to your paypal before the weekend", "45 to your paypal"),
    ("ok, €30 back to you by Friday", "€30 back to you"),
    ("the scans to your inbox tomorrow morning", "scans to your inbox"),
    ("I send it tomorrow", "send it"),
    ("we pay you friday, promise", "pay you"),
])
async def test_a_promise_without_will_or_a_verb_is_the_speakers_commitment_with_its_time(said: str, words: str) -> None:
    facts = await _facts([("Maya", "the repair shop says 45 euro"), ("Jon", said)])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Jon" and words in promise.value and promise.due_at is not None
    assert not [f for f in facts if f.kind is Kind.CONSENSUS]


@pytest.mark.parametrize("said", [
    "I clean on Tuesdays", "I pay rent every month", "45 to your paypal instead of the 1st", "the scans to your inbox",
])
async def test_a_habit_a_move_or_a_thing_without_a_time_is_no_new_promise(said: str) -> None:
    facts = await _facts([("Maya", "the repair shop says 45 euro"), ("Jon", said)])
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


@pytest.mark.parametrize(("said", "words"), [
    ("下两周的值日我全包", "值日"), ("我知道，下两周的值日都归我", "值日"), ("这摊事我负责", "这摊事"),
])
async def test_a_task_taken_on_whole_in_chinese_is_a_commitment(said: str, words: str) -> None:
    facts = await _facts([("阿珍", "阿峰这个月已经三次没来值日了，碗也没洗"), ("阿峰", said)], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-阿峰" and words in promise.value


@pytest.mark.parametrize("said", ["这包括我在内", "归我们大家管的事别推给一个人"])
async def test_words_that_only_look_like_taking_a_task_on_are_not(said: str) -> None:
    facts = await _facts([("阿珍", "阿峰这个月已经三次没来值日了"), ("阿峰", said)], "zh")
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


def _u(mid: str, who: str, text: str) -> Utterance:
    return Utterance(mid, f"u-{who}", who, text, T0)


@pytest.mark.parametrize(("asked", "when"), [
    ("when?", "tonight"), ("ok, by when?", "Friday noon"), ("什么时候？", "下周五之前"), ("那几号能好？", "15号"),
])
def test_a_time_given_when_the_one_owed_asks_when_completes_the_promise(asked: str, when: str) -> None:
    thread = [_u("m1", "Kofi", "can you restore my post?"), _u("m2", "Dana", "sure"), _u("m3", "Kofi", asked)]
    [move] = reschedules([_u("m4", "Dana", f"{when}, my time" if when[0].isascii() else when)], thread)
    assert (move.when, move.follows) == (when, "m2")


def test_a_time_after_when_is_asked_of_someone_who_promised_nothing_there_moves_nothing() -> None:
    thread = [_u("m1", "Kofi", "the meetup is on"), _u("m2", "Ines", "cool"), _u("m3", "Kofi", "when?")]
    assert reschedules([_u("m4", "Dana", "tonight")], thread) == []
    thread = [_u("m1", "Kofi", "can you restore my post?"), _u("m2", "Dana", "sure"), _u("m3", "Kofi", "why?")]
    assert reschedules([_u("m4", "Dana", "tonight")], thread) == []


@pytest.mark.parametrize(("text", "condition", "rest"), [
    ("场地押金要是退回来，每人两百我转回去", "场地押金要是退回来", "每人两百我转回去"),
    ("大刘，要是房东同意，我就换", "要是房东同意", "换"),
    ("如果房东同意，我就换", "如果房东同意", "换"),
])
def test_a_chinese_condition_keeps_the_topic_said_before_its_cue(text: str, condition: str, rest: str) -> None:
    assert condition_of(text) == (condition, rest)


def test_a_time_that_names_the_thing_stays_in_the_action() -> None:
    assert split_due("bring the spare controller to saturday's session") == ("bring the spare controller to saturday's session", "")
    assert split_due("send the notes from tuesday's call by friday") == ("send the notes from tuesday's call", "by friday")


@pytest.mark.parametrize(("action", "shown"), [
    ("send the scan", "to send the scan"),
    ("everyone gets their 20 back from me", "that everyone gets their 20 back from them"),
    ("it goes in the post to you", "that it goes in the post to you"),
    ("€900 by Monday", "€900 by Monday"),
])
def test_what_a_promise_says_reads_after_promised(action: str, shown: str) -> None:
    assert _promised(action) == shown


@pytest.mark.parametrize(("text", "ask"), [
    ("老陈说押金怎么处理？", Ask.SAID), ("老陈当时讲押金怎么办？", Ask.SAID), ("Leo said the deposit goes where?", Ask.PROMISES),
    ("你说怎么办？", None), ("老陈，押金怎么处理？", None),
])
def test_what_a_member_said_is_asked_even_in_words_of_advice(text: str, ask: Ask | None) -> None:
    question = read_question(text, "u-me", {"u-chen": ["老陈"], "u-leo": ["Leo"]})
    assert (question.ask if question is not None else None) is ask


@pytest.mark.parametrize(("lines", "owner", "words"), [
    # the thing asked for, a colon, a time: taken on at that time, lines after the request, other talk between
    ([("Kasia", "evening all"), ("Noor", "Thanks Ivo. And Kasia: I'd like the club's bank statement for May. Can you upload it to the drive?"),
      ("Ivo", "fwiw the bank closes early on the 2nd"), ("Lena", "the printer's fixed btw"),
      ("Kasia", "The bank statement: Thursday, before 6pm my time. The bank's app only works on my work laptop.")],
     "u-Kasia", "bank statement"),
    ([("老周", "小敏，上次会议的录音你那里有吧？把录音发群里给大家听听？"), ("阿凯", "我那天没去"),
      ("小敏", "会议录音：明天中午以前，连同会议纪要一起发群里。")], "u-小敏", "录音"),
])
async def test_a_thing_and_a_time_answer_a_request_put_lines_before(lines: list[tuple[str, str]], owner: str, words: str) -> None:
    facts = await _facts(lines, "zh" if not lines[0][1][0].isascii() else "en")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == owner and words in promise.value and promise.due_at is not None, promise


async def test_a_third_members_remark_after_a_request_put_to_someone_else_by_name_takes_nothing_on() -> None:
    facts = await _facts([("Kasia", "back from the bank"), ("Ivo", "hi all"),
                          ("Noor", "Thanks Ivo. And Kasia: can you upload the May bank statement to the drive?"),
                          ("Lena", "fwiw the bank app says the 3rd")])
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


@pytest.mark.parametrize("said", [
    "Two things. 1) the bus was late again. 2) Mira, about your leaking hood: my spare one fits you, and it's posted to you "
    "before the 30th of October.",
    "Mira, your cracked lens cap: my spare one is still in its box, and it goes to you with the next parcel, before the 21st.",
])
async def test_a_thing_said_as_it_that_reaches_the_listener_keeps_the_words_that_name_it(said: str) -> None:
    facts = await _facts([("Mira", "my hood leaks and my lens cap cracked"), ("Ana", said)])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Ana" and promise.recipient == "u-Mira" and "spare" in promise.value, promise
    assert promise.due_at is not None


async def test_a_line_about_some_bots_dashboard_is_not_said_to_heyan() -> None:
    facts = await _facts([("Dmitri", "Aigerim, can you pull the reminder bot's log for the last three Wednesdays?"),
                          ("Aigerim", "The reminder log: tomorrow, before noon. The bot's dashboard only opens on my laptop.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Aigerim" and "log" in promise.value and promise.due_at is not None


@pytest.mark.parametrize(("lang", "lines", "words", "hour"), [
    ("en", [("Noor", "Ivo, can you send your €80 for the cabin today?"),
            ("Ivo", "All of it today, no, I'm broke till payday. Half, €40, by the 30th before 8pm my time.")], "€40", "20:00"),
    ("en", [("Noor", "Ivo, I want the lens repair paid, today. The shop quoted 70 euros."),
            ("Ivo", "Today, no, and not all 70 for a lens I never dropped. Half of the repair, 35 euros, by Friday before 6pm.")],
     "35 euros", "18:00"),
    ("zh", [("小王", "阿杰，你那份两百的房费今天能转我吗？"), ("阿杰", "今天不行，工资还没发。一半，一百块，周五晚上八点前。")], "一百块", "20:00"),
])
async def test_a_no_then_a_sum_by_a_time_counters_the_request_with_that_sum(
        lang: str, lines: list[tuple[str, str]], words: str, hour: str) -> None:
    facts = await _facts(lines, lang)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    owner, asker = f"u-{lines[1][0]}", f"u-{lines[0][0]}"
    assert promise.subject == owner and promise.recipient == asker and words in promise.value, promise
    assert promise.due_at is not None and promise.due_at.astimezone(BERLIN).strftime("%H:%M") == hour


@pytest.mark.parametrize(("before", "said", "when", "what"), [
    (("Ana", "thanks!"), ("Val", "Ana, the invoice has to wait till Saturday, same hour. The shop still hasn't sent it."),
     "Saturday", "the invoice"),
    (("Ana", "ok"), ("Tariq", "Ana, the $60 needs a week more, same time of day. Payday is on the 5th."), "a week more", "the $60"),
    (("Ana", "Tariq, take another three days if it helps, no rush."), ("Tariq", "Appreciated. Friday the 9th then, before 6pm my time."),
     "Friday the 9th, before 6pm", ""),
])
def test_a_promise_put_off_in_everyday_words_is_a_move(before: tuple[str, str], said: tuple[str, str], when: str, what: str) -> None:
    [move] = reschedules([_u("m2", *said)], [_u("m1", *before)])
    assert (move.when, move.what) == (when, what)


@pytest.mark.parametrize(("lines", "words", "condition"), [
    # "it" is the thing the question just before names
    ([("Lina", "also who's running saturday's raid? last time nobody showed"), ("Kai", "I'll run it if Ben takes the healer spot")],
     "saturday's raid", "if Ben takes the healer spot"),
    ([("Ben", "btw can someone update the loot rules doc? it still says the old split"), ("Kai", "on it, by tomorrow night")],
     "the loot rules doc", ""),
    # a deed of one verb and a time answers what the line before, said to the speaker, names
    ([("Lina", "@Kai the server rent is due Friday and you still haven't sent your share"), ("Kai", "my bad!! sending tonight")],
     "the server rent", ""),
])
async def test_a_promise_of_it_or_of_a_bare_verb_names_the_thing_just_asked_about(
        lines: list[tuple[str, str]], words: str, condition: str) -> None:
    facts = await _facts(lines)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Kai" and words in promise.value and promise.condition == condition, promise
    assert condition not in promise.value or not condition


async def test_a_bare_verb_after_a_line_not_said_to_the_speaker_stays_as_said() -> None:
    facts = await _facts([("Lina", "the bus was late again, the driver's phone died"), ("Kai", "sending tonight")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.value == "send tonight"
