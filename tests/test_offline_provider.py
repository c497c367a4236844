"""OfflineProvider behaviour: classify, rewrite, reply and summarize, in both languages."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.llm.base import MediatorProvider, ReplyRequest
from bot.models import Stage
from bot.offline import OfflineProvider
from bot.offline.templates import parse_summary
from bot.text.lang import detect_lang, session_lang
from memory.models import Fact, Kind, Summary

TZ = "Asia/Shanghai"
T0 = datetime(2026, 11, 3, 10, 0, tzinfo=ZoneInfo(TZ))  # Tuesday 3 Nov
LATER = datetime(2026, 11, 10, 10, 0, tzinfo=ZoneInfo(TZ))
PEOPLE = {"u1": "张伟", "u2": "李娜"}

ZH_TURNS = [
    Utterance("m1", "u1", "张伟", "我会在周五前交草稿。", T0),
    Utterance("m2", "u2", "李娜", "我很生气！我要求全额退款。", T0 + timedelta(minutes=5)),
    Utterance("m3", "u1", "张伟", "要不我们各退一步，退一半？", T0 + timedelta(minutes=6)),
    Utterance("m4", "u2", "李娜", "好的，就这么办", T0 + timedelta(minutes=7)),
    Utterance("m5", "u1", "张伟", "不行，我拒绝赔偿", T0 + timedelta(minutes=8)),
]


@pytest.fixture
def provider() -> OfflineProvider:
    return OfflineProvider()


async def zh_facts(provider: OfflineProvider) -> list[Fact]:
    request = ExtractionRequest("discord:1", "s1", ZH_TURNS, lang="zh", timezone=TZ)
    return to_facts(request, await provider.extract(request), now=T0)


def test_implements_the_port(provider: OfflineProvider) -> None:
    port: MediatorProvider = provider
    assert port.name == "offline"


@pytest.mark.parametrize(
    ("text", "emotion", "intent"),
    [
        ("我很生气！！你总是这样", "angry", "complaint"),
        ("I'm so disappointed in you", "hurt", "complaint"),
        ("我有点担心进度", "anxious", "complaint"),
        ("I'm not angry, just tell me when", "calm", "statement"),
        ("我要求全额退款", "calm", "demand"),
        ("How about we split it?", "calm", "proposal"),
        ("OK, deal", "calm", "agreement"),
        ("好的，就这么办", "calm", "agreement"),
        ("不行，我不同意", "calm", "refusal"),
        ("No way.", "calm", "refusal"),
        ("草稿什么时候交？", "calm", "question"),
        ("谢谢，再见", "calm", "closing"),
        ("The meeting was on Monday", "calm", "statement"),
    ],
)
async def test_classify(provider: OfflineProvider, text: str, emotion: str, intent: str) -> None:
    result = await provider.classify(Utterance("x", "u1", "张伟", text, T0), [], detect_lang(text))
    assert (result.emotion, result.intent) == (emotion, intent)
    assert (result.intensity > 0) == (emotion != "calm")


async def test_classify_intensity_grows_with_shouting(provider: OfflineProvider) -> None:
    calm = await provider.classify(Utterance("x", "u", "n", "I'm angry", T0), [], "en")
    loud = await provider.classify(Utterance("x", "u", "n", "I'm FURIOUS and fed up!!", T0), [], "en")
    assert 0 < calm.intensity < loud.intensity <= 1.0


async def test_rewrite_keeps_turn_and_adds_at_most_three(provider: OfflineProvider) -> None:
    turn = Utterance("q", "u2", "李娜", "草稿呢？他答应过周五前交的", LATER)
    queries = await provider.rewrite(turn, ZH_TURNS, "zh")
    assert queries[0] == turn.text
    assert 2 <= len(queries) <= 4 and len(set(queries)) == len(queries)
    assert any("草稿" in q and q != turn.text for q in queries)
    en = await provider.rewrite(
        Utterance("q", "b", "Bob", "Where is the draft you promised?", LATER), [], "en"
    )
    assert en[0] == "Where is the draft you promised?"
    assert "draft promised" in en[1:] and all(len(q) for q in en)


async def test_reply_in_chinese_answers_what_was_asked(provider: OfflineProvider) -> None:
    facts = await zh_facts(provider)
    commitments = [f for f in facts if f.kind is Kind.COMMITMENT]
    others = [f for f in facts if f.kind is not Kind.COMMITMENT]
    def ask(text: str) -> ReplyRequest:
        return ReplyRequest(
            lang="zh",
            stage=Stage.EXPLORING,
            turn=Utterance("q", "u2", "李娜", text, T0 + timedelta(hours=1)),
            facts=[commitments[0], *others],
            open_commitments=commitments,
            participants=PEOPLE,
            timezone=TZ,
        )

    when = await provider.reply(ask("草稿到底什么时候交？"))
    assert when == "11月3日，张伟答应在11月6日周五（Asia/Shanghai）前交草稿。"  # the time names its zone
    overview = await provider.reply(ask("和言，帮我们总结一下现在的情况。"))
    assert detect_lang(overview) == "zh"
    assert "11月3日，张伟提议“要不我们各退一步，退一半”，李娜表示同意" in overview  # both parties
    assert "李娜希望全额退款" in overview and "张伟答应在11月6日周五（Asia/Shanghai）前交草稿" in overview
    assert overview.count("交草稿") == 1  # the commitment is both recalled and open: named once
    assert len(overview.splitlines()) <= 6


async def test_reply_flags_overdue_commitment(provider: OfflineProvider) -> None:
    facts = await zh_facts(provider)
    commitments = [f for f in facts if f.kind is Kind.COMMITMENT]
    turn = Utterance("q", "u2", "李娜", "和言，还有什么没完成的？", LATER)
    text = await provider.reply(
        ReplyRequest(
            "zh", Stage.GATHERING, turn, open_commitments=commitments, participants=PEOPLE, timezone=TZ
        )
    )
    assert "张伟答应在11月6日周五（Asia/Shanghai）前交草稿（已逾期，完成了吗？）" in text


async def test_reply_in_english_with_dates_in_tenant_zone(provider: OfflineProvider) -> None:
    request = ExtractionRequest(
        "discord:1",
        "s1",
        [
            Utterance(
                "e1",
                "a",
                "Zhang Wei",
                "I'll send the draft by Friday.",
                datetime(2026, 11, 2, 20, 0, tzinfo=ZoneInfo("UTC")),
            )
        ],
        lang="en",
        timezone=TZ,
    )
    [fact] = to_facts(request, await provider.extract(request), now=T0)
    turn = Utterance("q", "b", "Lina", "Any news on the draft?", T0)
    text = await provider.reply(
        ReplyRequest("en", Stage.GATHERING, turn, facts=[fact], participants={"a": "Zhang Wei"}, timezone=TZ)
    )
    # 20:00 UTC on 2 Nov is 3 Nov in Shanghai; "Friday" said on Monday 2 Nov is Fri 6 Nov there
    assert text == "On 3 Nov, Zhang Wei promised to send the draft by Fri 6 Nov (Asia/Shanghai)."


async def test_reply_marks_claims_as_unverified(provider: OfflineProvider) -> None:
    request = ExtractionRequest(
        "t", "s", [Utterance("c", "b", "Lina", "He said he'd refund me", T0)], lang="en", timezone=TZ
    )
    facts = to_facts(request, await provider.extract(request), now=T0)
    turn = Utterance("q", "b", "Lina", "what did I say about the refund?", T0)
    text = await provider.reply(ReplyRequest("en", Stage.GATHERING, turn, facts=facts, timezone=TZ))
    assert text == "On 3 Nov, Lina said: “He said he'd refund me” (Lina's account, not verified)."


async def test_summarize_sections_and_carry_over(provider: OfflineProvider) -> None:
    text = await provider.summarize(ZH_TURNS, None, "zh")
    sections = parse_summary(text)
    assert sections["issues"] == ["李娜希望：全额退款"]
    assert sections["agreed"] == ["李娜同意：我们各退一步，退一半"]
    assert "张伟不接受：赔偿" in sections["differences"]
    assert sections["next"] == ["张伟：周五前交草稿"]
    previous = Summary(tenant="t", session="s", text=text, lang="zh")
    more = [Utterance("m6", "u2", "李娜", "我明天把收据发给你", T0 + timedelta(days=1))]
    again = parse_summary(await provider.summarize(more, previous, "zh"))
    assert again["issues"] == sections["issues"]
    assert again["next"][0] == "张伟：周五前交草稿" and again["next"][1].startswith("李娜：明天")


async def test_summarize_english_and_empty(provider: OfflineProvider) -> None:
    turns = [
        Utterance("e1", "a", "Alice", "I want a full refund.", T0),
        Utterance("e2", "b", "Bob", "I'll pay half by Friday.", T0),
    ]
    text = await provider.summarize(turns, None, "en")
    assert text.startswith("Issues:\n- Alice wants a full refund")
    assert "Next steps:\n- Bob: pay half by Friday" in text
    assert "Agreed:\n- (none yet)" in text
    empty = await provider.summarize([], None, "zh")
    assert "争议要点：\n- （暂无）" in empty


def test_lang_detection() -> None:
    assert detect_lang("我觉得这个 deadline 不合理") == "zh"
    assert detect_lang("张伟 said he'd refund me") == "en"
    assert detect_lang("👍") == "en" and detect_lang("👍", default="zh") == "zh"
    assert session_lang(["我们周五前交草稿吧，大家同意吗", "ok", "thx"]) == "zh"


async def test_summarize_keeps_gist_of_a_foreign_layout(provider: OfflineProvider) -> None:
    previous = Summary(
        tenant="t", session="s", text="They argued about the draft.\nBob wants money.", lang="en"
    )
    text = await provider.summarize([], previous, "en")
    assert "- Earlier: They argued about the draft. Bob wants money." in text


async def test_empty_structured_summary_is_carried_not_nested() -> None:
    from datetime import UTC, datetime

    from bot.extraction.candidates import Utterance
    from bot.offline.provider import OfflineProvider
    from bot.offline.templates import is_structured, parse_summary
    from memory.models import Summary

    provider = OfflineProvider()
    chat = [Utterance("m1", "u-li", "李娜", "草稿我还在改。", datetime(2026, 11, 4, 10, tzinfo=UTC))]
    empty = await provider.summarize(chat, None, "zh")
    assert is_structured(empty) and not any(parse_summary(empty).values())
    again = await provider.summarize(chat, Summary(tenant="t", session="s", text=empty, lang="zh"), "en")
    assert not any(parse_summary(again).values())  # no "此前：争议要点：…" item nested inside
    assert not is_structured("We talked about the refund.")


async def test_a_sliding_window_is_summarized_once_per_message() -> None:
    """The summary job runs on the last messages of a session each time; a message read for the
    previous summary is not read again: a promise trimmed from "next steps" (the latest six are kept)
    stays out, and the steps keep the order they were promised in. A message edited since, or a
    summary this provider did not write, is read again in full."""
    provider = OfflineProvider()
    said = [Utterance(f"p{i}", "b", "Bob", f"I'll send report {i} by Friday.", T0 + timedelta(minutes=i))
            for i in range(1, 10)]
    first = await provider.summarize(said[:8], None, "en")
    assert parse_summary(first)["next"] == [f"Bob: send report {i} by Friday" for i in range(3, 9)]
    previous = Summary(tenant="t", session="s", text=first, lang="en")
    second = await provider.summarize(said[1:9], previous, "en")  # the window moved on by one
    assert parse_summary(second)["next"] == [f"Bob: send report {i} by Friday" for i in range(4, 10)]

    edited = [*said[1:8], Utterance("p9", "b", "Bob", "I'll send the invoice by Friday.", said[8].ts)]
    third = await provider.summarize(edited, Summary(tenant="t", session="s", text=second, lang="en"), "en")
    assert parse_summary(third)["next"][-1] == "Bob: send the invoice by Friday"
    # another process's summary (nothing remembered of it): the window is read in full, as before
    elsewhere = await OfflineProvider().summarize(said[1:9], previous, "en")
    assert "Bob: send report 1 by Friday" not in parse_summary(elsewhere)["next"]
    assert "Bob: send report 2 by Friday" in parse_summary(elsewhere)["next"]
