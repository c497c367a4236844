"""What a short answer answers: is the message before it a proposal, an offer, or neither?

"OK", "deal", "行", "好的" are the speaker's agreement (or refusal) only when they answer something
put to them: a proposal (a cue, a request, a split of work, an arrangement) or an offer (the other's
own promise: "deal" answers it, a bare "OK" only acknowledges). A short answer to nothing is not
recorded; "算了，我自己来" is the speaker's promise, no refusal (``DISMISSIVE``). The consensus record
cites the proposal as a second source, so it names both parties.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.extraction.candidates import Utterance
from bot.offline import lexicon as lx
from bot.offline.actions import is_commitment
from bot.offline.clauses import MAX_CLAUSE_CHARS, Clause, clean, core, split_sentences
from bot.offline.sentence import sarcastic
from bot.offline.slots import content_words

__all__ = ["DISMISSIVE", "WEAK", "Proposal", "is_answer", "plan_of", "proposal_of", "shares_content", "stated", "without_ask"]

#: Answers that only acknowledge: an agreement when they answer a proposal, never an offer.
WEAK = lx.ACK
#: Openers that dismiss rather than refuse when the speaker's own promise follows.
DISMISSIVE = re.compile(r"^(?:forget\s+it|never\s*mind|whatever|算了吧?|不用了|拉倒吧?)[\s.!！。,，~]*$",
                        re.IGNORECASE)

_PROPOSAL_CUE = re.compile(
    r"^(?:那么?|要不然?|不如|我建议|我提议|how about|what if|why don'?t we|let'?s|let us|i suggest(?: that)?"
    r"|i propose(?: that)?)[\s,，]*",
    re.IGNORECASE,
)
_PROPOSAL_TAIL = re.compile(r"[\s,，]*(?:怎么样|好不好|行不行|可以吗|好吗|如何|行吗)$")
# The listener asked to act: "can you …?", "could you …", "你能…吗", "你可以…吗".
_ASKS_LISTENER = re.compile(r"^(?:can|could|would|will)\s+you\b|^(?:can|could|shall|should)\s+we\b"
                            r"|^(?:你|您)(?:能|可以|能不能|可不可以|愿意)", re.IGNORECASE)
# A question that puts something to both: "那押金我们一人一半？", "我们周末一起打扫吧？".
_ASKS_BOTH = re.compile(r"我们|咱们|\b(?:we|us)\b", re.IGNORECASE)
# Work split between the two: "you X, I'll Y", "I'll X if you Y", "你…，我…", "如果你…".
_SHARED = re.compile(
    r"\byou\b[^.?!]{1,60}?[,;]?\s*\b(?:and\s+)?i(?:'ll|’ll|\s+will)?\b|\b(?:if|as\s+long\s+as|provided|while)\s+you\b"
    r"|[你您][^，,。]{1,12}[，,]\s*我|(?:如果|只要|要是)[你您]",
    re.IGNORECASE,
)
# The agreement stated for all to endorse: "so we agree: the launch moves to the 9th", "那我们就这么定：…",
# "我们定了：…" — a proposal whose content follows the colon, not an answer to an earlier one.
_STATED = re.compile(
    r"^(?:(?:ok(?:ay)?|so|then|alright)[\s,]+)*(?:we(?:'re|\s+are)?\s+(?:all\s+)?(?:agree[ds]?|decided|settled)(?:\s+on)?"
    r"|(?:那么?|好)?[，,]?(?:我们|咱们|大家)?就?(?:这么|这样)?(?:说)?(?:定|决定)了?)\s*[:：]\s*(?P<what>\S.{3,})",
    re.IGNORECASE,
)
# An answer that opens with its yes: "yes, $300 max", "ok by me", "好，那就周六" — an answer, not a proposal.
_ANSWER_OPEN = re.compile(rf"^(?:{lx.YES_EN}|agreed|{lx.YES_ZH}|行吧|同意)(?:\b|(?=[\u4e00-\u9fff]))"
                          r"[\s,，.!！。~]", re.IGNORECASE)
# The ask that closes a proposal, after its content: "… before posting. yes?", "…一次清单。大家看行不行",
# "…先审一遍版权。同意的扣1", "…按工时分。大家看看？".
_ASK = (r"(?:(?:so\s+)?(?:yes|ok(?:ay)?|agreed|thoughts|objections|any\s+objections|sound\s+good|"
        r"good|fair|deal|everyone\s+ok(?:ay)?(?:\s+with\s+(?:that|this))?)\s*[?？]+"
        r"|(?:👍|[+＋]1)\s*if\s+(?:you'?re|you\s+are|we'?re)\s+(?:in|ok(?:ay)?|good|fine)[.!]*"
        r"|大家(?:看看?|说说|觉得)?(?:行不行|怎么样|可以吗|如何|呢|看)?\s*[?？]*"
        r"|同意(?:的|请)?(?:扣|回|打)1|同意的?(?:请|就)?(?:回个?话|回复|说一声|吱一声|举手)"
        r"|(?:大家|各位)?都?(?:同意|赞成|没意见|有意见|有异议)(?:吗|不|么|嘛)\s*[?？]*"
        r"|(?:行不行|可以吗|怎么样|好不好|如何)\s*[?？]*)")
_ASK_TAIL = re.compile(rf"(?:(?<=[.!?。！？;；])|^)\s*{_ASK}(?:[，,、]\s*{_ASK})*[\s~～。.!！]*$", re.IGNORECASE)
_TO_HEYAN = re.compile(r"^\s*@(?:heyan|和言)(?![a-z])", re.IGNORECASE)
# Messages that put nothing to the listener: done already, a report, a greeting, a thank-you.
_NOTHING = re.compile(r"已经|刚才|刚刚|昨天|\b(?:already|yesterday|last\s+week)\b|^(?:hi|hello|hey|thanks|你好|谢谢|收到)\b"
                      r"|谢谢|多谢|感谢|\b(?:thanks|thank\s+you|cheers)\b",
                      re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Proposal:
    """What a previous message put to the speaker: its author, its message, the sentence that carries
    it (``quote``, verbatim) and the same sentence without cue words (``value``)."""

    message_id: str
    author_id: str
    quote: str
    value: str
    #: "proposal" (anything that may be agreed) or "offer" (the author's own promise)
    kind: str

    def extra(self) -> dict[str, str]:
        """The candidate fact's ``extra``: who proposed what, for the consensus's second source."""
        return {"proposal_message_id": self.message_id, "proposed_by": self.author_id, "proposal_quote": self.quote}


def _sentences(utterance: Utterance) -> list[Clause]:
    text = utterance.text[: MAX_CLAUSE_CHARS * 4]
    return split_sentences(text) or [Clause(text, 0, len(text))]


def _chosen(sentences: list[Clause]) -> Clause:
    """The sentence that carries the proposal (or demand, or offer), else the last one."""
    for pattern in (lx.PROPOSAL, lx.DEMAND, lx.COMMIT_EN, lx.COMMIT_ZH):
        found = next((s for s in reversed(sentences) if pattern.search(core(s.text))), None)
        if found is not None:
            return found
    return sentences[-1]


def _kind(sentences: list[Clause], text: str) -> str:
    bodies = [core(s.text) for s in sentences]
    if sarcastic(text):  # "哈哈，那我顺便把火星基地也建了吧": a joke puts nothing to anyone
        return ""
    if _STATED.match(text.strip()):
        return "proposal"
    if len(sentences) > 1 and _ASK_TAIL.search(text) and without_ask(text) != text:
        return "proposal"  # "…三条：1）…；2）…。大家说说": a plan with the ask that puts it to all
    if any(lx.PROPOSAL.search(s.text) or _PROPOSAL_TAIL.search(s.text.rstrip("?？ ")) for s in sentences):
        return "proposal"
    if any(lx.DEMAND.search(b) or lx.REQUEST_QUESTION.search(b) or _ASKS_LISTENER.match(b) for b in bodies):
        return "proposal"
    if _SHARED.search(text) or any(s.question and _ASKS_BOTH.search(s.text) for s in sentences):
        return "proposal"
    if any(not s.question and is_commitment(b, hedged=bool(lx.HEDGE.search(b))) for s, b in zip(sentences, bodies,
                                                                                              strict=True)):
        return "offer"
    if all(s.question for s in sentences) or _NOTHING.search(text) or lx.find_emotions(text) or is_answer(text):
        return ""
    if any(lx.REPORTED.search(b) or lx.ACK.match(b) or lx.AGREE.search(b) or lx.REFUSE.search(b) for b in bodies):
        return ""
    # a plain arrangement with words of its own: "押金一人一半", "下周开会再定规则"
    return "proposal" if len(clean(text)) >= 4 else ""


def stated(text: str) -> bool:
    """Does ``text`` state the agreement for all to endorse ("so we agree: …", "那我们就这么定：…")?"""
    return _STATED.match(text.strip()) is not None


def plan_of(text: str) -> str:
    """A proposal's plan: its words without the cue before them ("how about", "我建议") and the ask after them."""
    return without_ask(_PROPOSAL_CUE.sub("", text.strip(), count=1))


def without_ask(text: str) -> str:
    """A proposal's words without the ask that closes them ("…before posting. yes?" → "…before posting.");
    the words as they are when they are nothing but the ask."""
    cut = _ASK_TAIL.sub("", text).rstrip()
    return cut if len(clean(cut)) >= 4 else text


def is_answer(text: str) -> bool:
    """Is ``text`` an answer to something before it ("OK", "agreed", "yes, $300 max", "没问题")?"""
    body = text.strip()
    return bool(lx.ACK.match(body) or lx.AGREE.match(body) or _ANSWER_OPEN.match(body + " "))


def proposal_of(utterance: Utterance) -> Proposal | None:
    """What ``utterance`` put to its listener, or None when it proposed, asked and offered nothing."""
    if utterance.addressed or _TO_HEYAN.match(utterance.text):
        return None  # "@和言 小周答应我啥时候…": words to Heyan put nothing to a member
    sentences = _sentences(utterance)
    kind = _kind(sentences, utterance.text[: MAX_CLAUSE_CHARS * 4])
    if not kind:
        return None
    if stated := _STATED.match(utterance.text.strip()):
        what = stated.group("what")[: MAX_CLAUSE_CHARS]
        return Proposal(utterance.message_id, utterance.author_id, what, clean(what) or what, kind)
    chosen = _chosen(sentences)
    if len(sentences) > 1 and len(clean(_ASK_TAIL.sub("", chosen.text))) < 4:
        # "…三条：1）…；2）…。大家看行不行，同意的回个话": the ask carries nothing; the plan before it does
        whole = utterance.text[: MAX_CLAUSE_CHARS * 4]
        chosen = Clause(without_ask(whole), 0, len(without_ask(whole)))
    value = clean(_PROPOSAL_TAIL.sub("", _PROPOSAL_CUE.sub("", chosen.text)) or chosen.text)
    return Proposal(utterance.message_id, utterance.author_id, chosen.text, value, kind)


def overlap(a: str, b: str) -> int:
    """How many content words (in Chinese, two characters in a row) two statements share."""
    en_a, _, zh_a = content_words(a).partition("|")
    en_b, _, zh_b = content_words(b).partition("|")
    pairs = {zh_a[i : i + 2] for i in range(len(zh_a) - 1)}
    return len(set(en_a.split()) & set(en_b.split())) + sum(1 for p in pairs if p in zh_b)


def shares_content(a: str, b: str) -> bool:
    """Do two statements share a content word (or, in Chinese, two characters in a row)?"""
    return overlap(a, b) > 0
