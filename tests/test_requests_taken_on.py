"""A request put to one member and taken on by them is that member's promise (``bot.offline.requests``).

"Bob, can you send me the venue contract by Friday?" — "Sure, will do." used to leave nothing (English)
or an agreement with the requester's words as the accepter's (Chinese); a user asking "what did Bob
promise?" expects the contract, made to Ann, due Friday on Ann's clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance, to_facts
from bot.offline.requests import takes_it_on
from bot.offline.rules import extract_rules
from memory.models import Fact, Kind

ASKED = datetime(2026, 11, 30, 15, 0, tzinfo=UTC)  # a Monday


def _request(*lines: tuple[str, str, str], zone: str | None = None, reply_to: str | None = None) -> ExtractionRequest:
    turns = [Utterance(f"m{i}", uid, name, text, ASKED + timedelta(minutes=i), zone=zone,
                       reply_to=reply_to if i == len(lines) - 1 else None)
             for i, (uid, name, text) in enumerate(lines)]
    return ExtractionRequest("t", "s", turns, lang="en" if lines[0][2].isascii() else "zh")


def _facts(*lines: tuple[str, str, str], zone: str | None = None, reply_to: str | None = None) -> list[Fact]:
    request = _request(*lines, zone=zone, reply_to=reply_to)
    return to_facts(request, extract_rules(request), now=ASKED)


def _taken(*lines: tuple[str, str, str], reply_to: str | None = None) -> list[CandidateFact]:
    """The candidate promises made by taking a request on."""
    return [f for f in extract_rules(_request(*lines, reply_to=reply_to)) if f.extra.get("requested_by")]


def test_taking_on_a_request_is_the_answerers_promise_to_the_asker() -> None:
    facts = _facts(("u-ann", "Ann", "Bob, can you send me the venue contract by Friday?"),
                   ("u-bob", "Bob", "Sure, will do."), zone="-05:00")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert (promise.subject, promise.value, promise.recipient) == ("u-bob", "send you the venue contract by Friday",
                                                                   "u-ann")
    # "by Friday" on Ann's clock (-05:00), the end of that Friday
    assert promise.due_at == datetime(2026, 12, 5, 4, 59, tzinfo=UTC)


def test_in_chinese_too() -> None:
    facts = _facts(("u-zhang", "张伟", "李娜，你周三前把预算表发我可以吗？"), ("u-li", "李娜", "好的，没问题。"),
                   zone="+08:00")
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert (promise.subject, promise.value, promise.recipient) == ("u-li", "周三前把预算表发你", "u-zhang")
    assert promise.due_at is not None and promise.due_at.astimezone(UTC).date().isoformat() == "2026-12-02"
    facts = _facts(("u-zhang", "张伟", "麻烦你明天把钥匙还我。"), ("u-li", "李娜", "行，我来。"))
    assert [(f.subject, f.value) for f in facts if f.kind is Kind.COMMITMENT] == [("u-li", "明天把钥匙还你")]


@pytest.mark.parametrize("lines", [
    # asked of someone else: Bob's "Sure" does not take Carol's task
    (("u-ann", "Ann", "Carol, can you book the room for Friday?"), ("u-bob", "Bob", "Sure.")),
    # a question that asks for no deed
    (("u-ann", "Ann", "Can you believe this?"), ("u-bob", "Bob", "Yeah.")),
    (("u-ann", "Ann", "Could you explain why the build is red?"), ("u-bob", "Bob", "Sure.")),
    # a plan for both: an agreement, not one member's task
    (("u-ann", "Ann", "Let's split the bill."), ("u-bob", "Bob", "OK.")),
    (("u-wu", "吴芳", "你周末打扫，我平时打扫。"), ("u-zhou", "周杰", "可以，没问题。")),
    # an answer with words of its own is read by the ordinary rules
    (("u-ann", "Ann", "Can you send me the contract?"), ("u-bob", "Bob", "Sure, but only after the deposit is paid.")),
])
def test_what_is_not_taking_a_request_on(lines: tuple[tuple[str, str, str], ...]) -> None:
    assert not _taken(*lines)


def test_a_reply_to_someone_else_does_not_take_the_request() -> None:
    assert not _taken(("u-ann", "Ann", "Can you fix the CI config before tomorrow noon?"), ("u-bob", "Bob", "On it!"),
                      reply_to="u-dan")
    facts = _facts(("u-ann", "Ann", "Can you fix the CI config before tomorrow noon?"), ("u-bob", "Bob", "On it!"),
                   reply_to="u-ann")
    assert [(f.subject, f.value) for f in facts if f.kind is Kind.COMMITMENT] == [
        ("u-bob", "fix the CI config before tomorrow noon")]


def test_what_takes_a_request_on() -> None:
    for text in ("Sure, will do.", "on it", "No problem, I'll do it!", "好的，没问题。", "行，我来", "交给我吧", "OK"):
        assert takes_it_on(text), text
    for text in ("Sure, after lunch.", "No.", "I can't this week", "好的，不过要等下周", "不行"):
        assert not takes_it_on(text), text


@pytest.mark.parametrize(("text", "value"), [
    ("I promised Ann I'd call her back, and I will tonight.", "call her back tonight"),
    ("I said I'd fix it and I will, by Friday.", "fix it by Friday"),
    ("我说过会还你钱，明天就还。", "明天还你钱"),
    ("I'll touch base tomorrow.", "touch base tomorrow"),  # "to…" after "I'll" is no infinitive marker
])
def test_a_promise_that_only_says_when_takes_the_earlier_action(text: str, value: str) -> None:
    [promise] = [f for f in _facts(("u-bob", "Bob", text)) if f.kind is Kind.COMMITMENT]
    assert promise.value == value


@pytest.mark.parametrize(("text", "words"), [
    ("海报我重做吧，周五前发群里。上次那张太糊了", ("海报", "重做", "周五前")),
    ("押金我先垫上，月底前交掉", ("押金", "垫上", "月底前")),
    ("全算我头上不行。我出一半，周日前转你", ("一半", "周日前")),
])
def test_a_chinese_verb_without_its_object_takes_the_deed_of_the_clause_before(text: str, words: tuple[str, ...]) -> None:
    [promise] = [f for f in _facts(("u-bob", "小王", text)) if f.kind is Kind.COMMITMENT]
    assert all(w in promise.value for w in words), promise.value


def test_taking_a_cost_on_after_a_time_said_first_is_a_promise() -> None:
    [promise] = [f for f in _facts(("u-bob", "小王", "装修这几天，停车费算我的，别让物业垫")) if f.kind is Kind.COMMITMENT]
    assert "停车费" in promise.value


@pytest.mark.parametrize(("request_text", "action"), [
    ("Sipho you have the good mic, could you record it Saturday?", "record it Saturday"),
    ("Rhiannon, about maps — could you send me your notes by thursday? then I can build it", "send you your notes by thursday"),
    ("老孙你周四前把补的两张原片发我", "周四前把补的两张原片发你"),
    ("阿杰你不是学设计的吗，能不能周四前出一版？", "周四前出一版"),
    # a want said to someone asks for the thing wanted, not "you want …"
    ("Shay I want a credit line in the next issue's notes. by friday", "a credit line in the next issue's notes"),
    ("Bob, I'd like the keys back by Friday", "the keys back by Friday"),
    ("I want you to send the file", "send the file"),
    # "it"/"them" asked for: the thing named before the ask
    ("Dana, those 40 raffle tickets — when can you print them?", "print those 40 raffle tickets"),
    ("Jo, I'll need the seating plan for the gala. when can you get it to me?", "get the seating plan to you"),
    ("can you fix it by Friday?", "fix it by Friday"),
    # a sum said in the clause before the ask; a deed asked as "when can you …?" with its thing said before
    ("青梧，还有六月的分成，1260，能这周五之前转我吗？", "这周五之前转你1260"),
    ("大饼，58章要配一张插图，你什么时候能画好？", "58章要配一张插图，画好"),
])
def test_the_action_a_request_asks_for_not_its_preamble(request_text: str, action: str) -> None:
    from bot.offline.requests import requested_action

    assert requested_action(request_text) == action
