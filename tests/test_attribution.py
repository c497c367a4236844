"""Issue 20, items 2 and 3: who said what, and to whom.

An agreement ("OK", "deal", "forget it", "行", "那就这样") is the speaker's only when it answers a
proposal; the proposal keeps its author (the consensus cites both parties) and any promise in it
stays theirs. A promise keeps its recipient, and "you" is told as "you" only to that person.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.llm.base import ReplyRequest
from bot.models import Stage
from bot.offline.provider import OfflineProvider
from bot.offline.rules import extract_rules
from bot.offline.templates import cite_fact
from bot.text.names import NameBook
from memory.models import Fact, Kind
from memory.store.codec import PayloadCodec
from memory.store.crypto import Cipher, parse_keys
from tests.keys import TEST_KEY

T0 = datetime(2026, 11, 4, 10, tzinfo=UTC)  # a Wednesday


def facts(lines: list[tuple[str, str, str]], lang: str = "en") -> list[Fact]:
    turns = [Utterance(f"m{i}", uid, name, text, T0 + timedelta(minutes=i)) for i, (uid, name, text) in enumerate(lines)]
    request = ExtractionRequest("t", "s", turns, lang=lang, timezone="UTC")  # type: ignore[arg-type]
    return to_facts(request, extract_rules(request), now=T0)


def test_the_issues_exchange_keeps_each_promise_with_its_owner() -> None:
    found = facts([
        ("u-omar", "Omar", "As the admin of the repo I'll set up the branch protection rules by Friday."),
        ("u-lena", "Lena", "Forget it, I'll just update the setup instructions in the README myself tonight."),
    ])
    assert [f.kind for f in found] == [Kind.COMMITMENT, Kind.COMMITMENT]  # no consensus, no refusal
    omar, lena = found
    assert omar.subject == "u-omar" and omar.due_at == datetime(2026, 11, 6, 23, 59, tzinfo=UTC)
    assert "branch protection" in omar.value
    assert lena.subject == "u-lena" and lena.due_at == datetime(2026, 11, 4, 21, 0, tzinfo=UTC)
    assert "README" in lena.value


def test_an_agreement_names_who_proposed_and_who_agreed() -> None:
    [deal] = facts([("u-bob", "Bob", "How about we split the cost 50/50?"), ("u-ann", "Ann", "OK, deal.")])
    assert deal.kind is Kind.CONSENSUS and deal.subject == "u-ann"
    assert [(s.author_id, s.quote) for s in deal.sources] == [("u-ann", "OK, deal"),
                                                              ("u-bob", "How about we split the cost 50/50")]
    assert set(deal.users) == {"u-ann", "u-bob"}  # each party's export shows it, each one's erasure removes it
    told = cite_fact(deal, NameBook.of([deal]), "UTC", "en")
    assert told == "On 4 Nov, Bob proposed “How about we split the cost 50/50” and Ann agreed"
    [zh] = facts([("u-zw", "张伟", "要不我们轮流做饭？"), ("u-zl", "赵磊", "好的，就这么办。")], "zh")
    assert zh.subject == "u-zl" and {s.author_id for s in zh.sources} == {"u-zw", "u-zl"}
    assert cite_fact(zh, NameBook.of([zh]), "UTC", "zh") == "11月4日，张伟提议“要不我们轮流做饭”，赵磊表示同意"


def test_a_bare_ok_acknowledges_an_offer_and_a_deal_accepts_it() -> None:
    offer = ("u-bob", "Bob", "I'll repaint the fence on Saturday.")
    found = facts([offer, ("u-ann", "Ann", "OK.")])
    assert [(f.kind, f.subject) for f in found] == [(Kind.COMMITMENT, "u-bob")]
    found = facts([offer, ("u-ann", "Ann", "Deal, and I'll buy the paint by Friday.")])
    kinds = sorted((f.kind.value, f.subject) for f in found)
    assert kinds == [("commitment", "u-ann"), ("commitment", "u-bob"), ("consensus", "u-ann")]
    # the fence stays Bob's promise: Ann's agreement does not take it over
    assert next(f for f in found if f.kind is Kind.COMMITMENT and f.subject == "u-bob").value.startswith("repaint")
    zh = facts([("u-wf", "王芳", "我明天把钥匙还你。"), ("u-ln", "李娜", "好的。")], "zh")
    assert [f.kind for f in zh] == [Kind.COMMITMENT]
    # an OK to a feeling answers nothing
    assert facts([("u-kim", "Kim", "I'm so tired of this."), ("u-ann", "Ann", "OK.")])[-1].kind is Kind.EMOTION


def test_a_promise_keeps_whom_it_was_made_to() -> None:
    found = facts([("u-wei", "Wei", "Can you send me the API docs?"),
                   ("u-bob", "Bob", "Sure, I'll send you the API docs by Wednesday.")])
    [promise] = [f for f in found if f.kind is Kind.COMMITMENT]
    assert (promise.subject, promise.recipient, promise.recipient_name) == ("u-bob", "u-wei", "Wei")
    assert "u-wei" in promise.users
    named = facts([("u-ann", "Ann", "hi"), ("u-wei", "Wei", "hello"),
                   ("u-bob", "Bob", "Wei, I'll send you the slides tonight.")])
    assert [f.recipient for f in named if f.kind is Kind.COMMITMENT] == ["u-wei"]
    alone = facts([("u-bob", "Bob", "I'll send you the slides tonight.")])
    assert alone[0].recipient == ""  # nobody known: no guess
    will = facts([("u-will", "Will", "hi"), ("u-ann", "Ann", "hello"), ("u-bob", "Bob", "I will send the report.")])
    assert will[-1].recipient == ""  # "will" is no name; Ann wrote last, but Bob said no "you"


async def _answer(question: str, asker: str, found: list[Fact]) -> str:
    people = {"u-bob": "Bob", "u-wei": "Wei", "u-mike": "Mike"}
    turn = Utterance("q", asker, people[asker], question, T0 + timedelta(hours=1))
    request = ReplyRequest("en", Stage.GATHERING, turn, open_commitments=found, participants=people, timezone="UTC")
    return await OfflineProvider().reply(request)


async def test_you_only_to_the_one_it_was_said_to() -> None:
    found = [f for f in facts([("u-wei", "Wei", "Can you send me the API docs?"),
                               ("u-bob", "Bob", "Sure, I'll send you the API docs by Wednesday.")])
             if f.kind is Kind.COMMITMENT]
    to_mike = await _answer("@heyan what did Bob promise?", "u-mike", found)
    assert "send Wei the API docs" in to_mike and "send you" not in to_mike, to_mike
    to_wei = await _answer("@heyan what did Bob promise?", "u-wei", found)
    assert "send you the API docs" in to_wei, to_wei
    to_bob = await _answer("@heyan what did I promise?", "u-bob", found)
    assert "send Wei the API docs" in to_bob, to_bob
    unknown = [f for f in facts([("u-bob", "Bob", "I'll call you tomorrow about the invoice.")])]
    quoted = await _answer("@heyan what did Bob promise?", "u-mike", unknown)
    assert "“I'll call you tomorrow about the invoice”" in quoted and "promised to call you" not in quoted, quoted


def test_the_recipients_name_is_sealed_at_rest() -> None:
    [promise] = [f for f in facts([("u-wei", "Wei", "Can you send me the API docs?"),
                                   ("u-bob", "Bob", "Sure, I'll send you the API docs by Wednesday.")])
                 if f.kind is Kind.COMMITMENT]
    codec = PayloadCodec(Cipher(parse_keys(TEST_KEY)))
    payload = codec.fact_to_payload(promise)
    assert "recipient_name" not in payload and "Wei" not in str(payload)
    assert payload["recipient"] == "u-wei"  # an id, like users
    assert codec.fact_from_payload(payload) == promise
