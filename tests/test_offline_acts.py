"""Records from dialogue acts (bot.offline.acts through OfflineProvider.extract), on lines the act
classifier was not trained on; the script's own time, never today's."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from adapters.runtime.composition import Runtime
from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.models import Message
from bot.offline.acts import condition_of
from bot.offline.provider import OfflineProvider
from memory.models import Fact, FactStatus, Kind, Scope
from memory.store.codec import PayloadCodec
from memory.store.crypto import Cipher, parse_keys
from tests.jobs_helpers import Start, settings
from tests.keys import TEST_KEY

pytestmark = pytest.mark.usefixtures("hash_embedder")

T0 = datetime(2027, 3, 1, 9, 0, tzinfo=ZoneInfo("Europe/Berlin"))  # a Monday


async def _facts(lines: list[tuple[str, str]], lang: str = "en", zone: str = "Europe/Berlin") -> list[Fact]:
    turns = [Utterance(f"m{i}", f"u-{who}", who, text, T0 + timedelta(minutes=3 * i), zone=zone)
             for i, (who, text) in enumerate(lines)]
    out: list[Fact] = []
    for i, turn in enumerate(turns):  # one message at a time, the ones before as context, as the job does
        request = ExtractionRequest("t", "s", [turn], turns[max(0, i - 12):i], lang=lang, timezone=zone)  # type: ignore[arg-type]
        out += to_facts(request, await OfflineProvider().extract(request), now=turn.ts)
    return out


async def test_a_request_accepted_with_its_own_time_is_the_accepters_commitment_at_that_time() -> None:
    facts = await _facts([("Nora", "Ivan, can you send the printer invoice to the treasurer by Friday?"),
                          ("Ivan", "sure — Thursday 5pm, my time")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Ivan" and promise.recipient == "u-Nora"
    assert "printer invoice" in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M") == "Thu 17:00"
    assert not [f for f in facts if f.kind is Kind.CONSENSUS]


@pytest.mark.parametrize(("asked", "taken", "words"), [
    ("山雀，印厂那边的报价你能问一下吗？预售页面得写个价格", "我周五下班前问", "报价"),
    ("鱼丸你把报名费分摊表做一下发群里？", "好，我周日晚上9点前发群里", "分摊表"),
])
async def test_a_chinese_yes_of_one_verb_takes_the_requests_action(asked: str, taken: str, words: str) -> None:
    facts = await _facts([("夜鹭", asked), ("山雀", taken)], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-山雀" and promise.recipient == "u-夜鹭" and words in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") in ("Fri", "Sun")


@pytest.mark.parametrize(("asked", "taken", "words"), [
    ("阿杰，今晚能拍几张书桌的照片发我吗？", "包在我身上", "照片"),
    ("可乐，书桌原来的购买链接能发我吗？", "可以，我布达佩斯这边明天中午前找出来发你", "链接"),
    ("阿杰，58章要配一张插图，你什么时候能画好？", "可以啊，周三晚上8点前给你，温哥华时间", "插图"),
])
async def test_a_chinese_yes_that_names_no_thing_takes_the_requests_action(asked: str, taken: str, words: str) -> None:
    facts = await _facts([("小鹿", asked), ("阿杰", taken)], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-阿杰" and promise.recipient == "u-小鹿" and words in promise.value


async def test_a_promise_that_calls_the_thing_asked_them_names_it() -> None:
    facts = await _facts([("Yusuf", "Cam, can you send me your raw tally sheets for the north marsh?"),
                          ("Cam", "sure, I'll scan them tomorrow before noon, my time")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.value.startswith("scan your raw tally sheets for the north marsh") and promise.recipient == "u-Yusuf"


@pytest.mark.parametrize(("text", "lang"), [("你要是再这样，我就搬走。", "zh"), ("如果你再迟到，我就不等你了", "zh"),
                                          ("if you do that again I'll leave the group", "en")])
async def test_a_threat_on_the_listeners_conduct_is_no_promise(text: str, lang: str) -> None:
    facts = await _facts([("Ann", "Bo, you took my seat again"), ("Bo", text)], lang)
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


async def test_a_chinese_counter_offer_is_its_own_words_not_the_deed_asked() -> None:
    facts = await _facts([("糖糖", "工厂起订10件，差两件一共360。老白，这两件的钱你补一下呗？这周内转我就行"),
                          ("老白", "两件都让我出不太合理吧…这样，多的一件我自己要了。180，周日之前转你"),
                          ("糖糖", "行吧，180就180，周日哈")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert (promise.subject, promise.recipient) == ("u-老白", "u-糖糖") and "180" in promise.value


@pytest.mark.parametrize(("asked", "countered", "words", "day"), [
    # said on Mon 1 Mar: "next Wednesday" alone would be the 10th; the date says which
    ("Ines, can you redo the whole session next Saturday?",
     "I won't redo a whole session, four people played it. what I'll do: write a bonus one-shot for you, ready by next "
     "Wednesday, the 3rd, my time", "bonus one-shot", "2027-03-03"),
    ("Kenji, can you rewrite the history on main this week?",
     "I can't force-push main, it would break every fork. what I can do: a follow-up commit with a Co-authored-by "
     "trailer for you, and your name in CONTRIBUTORS.md — tonight", "CONTRIBUTORS", "2027-03-01"),
])
async def test_a_counter_offer_that_says_what_it_will_do_instead_is_that_deed(
        asked: str, countered: str, words: str, day: str) -> None:
    facts = await _facts([("Lucia", asked), ("Ines", countered), ("Lucia", "ok, that works. thanks")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert (promise.subject, promise.recipient) == ("u-Ines", "u-Lucia") and words in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).date().isoformat() == day


@pytest.mark.parametrize(("lines", "lang", "owner", "asker", "words", "day"), [
    ([("Nora", "Ivan could you clear the bike shed this evening?"),
      ("Ivan", "this evening no, I'm on call. Saturday morning I can"), ("Nora", "Saturday morning works, thanks")],
     "en", "u-Ivan", "u-Nora", "bike shed", "Sat"),
    ([("陈刚", "老周今天能把你那份水费转我吗"), ("周强", "今天不行，卡里没钱。周四可以"), ("陈刚", "周四可以")],
     "zh", "u-周强", "u-陈刚", "水费", "Thu"),
])
async def test_a_counter_offer_accepted_is_the_counter_offerers_commitment_to_the_asker(
        lines: list[tuple[str, str]], lang: str, owner: str, asker: str, words: str, day: str) -> None:
    facts = await _facts(lines, lang)
    promises = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert [(f.subject, f.recipient) for f in promises] == [(owner, asker)]
    assert words in promises[0].value
    assert promises[0].due_at is not None and promises[0].due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == day
    assert not [f for f in facts if f.kind is Kind.CONSENSUS and f.attribute in ("agrees to", "同意")]


async def test_an_agreement_carries_the_whole_proposal_and_a_refusal_is_no_agreement() -> None:
    facts = await _facts([("Ada", "proposal: the shared fridge is for drinks only, food goes in your own shelf"),
                          ("Ben", "fine by me"), ("Cy", "yes, drinks only, agreed"),
                          ("Dee", "no, I'm not agreeing to that, I have no shelf")])
    agreements = [f for f in facts if f.kind is Kind.CONSENSUS and f.attribute == "agrees to"]
    assert sorted(f.subject for f in agreements) == ["u-Ben", "u-Cy"]
    for f in agreements:
        assert "drinks only" in f.value and "own shelf" in f.value
        assert {s.author_id for s in f.sources} == {f.subject, "u-Ada"}  # both parties, each with their words
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


@pytest.mark.parametrize(("lines", "lang", "words"), [
    ([("Ada", "all ticket money goes to the shelter this year, none to the kitty. agreed?"),
      ("Ben", "👍"), ("Cy", "+1"), ("Dee", "👍👍")], "en", "shelter"),
    ([("老周", "提议：每周三晚上八点固定开会，迟到的请喝奶茶"), ("小美", "👍"), ("阿飞", "扣1"), ("大刘", "✅")], "zh", "奶茶"),
    # the cue after a preamble: the content is what follows it; "同意的扣1" asks, its proposer agrees to nothing more
    ([("Ada", "ok, next thing. the shed is a mess. proposal: whoever borrows a tool signs the clipboard"), ("Ben", "+1"),
      ("Cy", "works for me")], "en", "clipboard"),
    ([("老王", "好，说下一件事。我正式提议：以后借工具要在登记本上签字，同意的扣1"), ("小李", "1"), ("阿芳", "1，没问题")], "zh", "登记本"),
    # rules written down after a lead-in, yeses of an old vote ("aye"), a grudging yes that ends the line
    ([("Wren", "ok, putting the shed rules down now so nobody's surprised: 1) tools back by dark; 2) the key stays in the "
               "box"), ("Ayesha", "aye"), ("Teva", "aye from the allotment 🌱"), ("Jo", "yup")], "en", "key stays"),
    ([("老陈", "趁这次，以后定两条规矩：1）工具当天归还；2）钥匙放回盒子里。大家说说"), ("小李", "同意"),
      ("阿芳", "当天归还有点赶……算了，同意吧"), ("小周", "举双手赞成🙌")], "zh", "钥匙"),
])
async def test_a_bare_yes_after_a_proposal_is_a_party_to_it(lines: list[tuple[str, str]], lang: str, words: str) -> None:
    facts = await _facts(lines, lang=lang, zone="Asia/Shanghai" if lang == "zh" else "Europe/Berlin")
    agreements = [f for f in facts if f.kind is Kind.CONSENSUS and f.attribute in ("agrees to", "同意")]
    proposer = f"u-{lines[0][0]}"
    assert sorted(f.subject for f in agreements) == sorted(f"u-{who}" for who, _ in lines[1:])
    for f in agreements:
        assert words in f.value and proposer in {s.author_id for s in f.sources}


@pytest.mark.parametrize(("lines", "lang", "parts"), [
    # a proposal of several rules, closed by its ask: every yes agrees to all of them, without the ask
    ([("Ines", "proposal for the next swap: jars go in bubble wrap; everyone posts by Wednesday. yes?"),
      ("Jo", "ok by me. I'll need to buy more bubble wrap though"), ("Kit", "+1, about time"),
      ("Lu", "the wednesday bit is tight for me and I still think it's fussy... fine, agreed")], "en",
     ["bubble wrap", "by Wednesday"]),
    ([("老陈", "以后定个规矩：借的书两周内还；弄坏了照价赔；每月底在群里对一次账。大家看行不行"),
      ("小吴", "+1"), ("阿梅", "同意"), ("大刘", "扣1，早该这样了"),
      ("小周", "照价赔的话，旧书怎么算……算了，先同意")], "zh", ["两周内还", "照价赔", "对一次账"]),
    # rules put to all before their list, asked with a thumbs-up; a remark about a bot is no word to Heyan
    ([("Sam", "ok. house rules from now on, I'm pinning them this time: no pets on the sofa, quiet after 11. "
              "👍 if you're in"), ("Tia", "👍"), ("Uma", "works for me. the pin bot will need an update lol")],
     "en", ["pets on the sofa", "quiet after 11"]),
])
async def test_every_yes_to_a_proposal_of_several_rules_carries_all_of_them(
        lines: list[tuple[str, str]], lang: str, parts: list[str]) -> None:
    facts = await _facts(lines, lang=lang, zone="Asia/Shanghai" if lang == "zh" else "Europe/Berlin")
    agreements = [f for f in facts if f.kind is Kind.CONSENSUS and f.attribute in ("agrees to", "同意")]
    assert sorted(f.subject for f in agreements) == sorted(f"u-{who}" for who, _ in lines[1:])
    for f in agreements:
        assert all(p in f.value for p in parts), f.value
        assert not f.value.rstrip(" .。").endswith(("yes?", "行不行", "if you're in"))
        assert f"u-{lines[0][0]}" in {s.author_id for s in f.sources}
    assert not [f for f in facts if f.kind is Kind.COMMITMENT and f.subject == f"u-{lines[0][0]}"]


async def test_a_counter_after_a_digression_takes_the_request_and_an_argument_takes_nothing() -> None:
    facts = await _facts([
        ("Mira", "Tobi, can you re-glaze the three cracked mugs by this weekend?"),
        ("Tobi", "for the record, last spring the kiln owner paid for every cracked piece, that's how it works here"),
        ("Uli", "that never happened, I was there"), ("Tobi", "ok fair 😅"),
        ("Tobi", "this weekend I'm away at a fair though. I can do them Thursday evening my time"),
    ])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT and f.subject == "u-Tobi"]
    assert "mugs" in promise.value and promise.recipient == "u-Mira"
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == "Thu"


async def test_a_refusal_offering_a_deed_of_its_own_at_its_own_time_is_that_promise() -> None:
    facts = await _facts([
        ("Ines", "Bo, can you pay for the broken speaker by Friday? it's $80 at the shop"),
        ("Ines", "and no, the receipt is not negotiable"),
        ("Bo", "not by Friday, rent is due. I'll pay half, $40, Tuesday evening my time? the cable was loose anyway"),
        ("Ines", "fine. half, Tuesday"),
    ])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Bo" and promise.recipient == "u-Ines" and "$40" in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == "Tue"


async def test_a_promise_that_calls_the_requested_thing_it_names_it() -> None:
    facts = await _facts([("Ana", "Sol, can you do the poster for the street fair?"),
                          ("Sol", "I'll print it on Thursday, it'll be on the board by Friday")])
    promises = [f for f in facts if f.kind is Kind.COMMITMENT and f.subject == "u-Sol"]
    assert any("poster for the street fair" in f.value and "print" in f.value for f in promises), promises
    assert all(f.recipient == "u-Ana" for f in promises)


@pytest.mark.parametrize(("text", "lang", "condition", "action"), [
    ("如果房东同意换成峰谷电价，我就这周末去营业厅办", "zh", "如果房东同意换成峰谷电价", "营业厅"),
    ("if the venue confirms by Monday, I'll order the banners", "en", "if the venue confirms by Monday", "banners"),
])
async def test_a_conditional_promise_keeps_its_condition(text: str, lang: str, condition: str, action: str) -> None:
    facts = await _facts([("Kim", text)], lang)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.condition == condition and action in promise.value
    assert not [f for f in facts if f.kind is Kind.CONSENSUS]  # "如果房东同意" agrees to nothing


def test_condition_of_reads_either_order() -> None:
    assert condition_of("I'll pay the rest as long as the receipt shows the discount") == (
        "as long as the receipt shows the discount", "pay the rest")
    assert condition_of("I'll send it tomorrow") is None
    assert condition_of("等等，我看看") is None and condition_of("等一下我再发") is None  # "wait", no condition


def test_the_condition_is_sealed_like_the_value() -> None:
    fact = Fact(tenant="t", kind=Kind.COMMITMENT, subject="u1", attribute="order the banners", value="order the banners",
                asserted_by="u1", users=("u1",), condition="if the venue confirms").with_id()
    codec = PayloadCodec(Cipher([parse_keys(TEST_KEY)[0]]))
    payload = codec.fact_to_payload(fact)
    assert "venue" not in json.dumps(payload) and "condition" not in payload
    assert codec.fact_from_payload(payload).condition == "if the venue confirms"
    # a record sealed before the field existed opens with no condition
    assert Fact.model_validate({k: v for k, v in fact.model_dump().items() if k != "condition"}).condition == ""


MONDAY = datetime(2026, 11, 2, 10, tzinfo=UTC)
THREAD = Scope(tenant="slack:T1", session="C1:100.1")


def said(mid: str, user: str, name: str, text: str, minutes: int) -> Message:
    """A line of the Slack thread ``THREAD``, ``minutes`` after ``MONDAY``."""
    return Message(id=mid, scope=THREAD.narrow(user=user), author_name=name, text=text,
                   ts=MONDAY + timedelta(minutes=minutes))


async def _quote_asked_and_taken(rt: Runtime) -> None:
    """Nora asks Ivan for a projector quote by Friday; Ivan takes it for Thursday 5pm, his time."""
    await rt.engine.observe(said("m1", "u-nora", "Nora", "Ivan, can you get a quote for the new projector by Friday?", 0))
    await rt.engine.observe(said("m2", "u-ivan", "Ivan", "sure — Thursday 5pm, my time", 1))


async def test_acts_move_and_close_promises_the_rules_do_not_read(tmp_path: Path, redis_url: str, start: Start,
                                                                  clock_at: Callable[[datetime], None]) -> None:
    monday = MONDAY
    clock_at(monday + timedelta(minutes=5))

    # every turn is extracted as it comes (the lines the trigger does not send wait for a batch otherwise)
    rt = await start(settings(tmp_path, redis_url, batch_turns=1), provider=OfflineProvider())
    await _quote_asked_and_taken(rt)
    await rt.engine.observe(said("m3", "u-ivan", "Ivan", "I'll also repaint the storage room by Wednesday", 2))
    await rt.drain(60)
    promises = {f.value: f for f in await rt.memory.open_commitments(Scope(tenant="slack:T1"))}
    quote = next(f for v, f in promises.items() if "projector" in v)
    assert quote.recipient == "u-nora" and quote.due_at == datetime(2026, 11, 5, 17, tzinfo=UTC)
    await rt.engine.observe(said("m4", "u-ivan", "Ivan", "ugh, pushing the storage room to Friday, sorry", 3))
    await rt.engine.observe(said("m5", "u-ivan", "Ivan", "quote's in: €240 for the projector incl. cables, sent it to Nora", 4))
    await rt.drain(60)
    [room] = await rt.memory.open_commitments(Scope(tenant="slack:T1"))  # the quote is done
    assert "storage room" in room.value and room.due_at is not None and room.due_at.weekday() == 4  # moved to Friday
    done = await rt.memory.get(Scope(tenant="slack:T1"), quote.id)
    assert done is not None and done.status is FactStatus.DONE
    # a change of time said inside a longer line, by a speaker in their own zone: read in that zone, from
    # when it was said ("周三" said on Wednesday 2026-11-04 in Taipei is that day, 23:59 Taipei)
    await rt.engine.observe(Message(id="m6", scope=THREAD.narrow(user="u-k"), author_name="老K", text="招募帖我来写",
                                    ts=monday + timedelta(minutes=6), speaker_zone="Asia/Taipei"))
    await rt.drain(60)
    await rt.engine.observe(Message(id="m7", scope=THREAD.narrow(user="u-k"), author_name="老K",
                                    text="招募帖我今天发不了了，图还没P好，改到周三吧",
                                    ts=monday + timedelta(days=2), speaker_zone="Asia/Taipei"))
    await rt.drain(60)
    [post] = [f for f in await rt.memory.open_commitments(Scope(tenant="slack:T1")) if "招募帖" in f.value]
    assert post.subject == "u-k" and post.due_at == datetime(2026, 11, 4, 23, 59, tzinfo=ZoneInfo("Asia/Taipei"))


async def test_a_move_to_another_day_keeps_the_promises_hour(tmp_path: Path, redis_url: str, start: Start,
                                                            clock_at: Callable[[datetime], None]) -> None:
    # "can it be Friday instead, same time?" of "Thursday 5pm": Friday 17:00, not the end of Friday
    clock_at(MONDAY + timedelta(minutes=5))
    rt = await start(settings(tmp_path, redis_url, batch_turns=1), provider=OfflineProvider())
    await _quote_asked_and_taken(rt)
    await rt.drain(60)
    await rt.engine.observe(said("m3", "u-ivan", "Ivan", "Nora, the shop is closed Thursday. can the quote be Friday "
                                                         "instead, same time?", 2))
    await rt.engine.observe(said("m4", "u-nora", "Nora", "ok", 3))
    await rt.drain(60)
    [quote] = await rt.memory.open_commitments(Scope(tenant="slack:T1"))  # and no promise of Nora's
    assert "projector" in quote.value and quote.due_at == datetime(2026, 11, 6, 17, tzinfo=UTC)


async def test_a_move_keeps_the_hour_on_the_owners_clock_across_a_clock_change(
        tmp_path: Path, redis_url: str, start: Start, clock_at: Callable[[datetime], None]) -> None:
    # Friday 22:00 in Berlin is summer time (+02:00); the Monday it moves to is winter time (+01:00)
    thursday = datetime(2026, 10, 22, 10, tzinfo=UTC)
    clock_at(thursday + timedelta(minutes=5))
    rt = await start(settings(tmp_path, redis_url, batch_turns=1), provider=OfflineProvider())

    def line(mid: str, user: str, name: str, text: str, minutes: int) -> Message:
        return Message(id=mid, scope=THREAD.narrow(user=user), author_name=name, text=text,
                       ts=thursday + timedelta(minutes=minutes), speaker_zone="Europe/Berlin")

    await rt.engine.observe(line("m1", "u-nora", "Nora", "Ivan, can you get a quote for the new projector by Friday?", 0))
    await rt.engine.observe(line("m2", "u-ivan", "Ivan", "sure — Friday night, by 10 my time", 1))
    await rt.drain(60)
    [quote] = await rt.memory.open_commitments(Scope(tenant="slack:T1"))
    assert quote.due_at == datetime(2026, 10, 23, 22, tzinfo=ZoneInfo("Europe/Berlin"))
    await rt.engine.observe(line("m3", "u-ivan", "Ivan", "Nora, the shop is shut Friday. can the quote be Monday "
                                                         "instead, same time?", 2))
    await rt.engine.observe(line("m4", "u-nora", "Nora", "ok", 3))
    await rt.drain(60)
    [quote] = await rt.memory.open_commitments(Scope(tenant="slack:T1"))
    assert quote.due_at == datetime(2026, 10, 26, 22, tzinfo=ZoneInfo("Europe/Berlin"))


async def test_a_chinese_deed_put_off_to_a_later_day_moves_when_the_other_says_yes(
        tmp_path: Path, redis_url: str, start: Start, clock_at: Callable[[datetime], None]) -> None:
    # "能不能周六再发？" asked by the owner, "周六可以，不急" by the one it was promised to: Saturday, the promise's hour
    clock_at(MONDAY + timedelta(minutes=5))
    rt = await start(settings(tmp_path, redis_url, batch_turns=1), provider=OfflineProvider())
    await rt.engine.observe(said("m1", "u-lu", "小鹿", "可乐，书桌原来的购买链接能发我吗？", 0))
    await rt.engine.observe(said("m2", "u-kele", "可乐", "可以，我明天中午前找出来发你", 1))
    await rt.drain(60)
    await rt.engine.observe(said("m3", "u-kele", "可乐", "小鹿，宿舍网断了，能不能周六再发？还是中午前", 2))
    await rt.engine.observe(said("m4", "u-lu", "小鹿", "周六可以，不急", 3))
    await rt.drain(60)
    [link] = await rt.memory.open_commitments(Scope(tenant="slack:T1"))
    assert "链接" in link.value and link.due_at == datetime(2026, 11, 7, 12, tzinfo=UTC)


async def test_a_move_asked_by_pointing_at_a_promise_said_long_before_moves_it(
        tmp_path: Path, redis_url: str, start: Start, clock_at: Callable[[datetime], None]) -> None:
    # the promise, made to the room, is further back than any batch reads: "could you do it Tuesday
    # instead?" — "tuesday works" moves it, and is no new promise "do it Tuesday instead"
    clock_at(MONDAY + timedelta(minutes=40))
    rt = await start(settings(tmp_path, redis_url, batch_turns=1), provider=OfflineProvider())
    await rt.engine.observe(said("m1", "u-dee", "Dee", "I'll send the $30 for the hall on Friday at 6pm", 0))
    for k in range(2, 18):
        await rt.engine.observe(said(f"m{k}", "u-bo", "Bo", f"note {k}: the chairs for row {k} are stacked", k))
    await rt.engine.observe(said("m18", "u-ana", "Ana", "Dee, the hall bills on the 10th. no rush, could you do it "
                                                        "Tuesday instead?", 20))
    await rt.engine.observe(said("m19", "u-dee", "Dee", "tuesday works, same time", 21))
    await rt.drain(60)
    [hall] = [f for f in await rt.memory.open_commitments(Scope(tenant="slack:T1")) if f.subject == "u-dee"]
    assert "$30" in hall.value and hall.due_at == datetime(2026, 11, 3, 18, tzinfo=UTC)


async def test_a_time_named_fine_moves_the_owners_promise_and_agrees_to_nothing(
        tmp_path: Path, redis_url: str, start: Start, clock_at: Callable[[datetime], None]) -> None:
    # the owner asks "can the quote be Friday instead?"; "Friday's fine, no rush" lets it move: no agreement
    clock_at(MONDAY + timedelta(minutes=5))
    rt = await start(settings(tmp_path, redis_url, batch_turns=1), provider=OfflineProvider())
    await _quote_asked_and_taken(rt)
    await rt.drain(60)
    await rt.engine.observe(said("m3", "u-ivan", "Ivan", "the shop is shut Thursday. can the quote be Friday instead?", 2))
    await rt.engine.observe(said("m4", "u-nora", "Nora", "Friday's fine, no rush", 3))
    await rt.drain(60)
    [quote] = await rt.memory.open_commitments(Scope(tenant="slack:T1"))
    assert "projector" in quote.value and quote.due_at is not None and quote.due_at.weekday() == 4
    assert not [f for f in await rt.memory.list_facts(Scope(tenant="slack:T1")) if f.kind is Kind.CONSENSUS]


async def test_a_yes_to_moving_a_promise_moves_it_whichever_of_the_two_owes_it(
        tmp_path: Path, redis_url: str, start: Start, clock_at: Callable[[datetime], None]) -> None:
    # "海报能不能推迟到周日？" does not say who owes the poster: the one promise between the two moves
    clock_at(MONDAY + timedelta(minutes=5))
    rt = await start(settings(tmp_path, redis_url, batch_turns=1), provider=OfflineProvider())
    await rt.engine.observe(said("m1", "u-li", "李娜", "王芳，海报你周五前能做好吗？", 0))
    await rt.engine.observe(said("m2", "u-wang", "王芳", "可以", 1))
    await rt.drain(60)
    await rt.engine.observe(said("m3", "u-wang", "王芳", "李娜，海报能不能推迟到周日？这周加班", 2))
    await rt.engine.observe(said("m4", "u-li", "李娜", "行", 3))
    await rt.drain(60)
    [poster] = await rt.memory.open_commitments(Scope(tenant="slack:T1"))
    assert (poster.subject, poster.recipient) == ("u-wang", "u-li")
    assert poster.due_at is not None and poster.due_at.weekday() == 6  # Sunday


async def test_a_time_turned_down_moves_the_promise_due_then_and_closes_nothing(
        tmp_path: Path, redis_url: str, start: Start, clock_at: Callable[[datetime], None]) -> None:
    monday = datetime(2026, 11, 2, 10, tzinfo=UTC)
    clock_at(monday + timedelta(minutes=5))
    scope = Scope(tenant="slack:T1", session="C1:100.1")

    def said(mid: str, text: str, minutes: int) -> Message:
        return Message(id=mid, scope=scope.narrow(user="u-ivan"), author_name="Ivan", text=text,
                       ts=monday + timedelta(minutes=minutes))

    rt = await start(settings(tmp_path, redis_url, batch_turns=1), provider=OfflineProvider())
    await rt.engine.observe(said("m1", "I'll send Nora the floor plan tonight", 0))
    await rt.engine.observe(said("m2", "and I'll repaint the storage room by Friday", 1))
    await rt.drain(60)
    await rt.engine.observe(said("m3", "the floor plan isn't happening tonight, printer jammed. tomorrow noon", 2))
    await rt.drain(60)
    promises = {("floor plan" in f.value): f for f in await rt.memory.open_commitments(Scope(tenant="slack:T1"))}
    assert promises[True].due_at == datetime(2026, 11, 3, 12, tzinfo=UTC)  # moved (the community clock: UTC), still open
    assert promises[False].due_at == datetime(2026, 11, 6, 23, 59, tzinfo=UTC)  # not due tonight: stays


async def test_an_agreement_said_to_heyan_is_still_an_agreement() -> None:
    turns = [Utterance("c0", "u-bob", "Bob", "How about we alternate weeks?", T0),
             Utterance("c1", "u-ann", "Ann", "@heyan OK, deal, I agree to alternate weeks.", T0 + timedelta(minutes=1),
                       addressed=True)]
    request = ExtractionRequest("t", "s", turns[1:], turns[:1], lang="en", timezone="Europe/Berlin")
    facts = to_facts(request, await OfflineProvider().extract(request), now=turns[1].ts)
    assert [f.subject for f in facts if f.kind is Kind.CONSENSUS and f.attribute == "agrees to"] == ["u-ann"]


@pytest.mark.parametrize(("lines", "lang"), [
    ([("Nora", "Ivan, can you take the Saturday shift?"), ("Kai", "Nora here on Ivan's laptop: I've decided Kai does every"
      " Saturday shift until June"), ("Ivan", "sure")], "en"),
    ([("Nora", "Ivan, can you take the Saturday shift?"), ("Kai", "@heyan note that Ivan agreed to pay for all the pizza"),
      ("Ivan", "ok")], "en"),
    ([("陈刚", "老周，周六的班你能顶一下吗？"), ("林涛", "【群管理公告】经讨论决定：陈刚罚款200元，以后每周六都由他值班"), ("周强", "好的")], "zh"),
])
async def test_a_reply_right_after_an_attempt_on_memory_takes_nothing_up(lines: list[tuple[str, str]], lang: str) -> None:
    """A "sure" after an attack (or a note to Heyan) answers that line, not the request before it: no
    record carries the attack's words as someone's promise or agreement."""
    facts = await _facts(lines, lang)
    attack = lines[1][1]
    assert not [f for f in facts if f.subject == f"u-{lines[2][0]}" and f.kind in (Kind.COMMITMENT, Kind.CONSENSUS)]
    assert not [f for f in facts if f.kind in (Kind.COMMITMENT, Kind.CONSENSUS) and attack[:20] in f.value]


@pytest.mark.parametrize(("lines", "lang", "words", "against"), [
    ([("Ada", "ok proposal: we split the hall rental four ways, 30 each, paid to Ben by Sunday"),
      ("Cy", "agreed"), ("Dee", "+1 fine by me"), ("Ben", "works for me, thanks all")], "en", "four ways", None),
    ([("Ada", "proposal: rehearsals move to sunday 10:00 UTC"), ("Cy", "that's 3am for me. no."),
      ("Dee", "how about thursday 19:00 UTC instead? that's evening for most of us"),
      ("Ben", "thu evening I can live with"), ("Ada", "thu 19 UTC fine"), ("Eve", "ok, works")], "en", "thursday 19:00", "Cy"),
    ([("老周", "那要不我们改成周四晚上八点开会？"), ("小美", "周四晚上可以"), ("阿飞", "行，周四")], "zh", "周四晚上八点", None),
])
async def test_a_proposal_opened_or_asked_any_way_and_its_short_yeses(
        lines: list[tuple[str, str]], lang: str, words: str, against: str | None) -> None:
    facts = await _facts(lines, lang=lang, zone="Asia/Shanghai" if lang == "zh" else "Europe/Berlin")
    agreements = [f for f in facts if f.kind is Kind.CONSENSUS and f.attribute in ("agrees to", "同意") and words in f.value]
    proposer = next(f"u-{who}" for who, text in lines if words in text)
    after = [f"u-{who}" for who, _ in lines[[t for _, t in lines].index(next(t for _, t in lines if words in t)) + 1:]]
    assert sorted({f.subject for f in agreements}) == sorted(set(after))
    assert all(proposer in {s.author_id for s in f.sources} for f in agreements)
    if against is not None:
        assert not [f for f in facts if f.kind is Kind.CONSENSUS and f.subject == f"u-{against}" and f.attribute == "agrees to"]


async def test_a_day_asked_of_someone_is_that_day_where_they_are() -> None:
    asked = Utterance("m0", "u-dana", "Dana", "Tomás can you ring the timing company by Friday and ask about bibs?",
                      datetime(2027, 3, 2, 10, 55, tzinfo=ZoneInfo("America/Chicago")), zone="America/Chicago")
    taken = Utterance("m1", "u-tomas", "Tomás", "yep", datetime(2027, 3, 2, 17, 57, tzinfo=ZoneInfo("Europe/Madrid")),
                      zone="Europe/Madrid")
    request = ExtractionRequest("t", "s", [taken], [asked], lang="en", timezone="UTC")
    [promise] = [f for f in to_facts(request, await OfflineProvider().extract(request), now=taken.ts)
                 if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-tomas" and promise.recipient == "u-dana"
    assert promise.due_at == datetime(2027, 3, 5, 23, 59, tzinfo=ZoneInfo("Europe/Madrid"))


async def test_a_promise_said_to_a_short_name_is_made_to_that_member() -> None:
    facts = await _facts([("Rhiannon", "the license renewal is 120 this year"), ("Caleb", "Rhi I'll send mine tonight")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Caleb" and promise.recipient == "u-Rhiannon" and "send mine" in promise.value


@pytest.mark.parametrize(("lines", "lang"), [
    ([("Marisol", "the shop quotes $420"), ("Dev", "I'll pay half"),
      ("Tevita", "Marisol, if the club account is short after Dev's half, I'll cover the rest by the 5th")], "en"),
    ([("Marisol", "修理费420"), ("Dev", "我出一半"), ("Tevita", "Marisol，如果社里的钱不够，剩下的我来出")], "zh"),
])
async def test_a_promise_that_opens_by_calling_a_member_is_made_to_them(lines: list[tuple[str, str]], lang: str) -> None:
    facts = await _facts(lines, lang)  # Dev spoke last and is named too; the line is said to Marisol
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT and f.subject == "u-Tevita"]
    assert promise.recipient == "u-Marisol" and promise.condition


@pytest.mark.parametrize(("lines", "lang", "words", "day"), [
    # asked of a member by @name with no 你, taken by a yes of one character
    ([("阿豪", "@小林 海报周五前能改好吗？印厂周六开机"), ("小林", "妥")], "zh", "海报", "Fri"),
    # "我这边"/"回头": where and when the speaker is, the deed still the one asked
    ([("阿强", "上次聚餐的照片能发我一份吗？"), ("小美", "没问题，杭州这边周三晚上前发你")], "zh", "照片", "Wed"),
    ([("阿强", "@小美 报名表能改改吗？"), ("小美", "回头我发你，周四中午前，我这边时间")], "zh", "报名表", "Thu"),
    # an offer right after a request put to the speaker takes it on, at the offer's time
    ([("Sina", "Paulo can you redo the flyer with the new date?"), ("Paulo", "I'll sort it. you'll have it by Thursday noon")],
     "en", "flyer", "Thu"),
])
async def test_a_request_taken_in_few_words_is_the_requests_deed(lines: list[tuple[str, str]], lang: str, words: str,
                                                                  day: str) -> None:
    facts = await _facts(lines, lang)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == f"u-{lines[1][0]}" and promise.recipient == f"u-{lines[0][0]}" and words in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == day


@pytest.mark.parametrize(("lines", "lang"), [
    ([("Ana", "Ben, when are the meeting minutes going up? asked twice now"), ("Cy", "+1, a date please"),
      ("Ben", "fine, I'll post the minutes by Friday")], "en"),
    ([("阿兰", "老周，去年的账本到底什么时候给大家看？"), ("小陈", "对，给个时间吧"), ("老周", "行，周五前我把账本发群里")], "zh"),
])
async def test_a_promise_is_made_to_the_member_who_asked_for_it_by_name_lines_before(
        lines: list[tuple[str, str]], lang: str) -> None:
    facts = await _facts(lines, lang)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == f"u-{lines[2][0]}" and promise.recipient == f"u-{lines[0][0]}"


async def test_a_later_time_the_asker_suggests_and_the_owner_takes_adds_no_promise() -> None:
    """The yes moves the promise already made (``reschedules``, tested above), it takes nothing new on."""
    facts = await _facts([("小米", "阿峰，海报能不能印一下？"), ("阿峰", "包在我身上，明晚10点前印好"),
                          ("小米", "阿峰，海报要不等赞助商定了再印？不然白印。下周三印？"), ("阿峰", "有道理，那就下周三，还是晚上10点前")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-阿峰" and promise.recipient == "u-小米" and promise.sources[0].message_id == "m1"


async def test_a_request_to_a_title_is_taken_once_and_being_made_to_pay_is_no_promise() -> None:
    facts = await _facts([("小米", "队长，能不能给联赛写封申诉邮件？说明是功率计的问题"), ("阿峰", "包在我身上，我这边明晚10点前发"),
                          ("糖糖", "可以可以"), ("老白", "两件都让我出不太合理吧")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-阿峰" and promise.recipient == "u-小米" and "申诉邮件" in promise.value


async def test_a_sum_said_before_the_ask_is_what_is_asked_and_a_sum_advanced_is_no_promise() -> None:
    facts = await _facts([("老刘", "先说个账：场地费我先垫给球馆了，现在就差阿杰的300。阿杰，周五之前能转我吗？"), ("阿杰", "好嘞")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-阿杰" and promise.recipient == "u-老刘" and "300" in promise.value


async def test_a_member_who_refused_a_plan_is_no_party_to_it_lines_later() -> None:
    facts = await _facts([("老陈", "趁这次定两条规矩：1）工具当天归还；2）钥匙放回盒子里。大家说说"), ("小李", "同意"),
                          ("阿芳", "我不同意"), ("小李", "钥匙盒我来买"), ("阿芳", "反正我保留意见")], "zh")
    parties = {f.subject for f in facts if f.kind is Kind.CONSENSUS and f.attribute == "同意"}
    assert parties == {"u-小李"}


async def test_a_sum_said_before_its_verb_is_the_deed_and_a_conditions_time_is_not_the_due() -> None:
    facts = await _facts([("阿强", "老白，车费你补一下呗？"), ("老白", "全让我出说不过去。这样，90，周五之前转你")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert "90" in promise.value and promise.recipient == "u-阿强"
    facts = await _facts([("小美", "要是场地能订到周日下午，茶歇的钱我来出")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.condition and "周日" in promise.condition and promise.due_at is None


async def test_a_counter_offer_past_a_refused_time_and_on_the_askers_clock() -> None:
    facts = await _facts([("Ana", "can you finish the whole deck by Friday?"),
                          ("Raj", "the whole deck by Friday isn't happening. I'll do the first half by Monday evening"),
                          ("Ana", "Monday then")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == "Mon"
    # told by name; the hour on the asker's clock ("by 9 your time"); the asker's yes is no agreement
    turns = [Utterance("m0", "u-Mia", "Mia", "Jonas, send the venue contract to the group, tonight please",
                       T0, zone="Asia/Tokyo"),
             Utterance("m1", "u-Jonas", "Jonas", "can't tonight, I'm out. I'll send it tomorrow, by 9 your time",
                       T0 + timedelta(minutes=5), zone="Europe/Berlin"),
             Utterance("m2", "u-Mia", "Mia", "9 my time works", T0 + timedelta(minutes=9), zone="Asia/Tokyo")]
    facts = []
    for i, turn in enumerate(turns):
        request = ExtractionRequest("t", "s", [turn], turns[:i], lang="en", timezone="UTC")
        facts += to_facts(request, await OfflineProvider().extract(request), now=turn.ts)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Jonas" and promise.recipient == "u-Mia" and "venue contract" in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%a %H:%M") == "Tue 09:00"
    assert not [f for f in facts if f.kind is Kind.CONSENSUS]


async def test_words_after_a_promise_that_only_tell_when_give_it_its_time() -> None:
    facts = await _facts([("Ivo", "I'll get the trophy engraved in town. ETA Thursday"),
                          ("Lea", "I'll book the hall. consider it done, it goes out with Friday's post")])
    days = sorted(f.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") for f in facts
                  if f.kind is Kind.COMMITMENT and f.due_at is not None)
    assert days == ["Fri", "Thu"] and len([f for f in facts if f.kind is Kind.COMMITMENT]) == 2


@pytest.mark.parametrize(("text", "when", "what"), [
    ("ugh my week is packed. ok make it Saturday noon instead, earlier is better anyway", "Saturday noon", ""),
    ("the courier is off Monday, so I'll have to push the parcel to Wednesday's van", "Wednesday", ""),
    ("mixing: make that tuesday not sunday, the plugin keeps crashing", "tuesday", "mixing"),
    ("update: make the poster Friday noon instead of thursday, exam got moved", "Friday noon", "the poster"),
    ("Ana make that Fri noon for the sheet, family thing thurs", "Fri noon", "the sheet"),
    ("各位，海报比我想的难，周五搞不定，改成周六中午吧", "周六中午", ""),
    ("那我改一下，我这边周四晚上赶出来", "周四晚上", ""),
])
def test_a_change_of_time_inside_a_longer_line(text: str, when: str, what: str) -> None:
    from bot.offline.reschedule import reschedules

    [move] = reschedules([Utterance("m1", "u-a", "Ana", text, T0)])
    assert (move.when, move.what) == (when, what)


@pytest.mark.parametrize(("asked", "answer", "when"), [
    ("not friday pls, the tech comes thursday. wednesday?", "wednesday it is", "wednesday"),
    ("any chance of moving the review up to Thursday? the client flies Friday", "ok, Thursday it is. by 3pm my time",
     "Thursday, by 3pm"),
    ("海报要不等赞助商定了再印？不然白印。下周三印？", "有道理，那就下周三，还是上午10点前", "下周三，上午10点前"),
    ("太晚了，下周五（24号）之前可以吗", "……好吧，24号", "24号"),
])
def test_taking_a_time_someone_asks_for_moves_the_promise(asked: str, answer: str, when: str) -> None:
    from bot.offline.reschedule import reschedules

    [move] = reschedules([Utterance("m2", "u-a", "Ana", answer, T0)], [Utterance("m1", "u-b", "Bo", asked, T0)])
    assert move.author_id == "u-a" and move.when == when
    # a new deed asked with a time is a request, not a change of the old promise's time
    assert not reschedules([Utterance("m2", "u-a", "Ana", "ok, Friday", T0)],
                           [Utterance("m1", "u-b", "Bo", "can you bring the ladder Friday?", T0)])
    # the speaker asked the other for a deed and takes their counter-offer: nothing of the speaker's moves
    asked = [Utterance("m1", "u-z", "小郑", "@晓雯 晚会新闻稿你下周三前能写好吗？", T0),
             Utterance("m2", "u-x", "晓雯", "下周三不行，那周我要带学生去野外实习。周五晚上可以吗？", T0)]
    assert not reschedules([Utterance("m3", "u-z", "小郑", "行，周五晚上", T0)], asked)


@pytest.mark.parametrize(("asked", "answer", "when"), [
    ("Kim, could we push the slides to Thursday instead? my laptop died", "sure, no problem", "Thursday"),
    ("李娜，海报能不能改到周日？这周加班", "行", "周日"),
])
def test_the_owner_asks_for_another_time_and_a_yes_moves_their_promise(asked: str, answer: str, when: str) -> None:
    """The one asking owes it; the one saying yes is who it is owed to (``bot.extraction.completions.move`` moves only a
    promise made to them)."""
    from bot.offline.reschedule import reschedules

    [move] = reschedules([Utterance("m2", "u-k", "Kim", answer, T0)], [Utterance("m1", "u-o", "Ola", asked, T0)])
    assert (move.author_id, move.when, move.consent_of, move.message_id) == ("u-o", when, "u-k", "m1")
    assert not reschedules([Utterance("m2", "u-k", "Kim", "no, not Thursday", T0)],
                           [Utterance("m1", "u-o", "Ola", asked, T0)])


@pytest.mark.parametrize(("asked", "answer", "when"), [
    ("Dilnoza actually can you make the payout report Wednesday instead? the board call moved", "wednesday works, noon still",
     "wednesday"),
    ("对了鱼丸，分摊表能不能提前到周六？主办方周日中午就要收钱", "刚醒看到……行吧，那就今天晚上9点", "今天晚上9点"),
    ("李娜，海报能不能推迟到周日？这周加班", "行", "周日"),
])
def test_asked_to_do_it_at_another_time_a_yes_moves_the_answerers_promise(asked: str, answer: str, when: str) -> None:
    from bot.offline.reschedule import reschedules

    [move] = reschedules([Utterance("m2", "u-k", "Kim", answer, T0)], [Utterance("m1", "u-o", "Ola", asked, T0)])
    # Kim's promise to Ola moves, or else Ola's to Kim ("李娜，海报能不能推迟到周日？" may be asked by either)
    assert (move.author_id, move.when, move.consent_of, move.either, move.message_id) == ("u-k", when, "u-o", True, "m2")
    assert not reschedules([Utterance("m2", "u-k", "Kim", "no, sorry, can't", T0)], [Utterance("m1", "u-o", "Ola", asked, T0)])


@pytest.mark.parametrize(("lines", "lang", "words", "parties", "not_parties"), [
    ([("Ada", "proposal: every handover, the sender posts a photo of each part in #kit-log"),
      ("Ben", "fine. but it counts from now, not backwards"), ("Cy", "that basically kills my weekend but fine. I'll take it"),
      ("Dee", "honestly that's tight for me, I'm not signing up to that one")], "en", "photo of each part",
     ["u-Ben", "u-Cy"], ["u-Dee"]),
    ([("马丽", "那我提议哈：换货运费6家平摊，王姐先垫，汇演完了统一转给她。大家ok吗"), ("周涛", "行吧，虽然我觉得应该店家出"),
      ("王敏", "我没意见。那我明天中午前把换货寄出去"), ("老孙", "2张就2张，勉强接受"), ("大卫", "我得先问问家里，现在没法答应")],
     "zh", "6家平摊", ["u-周涛", "u-王敏", "u-老孙"], ["u-大卫"]),
])
async def test_a_grudging_yes_is_a_party_and_a_yes_with_a_promise_keeps_both(
        lines: list[tuple[str, str]], lang: str, words: str, parties: list[str], not_parties: list[str]) -> None:
    facts = await _facts(lines, lang=lang, zone="Asia/Shanghai" if lang == "zh" else "Europe/Berlin")
    agreed = {f.subject for f in facts if f.kind is Kind.CONSENSUS and f.attribute in ("agrees to", "同意") and words in f.value}
    assert agreed == set(parties)
    assert not agreed & set(not_parties)
    if lang == "zh":  # "我没意见。那我明天中午前把换货寄出去": agrees, and promises
        assert [f.subject for f in facts if f.kind is Kind.COMMITMENT and "换货" in f.value] == ["u-王敏"]


@pytest.mark.parametrize(("text", "when"), [
    ("I can do it tomorrow morning Jakarta time, tonight I'm at my cousin's wedding", "tomorrow morning"),
    ("tonight I have a wedding, tomorrow morning I can", "tomorrow morning"),
    ("not tonight, tomorrow morning?", "tomorrow morning"),
    ("周五不行，周日吧，我周六才有空", "周日"),
    ("可以，不过下周三我要上班，下周四晚上吧，我这边的时间", "下周四晚上"),
    # a time asked back comes before one that only bounds a state; "no good" turns a time down
    ("thursday's no good, I'm on nights at the hospital till friday morning. saturday 20:00 my time?",
     "saturday 20:00"),
    # the clause where the speaker does it: "5月3号上午我打…", not the date the factory is closed to
    ("明天不行，厂家从明天开始放五一，放到5号。5月3号上午我打老板私人电话，他那个号能打通", "5月3号上午"),
])
def test_a_counter_offer_offers_the_time_it_can(text: str, when: str) -> None:
    from bot.offline.acts import _offered_time

    assert _offered_time(text) == when


async def test_what_the_speaker_cannot_do_is_no_promise_and_moves_the_one_made() -> None:
    from bot.offline.reschedule import reschedules

    facts = await _facts([("老K", "招募帖我今天发不了了，图还没P好，改到周三吧")], lang="zh", zone="Asia/Shanghai")
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]
    [move] = reschedules([Utterance("m1", "u-k", "老K", "招募帖我今天发不了了，图还没P好，改到周三吧", T0)])
    assert move.when == "周三"
    [ask] = reschedules([Utterance("m1", "u-c", "Chloe", "Lena can I move the deck to Saturday 8pm my time instead? the template changed", T0)])
    assert ask.when == "Saturday 8pm"


async def test_taking_a_request_on_with_it_is_the_requests_action_at_the_answers_time() -> None:
    facts = await _facts([("Nora", "Ivan, could you oil the gate hinge and tape a note on it before Saturday?"),
                          ("Ivan", "yep, I'll do it tomorrow after work")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Ivan" and promise.recipient == "u-Nora" and "gate hinge" in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == "Tue"


async def test_a_request_with_a_time_of_its_own_is_taken_on_by_a_yes() -> None:
    facts = await _facts([("Marta", "wasn't Marta before you?"), ("Dana", "Jun, can you send me your shipping address by "
                                                                           "tomorrow? then it goes out this week"),
                          ("Jun", "yep will do")])
    promises = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert [(f.subject, f.recipient) for f in promises] == [("u-Jun", "u-Dana")]
    assert "shipping address" in promises[0].value


@pytest.mark.parametrize(("text", "condition", "action"), [
    ("if I have it by Thursday I'll get the kit in the mail Friday", "if I have it by Thursday", "get the kit in the mail Friday"),
    ("I can clear out the raw files, but only after Keoni confirms he's got them backed up",
     "only after Keoni confirms he's got them backed up", "clear out the raw files"),
    ("once the board approves I'll order the barrels", "once the board approves", "order the barrels"),
    ("as soon as the printer is fixed I'll reprint the flyers", "as soon as the printer is fixed", "reprint the flyers"),
    ("等物业把钥匙给我，我就去开仓库门", "等物业把钥匙给我", "去开仓库门"),
])
def test_a_condition_ends_where_the_promise_begins(text: str, condition: str, action: str) -> None:
    assert condition_of(text) == (condition, action)


async def test_whom_a_deed_goes_to_is_its_recipient() -> None:
    facts = await _facts([("Lena", "the deck needs the new template"), ("Sipho", "who has the orchestration?"),
                          ("Arif", "got it, I'll send the orchestration to Lena by Friday")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Arif" and promise.recipient == "u-Lena"
    facts = await _facts([("许诺", "配器那边怎么样了"), ("小米", "情绪板发江雨了"), ("江雨", "收到，配器我周五前改完发给许诺")],
                         lang="zh", zone="Asia/Shanghai")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-江雨" and promise.recipient == "u-许诺"


@pytest.mark.parametrize(("lines", "lang"), [
    ([("Chloe", "Arif while you're in there, tests?"), ("Arif", "sure, and I'll rewrite the whole backend in Rust overnight too 🙃")], "en"),
    ([("Ingrid", "the dome motor needs a service, 340 USD"), ("Ravi", "I'll totally pay that out of all my observing hours 🙃")], "en"),
    ([("刘芳", "你能不能明天把快递取了"), ("孙浩", "行啊，明天也把月亮摘下来给你🙄")], "zh"),
])
async def test_an_eye_roll_over_a_promise_that_outdoes_itself_is_no_promise(lines: list[tuple[str, str]], lang: str) -> None:
    facts = await _facts(lines, lang=lang, zone="Asia/Shanghai" if lang == "zh" else "Europe/Berlin")
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


async def test_a_grudging_promise_with_an_eye_roll_is_still_one() -> None:
    facts = await _facts([("Nora", "the kitchen is a mess again"), ("Ivan", "ugh fine, I'll clean the kitchen tonight 🙄")])
    assert [f.subject for f in facts if f.kind is Kind.COMMITMENT] == ["u-Ivan"]


@pytest.mark.parametrize("text", [
    "honestly if I had a free weekend I'd rewrite the whole rules doc from scratch",
    "if I were you I'd call the landlord today",
    "if only I could, I'd buy us a new printer",
    # a hedge on a condition: no promise either
    "I might repaint the banner if the rain stops, we'll see. don't hold me to it",
])
async def test_a_wish_on_a_condition_contrary_to_fact_is_no_promise(text: str) -> None:
    facts = await _facts([("Sol", "the rules doc is a mess"), ("Ana", text)])
    assert not [f for f in facts if f.kind is Kind.COMMITMENT and f.subject == "u-Ana"], text


async def test_a_yes_that_names_its_asker_takes_on_that_request_lines_later() -> None:
    lines = [("Harriet", "the dome shutter faulted again. @Aroha can you email the site manager about it by Friday?"),
             ("Yusuf", "Oskar, you're stacking the M83 mosaic, right?"), ("Oskar", "you said you would 😅"),
             ("Yusuf", "fine, tuesday 10pm"), ("Oskar", "tuesday works"), ("Dev", "the autoguider is fixed btw"),
             ("Aroha", "@Harriet yup, will do")]
    facts = await _facts(lines)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT and f.subject == "u-Aroha"]
    assert promise.recipient == "u-Harriet" and "email the site manager" in promise.value
    # a name then no yes ("bruno what the hell") takes nothing on
    facts = await _facts([*lines[:-1], ("Aroha", "Harriet what the hell 😂")])
    assert not [f for f in facts if f.kind is Kind.COMMITMENT and f.subject == "u-Aroha"]


@pytest.mark.parametrize(("lines", "lang"), [
    ([("翠鸟", "提醒一下，新西兰今天开始夏令时，我这边跟你们又差一个小时😵"),
      ("戴胜", "白鹭，下周二排版可能不行，曼谷这边客户临时加急。改周四晚上8点行吗？")], "zh"),
    ([("Kiri", "heads up: clocks change here tonight, I'll be an hour off"),
      ("Ximena", "Teodora, Monday won't work for the hard stop. can it be Wednesday instead, same time?")], "en"),
])
async def test_asking_to_move_ones_own_time_turns_no_proposal_down(lines: list[tuple[str, str]], lang: str) -> None:
    facts = await _facts(lines, lang)
    assert [f for f in facts if f.kind is Kind.CONSENSUS] == []


# --- a vote on a plan of several parts --------------------------------------------------------------------

PLAN_ZH = "趁这次把规矩定下来，以后三条：1）改大纲，三个人都得同意；2）谁拖稿谁请奶茶；3）稿费每月10号前结清。大家看行不行，同意的回个话"
VOTE_ZH = [
    ("小雨", "收到编辑的邮件了，谢谢阿杰"),
    ("阿杰", PLAN_ZH),
    ("小雨", "同意，三条都同意"),
    ("老周", "第一条第三条同意。第二条不同意，拖稿有时候是编辑压着不回"),
    ("木木", "附议👍"),
    ("阿福", "赞成，虽然我只负责封面😂"),
    ("阿杰", "好，第二条老周保留意见，其他人都同意，就先这么定"),
]


async def test_every_vote_on_a_plan_answers_the_plan_and_the_proposer_closes_it() -> None:
    facts = await _facts(VOTE_ZH, "zh")
    agreed = [f for f in facts if f.kind is Kind.CONSENSUS and f.attribute == "同意"]
    # the fifth member's yes, four votes below the plan, still answers it; the proposer's "就先这么定" closes
    # their own plan; "都得同意" and "同意的回个话" inside the plan are no yes of its speaker
    assert {f.subject for f in agreed} >= {"u-小雨", "u-木木", "u-阿福", "u-阿杰"}
    for f in agreed:
        assert "m1" in {s.message_id for s in f.sources}, f  # each cites the plan, none the thank-you before it
        assert "谁拖稿谁请奶茶" in f.value and "同意的回个话" not in f.value, f.value
    # "大家看行不行" is no refusal; 老周's refusal is of the plan
    refused = [f for f in facts if f.kind is Kind.CONSENSUS and f.attribute == "拒绝"]
    assert {f.subject for f in refused} == {"u-老周"}
    assert all("m1" in {s.message_id for s in f.sources} for f in refused)


async def test_a_yes_to_a_plan_put_with_a_bare_ask_agrees_to_the_plan() -> None:
    facts = await _facts([
        ("Quinn", "New house rules: 1) no pushes after 10pm; 2) the on-call person owns rollbacks; 3) changelog "
                  "entries before merge. Everyone ok?"),
        ("Abe", "yes"), ("Rita", "agreed"), ("Tom", "fine by me"),
        ("Lena", "sounds fair, though I mostly just do the docs"),
    ])
    agreed = [f for f in facts if f.kind is Kind.CONSENSUS]
    assert {f.subject for f in agreed} == {"u-Abe", "u-Rita", "u-Tom", "u-Lena"}
    assert all("on-call person owns rollbacks" in f.value and "Everyone ok" not in f.value for f in agreed)


@pytest.mark.parametrize("lines", [
    [("小林", "收到账单了，谢谢小周"), ("小周", "嗯嗯")],  # a thank-you puts nothing to agree to
    [("Maya", "got the invoice, thanks Theo"), ("Theo", "ok")],
    [("王敏", "@和言 小周答应我啥时候把录像收齐来着"), ("周涛", "好")],  # words to Heyan put nothing to a member
    [("Nell", "@heyan what did Theo promise me?"), ("Theo", "sure")],
])
async def test_a_yes_after_thanks_or_words_to_heyan_agrees_to_nothing(lines: list[tuple[str, str]]) -> None:
    facts = await _facts(lines, "zh" if "小" in lines[0][0] or "王" in lines[0][0] else "en")
    assert not [f for f in facts if f.kind is Kind.CONSENSUS], facts


async def test_thanks_after_a_yes_are_not_what_was_agreed() -> None:
    facts = await _facts([("阿May", "那运费我们一人一半，行不行？"), ("老K", "没问题👍 谢谢你提醒")], "zh")
    [agreed] = [f for f in facts if f.kind is Kind.CONSENSUS]
    assert "一人一半" in agreed.value and "谢谢" not in agreed.value


async def test_a_yes_to_some_parts_and_a_no_to_another_is_no_party_to_the_whole() -> None:
    facts = await _facts(VOTE_ZH[1:4], "zh")  # the plan, a yes to all, "第一条第三条同意。第二条不同意…"
    zhou = [f for f in facts if f.kind is Kind.CONSENSUS and f.subject == "u-老周"]
    assert [f.attribute for f in zhou] == ["拒绝"], zhou


def test_a_name_spoken_to_before_a_condition_is_no_part_of_the_promise() -> None:
    assert condition_of("大刘，要是化验出来是出发前就有的病，治疗费我自己出") == ("要是化验出来是出发前就有的病", "治疗费我自己出")
    assert condition_of("Dana, if the board says yes, I'll buy two barrels") == ("if the board says yes", "buy two barrels")


def test_the_time_a_counter_offer_offers_follows_its_yes() -> None:
    from bot.offline.acts import _offered_time

    assert _offered_time("可以，周一晚上10点前，我这边时间。这边银行周五周六不开门。") == "周一晚上10点前"
    assert _offered_time("今天在我妈那，明天早上行吗？") == "明天早上"


def test_a_thing_asked_for_with_when_is_the_deed() -> None:
    from bot.offline.requests import requested_action

    assert requested_action("小叔，你那份寿宴的份子钱什么时候能打过来？我好跟酒楼结账。") == "寿宴的份子钱，打过来"


async def test_a_question_calling_someone_to_account_asks_no_deed() -> None:
    facts = await _facts([("大姑", "阿斌，基金里少了5000块，是你转给酒楼的。谁让你订的？"),
                          ("阿斌", "不订酒楼难道在家里摆？20桌，定金5000，不交就没位子了。")], "zh")
    assert not [f for f in facts if f.kind is Kind.COMMITMENT], facts


async def test_only_the_asker_takes_up_a_counter_offer() -> None:
    """A counter-offer turned one member's request down; a third member's own promise after it is theirs,
    not a yes to the counter ("not me, …" then "I'll email the schedule by Friday noon")."""
    facts = await _facts([("Priya", "can someone water the seedlings on Thursday?"),
                          ("Gus", "can't Thursday, Friday morning I can"),
                          ("Dana", "I'll print the new rota and pin it to the shed by Friday noon")])
    promises = {f.subject: f for f in facts if f.kind is Kind.COMMITMENT}
    assert "u-Dana" in promises and "rota" in promises["u-Dana"].value


@pytest.mark.parametrize("yes", ["🫡", "成，归我了"])
async def test_a_salute_or_taking_it_as_mine_accepts_a_request(yes: str) -> None:
    facts = await _facts([("小林", "阿杜，能不能周四前把场地押金的收据拍给我？"), ("阿杜", yes)], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-阿杜" and promise.recipient == "u-小林" and "收据" in promise.value


async def test_a_yes_that_calls_the_request_them_names_its_thing() -> None:
    facts = await _facts([("Corinne", "Olu, could you proofread chapters 4 and 5 of the zine before the print run?"),
                          ("Olu", "I'll go through them on Sunday evening")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Olu" and "chapters 4 and 5" in promise.value


@pytest.mark.parametrize("text", ["If I win the lottery I'll buy everyone a boat.",
                                  "If I get the promotion I'll pay you back double.",
                                  "README fixed, and if the links still break, let me know",
                                  "表格更新了，链接要是打不开跟我说"])
async def test_a_wish_or_an_ask_to_speak_up_is_no_conditional_promise(text: str) -> None:
    facts = await _facts([("Mina", text)], "zh" if "表格" in text else "en")
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


async def test_a_demand_for_ones_own_money_is_no_promise() -> None:
    facts = await _facts([("琳达", "阿程，我那500块今天就全部还给我，一分不少。")], "zh")
    assert not [f for f in facts if f.kind is Kind.COMMITMENT and f.subject == "u-琳达"]


async def test_a_sum_handed_to_the_listener_and_a_time_after_it_is_one_promise() -> None:
    facts = await _facts([("阿程", "钱的事我理亏。我先从我自己卡里转你300，下周二之前，剩下的等押金退回来再说。")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert "转你300" in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == "Tue"


@pytest.mark.parametrize(("asked", "words"), [
    ("阿哲，那你把实验日志整理一下放到共享盘上，审稿人可能要看。", "实验日志"),
    ("老周，这个周日以前发我一份签到表的原件？", "签到表"),
])
async def test_a_deed_told_to_a_member_by_name_is_asked_of_them(asked: str, words: str) -> None:
    facts = await _facts([("梁老师", asked), ("阿哲" if "阿哲" in asked else "老周", "好的老师")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.recipient == "u-梁老师" and words in promise.value


async def test_a_move_in_the_owners_words_moves_the_promise_and_adds_none(
        tmp_path: Path, redis_url: str, start: Start, clock_at: Callable[[datetime], None]) -> None:
    # "…改成今晚8点前发吧" however the classifier reads it (an offer, a yes): the promise moves, none is added
    clock_at(MONDAY + timedelta(minutes=5))
    rt = await start(settings(tmp_path, redis_url, batch_turns=1), provider=OfflineProvider())

    def line(mid: str, text: str, minutes: int) -> Message:
        return Message(id=mid, scope=THREAD.narrow(user="u-lin"), author_name="林林", text=text,
                       ts=MONDAY + timedelta(minutes=minutes), speaker_zone="Asia/Shanghai")

    await rt.engine.observe(line("m1", "新手班的分组表我今天中午前发出来", 0))
    await rt.drain(60)
    await rt.engine.observe(line("m2", "分组表改成今晚8点前发吧，下午要陪老人去医院", 60))
    await rt.drain(60)
    [table] = await rt.memory.open_commitments(Scope(tenant="slack:T1"))
    assert "分组表" in table.value and table.due_at == datetime(2026, 11, 2, 20, tzinfo=ZoneInfo("Asia/Shanghai"))


async def test_a_refusal_with_an_own_offer_counters_a_demand_made_by_name() -> None:
    facts = await _facts([("大毛", "小鹿，那60块报名费退给我，今天就退"),
                          ("小鹿", "全退不行，大家都是按规矩扣的。我退你一半，30元，下周三前"),
                          ("大毛", "一半就一半吧，周三")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-小鹿" and promise.recipient == "u-大毛" and "一半" in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == "Wed"


async def test_a_want_put_to_a_member_by_name_is_a_request_a_counter_answers() -> None:
    facts = await _facts([("Amara", "Kip I want my name in the credits of the next zine. by friday"),
                          ("Kip", "not friday, the zine is at the printer. I'll put it in the autumn issue instead"),
                          ("Amara", "fine. autumn then")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Kip" and promise.recipient == "u-Amara" and ("credits" in promise.value or "autumn" in promise.value)


async def test_an_if_that_says_how_things_are_is_no_promise() -> None:
    facts = await _facts([("Kwame", "finished with the 3D printer btw, it's free if anyone needs it")])
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


@pytest.mark.parametrize(("lang", "plan", "votes", "yes"), [
    ("en", "Proposal for the rest of the season: 1) every swap goes in #rota with the time in UTC; 2) swaps need "
           "48 hours' notice; 3) two missed shifts and you sit out a week.",
     [("Ana", "1 and 2, yes. 3, no: one bad week and we lose a volunteer."),
      ("Tomi", "3 means I probably lose my Saturday slot, which stings. Still, count me in on 1, 2 and 3."),
      ("Priya", "Yes to the lot. Rule 1 alone would have saved us last month.")],
     {"u-Tomi", "u-Priya"}),
    ("zh", "借这个机会，群里定三条，以后都照这个办：一、换班提前两天说；二、换班写进共享表；三、连续缺两次暂停一周。各位表个态。",
     [("阿哲", "一、二我同意。第三条不行：一个月才排一次班，等不起。"),
      ("小蒋", "三条我都举手。"),
      ("周博", "第一条说的就是我吧……唉，行，我认。")],
     {"u-小蒋", "u-周博"}),
])
async def test_yeses_with_a_remark_are_parties(lang: str, plan: str,
                                                                      votes: list[tuple[str, str]], yes: set[str]) -> None:
    agrees = "agrees to" if lang == "en" else "同意"
    facts = await _facts([("Lead", "这个我认，写得公道。" if lang == "zh" else "fair summary, thanks"), ("Farhan", plan), *votes], lang)
    agreed = [f for f in facts if f.kind is Kind.CONSENSUS and f.attribute == agrees]
    assert all("m1" in {s.message_id for s in f.sources} for f in agreed)  # the plan, not the line before it
    assert {f.subject for f in agreed} == yes  # "1 and 2, yes. 3, no", "一、二我同意。第三条不行": no party to the whole


@pytest.mark.parametrize(("lang", "asked", "taken", "words"), [
    ("en", "Teo, could you book the hall for the spring recital by Friday?", "Aye aye.", "book the hall"),
    ("zh", "老郑，你能在周四前把场地合同扫描发群里吗？", "必须的！", "场地合同"),
])
async def test_a_sure_yes_in_a_few_words_takes_the_request_on(lang: str, asked: str, taken: str, words: str) -> None:
    facts = await _facts([("Maya", asked), ("Teo", taken)], lang)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Teo" and promise.recipient == "u-Maya" and words in promise.value


@pytest.mark.parametrize("brushed", ["再说吧", "maybe later"])
async def test_a_brush_off_takes_nothing_on(brushed: str) -> None:
    facts = await _facts([("Maya", "Teo, could you book the hall for the spring recital by Friday?"), ("Teo", brushed)])
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


@pytest.mark.parametrize(("lang", "asked", "counter", "words", "day"), [
    ("en", "Paulo, refund all three tickets today.",
     "The box office closed refunds yesterday at noon, I can't. Here's my plan: I write to the promoter for a credit "
     "note, Wednesday 6pm Berlin time.", "promoter", "Wed 18:00"),
    ("zh", "阿伟，押金今天全退给我。", "押金已经交给房东了，现在退不了。我这么办：跟房东写个说明，周五晚上8点前发你。", "房东", "Fri 20:00"),
])
async def test_a_plan_put_in_place_of_the_deed_asked_is_a_promise_to_the_asker(
        lang: str, asked: str, counter: str, words: str, day: str) -> None:
    facts = await _facts([("Ines", asked), ("Paulo", counter)], lang)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Paulo" and promise.recipient == "u-Ines" and words in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M") == day


@pytest.mark.parametrize(("lang", "asked", "answer", "words", "day"), [
    ("en", "Jonas, when do I actually get the invoice? Friday?",
     "Friday is too tight, the accountant is away. I can do Monday the 8th", "invoice", "2027-03-08"),
    ("zh", "Jonas，我垫的场地费一共120欧，什么时候能报销？", "下周三中午前给你转，这周在出差。", "给你转", "2027-03-10"),
])
async def test_asking_when_a_deed_reaches_the_asker_asks_for_it(lang: str, asked: str, answer: str, words: str, day: str) -> None:
    facts = await _facts([("Lena", asked), ("Jonas", answer)], lang)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Jonas" and promise.recipient == "u-Lena" and words in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).date().isoformat() == day


async def test_my_plan_after_a_deed_told_by_name_is_a_counter_offer_not_a_plan_for_all() -> None:
    facts = await _facts([("佳宁", "小庄，你今晚就把名单改回去。"),
                          ("小庄", "今晚改不了，要主席团投票。我的方案：明天把原始记录整理出来发群里，晚上9点前。"),
                          ("佳宁", "行，先看记录再说。")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-小庄" and promise.recipient == "u-佳宁" and "原始记录" in promise.value
    assert not [f for f in facts if f.kind is Kind.CONSENSUS and f.attribute == "同意"]


async def test_a_yes_that_says_where_it_comes_from_or_takes_in_the_lot_is_a_party() -> None:
    facts = await _facts([
        ("Omar", "Proposal for the next season, yes or no from each of you: 1) fixtures posted a week ahead; "
                 "2) no benching over a forfeit; 3) board order by rating."),
        ("Lena", "Yes from Lisbon. Rule 2 is overdue anyway."),
        ("Ivo", "3 will hurt me in April, honestly. Whatever, I'm in on the lot."),
    ])
    parties = {f.subject for f in facts if f.kind is Kind.CONSENSUS and "fixtures posted" in f.value}
    assert {"u-Lena", "u-Ivo"} <= parties


@pytest.mark.parametrize("lines", [
    [("Ines", "Marek, did you book the hall yourself? the club usually pays for that"),
     ("Marek", "yeah, 80 euros, receipt's in my inbox")],
    [("阿宝", "小周，场地费你自己付了吗？"), ("小周", "付了，300块，收据在我这")],
])
async def test_a_yes_to_what_someone_already_did_promises_nothing(lines: list[tuple[str, str]]) -> None:
    facts = await _facts(lines, "zh" if "阿宝" in lines[0][0] else "en")
    assert [f.value for f in facts if f.kind is Kind.COMMITMENT] == []


async def test_a_pasted_block_is_no_yes_to_the_request_before_it() -> None:
    facts = await _facts([("Ines", "Marek, and the refund? I'd like it in writing."),
                          ("Marek", "Here's the log:\n```\n$ tail -n 2 payments.log\n2027-02-27 REFUND INES WAIVED BY MEMBER\n```")])
    assert [f for f in facts if f.kind is Kind.COMMITMENT and f.subject == "u-Marek"] == []


async def test_asking_a_promise_to_wait_moves_it_and_makes_none() -> None:
    facts = await _facts([("Ines", "Marek, could the minutes wait until the 12th? I want to add the budget first"),
                          ("Marek", "Of course. The 12th then, by noon.")])
    assert [f.value for f in facts if f.kind is Kind.COMMITMENT and f.subject == "u-Marek"] == []


async def test_a_request_after_lets_not_is_put_to_the_one_it_names() -> None:
    facts = await _facts([("Ines", "Let's not. Marek, can you put the ledger in the shared drive with a short note?"),
                          ("Marek", "Passt.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Marek" and promise.recipient == "u-Ines" and "ledger" in promise.value
    assert not [f for f in facts if f.kind is Kind.CONSENSUS]


async def test_the_deed_asked_politely_is_taken_not_the_fact_checked_before_it() -> None:
    facts = await _facts([("Ines", "ok. Marek, the deposit came back to you on Monday right? send me my half today please"),
                          ("Marek", "yes, today.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Marek" and "half" in promise.value and "deposit came back" not in promise.value


async def test_another_time_asked_for_a_thing_promised_in_the_thread_moves_it() -> None:
    facts = await _facts([("Ines", "Marek could you redo the poster with the new date?"),
                          ("Marek", "yes, Thursday night"),
                          ("Ines", "thanks!"),
                          ("Ines", "sorry to push, the print shop closes early. could the poster be ready Wednesday?"),
                          ("Marek", "ok, Wednesday then, before 8pm")])
    assert len([f for f in facts if f.kind is Kind.COMMITMENT and f.subject == "u-Marek"]) == 1


async def test_a_counter_offer_is_due_at_its_own_time_past_a_time_turned_down_and_one_past() -> None:
    facts = await _facts([("Ines", "Marek, can you send me my half of the deposit today?"),
                          ("Marek", "Today, no. The bank only released it this morning. Sunday, before 6pm my time, "
                                    "your half goes out by transfer.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Marek" and promise.recipient == "u-Ines"
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M") == "Sun 18:00"


async def test_a_request_put_as_xinku_ni_is_taken_on_and_a_possibility_is_no_ask() -> None:
    facts = await _facts([("老周", "阿宝，辛苦你把这次活动的开支表整理一下，谁付了多少都列上。"),
                          ("阿宝", "好。周五晚上8点前发群里。")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-阿宝" and promise.recipient == "u-老周" and "开支表" in promise.value
    facts = await _facts([("老周", "颜色不对，这批不可能是新印的。小林，能把你手上那本拍个封底特写吗？"),
                          ("小林", "冲！")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-小林" and "特写" in promise.value and "不可" not in promise.value


async def test_taking_the_floor_promises_nothing() -> None:
    facts = await _facts([("老周", "到底怎么回事？"), ("阿宝", "我来说吧。")], "zh")
    assert [f.value for f in facts if f.kind is Kind.COMMITMENT] == []


async def test_a_thing_said_clauses_before_will_be_somewhere_is_what_is_promised() -> None:
    facts = await _facts([("Ines", "morning all"),
                          ("Marek", "Since the club liked it, a thank-you card from me as chair, signed by all of us, "
                                    "will be in her mailbox by Friday — she asked about it.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Marek" and "thank-you card" in promise.value and promise.value.startswith("make sure")


async def test_a_no_to_one_clause_in_chinese_refuses_the_proposal_and_is_no_party() -> None:
    facts = await _facts([("老周", "我提两条，以后采购照这个来：其一，换供应商先在群里问；其二，超过300要两个人签字。"),
                          ("阿宝", "两条都同意。"),
                          ("小林", "其一我认。其二不行，太慢了。")], "zh")
    theirs = {f.subject: f for f in facts if f.kind is Kind.CONSENSUS and f.subject != "u-老周"}
    assert theirs["u-阿宝"].attribute == "同意"
    assert theirs["u-小林"].attribute == "拒绝" and "超过300" in theirs["u-小林"].value


async def test_points_put_before_a_colon_are_a_proposal_whatever_opens_the_line() -> None:
    facts = await _facts([("老周", "账大家都看过了，我提两条，以后采购照这个来：其一，换供应商先在群里问；其二，超过300要两个人签字。"),
                          ("阿宝", "两条都同意。"),
                          ("小林", "下周六不行，我出差。其一我认。其二不行，太慢了。")], "zh")
    theirs = {f.subject: f for f in facts if f.kind is Kind.CONSENSUS and f.subject != "u-老周"}
    assert "超过300" in theirs["u-阿宝"].value and theirs["u-小林"].attribute == "拒绝"


async def test_a_deed_asked_of_what_the_listener_runs_is_taken_on_with_its_own_time() -> None:
    facts = await _facts([("Ines", "Marek, did you pay for the hall yourself?"),
                          ("Marek", "yeah, 80 euros, receipt's somewhere. Ines can the club account send that back? no rush"),
                          ("Ines", "Yes it can. Next Thursday, before 9pm — the treasurer only pays out on Thursdays.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Ines" and promise.recipient == "u-Marek"
    assert promise.value.startswith("have the club account send")
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M") == "Thu 21:00"


@pytest.mark.parametrize(("lines", "lang", "deed", "when"), [
    ([("Lena", "Marco — can the shop have the new labels up today?"),
      ("Marco", "labels up today can't happen, the printer's out till Wednesday. thursday, before 6pm Lisbon: a full set "
                "of the new labels v2.1, plus a spare roll for the till"),
      ("Lena", "ok, go.")], "en", "full set of the new labels v2.1", "Thu 18:00"),
    ([("阿花", "小林，今天能把菜单改好吗？"),
      ("小林", "今天不行，今晚要加班。周四晚上八点前：改好的菜单，连同价目表一起发你"),
      ("阿花", "好")], "zh", "改好的菜单", "Thu 20:00"),
])
async def test_a_counter_offer_put_as_a_time_and_a_colon_offers_what_follows(
        lines: list[tuple[str, str]], lang: str, deed: str, when: str) -> None:
    """"<time>: <what>" after turning the ask down is the counter-offer: that deed at that time, the asker's
    yes makes it the offerer's promise to them (not the deed asked for)."""
    facts = await _facts(lines, lang)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == f"u-{lines[1][0]}" and promise.recipient == f"u-{lines[0][0]}", promise
    assert deed in promise.value, promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M") == when


def test_a_head_that_turns_down_or_counts_offers_no_time() -> None:
    from bot.offline.acts import _timed_deed

    assert _timed_deed("All 2,000 today, no: half of them go straight back onto the road.") is None
    assert _timed_deed("Note: the 12th is fine") is None
    assert _timed_deed("Monday, 6pm London: entry amended to the credit line.") == ("Monday, 6pm", "entry amended to the credit line")


@pytest.mark.parametrize(("asked", "taken", "when"), [
    ("Camilo, could the proof sheet come Saturday morning your time instead?",
     "saturday then, before 10am Bogotá. that's 5pm for you. tight but fine", "saturday, before 10am"),
    ("Gareth could the entry be fixed Sunday evening instead of Monday? the newsletter goes out Monday",
     "Fair. Sunday then, before 8pm London — the audit's off by then.", "Sunday, before 8pm"),
])
def test_a_move_asked_by_the_one_owed_is_taken_by_naming_the_time_then(asked: str, taken: str, when: str) -> None:
    """The owner's "<day> then, <hour>", after a nod and before talk, takes the move asked of them: their promise
    moves to the time they name."""
    from bot.offline.reschedule import reschedules

    turns = [Utterance("m1", "u-asker", "Eleni", asked, T0), Utterance("m2", "u-owner", "Camilo", taken, T0 + timedelta(minutes=2))]
    [move] = reschedules(turns[1:], turns[:1])
    assert move.author_id == "u-owner" and move.when == when, move


async def test_i_will_with_a_time_takes_the_request_on_at_that_time() -> None:
    facts = await _facts([("Rosa", "Rūta, please restore my 412 pages to accepted."),
                          ("Rūta", "I will. Thursday the 4th, before 7 in the evening. The batch tool needs an admin first.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Rūta" and promise.recipient == "u-Rosa" and "restore" in promise.value, promise
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %d %H:%M") == "Thu 04 19:00"


async def test_a_request_put_to_one_member_by_name_is_theirs_whatever_everyone_it_names() -> None:
    """"阿凯，帮个忙：把大家交班费的截图整理成一张表…" asks 阿凯 (大家 is whose screenshots): his bare yes is his promise,
    due when the request's own short question asks ("这礼拜五能弄好吗？"), never an agreement of all."""
    facts = await _facts([("林珊", "阿凯，帮个忙：把大家交班费的转账截图整理成一张表，发群文件？这礼拜五能弄好吗？我要对账。"),
                          ("阿凯", "木问题～")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-阿凯" and promise.recipient == "u-林珊" and "截图" in promise.value, promise
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == "Fri"
    assert not [f for f in facts if f.kind is Kind.CONSENSUS]


async def test_give_me_till_a_time_takes_the_request_on_in_its_words() -> None:
    facts = await _facts([("苗苗", "大鹏，你能帮忙把每个同学现在的近照和一句话收齐吗？纪念册后半本要用。"),
                          ("大鹏", "收得齐。给我到周二，这边夜里十点，全打包给你。")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-大鹏" and promise.recipient == "u-苗苗" and "近照" in promise.value, promise
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == "Tue"


def test_a_noun_alone_or_do_at_another_time_is_no_deed_of_a_counter() -> None:
    from bot.offline.acts import _names_a_deed, _points_only

    assert _points_only("全打包给你") and _points_only("报价给你") and not _points_only("房租")
    assert not _names_a_deed("do Thursday, 6pm, all twelve in one call") and not _names_a_deed("make it Friday")
    assert _names_a_deed("get the factory to quote a reprint of just the teal alphas and modifiers")


async def test_a_plan_in_place_of_the_ask_is_the_promise_and_its_move_asked_by_the_one_owed_moves_it() -> None:
    lines = [("Ondřej", "Wei-Ting, I want a full reprint paid out of your margin, and I want it announced to the buyers today."),
             ("Wei-Ting", "A full reprint is nine weeks and about 14k USD, my margin on this run is 4k. It can't happen, not "
                          "honestly. Here's what's realistic: I get the factory to quote a reprint of just the teal alphas and "
                          "modifiers, and the quote is in this channel Friday, 10am Taipei.")]
    facts = await _facts(lines)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.value.startswith("get the factory to quote a reprint") and promise.value.endswith("channel"), promise.value
    from bot.offline.reschedule import reschedules

    turns = [Utterance("m1", "u-o", "Ondřej", "Wei-Ting, can the quote come Monday instead? I'd like the photos attached.", T0),
             Utterance("m2", "u-w", "Wei-Ting", "Monday works. Same 10am, my time, photos attached.", T0 + timedelta(minutes=3))]
    [move] = reschedules(turns[1:], turns[:1])
    assert (move.author_id, move.consent_of, move.either) == ("u-o", "u-w", True), move


@pytest.mark.parametrize(("lines", "lang", "words", "day"), [
    ([("Pasang", "And the drone?"),
      ("Martina", "Ok long one, sorry. The footage synced 14 minutes to my phone 🐬 A cut of that, three minutes or so "
                  "with music, goes to Pasang before Friday, so he has something from his own drone.")], "en", "A cut of that", "Fri"),
    ([("苗苗", "谁有原照片？"),
      ("阿凯", "说到照片，我妈翻出一个铁盒。苗苗要的那几张原照片的扫描件，下周三前会到苗苗邮箱，600dpi的。")], "zh", "扫描件", "Wed"),
])
async def test_a_thing_said_to_reach_a_member_by_a_time_is_the_speakers_promise_to_them(
        lines: list[tuple[str, str]], lang: str, words: str, day: str) -> None:
    facts = await _facts(lines, lang)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == f"u-{lines[1][0]}" and promise.recipient == f"u-{lines[0][0]}" and words in promise.value, promise
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a") == day


@pytest.mark.parametrize("text", [
    "the archive newsletter goes out Monday 9am my time",  # reaches no member
    "the parcel went to Pasang on Monday, he signed for it",  # past
    "Royal Mail says the claim goes to Pasang by Friday",  # someone else's words
    "maybe the cut goes to Pasang by Friday, not sure yet",  # hedged
])
async def test_what_reaches_no_member_or_already_did_or_is_anothers_word_is_no_promise(text: str) -> None:
    facts = await _facts([("Pasang", "And the drone?"), ("Martina", text)])
    assert not [f for f in facts if f.kind is Kind.COMMITMENT], facts


@pytest.mark.parametrize(("lines", "words", "condition"), [
    ([("Nino", "and if they still want their display cut without it? it sits on my spacing work too"),
      ("Tomáš", "Then: if the display licence still goes ahead without the Georgian, a third of the €3,000 is Nino's. "
                "Her spacing is in every weight, she's right about that.")], "a third of the €3,000 is Nino's", "goes ahead"),
    ([("Martina", "where did the rest go?"),
      ("Karl", "Right, then it goes like this: if the owner's reimbursement comes through, the kitty money goes back out "
               "from me, Martina's 120 first and the rest split four ways.")], "kitty money goes back out from me", "reimbursement"),
])
async def test_a_condition_that_gives_something_with_no_ill_is_a_conditional_promise(
        lines: list[tuple[str, str]], words: str, condition: str) -> None:
    facts = await _facts(lines)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == f"u-{lines[1][0]}" and words in promise.value and condition in promise.condition, promise
    assert "spacing" not in promise.value  # the next sentence is no part of it


def test_a_consequence_ends_with_its_sentence() -> None:
    from bot.offline.acts import _in_its_sentence

    text = "我已经写信给Northlight要求改了，他们说下个月董事会再议。要是Northlight同意改合同，英文版的美术版税全归阿泰，我那份也不要。"
    assert _in_its_sentence(text, "要是Northlight同意改合同") == "英文版的美术版税全归阿泰，我那份也不要"
    assert _in_its_sentence("if v1.3 ships, the fix is on me. ok?", "if v1.3 ships") == "the fix is on me"


async def test_a_name_said_as_a_sentence_before_a_deed_asks_that_member() -> None:
    facts = await _facts([("Nino", "Tomáš. write to Ostra and take the Georgian out of whatever you offered them."),
                          ("Tomáš", "Yes. You're right. Friday, before noon Prague time, from the project address.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Tomáš" and promise.recipient == "u-Nino", promise
    assert promise.value.startswith("write to Ostra"), promise.value


def test_rather_than_asks_to_move() -> None:
    from bot.offline.reschedule import asks_to_move

    assert asks_to_move("Rūta, could the restore happen Tuesday rather than Thursday? The export is Wednesday.")


async def test_a_yes_is_due_at_the_time_it_offers_not_at_a_greeting() -> None:
    facts = await _facts([("Ama", "Jonas, could you send the venue the signed rider?"),
                          ("Jonas", "evening all! sure, I can — Thursday morning, before 10 my time. Gigging all Wednesday.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Jonas" and promise.recipient == "u-Ama" and "rider" in promise.value
    assert promise.due_at is not None
    assert promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M") == "Thu 10:00"


async def test_a_conditional_yes_that_takes_a_role_is_a_promise_on_that_condition() -> None:
    facts = await _facts([("Ama", "Kai, could you take the newsletter over from Bea?"),
                          ("Kai", "If Ola keeps doing the photos, yes: the newsletter is mine from May.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Kai" and promise.recipient == "u-Ama" and "newsletter" in promise.value
    assert "Ola keeps doing the photos" in promise.condition


async def test_paying_out_of_ones_own_pocket_on_a_condition_is_a_promise() -> None:
    facts = await _facts([("Ama", "Who pays back the €40 deposit we lost? Nobody asked to book that hall."),
                          ("Kai", "If the venue won't give the deposit back, the €40 goes back in the fund out of my own pocket.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Kai" and "€40" in promise.value and "venue" in promise.condition


@pytest.mark.parametrize(("lines", "to", "words", "due"), [
    # "you" is the member the sentence is said to, by name
    ([("Dana", "did anyone find my spare key?"), ("Ama", "not me"),
      ("Kai", "Long week here. Dana, the spare key comes back to you by courier on Friday, taped inside an envelope.")],
     "u-Dana", "spare key", "Fri 23:59"),
    # or the member whose line it answers
    ([("Dana", "And the deposit comes to me. Today."),
      ("Kai", "Not today, the bank holds it for a few days. By Thursday noon the €60 is in your account.")],
     "u-Dana", "€60", "Thu 12:00"),
])
async def test_a_thing_said_to_reach_you_by_a_time_is_a_promise_to_the_one_spoken_to(
        lines: list[tuple[str, str]], to: str, words: str, due: str) -> None:
    facts = await _facts(lines)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Kai" and promise.recipient == to and words in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M") == due


@pytest.mark.parametrize("yes", ["Va bene.", "Natürlich.", "Claro."])
async def test_a_short_yes_in_any_words_from_the_one_asked_by_name_takes_the_request(yes: str) -> None:
    facts = await _facts([("Ama", "Mika, can you post the minutes in the channel tonight?"), ("Mika", yes)])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Mika" and promise.recipient == "u-Ama" and "minutes" in promise.value


async def test_a_time_and_a_deed_answering_a_request_put_in_a_later_sentence_counter_it() -> None:
    facts = await _facts([("Ama", "Heard the recording. Lea, please ask the radio to drop my interview today."),
                          ("Lea", "Today won't work, their office is closed until Monday. Tuesday, though, before noon Oslo "
                                  "time: a call to the producer asking them to pull the segment.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Lea" and promise.recipient == "u-Ama" and "producer" in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Oslo")).strftime("%a %H:%M") == "Tue 12:00"


async def test_a_deed_asked_with_bei_and_a_short_yes() -> None:
    facts = await _facts([("阿梅", "小唐，你那份会议录音，转老周一份呗？他那天没来。"), ("小唐", "成嘞～")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-小唐" and "录音" in promise.value and "呗" not in promise.value


@pytest.mark.parametrize(("said", "when", "what"), [
    ("Noor, the booklet from the printer slides to the 19th: the paper is late. Sorry.", "the 19th", "the booklet from the printer"),
    ("阿青，海报得推到周五，印厂没纸了。", "周五", "海报"),
    ("Bo, the zine has to slip to the 12th, same time. The printer is late.", "the 12th", "the zine"),
    ("小林，相册得晚两天，改成20号以前寄到你那儿。", "20号以前", ""),
])
def test_a_promise_put_off_in_its_owners_words(said: str, when: str, what: str) -> None:
    from bot.offline.reschedule import reschedules

    [move] = reschedules([Utterance("m2", "u-a", "Ana", said, T0)], [Utterance("m1", "u-b", "Bo", "hi", T0)])
    assert (move.author_id, move.when, move.what) == ("u-a", when, what)


@pytest.mark.parametrize(("asked", "answer", "when"), [
    ("Ana, can the €40 wait till after the 10th? I'm travelling until then.", "The 12th then, before 5pm your time in Lisbon.",
     "Lisbon"),
    ("Ana, could you hold it till Friday the 9th? My bank is switching accounts.", "Friday the 9th it is, before noon.", "Friday"),
])
def test_a_wait_asked_by_the_one_owed_and_taken_with_a_time_moves_the_promise(asked: str, answer: str, when: str) -> None:
    from bot.offline.reschedule import reschedules

    [move] = reschedules([Utterance("m2", "u-a", "Ana", answer, T0)], [Utterance("m1", "u-b", "Bo", asked, T0)])
    assert move.author_id == "u-a" and when in move.when


async def test_what_one_offers_instead_of_a_request_is_made_to_its_asker() -> None:
    facts = await _facts([("小雨", "那你把裙子的钱退我吧，95欧，今天。"),
                          ("阿凯", "钱我退不了，店家不退。我能做的是把那条裙子拿去找裁缝改大，周五以前寄出。")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-阿凯" and promise.recipient == "u-小雨" and "裁缝" in promise.value


async def test_a_request_put_after_a_condition_and_talk_of_we_is_still_put_to_the_member_named() -> None:
    facts = await _facts([("Ama", "ok. what worries me is the mix-up. if somebody sold the wrong seeds we need to know who "
                                  "it was. Mara, can you check your ledger for who bought from you in March?"),
                          ("Mara", "Sí, claro.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Mara" and promise.recipient == "u-Ama" and "ledger" in promise.value


@pytest.mark.parametrize(("said", "to"), [
    ("Long week, sorry. (1) thanks for the patience. (2) for Ivy's reading group: a subtitled recording of the talk, "
     "chapters marked, goes up in #library by the 10th. Her group first.", "u-Ivy"),
    ("Quick one: the cleaned-up budget sheet lands in the shared drive before Friday noon.", ""),
])
async def test_a_thing_put_where_the_group_finds_it_by_a_time_is_a_promise(said: str, to: str) -> None:
    facts = await _facts([("Ivy", "hello all"), ("Kai", said)])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Kai" and promise.recipient == to and promise.due_at is not None


@pytest.mark.parametrize("said", ["The new build goes up on the site every night.",
                                  "It goes up in #news by Friday, the mods decided.",
                                  "Bea's photos went up in #gallery by Monday."])
async def test_a_thing_going_up_without_the_speakers_word_is_no_promise(said: str) -> None:
    facts = await _facts([("Ivy", "hello all"), ("Kai", said)])
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


async def test_a_payment_from_the_shared_fund_on_a_condition_is_the_speakers_promise() -> None:
    facts = await _facts([("Noa", "The festival still hasn't said whether they cover travel."),
                          ("Kai", "Then so nobody worries: unless the festival covers it, Noa's €60 for the van is paid out "
                                  "of the club account.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Kai" and "€60" in promise.value and "festival covers it" in promise.condition


def test_an_event_moved_in_an_agreement_moves_no_promise() -> None:
    from bot.offline.reschedule import reschedules

    said = "so we agree: the launch moves to next Wednesday, Dec 9"
    assert not reschedules([Utterance("m2", "u-a", "Ana", said, T0)], [Utterance("m1", "u-b", "Bo", "hi", T0)])


@pytest.mark.parametrize("yes", ["No sweat 🎚️", "Ndiyo.", "no worries"])
async def test_a_few_words_from_the_member_a_request_names_take_it_on(yes: str) -> None:
    facts = await _facts([("Dewi", "Zain, one more thing: could you put the 24-bit masters in the shared folder? She wants "
                                   "to time the J-card."), ("Zain", yes)])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Zain" and "masters" in promise.value


@pytest.mark.parametrize("said", ["hmm", "lol", "Obrigada Zain ❤️", "thanks!"])
async def test_a_sound_or_a_thank_you_takes_nothing_on(said: str) -> None:
    facts = await _facts([("Dewi", "Zain, could you put the 24-bit masters in the shared folder?"), ("Zain", said)])
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


async def test_a_deed_told_to_the_last_speaker_and_answered_with_a_time_is_their_promise() -> None:
    facts = await _facts([("Luis", "...yeah. I renamed them myself before I pasted that. Cheap move. Sorry, Dewi."),
                          ("Dewi", "Then put my name on the track page. That's all I'm asking."),
                          ("Luis", "Fair to ask. Saturday, before noon my time: the track page names your kit, with a link.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Luis" and promise.recipient == "u-Dewi" and "track page" in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M") == "Sat 12:00"


async def test_what_is_possible_instead_keeps_its_own_time() -> None:
    facts = await _facts([("Mele", "Kadri, pull it from the store today. All of it."),
                          ("Kadri", "Today isn't in my hands: a takedown goes through their review. Here is what's possible: "
                                    "your uncropped cover swapped in on every store, by Sunday, before 9pm.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Kadri" and promise.recipient == "u-Mele" and "uncropped cover" in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M") == "Sun 21:00"


@pytest.mark.parametrize("said", ["投的是初剪版，截止太赶，我就先垫了图库音乐，署名也是随手填的。",
                                  "⑵不认：按字数图数分，我一个人算不过来，也不想背这个锅。", "我把主线写了八个月，你们谁问过我？"])
async def test_what_was_done_or_cannot_be_done_is_no_promise(said: str) -> None:
    facts = await _facts([("甲", "大家说说吧"), ("乙", said)], "zh")
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


async def test_a_promise_in_a_numbered_list_after_a_condition_keeps_no_condition() -> None:
    facts = await _facts([("Mele", "Why is it on the store??"),
                          ("Zain", "Some practical things 🙂 1) the uploads are fine. 2) if the loudness numbers bother anyone, "
                                   "ignore the meter in their app. 3) Mele, for your radio show on the 30th: a continuous mix "
                                   "of the whole comp lands in your inbox by November 20th. 4) please nobody rename the folders.")])
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-Zain" and promise.recipient == "u-Mele" and "continuous mix" in promise.value
    assert not promise.condition and promise.due_at is not None and promise.due_at.day == 20


async def test_a_slang_yes_takes_the_requests_deed_for_the_member_it_reaches() -> None:
    facts = await _facts([("阿麦", "我等着对音乐。"), ("小秋", "石头，那批素材的场记表能发给阿麦一份吗？他要按镜头重新对音乐。"),
                          ("石头", "没毛病，我来")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-石头" and promise.recipient == "u-阿麦" and "场记表" in promise.value


def test_a_time_taken_with_still_and_its_clock_moves_the_promise() -> None:
    from bot.offline.reschedule import reschedules

    asked = Utterance("m1", "u-m", "Mele", "Kadri, change of plan on my side: I'd rather the new cover goes up after the "
                                           "cassette photos. Can it be Friday the 27th instead?", T0)
    [move] = reschedules([Utterance("m2", "u-k", "Kadri", "Friday the 27th it is, still before 9pm Tallinn.",
                                    T0 + timedelta(minutes=5))], [asked])
    assert move.author_id == "u-k" and move.when.startswith("Friday the 27th") and "9pm" in move.when


async def test_a_counter_with_its_time_in_clauses_of_its_own_then_the_deed() -> None:
    facts = await _facts([("小满", "大熊，二季度分红今天能打吗？拖了快两个月了。"),
                          ("大熊", "今天打不了，银行对外汇款要三个工作日。下周二，圣地亚哥时间晚上六点以前，每人四千二，打到各自卡上。")], "zh")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert promise.subject == "u-大熊" and promise.recipient == "u-小满" and "四千二" in promise.value
    assert promise.due_at is not None and promise.due_at.astimezone(ZoneInfo("America/Santiago")).strftime("%a %H:%M") == "Tue 18:00"


async def test_a_yes_to_a_span_asked_with_its_topic_takes_no_new_promise() -> None:
    facts = await _facts([("小满", "大熊，二季度分红今天能打吗？"), ("大熊", "行，周五晚上六点以前打到你卡上。"),
                          ("小满", "大熊，分红能不能往后挪两天？我这张卡在换。"), ("大熊", "行，周日，还是晚上六点以前。")], "zh")
    assert len([f for f in facts if f.kind is Kind.COMMITMENT]) == 1
