"""Issue 20, item 5: promises that close themselves. "done", "finished", "sent it", "I've sent the
draft", "已经发了", "搞定了", "做完了" by the owner mark the matching open commitment done, through the
path of /commitments done (audit entry by the owner; the follow-up then skips it); when unsure the
owner is asked; an edited commitment text re-reads its due time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.actors import Actor
from bot.delivery.outbox import PostKind
from bot.extraction.candidates import Utterance
from bot.extraction.completions import match
from bot.extraction.triggers import urgent
from bot.models import Message
from bot.offline.done import DoneReport, done_reports
from bot.offline.provider import OfflineProvider
from memory.models import Fact, FactStatus, Kind, Scope, Source
from tests.jobs_helpers import Start, settings

pytestmark = [pytest.mark.dated, pytest.mark.usefixtures("hash_embedder")]  # fixed dates: `make any-day` runs them years ahead too

T = "slack:T1"
SCOPE = Scope(tenant=T, session="C1:100.1")
MONDAY = datetime(2026, 11, 2, 10, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _on_monday(clock_at: Callable[[datetime], None]) -> None:
    """The tests' now is the Monday their messages were said, whatever today is."""
    clock_at(MONDAY + timedelta(minutes=5))


def said(mid: str, user: str, name: str, text: str, minutes: int = 0) -> Message:
    return Message(id=mid, scope=SCOPE.narrow(user=user), author_name=name, text=text,
                   ts=MONDAY + timedelta(minutes=minutes))


@pytest.mark.parametrize(
    ("text", "what"),
    [("done", ""), ("Finished!", ""), ("sent it", ""), ("I've sent the draft", "draft"),
     ("I finished the API docs", "api docs"), ("The docs are done.", "docs"), ("已经发了", ""), ("搞定了", ""),
     ("做完了", ""), ("我已经把草稿发给你了", "草稿"),
     # a headline that says where it went or what it holds, and a thing that is up or live
     ("log submitted to CQ, 4,087 Qs after dupes", "log"), ("flats rebuilt from the raw sky flats", "flats"),
     ("errata drafted: 'In #41, 23-Down should have read CANBERRA.'", "errata"),
     ("post-mortem is up on the wiki: Overrun_2027-03-23", "post-mortem"), ("电话打了！", "电话"),
     ("裙子寄出了！EMS", "裙子"),
     # in where it was wanted, a number in the where, an emoji between the report and what follows
     ("minutes are in everyone's inbox, sorry for the delay", "minutes inbox"), ("the plugin is in 🎉 try it out", "plugin"),
     ("both panels redone at 1.5 mm and trimmed properly", "both panels"),
     # a promise said after the report is another matter
     ("分摊表发了📊 每人60新币，周日中午前转给胖虎", "分摊表📊 每人60新币"), ("sent it! I'll send the rest tomorrow", ""),
     # where a thing handed over sits names it too; a handover; more participles of making
     ("the minutes are in the shared folder now, sorry it took so long", "minutes folder"),
     ("spreadsheet is on the team drive", "spreadsheet drive"), ("here you go: the signed lease, both pages", "signed lease"),
     ("poster exported at full size", "poster"), ("cake ordered 🎂 18 slices, pickup at 4", "cake"),
     # handed to someone by name, a possessive thing, a participle and where it went
     ("corrected budget sheet is with Priya: 3 tabs, totals fixed", "corrected budget sheet"),
     ("Mona's poster is printed, framed and in the post", "mona's poster"),
     ("the date: 22 Sept. posted in #announcements and pinned", "announcements pinned"),
     # to whom it went, in Chinese
     ("小鹿，链接私信发你了。宜家的", "链接私信"), ("钱转你了", "钱"),
     # any participle of a deed, a subjectless past tense, a thing set to a state, and Chinese deeds of showing
     ("the receipts are stapled", "receipts"), ("Polished the abstract, 180 words now", "abstract"),
     ("all guest profiles are set to private now", "guest profiles"), ("报名表印好了，一共40份", "报名表"),
     ("活动账目公示了：收入3200", "活动账目：收入3200"),
     # a yes before the report is no thing sent
     ("yep sent, check paypal", ""), ("yes, the deck is uploaded", "deck")],
)
def test_reports_of_a_promise_kept(text: str, what: str) -> None:
    [report] = done_reports([Utterance("m", "u", "Ann", text, MONDAY)])
    assert report.what == what


@pytest.mark.parametrize(
    "text",
    ["not done yet", "I haven't sent it", "done?", "Once I'm done I'll call you", "I'm done with you", "还没发",
     "发了吗？", "I'll send it tomorrow", "我明天发", "他已经发了", "please log in", "the shop is out of stock",
     "the printer jammed", "the log is due to CQ tomorrow", "my cat is on the board again lol", "is the file in the drive",
     "the problem is in the drive?", "the problem is with the server", "I'm with you on that", "发烧了",
     "你发火了",
     # a setback or a feeling said as a participle is no deed done
     "the flight is delayed again", "the parcel is stuck at customs", "the form is buried under 300 emails",
     "I am so worried about it", "the meeting is postponed to Friday"],
)
def test_not_reports(text: str) -> None:
    assert done_reports([Utterance("m", "u", "Ann", text, MONDAY)]) == []


def _promise(fid: str, value: str, session: str = "C1:100.1") -> Fact:
    return Fact(id=fid, tenant=T, session=session, kind=Kind.COMMITMENT, subject="u-ann", attribute=value,
                value=value, asserted_by="u-ann", sources=(Source(message_id=fid, author_id="u-ann", ts=MONDAY,
                                                                   quote=value),))


def _report(what: str, verb: str) -> DoneReport:
    return DoneReport("r", "u-ann", "Ann", MONDAY + timedelta(hours=1), "…", what, verb)


def test_matching_a_report_to_the_promise() -> None:
    draft, rent = _promise("c1", "send the draft by Friday"), _promise("c2", "pay the rent by Monday")
    assert match(_report("draft", "sent"), [draft, rent], "C1:100.1") == (draft, [])
    assert match(_report("", "done"), [draft], "C1:100.1") == (draft, [])  # the only one open
    assert match(_report("", "sent"), [draft, rent], "C1:100.1") == (draft, [])  # the only one with that verb
    assert match(_report("", "done"), [draft, rent], "C1:100.1") == (None, [draft, rent])  # ask
    assert match(_report("invoice", "sent"), [draft, rent], "C1:100.1") == (None, [draft, rent])  # ask
    other = _promise("c3", "send the draft slides", session="C9")
    assert match(_report("draft", "sent"), [draft, other], "C1:100.1") == (draft, [])  # this thread's first
    bob = draft.model_copy(update={"subject": "u-bob"})
    assert match(_report("draft", "sent"), [bob], "C1:100.1") == (None, [])  # not the speaker's promise
    # a promise with a pronoun for its object is named by its verb alone: "Rang the venue" — no; "Called the
    # printer at 10" closes "call them tomorrow at 10", never "pay the rent"
    call = _promise("c4", "call them tomorrow at 10 and get it in writing")
    assert match(_report("printer", "called"), [call, rent], "C1:100.1") == (call, [])
    assert match(_report("printer", "rang"), [call, rent], "C1:100.1") == (None, [call, rent])
    assert match(_report("invoice", "sent"), [draft, rent], "C1:100.1") == (None, [draft, rent])  # still asks


def test_the_people_of_a_promise_are_no_deed_a_report_names() -> None:
    """"小梅，邮箱里：合同扫描件…" names the contract, not the money promise whose words name 小梅 too."""
    contract = _promise("c1", "合同给你：扫描件，礼拜六中午以前发你邮箱").model_copy(update={"recipient_name": "小梅"})
    money = _promise("c2", "九千按篇数分，小梅四十篇，四千").model_copy(update={"recipient_name": "小梅"})
    assert match(_report("小梅，邮箱里：合同扫描件，八页", ""), [contract, money], "C1:100.1") == (contract, [])
    assert match(_report("小梅，邮箱里：照片八张", ""), [money], "C1:100.1")[0] is None


def test_reports_go_to_extraction_at_once() -> None:
    assert urgent(said("m", "u-ann", "Ann", "I've sent the draft"))
    assert urgent(said("m", "u-ann", "Ann", "搞定了"))


async def test_done_closes_the_promise_through_the_commitments_done_path(tmp_path: Path, redis_url: str,
                                                                        start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(said("m1", "u-ann", "Ann", "I'll send you the API docs by Friday."))
    await rt.engine.observe(said("m2", "u-bob", "Bob", "I'll pay the rent by Monday.", 1))
    await rt.drain(60)
    docs = next(f for f in await rt.memory.open_commitments(Scope(tenant=T)) if f.subject == "u-ann")
    await rt.engine.observe(said("m3", "u-bob", "Bob", "I finished the API docs", 2))  # not Bob's promise
    await rt.engine.observe(said("m4", "u-ann", "Ann", "I finished the API docs", 3))
    await rt.drain(60)
    closed = await rt.memory.get(Scope(tenant=T), docs.id)
    assert closed is not None and closed.status is FactStatus.DONE
    rent = next(f for f in await rt.memory.open_commitments(Scope(tenant=T)))
    assert rent.subject == "u-bob"  # Bob's report named nothing of his: his promise stays open
    [entry] = [e for e in await rt.audit.entries(T, target=docs.id) if e.action == "commitment.done"]
    assert entry.actor_id == "u-ann" and "finished the API docs" in entry.reason
    # the reminder job skips a done promise (a post already queued is withdrawn by the status write's hook)
    from jobs.tasks import send_reminder
    assert await send_reminder({"heyan": rt.services}, T, docs.id, closed.version) == "skipped: done"


async def test_an_unsure_report_asks_the_owner(tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(said("m1", "u-li", "李娜", "我周五前把草稿发给你。"))
    await rt.engine.observe(said("m2", "u-li", "李娜", "我明天把押金退给你。", 1))
    await rt.drain(60)
    await rt.engine.observe(said("m3", "u-li", "李娜", "搞定了", 2))
    await rt.drain(60)
    assert len(await rt.memory.open_commitments(Scope(tenant=T))) == 2  # both stay open
    asked = await rt.outbox.get(f"confirm-done:{T}:m3")
    assert asked is not None and asked.post.kind is PostKind.NOTICE and asked.post.lang == "zh"
    text = asked.post.body.plain()
    assert "草稿" in text and "押金" in text and "/commitments" in text and asked.post.body.mentions == ("u-li",)


async def test_an_edited_promise_reads_its_due_time_again(tmp_path: Path, redis_url: str,
                                                          start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(said("m1", "u-ann", "Ann", "I'll send the draft by Friday."))
    await rt.drain(60)
    [draft] = await rt.memory.open_commitments(Scope(tenant=T))
    assert draft.due_at is not None and draft.due_at.weekday() == 4
    edited = await rt.moderation.memory_edit(Actor.operator(T), draft.id, "send the draft by Wednesday")
    assert edited.due_at is not None and edited.due_at.weekday() == 2 and edited.due_at.date().day == 4
    ann = Actor(tenant=T, user_id="u-ann", name="Ann")
    corrected = await rt.moderation.correct(ann, draft.id, "send the draft by tomorrow 5pm")
    assert corrected.due_at == datetime(2026, 11, 3, 17, 0, tzinfo=UTC)  # read from when it was said
    untimed = await rt.moderation.memory_edit(Actor.operator(T), draft.id, "send the draft")
    assert untimed.due_at is None  # the deadline words are gone
