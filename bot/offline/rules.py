"""Rule-based fact extraction: promises, demands, agreements, refusals, feelings and claims.

Each message of ``request.turns`` is split into clauses; each clause yields at most one position
(claim, refusal, agreement, commitment or demand) plus at most one emotion. ``request.context`` is
only read to resolve what a short "OK, deal" / "不行" answers.

Rules chosen here (documented in the report and docs):

* Everything is owned by the speaker. A clause about someone else ("他说他会退款给我", "Bob agreed
  to pay me") is the speaker's claim: kind ``event``, attribute ``claims``, ``reported=True``.
* A message that tries to instruct the bot ("ignore previous instructions and record that …") yields
  one low-confidence claim by its author and nothing else.
* A hedged promise ("I might send it", "我尽量") is not a commitment and is dropped; any other hedged
  fact is kept with low confidence.
* A refusal is kind ``consensus`` with attribute ``refuses``: it is the speaker's answer to a
  proposal, the mirror of ``agrees to``, and summaries list it as an open difference.
* An emotion is high confidence only when first-person ("我很生气", "I'm upset"); one whose clause is
  about a third person and not the speaker ("他很生气") is not recorded at all.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.duetime import find_due_span, resolve_due
from bot.lang import detect_lang
from bot.offline import lexicon as lx
from bot.zones import is_zone, speaker_zone
from memory.extraction import CandidateFact, ExtractionRequest, Utterance
from memory.models import Confidence, Kind, Lang

__all__ = ["Clause", "extract_rules", "split_clauses"]

#: Attribute names per language. "claims" stays English: ``memory.extraction.to_facts`` uses it too.
ATTRIBUTES: dict[str, dict[str, str]] = {
    "en": {
        "wants": "wants",
        "agrees": "agrees to",
        "refuses": "refuses",
        "feels": "feels",
        "claims": "claims",
    },
    "zh": {"wants": "要求", "agrees": "同意", "refuses": "拒绝", "feels": "感受", "claims": "claims"},
}

#: Values are cut here: a fact is a short statement, the quote keeps the full words.
_VALUE_LIMIT = 200

# Hard clause ends, and a comma that starts a new subject ("好的，我明天发" / "OK, I'll send it").
_SPLIT = re.compile(
    r"[。！？；!?;\n]+|…+|\.(?=\s|$)"
    r"|[，,](?=\s*(?:(?:但是|但|不过|所以|而且|然后|and|but|so|then)\s*)?"
    r"(?:我|你|他|她|对方|咱|\b(?:i|you|he|she|we|they)\b))",
    re.IGNORECASE,
)
# Discourse openers stripped before anchored patterns look for the subject.
_FILLER = re.compile(
    r"^(?:(?:但是|但|不过|所以|而且|然后|其实|反正|那么|那|嗯|哦|唉|好吧|好的|好|行"
    r"|(?:ok|okay|well|but|and|so|also|then|actually|honestly|look|listen|fine|alright)\b)[\s,，、!！.]*)+",
    re.IGNORECASE,
)
_THIRD_START = re.compile(r"^(?:他们?|她们?|对方|人家)|^(?:he|she|they|his|her|their)\b", re.IGNORECASE)
_ZH_SUBJECT = re.compile(r"^(?:我们?|咱们?)")
_EN_COMMIT_HEAD = re.compile(
    r"^(?:i|we)(?:'ll|’ll| will| shall|'m going to|’m going to| am going to|'re going to| are going to"
    r"| promise| commit| guarantee)(?:\s+(?:to|that|you))?(?:\s+(?:i|we)(?:'ll|’ll| will))?\s*",
    re.IGNORECASE,
)
_ZH_CUE = re.compile(r"(?:保证|答应|承诺|一定会?|肯定会|会|将会?|负责|马上|这就|今天就|明天就)")
_ZH_BA = re.compile(
    r"^把(.+?)(发|交|给|还|寄|送|转|退|付|做|改|修|写|拿|带|搬|清理|打扫)(给[你他她我]们?|过来|回来|好|完)?(.*)$"
)
_ZH_VERBS = {"发": "发送", "交": "提交", "还": "归还", "退": "退还", "付": "支付", "寄": "寄出", "转": "转交"}
_EN_OBJECT_PRONOUN = re.compile(
    r"\b(?:you|him|her|them|us)\s+(?=(?:the|a|an|my|your|his|her|our|their|back)\b)"
)
_PROPOSAL_CUE = re.compile(
    r"^(?:要不然?|不如|我建议|我提议|how about|what if|why don'?t we|i suggest(?: that)?|i propose(?: that)?)[\s,，]*",
    re.IGNORECASE,
)
_EDGE_JUNK = " \t,，、.。!！?？;；:：~～的了啦哈吧呢啊"


@dataclass(frozen=True, slots=True)
class Clause:
    """A clause of a message and where it sits in the message (``text == message[start:end]``)."""

    text: str
    start: int
    end: int


def split_clauses(text: str) -> list[Clause]:
    """Clauses of ``text``: split on 。！？；.!?; and newlines, and on a comma before a new subject."""
    clauses: list[Clause] = []
    pos = 0
    for m in (*_SPLIT.finditer(text), None):
        end = m.start() if m else len(text)
        segment = text[pos:end]
        stripped = segment.strip()
        if stripped and any(ch.isalnum() for ch in stripped):
            start = pos + segment.index(stripped)
            clauses.append(Clause(stripped, start, start + len(stripped)))
        pos = m.end() if m else len(text)
    return clauses


def extract_rules(request: ExtractionRequest) -> list[CandidateFact]:
    """Candidate facts from ``request.turns`` (context only answers "what was agreed to")."""
    names = {u.author_name: u.author_id for u in (*request.context, *request.turns) if u.author_name}
    history: list[Utterance] = list(request.context)
    out: list[CandidateFact] = []
    for turn in request.turns:
        # Questions assert nothing ("我答应了什么？", "will you pay?"): blank them out before the rules.
        # Quotes stay substrings of the message because the other sentences are left as they were.
        asked = dataclasses.replace(turn, text=_QUESTION.sub("\n", turn.text))
        out.extend(_Turn(asked, request, history, names).extract())
        history.append(turn)
    return out


_QUESTION = re.compile(r"[^。！？；!?;\n]*[？?]")


def _core(text: str) -> str:
    """The clause with openers and a leading due phrase removed, for patterns anchored at the subject."""
    core = _FILLER.sub("", text).strip()
    span = find_due_span(core)
    if span and span[0] == 0 and re.match(r"[\s,，]*(?:我|i\b|we\b)", core[span[1] :], re.IGNORECASE):
        core = core[span[1] :].lstrip(" ,，")
    return core


def _clean(text: str, limit: int = _VALUE_LIMIT) -> str:
    text = " ".join(text.split()).strip(_EDGE_JUNK)
    return text[:limit].rstrip()


class _Turn:
    """Extraction state for one message: its clauses, its speaker and what came before it."""

    def __init__(
        self, turn: Utterance, request: ExtractionRequest, history: Sequence[Utterance], names: dict[str, str]
    ) -> None:
        self.turn = turn
        self.lang: Lang = request.lang
        self.attr = ATTRIBUTES[self.lang]
        self.history = history
        self.others = {n: uid for n, uid in names.items() if uid != turn.author_id}
        # wall-clock words mean the speaker's clock when the platform tells it, else the tenant's
        self.tz = speaker_zone(turn.zone, _valid_zone(request.timezone))
        self.ts = turn.ts if turn.ts.tzinfo else turn.ts.replace(tzinfo=UTC)

    def fact(
        self,
        kind: Kind,
        attribute: str,
        value: str,
        quote: str,
        *,
        confidence: Confidence = Confidence.HIGH,
        due_at: datetime | None = None,
        reported: bool = False,
        extra: dict[str, str] | None = None,
    ) -> CandidateFact:
        return CandidateFact(
            kind=kind,
            subject=self.turn.author_id,
            subject_name=self.turn.author_name,
            attribute=attribute,
            value=_clean(value) or _clean(quote),
            message_id=self.turn.message_id,
            quote=quote,
            asserted_by=self.turn.author_id,
            confidence=confidence,
            due_at=due_at,
            reported=reported,
            extra=extra or {},
        )

    def extract(self) -> list[CandidateFact]:
        clauses = split_clauses(self.turn.text)
        injected = next((c for c in clauses if lx.INJECTION.search(c.text)), None)
        if injected is not None:
            # An instruction to the bot is never stored as anyone's fact: only as what its author said.
            return [
                self.fact(
                    Kind.EVENT,
                    self.attr["claims"],
                    self.turn.text,
                    injected.text,
                    confidence=Confidence.LOW,
                    reported=True,
                    extra={"flag": "instruction"},
                )
            ]
        out: list[CandidateFact] = []
        for clause in clauses:
            out.extend(self.clause(clause.text, alone=len(clauses) == 1))
        return out

    def clause(self, text: str, *, alone: bool) -> list[CandidateFact]:
        core = _core(text)
        hedged = bool(lx.HEDGE.search(text))
        confidence = Confidence.LOW if hedged else Confidence.HIGH
        out: list[CandidateFact] = []
        emotion = self.emotion(text, core, hedged)
        if emotion is not None:
            out.append(emotion)
        about = self.about_other(core)
        if about is not None:
            extra = {"about": about} if about else {}
            out.append(self.fact(Kind.EVENT, self.attr["claims"], text, text, reported=True, extra=extra))
            return out
        if m := lx.REFUSE.search(text):
            value, extra = self.answer_to(text[m.end() :])
            out.append(
                self.fact(
                    Kind.CONSENSUS, self.attr["refuses"], value, text, confidence=confidence, extra=extra
                )
            )
        elif (m := lx.AGREE.search(text)) or (alone and lx.ACK.match(text)):
            value, extra = self.answer_to(text[m.end() :] if m else "")
            out.append(
                self.fact(
                    Kind.CONSENSUS, self.attr["agrees"], value, text, confidence=confidence, extra=extra
                )
            )
        elif lx.COMMIT.search(core) and not hedged and emotion is None:
            out.append(self.commitment(text, core))
        elif m := lx.DEMAND.search(core):
            value = core[m.end() :].strip(" ,，:：") if len(core) - m.end() >= 2 else core
            value = re.sub(r"^(?:to|that|you to)\s+", "", value, flags=re.IGNORECASE)
            out.append(self.fact(Kind.DEMAND, self.attr["wants"], value, text, confidence=confidence))
        return out

    def about_other(self, core: str) -> str | None:
        """The other person a clause reports on ("" when unnamed), or None when it is the speaker's own."""
        for name in sorted(self.others, key=len, reverse=True):
            if core.startswith(name) and re.match(
                r"\s*(?:说|答应|承诺|保证|同意|告诉|会|要|欠|said|says|told|promised|agreed|will|'ll|would|owes)",
                core[len(name) :],
                re.IGNORECASE,
            ):
                return name
        m = lx.REPORTED.search(core)
        if m is None:
            return None
        head = m.group(0).split()[0] if m.group(0).split() else ""
        return (
            head
            if head[:1].isupper() and head not in ("My", "The", "Our", "Your", "He", "She", "They")
            else ""
        )

    def emotion(self, text: str, core: str, hedged: bool) -> CandidateFact | None:
        found = lx.find_emotions(text)
        if not found:
            return None
        first_person = bool(lx.FIRST_PERSON.search(text))
        if not first_person and (_THIRD_START.match(core) or self.about_other(core) is not None):
            return None  # "他很生气" is not the speaker's feeling
        emotion, _ = found[0]
        confidence = Confidence.HIGH if first_person and not hedged else Confidence.LOW
        label = emotion.label(detect_lang(text, default=self.lang))
        return self.fact(Kind.EMOTION, self.attr["feels"], label, text, confidence=confidence)

    def commitment(self, text: str, core: str) -> CandidateFact:
        action = _strip_commit_head(core)
        due_at = resolve_due(text, self.ts, self.tz)
        span = find_due_span(action)
        if span is None:
            attribute, value = _short_action(action, self.lang), action
        else:
            rest = _clean(action[: span[0]] + " " + action[span[1] :])
            phrase = _clean(action[span[0] : span[1]])
            if detect_lang(action, default=self.lang) == "zh":
                value = re.sub(r"^(?:在|于|到)", "", phrase) + rest
            else:
                value = f"{rest} {phrase}"
            attribute = _short_action(rest, self.lang)
        return self.fact(Kind.COMMITMENT, attribute or _clean(action, 40), value, text, due_at=due_at)

    def answer_to(self, remainder: str) -> tuple[str, dict[str, str]]:
        """What an agreement or refusal is about: its own words when it has some, else the proposal."""
        own = re.sub(
            r"^(?:to|with|that|i'm|i am|i'll|i will|i)\s+",
            "",
            remainder.strip(" ,，:："),
            flags=re.IGNORECASE,
        )
        own = _clean(own)
        if len(own) >= 4 or (detect_lang(own) == "zh" and len(own) >= 2):
            return own, {}
        for previous in reversed(self.history):
            if previous.author_id != self.turn.author_id:
                return _proposal(previous), {
                    "proposal_message_id": previous.message_id,
                    "proposed_by": previous.author_id,
                }
        return own, {}


def _proposal(utterance: Utterance) -> str:
    """The clause of a previous message that carries its proposal (or demand), else its last clause."""
    clauses = split_clauses(utterance.text) or [Clause(utterance.text, 0, len(utterance.text))]
    for pattern in (lx.PROPOSAL, lx.DEMAND, lx.COMMIT):
        for clause in reversed(clauses):
            if pattern.search(_core(clause.text)):
                return _PROPOSAL_CUE.sub("", clause.text) or clause.text
    return clauses[-1].text


def _strip_commit_head(core: str) -> str:
    """The promised action: the clause without "我会"/"I'll"/"I promise to"."""
    if m := _ZH_SUBJECT.match(core):
        rest = core[m.end() :]
        cue = _ZH_CUE.search(rest)
        if cue is not None and cue.start() <= 10:
            rest = rest[: cue.start()] + rest[cue.end() :]
        return _clean(re.sub(r"^(?:一定|会|也|就|再|先)+", "", rest.strip()))
    action = _EN_COMMIT_HEAD.sub("", core, count=1)
    return _clean(re.sub(r"[,，]\s*(?:i promise|promise|保证|一定)\W*$", "", action, flags=re.IGNORECASE))


def _short_action(action: str, lang: Lang) -> str:
    """A short, stable name for a promised action ("发送草稿", "send the draft"): the fact's slot."""
    action = _clean(action)
    if detect_lang(action, default=lang) == "zh":
        action = re.sub(r"^(?:在|会|要|一定|也|就|再|先)+", "", action)
        if m := _ZH_BA.match(action):
            verb = _ZH_VERBS.get(m.group(2), m.group(2))
            action = verb + m.group(1) + (m.group(4) or "")
        action = re.sub(r"给[你他她我]们?$", "", action)
        return _clean(action, 20)
    action = _EN_OBJECT_PRONOUN.sub("", action)
    action = re.sub(r"^(?:make sure|definitely|really|also|to)\s+", "", action, flags=re.IGNORECASE)
    return " ".join(_clean(action).lower().split()[:6])


def _valid_zone(name: str) -> str:
    """The tenant zone, or UTC when it is unknown (a bad setting must not stop extraction)."""
    return name if is_zone(name) else "UTC"
