"""Records → answer items (``bot.answering.model``): promises, replies to requests, agreements.

A commitment is a PROMISE with its condition, due time and status now; an agreement or refusal citing
another's line is ACCEPTED/DECLINED with the request as said; agreement records of one proposal are one
AGREEMENT with every party. The source line is quoted when it says more than the action.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from bot.answering.model import AnswerItem, ItemKind, ItemStatus, answered_line
from bot.offline.actions import promised_action
from bot.offline.perspective import has_second_person, owners_words, retold
from bot.text.names import NameBook
from memory.models import Fact, FactStatus, Kind

__all__ = ["agreement_items", "condition_of", "is_reply", "promise_item_of", "proposer_of", "reply_item",
           "to_recipient"]

_REFUSES = frozenset({"refuses", "拒绝"})
_STATUS = {FactStatus.ACTIVE: ItemStatus.OPEN, FactStatus.DISPUTED: ItemStatus.OPEN,
           FactStatus.UNVERIFIED: ItemStatus.OPEN, FactStatus.OVERDUE: ItemStatus.OVERDUE,
           FactStatus.DONE: ItemStatus.DONE, FactStatus.CANCELLED: ItemStatus.CANCELLED}
_EN_IF = re.compile(r"\b(?:only\s+if|if|as\s+long\s+as|provided(?:\s+that)?|assuming|in\s+case)\s+(?P<c>[^,;.!?]{3,160})",
                    re.IGNORECASE)
_ZH_IF = re.compile(r"(?:如果|要是|假如|只要|万一|若是|若)(?P<c>[^，,。；;！!？?]{2,80}?)(?:的话)?(?=[，,]|就|我就|那我)")
_WORDS = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]", re.IGNORECASE)
_HEAD_WORDS = frozenset(["i", "i'll", "ill", "will", "we", "we'll", "can", "could", "would", "shall", "promise", "to", "the", "a", "an", "and", "ok", "okay", "sure", "yes", "我", "会", "我会", "就", "了", "吧", "的", "好", "行"])
#: A quote longer than this is cut (the item still says what it is).
QUOTE_CHARS = 220


def proposer_of(fact: Fact) -> tuple[str, str, str] | None:
    """(user id, name, message id) of the member whose line an agreement or refusal answers, if cited."""
    source = next((s for s in fact.sources if s.author_id != fact.subject and s.author_id != fact.asserted_by), None)
    return (source.author_id, source.author_name, source.message_id) if source is not None else None


def is_reply(fact: Fact) -> bool:
    """Is ``fact`` a yes or a no to another member's line?"""
    return fact.kind is Kind.CONSENSUS and proposer_of(fact) is not None


def _line(fact: Fact, lines: Mapping[str, str], *, of: str | None = None) -> str:
    """The whole line a source of ``fact`` was said in (``of``: that author's), else its quote."""
    source = next((s for s in fact.sources if of is None or s.author_id == of), None)
    if source is None:
        return ""
    return " ".join((lines.get(source.message_id) or source.quote).split())


def _clip(text: str) -> str:
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1].rstrip() + "…"


def condition_of(fact: Fact, line: str = "") -> str:
    """The condition a promise was made on: the record's own, else the "if …" of its value or line."""
    held = getattr(fact, "condition", None)
    if isinstance(held, str) and held.strip():
        return held.strip()
    for text in (fact.value, line):
        m = _EN_IF.search(text) or _ZH_IF.search(text)
        if m and m.group("c").strip() not in fact.value.replace(m.group(0), ""):
            return m.group("c").strip(" ，,")
    return ""


def _says_more(line: str, said: str) -> bool:
    """Does ``line`` hold two or more words ``said`` does not (besides a promise's head words)?"""
    have = {w.casefold() for w in _WORDS.findall(said)}
    extra = {w.casefold() for w in _WORDS.findall(line)} - have - _HEAD_WORDS
    return len(extra) >= 2


def _said_at(fact: Fact) -> datetime:
    return fact.sources[0].ts if fact.sources else fact.valid_from


def promise_item_of(fact: Fact, now: datetime, reader: str | None, names: NameBook,
                    lines: Mapping[str, str]) -> AnswerItem:
    """A commitment as an item told to ``reader``."""
    action = promised_action(fact.value) or fact.attribute
    told = retold(action, fact, reader, names)
    line = _line(fact, lines, of=fact.subject) or _line(fact, lines)
    verbatim = told is None
    owner = names.name(fact.subject, fact.subject_name)
    shown = _owners(told, owner) if told is not None else (fact.sources[0].quote if fact.sources else fact.value).strip()
    said_if = condition_of(fact, line)
    condition = "" if said_if and said_if.casefold() in (told or shown).casefold() else owners_words(said_if, owner)
    # the line as said, when it says more than the item — and never a "you" meant for someone else
    own_you = not has_second_person(line) or (bool(fact.recipient) and reader == fact.recipient)
    quote = _clip(line) if line and own_you and not verbatim and _says_more(line, f"{fact.value} {said_if}") else ""
    recipient_name = names.name(fact.recipient, fact.recipient_name) if fact.recipient else fact.recipient_name
    return AnswerItem(
        kind=ItemKind.PROMISE, owner=fact.subject, owner_name=names.name(fact.subject, fact.subject_name),
        action=shown, said_at=_said_at(fact), recipient=fact.recipient, recipient_name=recipient_name,
        condition=condition, due_at=fact.due_at, status=_STATUS.get(fact.status_at(now), ItemStatus.OPEN),
        quote=quote, verbatim=verbatim, fact_ids=(fact.id,),
    )


def _owners(action: str, owner: str) -> str:
    """The owner's words in the third person, but the subject that opens them ("I see him at drop-off"), which
    the promise's phrase tells itself."""
    head = re.match(r"(?:I'm|I’m|I)\b\s*", action)
    return action[: head.end()] + owners_words(action[head.end():], owner) if head else owners_words(action, owner)


def reply_item(fact: Fact, names: NameBook, lines: Mapping[str, str]) -> AnswerItem:
    """A yes or a no to another member's line, with that line and the answer as said."""
    proposer = proposer_of(fact)
    assert proposer is not None
    uid, name, _ = proposer
    request = _line(fact, lines, of=uid) or fact.value
    said = _line(fact, lines, of=fact.subject)
    return AnswerItem(
        kind=ItemKind.DECLINED if fact.attribute.casefold() in _REFUSES else ItemKind.ACCEPTED,
        owner=fact.subject, owner_name=names.name(fact.subject, fact.subject_name), action=fact.value,
        said_at=_said_at(fact), recipient=uid, recipient_name=names.name(uid, name),
        quote=_clip(said) if said and _says_more(said, request) else "", proposer_name=names.name(uid, name),
        proposal=_clip(request), fact_ids=(fact.id,),
    )


def agreed_words(value: str, proposal: str) -> str:
    """What an agreement is told as: the plan itself when the record holds it (the proposal's words without
    their preamble and closing ask: "proposal for the spring swap …: perry ships in PET, … yes?"), else the
    proposal as said."""
    plan, said = " ".join(value.split()), " ".join(proposal.split())
    # a long preamble or ask around the plan ("proposal for the spring swap so this never happens again: …");
    # a cue of a few words ("How about …") is kept as said
    return plan if len(plan) >= 12 and plan in said and len(said) - len(plan) > 20 else proposal


def agreement_items(facts: Sequence[Fact], names: NameBook, lines: Mapping[str, str],
                    refusals: Sequence[Fact] = ()) -> list[AnswerItem]:
    """Agreements, one item per proposal with everyone who agreed to it (in the order first agreed), and who
    said no to that proposal or to a part of it (``refusals``: with the words they said)."""
    groups: dict[str, list[Fact]] = {}
    for fact in facts:
        line = answered_line(fact)
        key = f"line:{line}" if line else "value:" + " ".join(fact.value.casefold().split())
        groups.setdefault(key, []).append(fact)
    noes: dict[str, list[tuple[str, str]]] = {}
    for fact in sorted(refusals, key=_said_at):
        if line := answered_line(fact):
            said = _line(fact, lines, of=fact.subject) or (fact.sources[0].quote if fact.sources else "")
            noes.setdefault(f"line:{line}", []).append((names.name(fact.subject, fact.subject_name), _clip(said)))
    items = []
    for key, group in groups.items():
        first = min(group, key=_said_at)
        proposer = proposer_of(first)
        parties = tuple(dict.fromkeys(names.name(f.subject, f.subject_name) for f in group))
        said = _line(first, lines, of=proposer[0]) if proposer else ""
        proposal = _clip(agreed_words(first.value, said) if said else first.value) if proposer else ""
        items.append(AnswerItem(
            kind=ItemKind.AGREEMENT, owner=first.subject, owner_name=parties[0], action=first.value,
            said_at=_said_at(first), proposer_name=names.name(proposer[0], proposer[1]) if proposer else "",
            proposal=proposal, parties=parties, fact_ids=tuple(f.id for f in group),
            refusals=tuple((who, said) for who, said in noes.get(key, ()) if who not in parties),
        ))
    return items


def to_recipient(fact: Fact, recipient: str, names: NameBook) -> bool:
    """Was ``fact`` made to ``recipient``: a promise to them, or a reply to their line?"""
    if fact.kind is Kind.CONSENSUS:
        proposer = proposer_of(fact)
        return proposer is not None and proposer[0] == recipient
    if fact.recipient:
        return fact.recipient == recipient
    called = {n.casefold() for n in names.aliases().get(recipient, ())}
    if fact.recipient_name:
        return fact.recipient_name.casefold() in called
    # no recipient recorded: the promise names them ("send Mike the logo files")
    return any(hit.users == (recipient,) for hit in names.find(fact.value))
