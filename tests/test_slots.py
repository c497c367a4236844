"""Issue 10: every claim, want, feeling and agreement of a speaker keeps its own record; a restated
one updates nothing; the offline rules and an LLM give a statement the same record, so running
extraction again is a no-op; a promise whose due time changes is a new version of one record."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance, to_facts
from bot.llm.schemas import ExtractionOut, FactOut
from bot.offline.rules import extract_rules
from memory.consolidation import Action, consolidate
from memory.models import Fact, Kind

TZ = "Asia/Shanghai"
T0 = datetime(2026, 11, 4, 10, 0, tzinfo=ZoneInfo(TZ))


def said(*lines: tuple[str, str, str]) -> ExtractionRequest:
    turns = [Utterance(f"m{i}", uid, name, text, T0 + timedelta(minutes=i)) for i, (uid, name, text) in enumerate(lines)]
    return ExtractionRequest("discord:1", "s1", turns, lang="zh", timezone=TZ)


def stored(facts: list[Fact], memory: dict[str, Fact] | None = None) -> tuple[dict[str, Fact], list[Action]]:
    """Consolidate ``facts`` one by one into ``memory`` (id → record), as MemoryService.remember does."""
    memory = dict(memory or {})
    actions = []
    for fact in facts:
        outcome = consolidate(memory.get(fact.id), fact, T0)
        memory[outcome.fact.id] = outcome.fact
        actions.append(outcome.action)
    return memory, actions


def offline(request: ExtractionRequest) -> list[Fact]:
    return to_facts(request, extract_rules(request), now=T0)


def test_two_grievances_of_one_speaker_are_two_records() -> None:
    request = said(("u-zhang", "张伟", "你上周又没把设计稿发给我。"), ("u-zhang", "张伟", "你从来不打扫卫生间。"))
    memory, actions = stored(offline(request))
    claims = [f for f in memory.values() if f.attribute == "claims"]
    assert actions == [Action.INSERT, Action.INSERT] and len(claims) == 2
    assert {f.value for f in claims} == {"你上周又没把设计稿发给我", "你从来不打扫卫生间"}


def test_wants_feelings_and_agreements_are_kept_apart() -> None:
    request = said(
        ("u-ann", "Ann", "I want a written rota."), ("u-ann", "Ann", "I want my share of the deposit back."),
        ("u-ann", "Ann", "I'm worried about the deposit."), ("u-ann", "Ann", "I'm so angry right now."),
        ("u-ann", "Ann", "I agree to split the internet bill."), ("u-ann", "Ann", "I agree to the new rota."),
    )
    memory, _ = stored(offline(request))
    kinds = sorted(f.kind.value for f in memory.values())
    assert kinds == ["consensus", "consensus", "demand", "demand", "emotion", "emotion"]


def test_a_restated_statement_is_the_same_record() -> None:
    first = said(("u-zhang", "张伟", "你上周又没把设计稿发给我。"), ("u-ann", "Ann", "I want a written rota."))
    again = ExtractionRequest("discord:1", "s1", [
        Utterance("m7", "u-zhang", "张伟", "你上周又没把设计稿发给我！！", T0 + timedelta(hours=1)),
        Utterance("m8", "u-ann", "Ann", "I really want a written rota!", T0 + timedelta(hours=1)),
    ], lang="zh", timezone=TZ)
    memory, _ = stored(offline(first))
    memory, actions = stored(offline(again), memory)
    assert len(memory) == 2 and all(a in (Action.NOOP, Action.UPDATE) for a in actions)


def test_running_extraction_again_is_a_noop() -> None:
    request = said(("u-li", "李娜", "我保证明天下午三点前把草稿发给你。我很生气。我希望以后提前说。"),
                   ("u-zhang", "张伟", "他说他会退款给我。好的，就这么办。"))
    memory, first = stored(offline(request))
    assert set(first) == {Action.INSERT}
    again, second = stored(offline(request), memory)
    assert set(second) == {Action.NOOP} and again == memory


def _llm(request: ExtractionRequest, attribute: str, value: str) -> list[CandidateFact]:
    out = ExtractionOut(facts=[FactOut(kind="commitment", subject="u-li", attribute=attribute, value=value,
                                       message_id="m0", quote="我保证明天下午三点前把草稿发给你", confidence="high",
                                       due_at="2026-11-05T15:00:00+08:00", reported=False)])
    return out.candidates(request)


def test_offline_and_llm_give_a_statement_the_same_record() -> None:
    request = said(("u-li", "李娜", "我保证明天下午三点前把草稿发给你。"))
    [rules] = [c for c in extract_rules(request) if c.kind is Kind.COMMITMENT]
    [one] = _llm(request, "deliver draft", "send the draft to Zhang Wei by 3pm tomorrow")
    [other] = _llm(request, "草稿", "明天下午三点前交草稿")  # another run of the model, other words
    assert rules.slot == one.slot == other.slot
    memory, _ = stored(to_facts(request, [rules], now=T0))
    memory, actions = stored(to_facts(request, [one, other], now=T0), memory)
    assert actions == [Action.NOOP, Action.NOOP] and len(memory) == 1


def test_a_changed_due_time_is_a_new_version_of_the_promise() -> None:
    first = said(("u-bob", "Bob", "I'll pay my half of the bill by Friday."))
    later = ExtractionRequest("discord:1", "s1", [Utterance("m9", "u-bob", "Bob",
                              "I will pay my half of the bill by Monday instead.", T0 + timedelta(days=1))],
                              lang="en", timezone=TZ)
    memory, _ = stored(offline(first))
    memory, actions = stored(offline(later), memory)
    [promise] = memory.values()
    assert actions == [Action.UPDATE] and promise.version == 2
    assert promise.due_at is not None and promise.due_at.weekday() == 0  # Monday now
    assert promise.history[0].value == "pay my half of the bill by Friday"


def test_a_claim_about_someone_else_keeps_its_own_record() -> None:
    """A model that makes Bob the subject of Ann's report: to_facts turns it into Ann's claim, with a
    slot of its own (not one of Bob's records)."""
    request = ExtractionRequest("t", "s", [Utterance("m0", "u-ann", "Ann", "Bob agreed to pay the whole bill.", T0)],
                                lang="en")
    out = ExtractionOut(facts=[FactOut(kind="consensus", subject="Bob", attribute="agrees to", value="pay the bill",
                                       message_id="m0", quote="Bob agreed to pay the whole bill", confidence="high",
                                       due_at=None, reported=False)])
    [fact] = to_facts(request, out.candidates(request), now=T0)
    assert fact.kind is Kind.EVENT and fact.subject == "u-ann" and fact.slot.startswith("claims:")
