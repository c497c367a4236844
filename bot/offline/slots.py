"""The consolidation slot of a candidate fact: which stored record it updates.

One record per speaker and *statement*: a restated grievance lands on the same record, a changed due
time is a new version. The slot comes from the quote (the speaker's verbatim words), never an
extractor's wording, so rules and an LLM agree and re-extraction writes nothing new. Commitment: the
action without its head and deadline; emotion: its lexicon concept; person: the attribute; others:
sorted content words (a bare "OK" → its message). Only a digest is stored; it determines the fact id.
"""

from __future__ import annotations

import hashlib
import re

from bot.offline import lexicon as lx
from bot.offline.actions import split_due, strip_head
from bot.offline.clauses import core
from memory.models import Kind

__all__ = ["content_words", "slot_of"]

_REFUSAL_ATTRIBUTES = frozenset({"refuses", "refuse", "拒绝", "rejects", "declines", "refused", "不接受"})
_EN_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_EN_FILLER = frozenset(
    ["again", "instead", "now", "then", "actually", "also", "really", "definitely", "still", "just", "sure", "okay", "ok", "yes", "yeah", "promise", "promised", "swear", "will", "going", "gonna", "anyway", "totally", "absolutely", "honestly"]
)
_ZH_FUNCTION = re.compile(r"[的地得了着过吗呢吧啊呀嘛哦哈啦我你他她它们咱把给被将会要就都也很还再又真太]+")
_ZH_CUES = re.compile(r"一定|保证|答应|承诺|发誓|肯定|马上|立刻|这就|负责|希望|要求|想要|需要|坚持|同意|拒绝|真的|其实")


def content_words(text: str) -> str:
    """The content of ``text`` as a canonical string: what two restatements of it share."""
    lowered = text.casefold()
    words = []
    for token in _EN_TOKEN.findall(lowered):
        if token in lx.STOPWORDS_EN or token in _EN_FILLER:
            continue
        if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
            token = token[:-1]
        words.append(token)
    zh = "".join(_ZH_FUNCTION.sub("", _ZH_CUES.sub("", run)) for run in _CJK_RUN.findall(text))
    return " ".join(sorted(set(words))) + ("|" + zh if zh else "")


def _digest(family: str, content: str) -> str:
    return f"{family}:{hashlib.blake2b(content.encode(), digest_size=8).hexdigest()}"


def _family(kind: Kind, attribute: str) -> str:
    if kind is Kind.CONSENSUS:
        return "refuses" if attribute.strip().casefold() in _REFUSAL_ATTRIBUTES else "agrees"
    if kind is Kind.EVENT:
        return "claims" if attribute.strip().casefold() == "claims" else "event"
    return kind.value


def slot_of(kind: Kind, attribute: str, value: str, quote: str, message_id: str) -> str:
    """The slot of a fact: ``"<family>:<digest>"`` (see the module docstring)."""
    family = _family(kind, attribute)
    if kind is Kind.PERSON:
        return _digest(family, " ".join(attribute.casefold().split()))
    if kind is Kind.EMOTION:
        concept = lx.emotion_named(value) or lx.emotion_named(quote)
        return _digest(family, concept.en if concept else content_words(value))
    text = quote.strip() or value
    if kind is Kind.COMMITMENT:
        action, _ = split_due(strip_head(core(text)))
        text = lx.LEADING_TIME.sub("", lx.STANDING.sub(" ", action))
    elif kind is Kind.DEMAND:
        text = lx.DEMAND.sub(" ", core(text))
    elif kind is Kind.CONSENSUS:
        text = lx.REFUSE.sub(" ", lx.AGREE.sub(" ", lx.ACK.sub(" ", core(text))))
    content = content_words(text)
    if not content.strip("| "):
        return _digest(family, f"message {message_id}")  # "OK, deal": nothing of its own to compare
    return _digest(family, content)
