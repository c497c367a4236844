"""Reports of a promise kept: "done", "finished", "sent it", "I've sent the draft", "已经发了", "搞定了".

A member who says they did what they promised should not be reminded of it. ``done_reports`` finds
such reports in messages — first person or with no subject, in the past or perfect, not negated
("I haven't sent it", "还没发"), not a question ("done?"), not a condition ("once I'm done") and
not "I'm done with this" (fed up) — and keeps the words that say *what* was done, so
``bot.completions`` can match them to the speaker's open commitments: "I've sent the draft" names
the draft, "sent it" only the verb, "done" nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.offline.clauses import clean, core, split_clauses
from memory.extraction import Utterance
from memory.normalize import normalize

__all__ = ["DoneReport", "done_reports"]

_I = re.IGNORECASE
_EN_VERBS = (
    r"finished|done|sent|paid|fixed|returned|delivered|submitted|uploaded|moved|cleaned|booked|posted|transferred"
    r"|handed(?:\s+over)?|completed|sorted|updated|emailed|called|written|wrote|given|gave|brought|taken|took|put|shared"
    r"|merged|reviewed|set\s+up|repaid|paid\s+back|refunded|replaced|repaired|filed|ordered|bought|dropped\s+off"
)
# "I've sent the draft", "I just finished the docs", "we paid the deposit"
_EN_PERFECT = re.compile(
    rf"^(?:i|we)(?:'ve|’ve|\s+have)?\s+(?:just\s+|already\s+|finally\s+|now\s+|also\s+)*(?P<verb>{_EN_VERBS})\b(?P<rest>.*)$", _I
)
# "done", "finished!", "sent it", "all done", "paid"
_EN_BARE = re.compile(rf"^(?:all\s+|it'?s\s+|that'?s\s+)?(?P<verb>{_EN_VERBS})(?P<rest>(?:\s+(?:it|that|this|them|now|already))*)"
                      r"[\s.!]*$", _I)
# "the docs are done", "the rent is paid", "it's sent"
_EN_STATE = re.compile(r"^(?P<what>(?:the|my|our|your)\s+[^,.;!?]{1,50}?|it|that|this)\s+(?:is|are|'s|has\s+been|have\s+been)\s+"
                       r"(?:now\s+|all\s+)?(?P<verb>done|sent|paid|fixed|finished|sorted|ready|handled|returned|submitted)\b", _I)
_EN_NOT = re.compile(r"\b(?:not|n't|never|haven'?t|hasn'?t|once|when|after|if|until|almost|nearly|yet)\b|\bdone\s+with\s+"
                     r"(?:you|this|it|that|them|him|her)\b|\bi'?m\s+done\b", _I)
_ZH_DONE = re.compile(r"(?:发|交|付|还|转|寄|送|修|做|写|弄|改|搞|办|处理|打扫|收拾|倒|退|订|买|搬|挪|订|提交|上传|完成|整理|清理|回复)"
                      r"(?:好|完|掉|过去|出去|上去|上|给[^，,。]{0,6})?了|搞定|弄好了|做完了|完成了|办妥")
_ZH_NOT = re.compile(r"还没|没有|没(?!问题)|不|吗|么|呢|要是|如果|等|之后再|快(?:要)?|马上|就要|准备")
_ZH_OTHER = re.compile(r"^(?:你|您|他|她|他们|她们|对方|[\u4e00-\u9fff]{2,3}(?:已经|刚))")
_EN_STOP_WORDS = ("i we it that this them the a an my our your his her their to for of on in at with by and now "
                  "already just finally all back over off up")
_EN_STOP = frozenset(_EN_STOP_WORDS.split())


@dataclass(frozen=True, slots=True)
class DoneReport:
    """One report of having done something: who, in which message, their words, and what was done
    (``what``: content words, "" for a bare "done"; ``verb``: the doing, "" when none)."""

    message_id: str
    author_id: str
    author_name: str
    ts: datetime
    quote: str
    what: str
    verb: str


def _en(body: str) -> tuple[str, str] | None:
    if _EN_NOT.search(body):
        return None
    for pattern in (_EN_PERFECT, _EN_BARE):
        if m := pattern.match(body):
            rest = re.split(r"\b(?:to|for)\s+(?:you|him|her|them|everyone|the\s+group)\b", m.group("rest"), maxsplit=1)[0]
            words = [w for w in re.findall(r"[a-z0-9'-]+", rest.casefold()) if w not in _EN_STOP]
            return " ".join(words), m.group("verb").casefold()
    if m := _EN_STATE.match(body):
        words = [w for w in re.findall(r"[a-z0-9'-]+", m.group("what").casefold()) if w not in _EN_STOP]
        return " ".join(words), m.group("verb").casefold()
    return None


def _zh(body: str) -> tuple[str, str] | None:
    if not re.search(r"[\u4e00-\u9fff]", body) or _ZH_OTHER.match(body) or _ZH_NOT.search(body):
        return None
    m = _ZH_DONE.search(body)
    if m is None or len(body) > 40:
        return None
    what = re.sub(r"^我们?|已经|刚才?|刚刚|把|了|好|完|给你|给他|给她|[，,。！!]", "", body[: m.start()] + body[m.end() :])
    verb = re.sub(r"[好完掉了]|过去|出去|上去|上|给.*$", "", m.group())
    return what, verb


def done_reports(turns: Sequence[Utterance]) -> list[DoneReport]:
    """Every report of a promise kept in ``turns`` (at most one per message: its first)."""
    out = []
    for turn in turns:
        text = normalize(turn.text)
        for clause in split_clauses(text[:2000]):
            if clause.question:
                continue
            body = core(clause.text)
            found = _en(body) or _zh(body)
            if found is not None:
                out.append(DoneReport(turn.message_id, turn.author_id, turn.author_name, turn.ts,
                                      clean(clause.text), *found))
                break
    return out
