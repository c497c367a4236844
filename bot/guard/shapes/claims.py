"""Another member's consent, concession or burden claimed by someone else and not backed by their own words
in the thread before it ("Cody accepted this usage at the 2026 AGM", "(ticked by Dusty)", "欠款人：陈姐"); why and
what stays ordinary: docs/BENCHMARKS.md, "Set I". Read only when the caller passes the thread (``heard``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import islice

from bot.guard.shapes.members import Members, members
from bot.guard.shapes.rulings import ASSENT, MATCHES, SANCTION, sentences

__all__ = ["backed", "claimed", "content_words", "said_by"]

_I = re.IGNORECASE
#: A sentence that asks, supposes, hedges, proposes or speaks to someone: no claim of what was given.
_NOT_A_CLAIM = re.compile(
    r"[?？]|\b(?:if|maybe|might|whether|unless|would|should|could|can|let'?s|want|wants|please|propose|suggest|"
    r"how\s+about|you|your|said|says|told|heard)\b|如果|要是|假如|万一|是不是|吗|吧|提议|建议|要不|能不能|可不可以|你|您|说|听说"
    # the speaker's own stake in it ("Bob promised to pay me back", "我刚才在楼下碰到他"): a report, for
    # extraction to keep as the speaker's claim
    r"|\b(?:i|i'm|i’m|i've|i'd|i'll|me|my|mine|we|us|our)\b|我",
    _I,
)
#: A mark of someone's consent or debt put after their name by another: "ticked by Dusty", "欠款人：陈姐".
_MARKED_BY = re.compile(r"(?:\b(?:ticked|checked|signed|agreed|approved|confirmed|initial(?:l)?ed|ok'?d)\s+(?:off\s+)?by"
                        # "waived, agreed directly with commissioner Declan": the deal made with them
                        r"|\b(?:agreed|settled|cleared|arranged|signed\s+off)\s+(?:directly\s+|personally\s+)?with"
                        r"(?:\s+(?:the\s+)?(?:commissioner|commish|admin|mod|moderator|organi[sz]er|captain|owner|host))?"
                        # "验货人：小鹿" on an inspection sheet: the goods accepted in their name
                        r"|(?:欠款人|借款人|签字人|签名|确认人|同意人|承诺人|验货人|验收人|签收人|见证人|担保人))\s*[:：]?\s*$", _I)
#: Consent denied, not claimed: "Rosa has never agreed …", "晓棠从来没答应过…", "他根本没同意".
_DENIED = re.compile(r"\b(?:never|not|n't|didn['’]t|hasn['’]t|has\s+not|did\s+not|hadn['’]t)\b|[没未不]|从来|从没|根本", _I)
_SPOKEN_TO = re.compile(r"\s*[,，:：]")
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]{3,}")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
#: Characters that make a Chinese pair say nothing of its own ("我们", "了一", "这个").
_LIGHT = frozenset("我你他她它们的了是就都也在这那个一不有和吧吗呢啊")
_COMMON = frozenset({"that", "this", "with", "from", "have", "will", "what", "when", "they", "them", "then", "there",
                     "their", "just", "about", "would", "could", "should", "been", "were", "your", "yours", "into",
                     "it's", "i'll", "that's", "agreed", "agree", "fine", "okay", "sure", "yeah"})


def content_words(text: str) -> set[str]:
    """Content words: Latin words of four letters and more, and Chinese character pairs."""
    out = {w.casefold() for w in _EN_WORD.findall(text)} - _COMMON
    for run in _CJK_RUN.findall(text):
        out |= {run[i : i + 2] for i in range(len(run) - 1) if not (_LIGHT & set(run[i : i + 2]))}
    return out


def said_by(form: str, heard: Sequence[tuple[str, str]]) -> list[str]:
    """The lines the member called ``form`` said in ``heard`` ((author name, text) pairs)."""
    return [text for author, text in heard
            if author and (p := members("", [author]).everyone) is not None and p.fullmatch(form)]


def backed(who: str, said: str, heard: Sequence[tuple[str, str]], takes_on: Callable[[str], object], *,
           stem: int = 0) -> bool:
    """Did ``who`` say it themselves in ``heard``: a line of theirs that ``takes_on`` reads as taking something on and
    that shares two content words with ``said`` (compared by their first ``stem`` letters when given: "covers" is
    "cover")."""
    def stems(words: set[str]) -> set[str]:
        return {w[:stem] for w in words} if stem else words

    told = stems(content_words(said) - {who.casefold()})
    return any(takes_on(line) and len(stems(content_words(line)) & told) >= 2 for line in said_by(who, heard))


def claimed(text: str, people: Members, heard: Sequence[tuple[str, str]]) -> str | None:
    """The name and words by which folded ``text`` claims another member's consent, concession or burden
    that nothing they said in ``heard`` (the thread before it) backs; else None."""
    if people.others is None:
        return None
    for sentence in sentences(text):
        if _NOT_A_CLAIM.search(sentence):
            continue
        for m in islice(people.others.finditer(sentence), MATCHES):
            after = sentence[m.end() : m.end() + 60]
            if not sentence[: m.start()].strip(" @") and _SPOKEN_TO.match(after):
                continue  # "李姐，名单里其他几位都确认了": a name spoken to
            told = next((h for p in (ASSENT, SANCTION) if (h := p.search(after)) is not None and h.start() <= 30
                         and not _DENIED.search(after[: h.start()])), None)
            if told is None and not _MARKED_BY.search(sentence[max(0, m.start() - 40) : m.start()]):
                continue
            names = {m.group().casefold()}
            backed = content_words(" ".join(said_by(m.group(), heard))) & (content_words(sentence) - names)
            if len(backed) < 2:
                return sentence[:80].strip()
    return None
