"""What a sentence as a whole says about its clauses: a tag question, sarcasm, a subject carried on.

Checks that need the clauses around one: a tag question ("I'll pay Friday, OK?") still says what
precedes it; sarcasm ("Yeah right, like I'm going to pay", "想得美") takes back the promise it is shaped
like; a promise tag ("…, I promise") binds the clause before; a subjectless clause keeps the subject
before it ("Dana said she'll bring the cable, …"). Each check is anchored or bounded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from bot.extraction.candidates import CandidateFact
from bot.offline.actions import is_standing
from bot.offline.clauses import TAG_QUESTION, Clause, core
from bot.offline.indirect import zh_modifiers
from bot.text.duetime import find_due_span, resolve_due
from memory.models import Kind

__all__ = ["SARCASTIC_REFUSAL", "asserted", "completes", "has_subject", "inherit_due", "joking", "said_to_other", "sarcastic",
           "tagged", "threatens", "without_bare_answers"]

_I = re.IGNORECASE

_SARCASM = re.compile(
    r"\b(?:yeah\s+right|as\s+if|when\s+pigs\s+fly|in\s+your\s+dreams|dream\s+on)\b"
    r"|^(?:oh\s+)?(?:sure|yeah|great|right)\b[,.!]*\s+(?:and\s+)?(?:i'?ll|i’ll|i\s+will|i'?m\s+going\s+to)\s+just\b"
    r"[^.!?]{0,80}?\b(?:everything|as\s+usual|as\s+always|like\s+always)\b"
    r"|^(?:(?:oh|yeah|sure|right)[,.!]*\s+)+and\s+(?:i'?ll|i’ll|i\s+will|i'?m\s+going\s+to)\b"
    r"|\b(?:win\s+the\s+lottery|eat\s+my\s+hat|hell\s+freezes\s+over)\b"
    r"|想得美|做梦吧?|才怪|美得你",
    _I,
)
#: A laugh with a mock cue: "lol sure, I'll also bake 500 cupcakes, obviously", "哈哈，那我顺便把火星基地也建了吧",
#: "对对对，我明天就把整个代码库重写一遍 😂". A laugh alone is not enough ("ok I'll bring snacks 😂"), nor a
#: grudging "行行行，我改" without one.
_LAUGH = re.compile(r"😂|🤣|😆|\b(?:lol|lmao|rofl)\b|哈哈|呵呵", _I)
_MOCK = re.compile(r"^\W*(?:对对对|是是是|sure\s+sure)|顺便|\balso\b|\bobviously\b|\bwhile\s+i'?m\s+at\s+it\b", _I)
#: "like I'm going to pay for a window I didn't break": a sarcastic promise is a refusal of its action.
SARCASTIC_REFUSAL = re.compile(
    r"\blike\s+(?:i'?m|i’m|i\s+am)\s+(?:going\s+to|gonna)\s+(?P<what>\w.*)|\blike\s+i(?:'d|’d|\s+would)\s+(?P<would>\w.*)",
    _I,
)
_TAIL_TAG = re.compile(
    r"[,，]\s*(?:ok(?:ay)?|right|alright|fair|deal|is\s+that\s+(?:ok(?:ay)?|alright|fine|cool|fair)|does\s+that\s+work"
    r"(?:\s+for\s+you)?|sounds?\s+good|(?:[你您]们?)?(?:看)?(?:这样)?(?:行不行|好不好|可不可以|可以吗|行吗|好吗|成吗|怎么样|对吧|可以不))"
    r"[\s?？!！.。~～]*$",
    _I,
)
_EN_DONE = re.compile(r"^(?:(?:will\s+)?(?:have\s+it\s+|be\s+)?(?:done|finished|sorted|ready|fixed)\b|(?:by|before|no\s+later\s+than)\b)", _I)
_THREAT_IF = re.compile(r"(?:要是|如果|假如|万一|再)[^，,。]{0,12}?再|\bif\s+you\b[^,.;!?]{0,60}\bagain\b|不然|否则|要不然", _I)
_OTHER_SUBJECT = re.compile(r"你|您|他|她|\b(?:you|he|she)\b", _I)
# A clause about the past: its time is not the due time of what follows ("I was sick on Monday, will send it").
_PAST_FRAME = re.compile(r"\b(?:was|were|did|had|yesterday|last|ago)\b|已经|昨天|上周|上次|刚才|了$", _I)
_SUBJECT = re.compile(
    r"^(?:我|咱|你|您|他|她|它|对方|大家|人家|(?:i|we|you|he|she|they|it|this|that|there)\b|i'|i’|we'|you'|(?-i:[A-Z][a-z]+)\s)",
    _I,
)


def asserted(sentence: Sequence[Clause]) -> list[Clause] | None:
    """The clauses a question sentence still asserts — all but a final tag ("…, OK?", "…，行不行？") —
    as statements; None when the sentence really asks."""
    last = sentence[-1]
    if len(sentence) == 1:  # "I'll pay you back Friday, OK?": the tag after a comma that opened no clause
        m = _TAIL_TAG.search(last.text[:400])
        if m is None or m.start() == 0:
            return None
        return [replace(last, text=last.text[: m.start()], end=last.start + m.start(), question=False)]
    if not TAG_QUESTION.match(core(last.text) or last.text):
        return None
    return [replace(c, question=False) for c in sentence[:-1]]


#: An eye-roll over a promise that outdoes itself ("…while I'm at it 🙄", "明天也把月亮摘下来给你🙄", "I'll totally
#: pay that out of all my hours 🙃"): mockery. A plain "fine, I'll do it 🙄" stays a (grudging) promise.
_ROLL = re.compile(r"🙄|🙃")
_OUTDOES = re.compile(r"\b(?:also|too|even|totally|while\s+i'?m\s+at\s+it|the\s+whole|all\s+(?:of\s+)?(?:my|the)\b)|也|顺便|干脆|整个|整栋|全部", _I)


#: A laugh that closes a promise: "I'll name my firstborn after you 🤣", "四个班的课我一个人全包了🤣". In the seven
#: blind sets no kept or open promise ends so. A laugh after another part ("Zoom 续费我得推到2月3号，工资还没到 😂",
#: "I'll send it Friday, the printer ate the first one 😂") laughs at that part, not at the promise.
_JOKE = re.compile(r"(?:🤣|😂|😹)[\s\W]*$")
_LAST_PART = re.compile(r"[^.!?。！？,;，；、(（—–]*$")
_OWN_DEED = re.compile(r"\b(?:i'?ll|i’ll|i\s+will|i'?m\s+going\s+to)\b|我", re.IGNORECASE)


def joking(text: str) -> bool:
    """Does a rolling laugh close ``text`` (a clause, or a whole line) right after the speaker's own
    deed, no comma or sentence between? Then the deed is a joke."""
    tail = text[-400:]
    if (m := _JOKE.search(tail)) is None or (part := _LAST_PART.search(tail[: m.start()])) is None:
        return False
    return _OWN_DEED.search(part.group()) is not None


def sarcastic(text: str) -> bool:
    """Is the sentence sarcasm that takes back what it seems to promise?"""
    head = text[:400]
    return bool(_SARCASM.search(head) or SARCASTIC_REFUSAL.search(head)
                or (_LAUGH.search(head) and _MOCK.search(head)) or (_ROLL.search(head) and _OUTDOES.search(head)))


def completes(body: str) -> bool:
    """Does a clause without a subject only say when the promise before it is done ("今天之内搞定", "周五前
    给你结果", "done by Friday") rather than promise another thing ("剩下的月底结清")?"""
    if _EN_DONE.match(body):
        return True
    rest, marked, _ = zh_modifiers(body)
    return marked and len(rest) <= 5 and not rest.startswith("把")


def threatens(before: str) -> bool:
    """Is the clause before a condition about the other doing it again ("你要是再这样，", "if you do it
    again,", "不然")? Then what follows is a threat, not a promise."""
    return bool(_THREAT_IF.search(before[:400]))


def said_to_other(body: str) -> bool:
    """Does the clause start with the listener or a third person ("你别管了")? A taking-on tag ("我来")
    does not bind it."""
    return bool(_OTHER_SUBJECT.match(body))


def inherit_due(facts: list[CandidateFact], before: str, text: str, now: datetime, tz: str) -> list[CandidateFact]:
    """ "我明天早点出门，顺便把快递帮你拿上来": a promise without a subject or a time of its own is due
    when the clause before it says (unless that clause is about the past)."""
    if not any(f.kind is Kind.COMMITMENT for f in facts) or find_due_span(text) or is_standing(text) \
            or _PAST_FRAME.search(before[:400]):
        return facts
    due = resolve_due(before[:400], now, tz)
    if due is None:
        return facts
    return [replace(f, due_at=due) if f.kind is Kind.COMMITMENT and f.due_at is None else f for f in facts]


def has_subject(body: str) -> bool:
    """Does the clause (openers stripped) name who acts — a pronoun or a name first? A clause without one
    carries on the subject of the clause before it."""
    return bool(_SUBJECT.match(body))


def tagged(rest: Sequence[Clause], tag: Clause) -> Clause | None:
    """The clause a promise tag binds: the one before it, else the one after it."""
    before = [c for c in rest if c.end <= tag.start]
    after = [c for c in rest if c.start >= tag.end]
    return before[-1] if before else (after[0] if after else None)


def without_bare_answers(found: list[list[CandidateFact]]) -> list[list[CandidateFact]]:
    """ "No way, I'm not paying for a new couch": the bare "no way" and the refusal that follows it
    are one refusal. A clause whose only fact is an answer without words of its own (its value was
    taken from the proposal) is dropped when the next clause gives the same answer in words, and a
    dismissive one ("forget it", "算了") when the speaker goes on to say something of their own."""
    kept: list[list[CandidateFact]] = []
    for i, facts in enumerate(found):
        nxt = found[i + 1] if i + 1 < len(found) else []
        bare = len(facts) == 1 and facts[0].kind is Kind.CONSENSUS and facts[0].extra.get("bare") == "yes"
        if bare and any(f.kind is Kind.CONSENSUS and f.attribute == facts[0].attribute for f in nxt):
            continue
        later = [f for group in found[i + 1 :] for f in group]
        if bare and facts[0].extra.get("dismissive") and any(f.kind is not Kind.EMOTION for f in later):
            continue  # "Forget it, I'll do it myself": the speaker's own promise, no refusal
        kept.append(facts)
    return kept
