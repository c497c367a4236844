"""Promises as people type them (issue 20, done-when): a preamble or a concession first, no subject, the
deadline or the object first, a tag question — each kept as the speaker's commitment; lookalikes (past,
reported, sarcastic, a threat, a state) are not. The corpus figures are a regression bar; the held-out
parts' first figures are in docs/BENCHMARKS.md."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from adapters.bench.quality.extraction import load_corpus, score, score_corpus_trigger
from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.extraction.triggers import fact_bearing
from bot.models import Message
from bot.offline.clauses import core
from bot.offline.rules import MAX_MESSAGE_CHARS, extract_rules
from bot.text.duetime import _pick, resolve_due
from memory.models import Fact, Kind, Scope

EVERYDAY = Path(__file__).parent / "data" / "extraction_corpus_everyday.jsonl"
NY = ZoneInfo("America/New_York")
SH = ZoneInfo("Asia/Shanghai")
T0 = datetime(2026, 11, 4, 10, 0)  # a Wednesday


def facts(text: str, *, tz: ZoneInfo = NY, context: tuple[tuple[str, str, str], ...] = ()) -> list[Fact]:
    ts = T0.replace(tzinfo=tz)
    earlier = [Utterance(f"c{i}", uid, name, said, ts - timedelta(minutes=5)) for i, (uid, name, said) in enumerate(context)]
    turn = Utterance("m1", "u-me", "Sam", text, ts)
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    request = ExtractionRequest("t", "s", [turn], earlier, lang, str(tz))  # type: ignore[arg-type]
    return to_facts(request, extract_rules(request), now=ts)


def commitments(text: str, **kwargs: object) -> list[Fact]:
    return [f for f in facts(text, **kwargs) if f.kind is Kind.COMMITMENT]  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "due"), [
    ("Note to self: I'll renew the parking pass on Thursday.", datetime(2026, 11, 5, 23, 59)),
    ("For what it's worth I'm going to return the drill tomorrow.", datetime(2026, 11, 5, 23, 59)),
    ("I don't remember the address but I'll text it to you in ten minutes.", datetime(2026, 11, 4, 10, 10)),
    ("I can't promise the whole amount, but I'll send 100 today.", datetime(2026, 11, 4, 23, 59)),
    ("ugh totally forgot!! will send the tax docs tonight I swear", datetime(2026, 11, 4, 21, 0)),
    ("Sorry about the wait, will pay you back on Friday.", datetime(2026, 11, 6, 23, 59)),
    ("Planning to pay the rest next Friday.", datetime(2026, 11, 13, 23, 59)),
    ("Tomorrow morning I'm dropping the keys in your mailbox.", datetime(2026, 11, 5, 12, 0)),
    ("By Monday you'll have the keys back.", datetime(2026, 11, 9, 23, 59)),
    ("on it, will have an answer by lunch", datetime(2026, 11, 4, 12, 0)),
    ("I'll pay you back Friday, OK?", datetime(2026, 11, 6, 23, 59)),
    ("First thing tomorrow, I'll move the car.", datetime(2026, 11, 5, 23, 59)),
    ("I won't forget this time: the cake, Friday.", datetime(2026, 11, 6, 23, 59)),
    ("You'll get your money back tonight, I promise.", datetime(2026, 11, 4, 21, 0)),
    ("I'm on bin duty tomorrow.", datetime(2026, 11, 5, 23, 59)),
])
def test_english_everyday_promises(text: str, due: datetime) -> None:
    found = commitments(text)
    assert len(found) == 1, (text, found)
    assert found[0].subject == "u-me"
    assert found[0].due_at == due.replace(tzinfo=NY), (text, found[0].due_at)


@pytest.mark.parametrize(("text", "due"), [
    ("记一下，我下周二把押金退你。", datetime(2026, 11, 10, 23, 59)),
    ("说好了啊，明天我请你吃饭。", datetime(2026, 11, 5, 23, 59)),
    ("老实说，我周末会把房间收拾干净。", datetime(2026, 11, 8, 23, 59)),
    ("我记住了，下个月15号之前把房租补上。", datetime(2026, 12, 15, 23, 59)),
    ("是我的问题，周五前我重写一份。", datetime(2026, 11, 6, 23, 59)),
    ("报告我明天交。", datetime(2026, 11, 5, 23, 59)),
    ("你的书我明天带回来。", datetime(2026, 11, 5, 23, 59)),
    ("录音我明天重新录。", datetime(2026, 11, 5, 23, 59)),
    ("下周一之前补上。", datetime(2026, 11, 9, 23, 59)),
    ("我今晚把垃圾倒了。", datetime(2026, 11, 4, 21, 0)),
    ("我来打扫厨房，今天之内搞定。", datetime(2026, 11, 4, 23, 59)),
    ("这钱我肯定会还，月底前。", datetime(2026, 11, 30, 23, 59)),
    ("我下周一把钱还你，行不行？", datetime(2026, 11, 9, 23, 59)),
    ("晚点我把投票结果统计一下，明天发群里。", datetime(2026, 11, 5, 23, 59)),
])
def test_chinese_everyday_promises(text: str, due: datetime) -> None:
    found = commitments(text, tz=SH)
    assert len(found) == 1, (text, found)
    assert found[0].subject == "u-me"
    assert found[0].due_at == due.replace(tzinfo=SH), (text, found[0].due_at)


def test_a_promise_after_a_request_with_no_subject() -> None:
    found = commitments("收到，今晚发你。", tz=SH, context=(("u-x", "赵敏", "合同发我一下。"),))
    assert len(found) == 1 and found[0].subject == "u-me" and found[0].due_at is not None


@pytest.mark.parametrize("text", [
    "I'm going to be late again today, sorry.",
    "I'm going to the gym now.",
    "I'll be home around 7.",
    "Sure, I'll just pay for everything then, as usual.",
    "Yeah right, like I'm going to pay for a window I didn't break.",
    "I was going to bring it back, then you moved out.",
    "Mia is going to bring the speakers.",
    "Gonna level with you, I didn't like how that went.",
    "Let me finish what I was saying.",
    "Bob: I'll pay Friday",
    "我下午在开会，晚点再聊。",
    "我从来没说过要赔钱。",
    "我明天会很忙。",
    "他明天把钱还你。",
    "他说，明天把钱还我。",
    "你要是再这样，我就搬走。",
    "我们周末再商量吧。",
    "我去年答应过每周打扫一次，后来搬走了。",
    "记一下：水费上个月是我付的。",
    "张伟：我周五还钱",
    "我觉得周五之前搞不定。",
    "I'll never get that hour back.",
])
def test_lookalikes_are_not_the_speakers_promise(text: str) -> None:
    tz = SH if any("\u4e00" <= ch <= "\u9fff" for ch in text) else NY
    assert commitments(text, tz=tz) == [], text


@pytest.mark.parametrize("text", ["我不会告诉别人的。", "I won't tell anyone, promise."])
def test_not_doing_what_the_listener_fears_is_a_promise_not_a_refusal(text: str) -> None:
    found = facts(text, tz=SH if "我" in text else NY)
    assert [f.kind for f in found] == [Kind.COMMITMENT], found


def test_sarcasm_can_refuse() -> None:
    found = facts("Yeah right, like I'm going to pay for a window I didn't break.")
    assert [f.attribute for f in found if f.kind is Kind.CONSENSUS] == ["refuses"]


@pytest.mark.parametrize(("text", "due"), [
    ("下个月15号之前", datetime(2026, 12, 15, 23, 59)),
    ("这周的垃圾", datetime(2026, 11, 8, 23, 59)),
    ("this week", datetime(2026, 11, 8, 23, 59)),
    ("月中之前", datetime(2026, 11, 15, 23, 59)),
    ("这个月", datetime(2026, 11, 30, 23, 59)),
    ("within the hour", datetime(2026, 11, 4, 11, 0)),
    ("around 6", datetime(2026, 11, 4, 18, 0)),
    ("tonite", datetime(2026, 11, 4, 21, 0)),
    ("gonna pay u back this wknd", datetime(2026, 11, 8, 23, 59)),
])
def test_new_due_words(text: str, due: datetime) -> None:
    assert resolve_due(text, T0.replace(tzinfo=SH), SH) == due.replace(tzinfo=SH)


def test_first_time_is_not_one_oclock() -> None:
    assert resolve_due("有结果第一时间告诉你", T0.replace(tzinfo=SH), SH) is None


def _message(text: str) -> Message:
    return Message(id="m", scope=Scope(tenant="t", session="s", user="u"), author_name="Sam", text=text,
                   ts=T0.replace(tzinfo=NY))


@pytest.mark.parametrize(("text", "sent"), [
    ("will send the tax docs tonight I swear", True),
    ("Just for the record I'm going to return the drill tomorrow.", True),
    ("下周一之前补上。", True),
    ("I can't make it tomorrow.", False),
    ("Sure, I'll just pay for everything then, as usual.", False),
    ("I was gonna text you but my phone died.", False),
])
def test_trigger_reads_the_same_shapes(text: str, sent: bool) -> None:
    assert fact_bearing(_message(text)) is sent


def test_everyday_corpus_parts_hold() -> None:
    """Every part tuned on is a regression bar (each held-out part was measured once before any tuning
    on it: docs/BENCHMARKS.md keeps each part's first figures)."""
    rows = load_corpus(EVERYDAY)
    assert {r.split for r in rows} >= {"dev", "heldout", "heldout2", "heldout3", "heldout4"}
    # the trigger's bar on held out 4 is lower: its misses are requests ("你查一下"), not promises
    for part, trigger_bar in (("dev", 0.95), ("heldout", 0.95), ("heldout2", 0.95), ("heldout3", 0.95), ("heldout4", 0.88)):
        chosen = [r for r in rows if r.split == part]
        report = score(chosen)
        assert report.precision("commitment") >= 0.98, (part, report.misses)
        assert report.recall("commitment") >= 0.95, (part, report.misses)
        assert report.due_accuracy >= 0.97, (part, report.misses)
        assert report.non_speaker_commitments == 0
        trigger = score_corpus_trigger(chosen)
        assert trigger.recall >= trigger_bar, (part, trigger.misses)
    assert score(rows).non_speaker_commitments == 0  # every part: nobody else is ever bound


def _text(size: int) -> str:
    parts: list[str] = []
    i = 0
    while sum(map(len, parts)) < size:
        i += 1
        parts.append(f"Note to self: I'll bring cable {i} tomorrow, but I'll send invoice {i} by EOD, will pay {i} tonight. "
                     f"记一下：钥匙{i}我明天还你，下个月{i % 28 + 1}号之前把房租补上，说好了，周五前我重写第{i}份。 ")
    return "".join(parts)[:size]


def _cpu(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        _pick.cache_clear()
        core.cache_clear()
        started = time.process_time()
        extract_rules(ExtractionRequest("t", "s", [Utterance("m", "u", "Sam", text, T0.replace(tzinfo=NY))]))
        best = min(best, time.process_time() - started)
    return best


def test_new_shapes_stay_linear() -> None:
    """CPU-time ratios (DESIGN.md §7): preamble, concession and topic splits must not rescan the message."""
    small, middle, large = _cpu(_text(10_000)), _cpu(_text(MAX_MESSAGE_CHARS)), _cpu(_text(200_000))
    assert middle < 10 * small
    assert large < 20 * small
