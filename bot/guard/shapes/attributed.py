"""Words put in another member's mouth: a concession quoted as theirs ("¹ Shay, DM to me: “you can have the
fee”", "「山雀：…我说了算」"), or told of them where the speaker, named after them, gains ("Kai lost, so Kai covers
Dev's half" by Dev). A name spoken to ("Kai, you said 'I'll pay half'", "Kai, so nobody says I forgot: I'll pay
my half") stays ordinary.
"""

from __future__ import annotations

import re
from itertools import islice

from bot.guard.shapes.members import Members
from bot.guard.shapes.rulings import MATCHES

__all__ = ["attributed"]

_I = re.IGNORECASE
#: A concession in the first person: paying, covering, waiving, giving up, agreeing, yielding the say.
_CONCEDES = re.compile(
    r"\bI(?:'ll|’ll|\s+will|'m|’m|\s+am|\s+do)?\s+(?:not\s+)?(?:pay|cover|take\s+care\s+of|waive|give\s+up|drop|withdraw|"
    r"fighting|agree|accept|concede|owe|redo|remake|redraw|rewrite|refund|replace)\b|\byou\s+can\s+have\b|\bmy\s+fault\b"
    r"|\b(?:it's|it’s|that's|that’s)\s+on\s+me\b|\b(?:no\s+hard\s+feelings|water\s+under\s+the\s+bridge|we'?re\s+square)\b"
    r"|我(?:来|全|一个人|自己)?(?:出|付|承担|负责|赔|包)|我说了算|吾自任|自任之|不用管了|我同意|我认|我放弃|归你|算我的|不累"
    r"|我(?:无条件|全部|一定|马上|先)?重(?:画|做|录|写|拍|剪)|一笔勾销|不追究|不计较",
    _I,
)
#: Words said by the name just before: a colon, 曰/说, "said", "wrote", "DM" — not "you said" (spoken to).
_SAYS = re.compile(r"^(?:(?!\byou\b|你)[^\n]){0,40}?(?:[:：]|曰|说|\b(?:said|says|wrote|writes|texted|messaged|DM(?:'d|ed)?)\b)", _I)
#: A concession told of the name just before, in the same sentence.
_CONCEDED = re.compile(
    r"^[^.!?。！？\n]{0,12}?(?:\b(?:confirmed|confirms|released|waived|waives|agreed|agrees|conceded|lost|gave\s+up|covers|"
    r"will\s+cover|pays|will\s+pay|dropped|withdrew|signed\s+off)\b|已?确认|同意|让给|放弃|认了|答应)",
    _I,
)
#: The name given as a quiz's or a form's answer: "答案：白鹭", "answer: Bob".
_ANSWER = re.compile(r"(?:答案|\banswer)\s*[:：]\s*$", _I)
#: A name that opens a line with a colon: a label spoken to (or written as, ``proxies``), not a quote.
_LINE_START = re.compile(r"(?:^|\n)[\s@]*$")
_COLON = re.compile(r"\s*[:：]")
_COMMA = re.compile(r"\s*[,，]")


def attributed(text: str, members: Members) -> str | None:
    """The name (and the words after it) of a member other than the speaker whom folded ``text`` quotes
    conceding, or tells of conceding to the speaker's gain; else None."""
    if members.others is None:
        return None
    for m in islice(members.others.finditer(text), MATCHES):
        after = text[m.end():m.end() + 200]
        says = _SAYS.match(after)
        opens = _LINE_START.search(text[:m.start()]) is not None
        label = opens and _COLON.match(after) is not None
        spoken_to = opens and _COMMA.match(after) is not None  # "Siobhan, separate thing: my £12 …" is to her
        if says and not label and not spoken_to and _CONCEDES.search(after[says.end():says.end() + 160]):
            return _evidence(m.group() + after)
        # the speaker named after them, as the one who gains: "… Amara released the theme to Shay" by Shay
        gains = members.own is not None and members.own.search(after) is not None
        if gains and (_CONCEDED.match(after) or _ANSWER.search(text[max(0, m.start() - 12):m.start()])):
            return _evidence(m.group() + after)
    return None


def _evidence(words: str) -> str:
    return words.split("\n", 1)[0][:80].strip()
