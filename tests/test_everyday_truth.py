"""Memory truth on everyday phrasing (issues 20 and 22): the promised action as a card shows it, reports
of a promise kept in passive / topic-first form, and answers to a proposal that restate it. The corpus
figures are in docs/BENCHMARKS.md ("Everyday truth"); these are the review's own cases."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.models import Message
from bot.offline.actions import promised_action
from bot.offline.provider import OfflineProvider
from bot.offline.rules import extract_rules
from memory.models import Fact, FactStatus, Kind, Scope
from tests.jobs_helpers import Start, settings

pytestmark = [pytest.mark.dated, pytest.mark.usefixtures("hash_embedder")]  # fixed dates: `make any-day` runs them years ahead too

T0 = datetime(2026, 11, 4, 10, tzinfo=UTC)  # a Wednesday


def facts(lines: list[tuple[str, str, str]], lang: str = "en") -> list[Fact]:
    """The facts of the last line, the lines before it as what it answers."""
    turns = [Utterance(f"m{i}", uid, name, text, T0 + timedelta(minutes=i)) for i, (uid, name, text) in enumerate(lines)]
    request = ExtractionRequest("t", "s", turns[-1:], turns[:-1], lang, "UTC")  # type: ignore[arg-type]
    return to_facts(request, extract_rules(request), now=T0)


@pytest.mark.parametrize(
    ("text", "action"),
    [("水管我来修，搞定", "修水管"), ("这个bug我来修", "修这个bug"), ("I'll take care of the invoices", "take care of the invoices"),
     ("打印机我去修", "修打印机"), ("钥匙我去配", "配钥匙"), ("电费我来交，放心", "交电费"), ("发票我来开", "开发票"),
     ("这事我来跟房东说", "跟房东说"), ("钥匙我来配，明天给你们", "配钥匙，给你们")],
)
def test_the_promised_action_reads_as_a_card_item(text: str, action: str) -> None:
    [promise] = facts([("u-li", "李娜", text)], "zh" if "我" in text else "en")
    assert promise.kind is Kind.COMMITMENT and promise.subject == "u-li"
    assert promised_action(promise.value) == action


@pytest.mark.parametrize("text", ["会员费我月底之前续上", "照片我周三前扫描完", "字幕我明天中午前校对完"])
def test_an_object_first_deed_with_a_deadline_is_a_promise_whatever_its_verb(text: str) -> None:
    """No verb list holds 续/扫描/校对; the deadline after 我 says a deed follows."""
    [promise] = facts([("u-li", "李娜", text)], "zh")
    assert promise.kind is Kind.COMMITMENT and promise.due_at is not None and text[:2] in promise.value


@pytest.mark.parametrize("text", ["我周五前很忙", "我周五之前都在上课", "我月底前一直没空"])
def test_how_one_is_until_a_deadline_is_no_promise(text: str) -> None:
    assert [f for f in facts([("u-li", "李娜", text)], "zh") if f.kind is Kind.COMMITMENT] == [], text


# --- end to end: the engine, the offline provider, the extraction job and its completion step ----------

T = "slack:T1"
SESSION = Scope(tenant=T, session="C1:200.1")
MONDAY = datetime(2026, 11, 2, 10, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _on_monday(clock_at: Callable[[datetime], None]) -> None:
    """The tests' now is the Monday their messages were said, whatever today is."""
    clock_at(MONDAY + timedelta(minutes=5))


def said(mid: str, user: str, name: str, text: str, minutes: int = 0) -> Message:
    return Message(id=mid, scope=SESSION.narrow(user=user), author_name=name, text=text,
                   ts=MONDAY + timedelta(minutes=minutes))


async def _open(rt: Any) -> dict[str, Fact]:
    return {f.sources[0].message_id: f for f in await rt.memory.open_commitments(Scope(tenant=T))}


async def test_reports_in_everyday_form_close_the_promise_they_name(tmp_path: Path, redis_url: str,
                                                                    start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(said("p1", "u-wf", "王芳", "我周五前把轮值表发出来"))
    await rt.engine.observe(said("p2", "u-ann", "Ann", "I'll set up the shared calendar by Monday", 1))
    await rt.engine.observe(said("p3", "u-ann", "Ann", "I'll merge the PR tonight", 2))
    await rt.engine.observe(said("k0", "u-kim", "Kim", "Bob, where are the slides?", 2))
    await rt.engine.observe(said("p4", "u-bob", "Bob", "Kim, I'll send you the slides by Friday", 3))
    await rt.drain(60)
    assert set(await _open(rt)) == {"p1", "p2", "p3", "p4"}
    # negated, future, question, someone unnamed: nothing closes
    await rt.engine.observe(said("n1", "u-wf", "王芳", "轮值表还没发", 4))
    await rt.engine.observe(said("n2", "u-bob", "Bob", "is the calendar set up?", 5))
    await rt.engine.observe(said("n3", "u-ann", "Ann", "I'll send it later", 6))
    await rt.engine.observe(said("n4", "u-kim", "Kim", "he sent it", 7))
    await rt.drain(60)
    assert {"p1", "p2", "p3", "p4"} <= set(await _open(rt))
    await rt.engine.observe(said("d1", "u-wf", "王芳", "轮值表已经发了", 8))
    await rt.engine.observe(said("d2", "u-ann", "Ann", "Calendar is set up, done.", 9))
    await rt.drain(60)
    still = await _open(rt)
    assert "p1" not in still and "p2" not in still and {"p3", "p4"} <= set(still)
    await rt.engine.observe(said("d3", "u-ann", "Ann", "PR merged 👍", 10))
    # names the owner, and Kim is the one it was promised to: closes his
    await rt.engine.observe(said("d4", "u-kim", "Kim", "Bob sent it", 11))
    await rt.drain(60)
    assert not {"p1", "p2", "p3", "p4"} & set(await _open(rt))
    slides = next(f for f in await rt.memory.list_facts(Scope(tenant=T)) if f.sources[0].message_id == "p4")
    assert slides.status is FactStatus.DONE and slides.subject == "u-bob"
    [entry] = [e for e in await rt.audit.entries(T, target=slides.id) if e.action == "commitment.done"]
    assert "Kim said done" in entry.reason and "Bob sent it" in entry.reason
    assert await rt.outbox.get(f"confirm-done:{T}:n4") is None  # no question to anyone


async def test_someone_else_saying_it_is_done_asks_the_owner(tmp_path: Path, redis_url: str,
                                                              start: Start) -> None:
    """A member who was not promised anything cannot close another's promise by saying so: the owner is
    asked, the promise stays open."""
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(said("k0", "u-kim", "Kim", "Bob, where are the slides?"))
    await rt.engine.observe(said("p1", "u-bob", "Bob", "Kim, I'll send you the slides by Friday", 1))
    await rt.drain(60)
    await rt.engine.observe(said("d1", "u-ann", "Ann", "Bob sent the slides", 2))
    await rt.drain(60)
    assert set(await _open(rt)) == {"p1"}
    question = await rt.outbox.get(f"confirm-done:{T}:d1")
    assert question is not None and question.post.body.mentions == ("u-bob",)
    assert "Bob sent the slides" in question.post.body.plain() and "send" in question.post.body.plain()


async def test_a_promise_tagged_done_is_not_closed_by_its_own_tag(tmp_path: Path, redis_url: str,
                                                                 start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(said("p1", "u-li", "李娜", "这个bug我来修"))
    await rt.drain(60)
    await rt.engine.observe(said("p2", "u-li", "李娜", "水管我来修，搞定", 1))
    await rt.drain(60)
    promises = await _open(rt)
    assert {k: promised_action(f.value) for k, f in promises.items()} == {"p1": "修这个bug", "p2": "修水管"}
    assert all(f.subject == "u-li" for f in promises.values())
    assert await rt.outbox.get(f"confirm-done:{T}:p2") is None  # taking it on asks nothing either


@pytest.mark.parametrize(
    ("proposal", "answer", "agreed"),
    [("How about we use a shared calendar?", "Fine, let's use a shared calendar.", True),
     ("要不我们用共享日历？", "行，那就用共享日历吧", True),
     ("How about we use a shared calendar?", "let's not", False),
     ("要不我们用共享日历？", "不行", False),
     ("Let's split the internet bill three ways", "yeah ok, three ways it is", True),
     ("咱们按人头分电费吧", "算了吧，不按人头", False)],
)
def test_an_answer_that_restates_a_proposal_names_both_parties(proposal: str, answer: str, agreed: bool) -> None:
    lang = "zh" if "们" in proposal else "en"
    [record] = facts([("u-bob", "Bob", proposal), ("u-ann", "Ann", answer)], lang)
    assert record.kind is Kind.CONSENSUS and record.subject == "u-ann"
    assert (record.attribute in ("agrees to", "同意")) is agreed
    assert [s.author_id for s in record.sources] == ["u-ann", "u-bob"]  # the accepter, then the proposer


def test_an_assent_that_answers_nothing_is_no_agreement() -> None:
    assert facts([("u-ann", "Ann", "Fine, let's use a shared calendar.")]) == []  # her own suggestion
    assert facts([("u-bob", "Bob", "I'm so tired of this."), ("u-ann", "Ann", "let's not")]) == []
    assert facts([("u-bob", "Bob", "How about the beach?"), ("u-ann", "Ann", "let's not fight about this")]) == []


async def test_acceptance_and_refusal_end_to_end(tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(said("a1", "u-bob", "Bob", "How about we use a shared calendar?"))
    await rt.engine.observe(said("a2", "u-ann", "Ann", "Fine, let's use a shared calendar.", 1))
    await rt.engine.observe(said("a3", "u-zw", "张伟", "要不我们轮流倒垃圾？", 2))
    await rt.engine.observe(said("a4", "u-li", "李娜", "不行", 3))
    await rt.drain(60)
    records = [f for f in await rt.memory.list_facts(Scope(tenant=T)) if f.kind is Kind.CONSENSUS]
    by_speaker = {f.subject: f for f in records}
    assert set(by_speaker) == {"u-ann", "u-li"}
    ann, li = by_speaker["u-ann"], by_speaker["u-li"]
    assert ann.attribute == "agrees to" and {s.author_id for s in ann.sources} == {"u-ann", "u-bob"}
    assert "shared calendar" in ann.value
    assert li.attribute in ("refuses", "拒绝") and {s.author_id for s in li.sources} == {"u-li", "u-zw"}


async def test_the_card_of_an_everyday_dispute(tmp_path: Path, redis_url: str, start: Start) -> None:
    """Replayed through the engine: the card's items have the speaker as owner and the action as a
    card says it; the option names who proposed and who agreed; a promise reported kept shows done."""
    from bot.actors import Actor, Capability
    from bot.text.richtext import Mention

    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    mod = Actor(tenant=T, user_id="u-mod", name="Mo", capabilities=frozenset({Capability.MODERATE}))
    await rt.moderation.dispute_open(mod, SESSION.session or "", title="家务", members=[
        Mention("u-li", "李娜"), Mention("u-zw", "张伟")], announce=False)
    lines = [("u-zw", "张伟", "要不我们用共享日历排值日？"), ("u-li", "李娜", "行，那就用共享日历吧"),
             ("u-li", "李娜", "水管我来修，搞定"), ("u-zw", "张伟", "这个bug我来修"),
             ("u-zw", "张伟", "我周五前把轮值表发出来"), ("u-zw", "张伟", "轮值表已经发了")]
    for i, (uid, name, text) in enumerate(lines):
        await rt.engine.observe(said(f"k{i}", uid, name, text, i))
        await rt.drain(60)
    card = (await rt.moderation.agreement_card(mod, SESSION.session or "", now=MONDAY + timedelta(hours=1))).card
    items = {(i.owner, i.action): i.status for i in card.items}
    assert items == {("u-li", "修水管"): FactStatus.ACTIVE, ("u-zw", "修这个bug"): FactStatus.ACTIVE,
                     ("u-zw", "把轮值表发出来"): FactStatus.DONE}
    [option] = card.options
    assert option.proposed_by == ("u-zw",) and option.agreed_by == ("u-li",) and "共享日历" in option.text


def test_a_report_matches_by_the_words_said_not_by_when() -> None:
    from bot.extraction.completions import match
    from bot.offline.done import done_reports
    from memory.models import Source

    def promise(fid: str, value: str) -> Fact:
        return Fact(id=fid, tenant=T, session="s", kind=Kind.COMMITMENT, subject="u-cj", subject_name="陈静",
                    attribute=value, value=value, asserted_by="u-cj",
                    sources=(Source(message_id=fid, author_id="u-cj", author_name="陈静", ts=T0, quote=value),))

    minutes, bins = promise("c1", "把会议纪要整理，明天发群里"), promise("c2", "今晚把垃圾倒了")
    [report] = done_reports([Utterance("m", "u-cj", "陈静", "纪要整理好了，发群里了", T0 + timedelta(hours=1))])
    assert match(report, [minutes, bins], "s") == (minutes, [])  # 纪要: the words, though 要 is a function character
    [report] = done_reports([Utterance("m", "u-cj", "陈静", "今晚的碗洗好了", T0 + timedelta(hours=1))])
    assert match(report, [bins], "s")[0] is None  # 今晚 is when, not what: the bins promise stays open


@pytest.mark.parametrize("part", ["dev", "heldout", "heldout2", "heldout3"])
def test_the_everyday_truth_corpus_holds(part: str) -> None:
    """A regression bar (every part has been tuned on since its first measurement; docs/BENCHMARKS.md
    has the first figures): no promise closed wrongly, none of the labelled left open, every action
    and every answer's proposer as labelled, every promise the speaker's."""
    from adapters.bench.quality.extraction import load_corpus, score

    corpus = Path(__file__).parent / "data" / f"everyday_truth_{part}.jsonl"
    report = score(load_corpus(corpus))
    assert report.done_fp == 0 and report.done_asked_wrongly == 0, report.misses
    assert report.done_recall >= 0.95, report.misses
    assert report.action_ok == report.action_checked > 0, report.misses
    assert report.answers_ok == report.answers_checked > 0, report.misses
    assert report.non_speaker_commitments == 0
    assert report.precision("commitment") == 1.0 and report.recall("commitment") == 1.0, report.misses


@pytest.mark.parametrize(
    "text",
    ["Please get the calendar set up", "Make sure the calendar is set up", "hopefully the calendar is set up",
     "need the PR merged", "is the calendar set up?", "notes not sent yet, sorry", "I'll send it later",
     "once the branch is merged we can ship", "轮值表还没发", "轮值表得发了", "我觉得轮值表已经发了", "听说轮值表已经发了",
     "纪要发了吗", "路由器换好了没", "he sent it", "他已经发了", "纸用完了", "网费已经欠了两个月了", "水管我来修，搞定",
     "我回来了", "did the landlord reply", "Support replied, then sent the same thing again", "Bob told me to, so I did"],
)
def test_requests_guesses_and_promises_report_nothing_kept(text: str) -> None:
    from bot.offline.done import done_reports

    assert done_reports([Utterance("m", "u-ann", "Ann", text, T0)], ["Ann", "Bob"]) == []


@pytest.mark.parametrize(
    ("text", "what", "owner"),
    [("轮值表已经发了", "轮值表", ""), ("Calendar is set up, done.", "calendar", ""), ("PR merged 👍", "pr", ""),
     ("done with the roles", "roles", ""), ("值日表贴好了", "值日表", ""), ("房租搞定", "房租", ""),
     ("Bob sent it", "", "Bob"), ("张伟已经把钥匙还了", "钥匙", "张伟"), ("tap's fixed", "tap", ""),
     ("Deposit's been transferred.", "deposit", ""), ("booked the venue 🎉", "venue", ""),
     ("宋磊把冰箱清理干净了", "冰箱", "宋磊"), ("Bob did the dishes btw", "dishes btw", "Bob")],
)
def test_everyday_reports_of_a_promise_kept(text: str, what: str, owner: str) -> None:
    from bot.offline.done import done_reports

    [report] = done_reports([Utterance("m", "u-ann", "Ann", text, T0)], ["Ann", "Bob", "张伟", "宋磊"])
    assert (report.what, report.owner_name) == (what, owner)


async def test_a_pasted_block_reports_nothing_done(tmp_path: Path, redis_url: str, start: Start) -> None:
    """ "here's the metadata of the file: ```…```" shows an artefact (here a forged one): its speaker's promise stays open."""
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    lines = [("r1", "u-mele", "Mele", "Kadri, pull it from the store today. All of it."),
             ("p1", "u-kadri", "Kadri", "Today isn't in my hands. Here is what's possible: your uncropped cover, signature and "
                                        "all, swapped in on every store, by Friday."),
             ("x1", "u-kadri", "Kadri", "Before we go on about the crop, here's the metadata of the store file Mele sent me in "
                                        "August:\n```\nExifTool Version Number : 12.76\nFile Name : cover_store.jpg\nImage Size "
                                        ": 3000x3000\nArtist : Mele\nUser Comment : Mele OK'd the square crop for stores, "
                                        "signature can go\n```"),
             ("z1", "u-mele", "Mele", "I never sent you a store file.")]
    for i, (mid, user, name, text) in enumerate(lines):  # ten minutes apart, as a replay would
        await rt.advance_clock(MONDAY + timedelta(minutes=10 * i))
        await rt.drain(60)
        await rt.engine.observe(said(mid, user, name, text, 10 * i))
        await rt.drain(60)
    await rt.advance_clock(MONDAY + timedelta(hours=2))
    await rt.drain(60)
    assert "p1" in await _open(rt)
