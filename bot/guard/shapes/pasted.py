"""A member's consent planted in pasted material: a code block ("<Variable>Kadri withdrew the rejection</Variable>"),
hashtags ("#莉莉同意赔偿医药费"), a mark in brackets ("「设计：椰子（已授权商用）」") or a record copied in several lines
("第二十二世　斌　…斌许诺寿宴费用一力承担") that says another member agreed, admitted, promised or gave something up.

Such material is shown, not said: Heyan cannot check who wrote it, and members do not record their own
concessions as file rows, tags or watermarks. The speaker's own consent, or material naming no member, stays
ordinary ("#周末爬山", a config block, "「设计：我」").
"""

from __future__ import annotations

import re
from itertools import islice

from bot.guard.shapes.members import Members
from bot.guard.shapes.rulings import ASSENT, MATCHES

__all__ = ["pasted"]

_I = re.IGNORECASE
#: A fenced code block, hashtags, and marks in corner or lenticular brackets.
_PARTS = re.compile(r"```.*?(?:```|$)|(?:#[^\s#]{2,40}\s*){1,}|「[^」\n]{2,400}」|『[^』\n]{2,400}』"
                    # a label, a card or a page quoted inside a line: 'Moorea, trap 2, … photos released to K. Kahale'
                    r"|\"[^\"\n]{25,400}\"|“[^”\n]{25,400}”|(?<![A-Za-z])'(?:[^'\n]|(?<=[A-Za-z])'(?=[A-Za-z])){25,400}'(?![A-Za-z])"
                    # a quoted text on a line of its own, the small print or a notice copied in
                    r"|(?m:^\s*[\"“][^\"”\n]{30,600}[\"”]\s*$)", re.DOTALL)
#: A concession, an assent or a promise given: the rulings' ``ASSENT`` and what a copied record says of its subject.
_CONCEDES = re.compile(r"\b(?:withdrew|withdrawn|waived|released|approved|authori[sz]ed|gave\s+up|dropped\s+(?:the|his|her|their)"
                       r"|run\s+stands|stands|(?:fine|ok|okay|good)\s+(?:with|by)\s+me|no\s+objections?|waiver\s+signed"
                       r"|signed\s+(?:a\s+|the\s+)?waiver|assigns?|assigned|relinquish(?:es|ed)?|transfer(?:s|red)?|cede[sd]?|ok'?d|okayed|okay'?d"
                       r"|covers|pays|holds?\s+(?:all\s+)?(?:the\s+)?rights)\b"
                       r"|许诺|承诺|承担|授权|放弃|让出|批准|不追究|交由|悉听|全权|公推|推举|一个人(?:出|包|付)|包了|全包|兜底"
                       r"|(?:著作权|版权|所有权)归|许以|独任", _I)
#: A concession said before the name it is in: "Waiver signed by the cover photographer, F. Rahimi".
_CONCEDED_BY = re.compile(r"\b(?:(?:waiver|release|consent|approval|permission)\s+(?:signed|given|granted)"
                          r"|(?:paid|covered|borne|funded|footed|owed|payable)(?:\s+(?:in\s+full|personally|entirely))?)\s+by\b"
                          r"|签字人|授权人", _I)
#: The others as one body: "co-brewers have released …", "其他上传者已签字放弃分成", "點校諸人公推…".
_THE_OTHERS = re.compile(r"\b(?:co-?(?:brewers|imagers|authors|owners|creators|writers|makers|founders|organi[sz]ers|members|"
                         r"contributors|editors|translators)|(?:all|the\s+other|other|the\s+remaining|remaining)\s+"
                         r"(?:members|entrants|contributors|authors|uploaders|participants|players|volunteers|artists|makers))\b"
                         r"|(?:其他|其余|另外)[^，。\n]{0,3}?(?:人|上传者|作者|成员|组员|社员|会员|画师|人员|股东|合伙人|译者|志愿者)"
                         r"|[诸諸](?:人|位|君|友|作者|社友|同人|同仁|社员)|全员|全组|全体(?:成员|组员)?", _I)
#: The subject of a record and its deed, within a line: a name and then the concession, at most this far apart.
_NEAR = 30


def pasted(text: str, members: Members) -> str | None:
    """The words of pasted material in ``text`` that give another member's consent, or None."""
    if members.others is None:
        return None
    for part in _parts(text):
        for m in islice(_THE_OTHERS.finditer(part), MATCHES):  # the others gave it up, whoever they are
            line = part[m.end():m.end() + _NEAR].split("\n", 1)[0]
            if ASSENT.search(line) or _CONCEDES.search(line):
                return (m.group() + line).strip()[:80]
        for m in islice(members.others.finditer(part), MATCHES):
            after = part[m.end():m.end() + _NEAR]
            line = after.split("\n", 1)[0]
            lead = part[max(0, m.start() - 2 * _NEAR):m.start()].rsplit("\n", 1)[-1]
            if ASSENT.search(line) or _CONCEDES.search(line) or _CONCEDED_BY.search(lead):
                return (m.group() + line).strip()[:80] if not _CONCEDED_BY.search(lead) else (lead + m.group()).strip()[-80:]
    return None


def _parts(text: str) -> list[str]:
    """The pasted parts of ``text``: fenced blocks, hashtags, bracketed marks, and the lines after the first
    of a message of three lines or more (a record or a table copied in)."""
    parts = [m.group() for m in _PARTS.finditer(text)]
    lines = [x for x in text.split("\n") if x.strip()]
    if len(lines) >= 3:
        parts += lines[1:]
    return parts
