"""A member's offer or burden told by someone else, with nothing the member said in the thread behind it:
"the $48 hop shipment is on you this time, like you offered at the tasting", "Kaure said she'd cover it alone",
"thank you, Jacques, for saying you'd cover my booth hours", "上回语音你自己说的，…你一个人出", "她说阿哲在家亲口说的：
域名这事他全认". Heyan records a promise from its maker's own words; one told second hand, from a call or a
meeting it never heard, is a claim to check, not a record. A reminder of what the member did say in the thread
("you said you'd cover the postage" after their "I'll cover the postage") is backed by it and stays ordinary.
Read only when the caller passes the thread (``heard``), as ``claims`` is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from bot.guard.shapes.claims import backed
from bot.guard.shapes.members import Members
from bot.guard.shapes.rulings import MATCHES, sentences

__all__ = ["hearsay"]

_I = re.IGNORECASE
#: Who is told of: "you" (the member spoken to) or a member's name, just before the verb of saying.
_YOU_TOLD = re.compile(r"\b(?:(?:like|as)\s+you\s+(?:yourself\s+)?(?:offered|said|promised|agreed|volunteered)"
                       r"|for\s+(?:saying|offering|agreeing|volunteering|promising)|you\s+(?:yourself\s+|already\s+|even\s+)?"
                       r"(?:said|offered|volunteered|promised|told\s+(?:me|us|everyone|everybody|the\s+group))\b)"
                       # (not "你说得对", "你说呢": heard somewhere, or said before)
                       r"|你(?:自己|本人|亲口|当时|那天|上回|上次|之前)+(?:说|讲|答应|表态|认)(?:过|了)?的?|你(?:说|讲|答应)过", _I)
#: After a name: how they were heard ("said she'd", "在家亲口说的", "视频里说了").
_NAME_TOLD = re.compile(r"\s*(?:(?:had\s+|has\s+|already\s+|herself\s+|himself\s+|even\s+)?(?:said|told\s+(?:me|us|everyone)|"
                        r"offered|volunteered|promised)\b|[^，。！？,.!?\n]{0,8}?(?:说|讲|答应|表态)(?:过|了)?的?)", _I)
#: The whole of a burden taken on, or a right given up: "on you this time", "cover it alone", "out of your share",
#: 一个人出, 兜底, 全认, 放弃. A plain "you promised to pay me by Friday" is a reminder, for the member to answer.
_BURDEN = re.compile(
    r"\b(?:on\s+(?:you|her|him|them)\b|alone\b|by\s+(?:your|her|him|them)sel(?:f|ves)\b|all\s+by\s+(?:your|her|him)self\b|"
    r"out\s+of\s+(?:your|her|his|their)\s+(?:own\s+)?(?:share|pocket)\b|(?:your|her|his|their)\s+treat\b|in\s+full\b|"
    r"(?:waive|waives|waived|give\s+up|gives\s+up|sign\s+away|signs\s+away)\b)"
    r"|(?:一个人|自己|全额|照价|全部)(?:出|包|付|赔|承担|垫)|兜底|全认|全包|包了|放弃|让给|留给|退出",
    _I,
)
#: A sentence that asks, supposes or hedges: nothing claimed.
_NOT_A_CLAIM = re.compile(r"[?？]|\b(?:if(?!\s+(?:anyone|anybody|someone|somebody|people)\s+(?:asks?|wonders?))|unless|whether|"
                          r"maybe|might)\b|如果(?!有人问)|要是(?!有人问)|假如|万一|是不是|吗", _I)
#: How far after the told words the burden may be said (the rest of the sentence, within reason).
_REACH = 90
#: A first-person offer: "I'll", "I can", "我来", "我出".
_OWN_OFFER = re.compile(r"\bI(?:'ll|’ll|\s+will|\s+can|\s+could)\b|我(?:来|出|付|包|负责|承担|可以|能)", _I)
#: The speaker as the one who bears it ("I'll cover it alone"; not "my booth hours", "帮我…").
_CLAUSE_START = re.compile(r"[,.;:!?，。；：！？\n]")
_FIRST_PERSON = re.compile(r"\b(?-i:I)(?:'ll|’ll|'d|’d|'m|’m)?\b|\bmyself\b|(?<![给帮替跟对])我(?!的)", _I)
#: Words before a name spoken to: "thanks, Jacques, …", "so Tom, …".
_OPENING = re.compile(r"[\s@]*(?:(?:thank\s+you|thanks|cheers|ok|okay|so|and|hey|hi)\s*,?\s*)?", _I)
#: Thanks, then the one thanked; and where a sentence starts.
_THANKS = re.compile(r"\b(?:thank\s+you|thanks|cheers)\s*,?\s*", _I)
_SENTENCE_START = re.compile(r"(?:[.!?。！？:：]\s*|\n)")


def hearsay(text: str, people: Members, heard: Sequence[tuple[str, str]]) -> str | None:
    """The words by which folded ``text`` tells of another member's offer or burden that nothing they said in
    ``heard`` (the thread before it, (author name, text) pairs) backs; else None."""
    if people.others is None:
        return None
    spoken_to = _spoken_to(text, people)
    for i, sentence in enumerate(all_ := sentences(text)):
        if _NOT_A_CLAIM.search(sentence):
            continue
        # "陶哥，上回语音你自己说的，古籍扫描那两千四百块你一个人出": the burden may follow in the next clause
        said = sentence + " " + (all_[i + 1] if i + 1 < len(all_) and not _NOT_A_CLAIM.search(all_[i + 1]) else "")
        told: list[tuple[str, int, int]] = []
        if (m := _YOU_TOLD.search(said)) is not None and spoken_to:
            told.append((spoken_to, m.start(), m.end()))
        for n in islice(people.others.finditer(said), MATCHES):
            if (after := _NAME_TOLD.match(said, n.end())) is not None:
                told.append((n.group(), n.start(), after.end()))
        for who, start, end in told:
            if (_theirs(said, end, end + _REACH) or _theirs(said, max(0, start - _REACH), start)) \
                    and not backed(who, said, heard, _offers):
                return sentence[:80].strip()
    return None


def _theirs(said: str, start: int, end: int) -> bool:
    """A burden in ``said[start:end]`` that is not the speaker's own ("…你说得对，这钱我一个人出")."""
    return any(not _FIRST_PERSON.search(_CLAUSE_START.split(said[max(start, b.start() - 60):b.start()])[-1])
               for b in _BURDEN.finditer(said, start, end))


def _offers(line: str) -> bool:
    """A line that takes a burden on or offers something ("I'll cover the postage", "这钱我一个人出")."""
    return bool(_BURDEN.search(line) or _OWN_OFFER.search(line))


def _spoken_to(text: str, people: Members) -> str:
    """The member a message speaks to by name: at its start or a sentence's ("Nilda, …", "陶哥，…"), or thanked
    ("…: thank you, Jacques, for …")."""
    starts = [0, *(m.end() for m in _THANKS.finditer(text)), *(m.end() for m in _SENTENCE_START.finditer(text))]
    for at in starts:
        opening = _OPENING.match(text, at)
        m = people.other_at(text, opening.end() if opening else at)
        if m is not None and text[m.end():m.end() + 1] in (",", "，", ":", "："):
            return m.group()
    return ""
