"""A promise's owner moving its time in the thread: "actually make that Friday noon for the copy",
"文档那个，改成周五吧，周四我要出差". ``reschedules`` finds them; ``bot.completions`` moves the owner's open
promise through the member's own correction path. Only the owner's words move a promise: the same words
from the one it was made to are a request, until the owner takes it ("好的，周五")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.offline.actions import split_due
from bot.offline.clauses import clean
from bot.offline.requests import own_time
from bot.text.duetime import find_due_span
from memory.extraction import Utterance
from memory.normalize import normalize

__all__ = ["Reschedule", "moved_value", "new_time", "reschedules"]

_I = re.IGNORECASE
_EN = re.compile(
    r"^(?:(?:actually|sorry|wait|oh|ok(?:ay)?|correction|hmm|so)[\s,:;-]+)*(?:can\s+(?:we|i)\s+|let'?s\s+|please\s+)?"
    r"(?:make\s+(?:that|it)|change\s+(?:that|it)\s+to|move\s+(?:that|it)\s+to|push\s+(?:that|it)\s+(?:back\s+)?to)\s+"
    r"(?P<rest>[^,;.!?]+)(?:[,;.!?]\s*(?P<reason>.*))?$", _I)
_EN_FOR = re.compile(r"\s+(?:for|on)\s+(?P<what>(?:the|my|our|that)\s+.+)$", _I)
_ZH = re.compile(r"^(?:那|那么)?(?P<what>[^，,。！!？?]{0,12}?)(?:那个|那件事|的话)?[，,]?\s*(?:我)?(?:改成|改到|推到|延到|挪到|换到)"
                 r"(?P<rest>[^，,。！!？?]+)(?:[，,。！!？?]\s*(?P<reason>.*))?$")
_FILLER = re.compile(r"\b(?:then|instead|please|ok(?:ay)?)\b|[吧呢啊吗好]|[\s,，.。!！?？~]", _I)


@dataclass(frozen=True, slots=True)
class Reschedule:
    """One message moving its speaker's promise: the new time words, and what it names ("" if nothing)."""

    message_id: str
    author_id: str
    ts: datetime
    when: str
    what: str
    quote: str


def _only_time(text: str) -> bool:
    span = find_due_span(text)
    return span is not None and not _FILLER.sub("", text[: span[0]] + text[span[1]:])


def _asked(text: str) -> tuple[str, str] | None:
    """(the new time, what it is for) when ``text`` moves a promise to another time, else None."""
    text = normalize(text).strip()[:300]
    what = ""
    if m := _EN.match(text):
        rest = m.group("rest").strip()
        if f := _EN_FOR.search(rest):
            what, rest = f.group("what"), rest[: f.start()]
    elif m := _ZH.match(text):
        rest, what = m.group("rest").strip(), m.group("what").strip()
    else:
        return None
    span = find_due_span(rest)
    return (rest[span[0] : span[1]], clean(what)) if span is not None and _only_time(rest) else None


def reschedules(turns: Sequence[Utterance], context: Sequence[Utterance] = ()) -> list[Reschedule]:
    """The messages in ``turns`` that move their speaker's promise to another time: a change in their
    own words, or their "OK, <that time>" to someone else's change just before."""
    out = []
    thread = [*context, *turns]
    for i, turn in enumerate(thread):
        if i < len(context):
            continue
        found = _asked(turn.text)
        if found is None and i and thread[i - 1].author_id != turn.author_id \
                and (before := _asked(thread[i - 1].text)) is not None \
                and (when := own_time(clean(turn.text) or turn.text.strip())):
            span = find_due_span(when)
            found = (when[span[0] : span[1]] if span else when), before[1]
        if found is not None:
            out.append(Reschedule(turn.message_id, turn.author_id, turn.ts, found[0], found[1],
                                  normalize(turn.text).strip()[:300]))
    return out


# What moves a time: "make that", "push it to", "改成", "改到" … the new time comes after it.
_CUE = re.compile(r"make\s+(?:that|it)|(?:move|push|change|shift)(?:ing)?\s+(?:\S+\s+){0,4}?to\b|改成|改到|推到|延到|挪到|换到|再给|再发", _I)


def new_time(text: str) -> str:
    """The time a line moves a promise to (a line the dialogue acts read as a change of time,
    ``bot.acts``): the first time after a change cue ("改到今天下午三点前吧"), else the first it names
    ("ok ok, Thursday EOD then"); "" when it names none."""
    text = normalize(text).strip()[:300]
    cue = _CUE.search(text)
    after = text[cue.end():] if cue is not None else text
    span = find_due_span(after) or find_due_span(text)
    if span is None:
        return ""
    said = after if find_due_span(after) is not None else text
    return said[span[0] : span[1]]


def moved_value(value: str, when: str) -> str:
    """The promise's words with their time replaced by ``when`` ("send the draft by Thursday" + "Friday"
    → "send the draft by Friday"; "文档，周四前写完" + "周五" → "文档，周五前写完")."""
    span = find_due_span(value)
    zh = bool(re.search(r"[\u4e00-\u9fff]", value))
    if span is None:
        bare, _ = split_due(value)
        return f"{when}{bare}" if zh else f"{bare} by {when}"
    old = value[span[0] : span[1]]
    new = when
    if zh and re.search(r"(?:之?前|以前)$", old) and not re.search(r"(?:之?前|以前)$", new):
        new += "前"
    if not zh and re.match(r"(?:by|before|until)\b", old, _I) and not re.match(r"(?:by|before|until|on|at)\b", new, _I):
        new = f"{old.split()[0]} {new}"
    return value[: span[0]] + new + value[span[1] :]
