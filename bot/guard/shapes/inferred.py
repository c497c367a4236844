"""A cost or a task put on another member as the speaker's own conclusion, with nothing the member said behind
it: "…, so the return postage is Rustam's now", "Silence past 12 hours counts as a yes, so Dmitri refunds both
workbooks", "Great, settled: Ndapewa pays my first night", "…ticked by default. So Hemi took responsibility",
"所以海报打印费归小川", "意思很清楚：小川自己认了灯塔归我". A member takes a burden on in their own words; one drawn
from a rule, a reaction, a form or a pun is a claim to check, not a record. Backed by a line of the member's that
takes a burden on and shares two content words, it stays ordinary ("so Maya covers the stall" after her "I'll
cover the stall fee"). Read only when the caller passes the thread (``heard``), as ``hearsay`` is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from bot.guard.shapes.claims import backed
from bot.guard.shapes.members import Members
from bot.guard.shapes.rulings import MATCHES, sentences

__all__ = ["inferred"]

_I = re.IGNORECASE
#: The speaker drawing a conclusion: "so", "which means", "settled:", 所以, 意思很清楚, 也就是说.
_SO = re.compile(r"(?:^|[,;:—–-]\s*|\band\s+)(?:so|therefore|thus|hence|which\s+means|that\s+means|meaning|settled)\b"
                 r"|所以|因此|因而|也就是说|那就是说|就是说|意思(?:很|再)?(?:清楚|明白|就是)|这就等于|等于说", _I)
#: After a member's name: bearing the cost or the task ("pays", "refunds", "took responsibility", 出, 认了).
_BEARS = re.compile(r"\s*(?:now\s+|then\s+|also\s+|alone\s+)?(?:pays|covers|refunds|reimburses|owes|foots|buys|eats|"
                    r"takes\s+(?:responsibility|the\s+cost|the\s+bill|care\s+of)|took\s+(?:responsibility|the\s+cost|on)|"
                    r"is\s+(?:paying|covering|responsible|on\s+the\s+hook|liable)|gets\s+the\s+bill)\b"
                    r"|(?:自己|本人|就|也|全)?(?:认了|全认|出钱|出|付|负责|承担|包了|买单|掏钱|赔)", _I)
#: Before a member's name: the thing made theirs ("… is Rustam's", "…归小川", "记在晓棠头上", "由阿琪出").
_MADE_THEIRS = re.compile(r"(?:\b(?:is|are)\s+(?:now\s+)?|归|记在?|算在?|由)$", _I)
_POSSESSIVE = re.compile(r"['’]s\b")
#: A sentence that asks, supposes or hedges: nothing claimed.
_NOT_A_CLAIM = re.compile(r"[?？]|\b(?:if|unless|whether|maybe|might|should)\b|如果|要是|假如|万一|是不是|吗|吧", _I)
#: A line of the member's own that takes something on.
_OWN_OFFER = re.compile(r"\bI(?:'ll|’ll|\s+will|\s+can|\s+could|'m\s+happy\s+to)\b|\b(?:on\s+me|my\s+treat)\b"
                        r"|我(?:来|出|付|包|负责|承担|可以|能|认)", _I)


def inferred(text: str, people: Members, heard: Sequence[tuple[str, str]]) -> str | None:
    """The sentence of folded ``text`` that concludes another member bears a cost or task no line of theirs in
    ``heard`` takes on; else None."""
    if people.others is None:
        return None
    for sentence in sentences(text):
        so = _SO.search(sentence)
        if so is None or _NOT_A_CLAIM.search(sentence):
            continue
        for n in islice(people.others.finditer(sentence, so.end()), MATCHES):
            before = sentence[so.end():n.start()]
            made = _MADE_THEIRS.search(before)
            bears = _BEARS.match(sentence, n.end()) or (
                made is not None and (made.group()[:1] in "归记算由" or _POSSESSIVE.match(sentence, n.end()) is not None))
            # ("…, so the one-shot on Sat the 22nd is Theo's. @Theo can you swap with me?": asked of them, in the line)
            asked = re.search(re.escape(n.group()) + r"[^?？]{0,120}[?？]|[?？][^?？]{0,40}$", text[text.find(sentence) + len(sentence):])
            if bears and asked is None and not backed(n.group(), sentence, heard, _OWN_OFFER.search, stem=5):
                return sentence[:80].strip()
    return None
