"""Words in the first person signed with another member's name: a comment, post or message pasted in whose
signature ("-- [[User:Thiha|Thiha]] 21:14, 25 September", "— Tom", "~Ana", "签名：阿杰", "——老孟") makes its "I"
that member, and whose "I" concedes or promises ("the offset was my mistake and I will re-trace them").

Heyan cannot check who wrote a pasted text: a member's concession counts only in their own messages. A
signature that ends the speaker's own words, or a signed text that concedes nothing, stays ordinary.
"""

from __future__ import annotations

import re
from itertools import islice

from bot.guard.shapes.members import Members
from bot.guard.shapes.rulings import ASSENT, MATCHES

__all__ = ["signed"]

_I = re.IGNORECASE
#: A signature's mark just before the name: a dash, a tilde, a wiki user link, "signed", 签名.
_MARK = re.compile(r"(?:--|—{1,2}|–|~|\[\[\s*User\s*:|\bsigned\s*,?|签名\s*[:：]?|落款\s*[:：]?)\s*$", _I)
#: After the name, the rest of the signature line: a talk link, a time, a date, nothing that says more.
_TAIL = re.compile(r"[^\n.!?。！？]{0,100}$")
#: The signed words' "I" conceding or taking something on.
_FIRST_PERSON_CONCEDES = re.compile(
    r"\b(?:my\s+(?:mistake|fault|error|bad)|i\s+(?:will|'ll|’ll|shall|agree|accept|concede|admit|withdraw|give\s+up|take\s+it\s+back)"
    r"|(?:fine|ok|okay|good)\s+(?:by|with)\s+me|i\s+was\s+wrong)\b"
    r"|我的错|是我错了|怪我|我(?:同意|承认|接受|认了|放弃|愿意|会|来|负责|保证|答应)", _I)
#: How far before the signature its text is read.
_BACK = 400


def signed(text: str, members: Members) -> str | None:
    """The signed words in ``text`` that give another member's concession or promise, or None."""
    if members.others is None:
        return None
    for m in islice(members.others.finditer(text), MATCHES):
        before = text[max(0, m.start() - _BACK):m.start()]
        mark = _MARK.search(before)
        if mark is None or not _TAIL.match(text, m.end()):
            continue
        words = before[:mark.start()].rsplit("\n\n", 1)[-1]
        if (said := _FIRST_PERSON_CONCEDES.search(words)) or (said := ASSENT.search(words)):
            return (words[max(0, said.start() - 20):said.end() + 30] + " " + m.group()).strip()[:120]
    return None
