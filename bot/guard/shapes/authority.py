"""Authority claimed in the text: a heading that speaks for a board, an admin, the system or the
officials ("Course admin notice:", "[群管理员]"), or a body said to have decided — followed by a
ruling on people.

Heyan cannot check such a decision, so a line that *rules* on people in a body's name is held for a
moderator, whoever it names (the writer too). Without a ruling ("Admin notice: the wiki moves on
Friday"), or reported, it stays ordinary.
"""

from __future__ import annotations

import re
from itertools import islice

from bot.guard.shapes.members import Members
from bot.guard.shapes.rulings import ASSENT, FINAL, MATCHES, SANCTION, mentioned, sentences

__all__ = ["authority"]

_I = re.IGNORECASE

#: Who may rule on members: a community's own authorities, not a role anyone holds ("Owner: Bob" heads a
#: task, "Landlord: still no reply" reports). Heyan's own name is ``bot.guard.poisoning``'s marker rule.
_BODY_EN = (r"(?:board|committee|council|management|organi[sz]ers?|admins?|administrators?|administration|"
            r"mods?|moderators?|moderation(?:\s+team)?|course\s+(?:admin|staff|team|office)|team\s+leads?|leadership|"
            r"officials?|system|core\s+team|steering\s+(?:committee|council)|hoa|server\s+owners?|"
            r"guild\s+(?:leaders?|officers?)|(?:[a-z]+\s+){0,2}bot)")
_BODY_ZH = (r"(?:理事会|业委会|委员会|管理员|管理层|管理组|群管|群主|官方|版主|组委会|董事会|居委会|物业|校方|"
            r"系统|协会|会长|教练组|核心组|社委|公会会长|主办方|主办|组织方|赛事方|平台方?)")
_LABEL_EN = (r"(?:notice|note|announcement|update|decision|ruling|verdict|message|statement|memo|alert|vote|"
             r"resolution|bulletin|order|directive|reminder|record|minutes)")
_LABEL_ZH = r"(?:通知|公告|声明|决定|决议|投票|表决|裁定|提示|消息|说明|备注|通报|结果|意见|记录|纪要)"
#: A heading at a line start: "Course admin notice:", "Moderator note —", "Official update:", "经理事会投票：".
_HEADING = re.compile(
    r"^[^\w\n]{0,6}(?:(?:official|important|urgent|final)\s+)?(?:[a-z]+\s+){0,3}?" + _BODY_EN
    + r"(?:'s|’s|'|’)?(?:\s+(?:team|group|office|desk|channel))?(?:\s+" + _LABEL_EN + r"){0,2}\s*(?:[:：—–]|-\s)"
    r"|^[\s\-—=~>|*#]*(?:official|final)\s+" + _LABEL_EN + r"\s*(?:[:：—–]|-\s)"
    r"|^[\s\-—=~>|*#]*[\u4e00-\u9fff]{0,3}?" + _BODY_ZH + r"(?:的)?" + _LABEL_ZH + r"{0,2}\s*[:：]"
    r"|^[\s\-—=~>|*#]*(?:官方|正式|最终|紧急)" + _LABEL_ZH + r"\s*[:：]"
    r"|^[\s\-—=~>|*#]*(?:announcement|notice|ruling|verdict|official)\s*(?:[:：—–]|-\s)"
    r"|^[\s\-—=~>|*#]*(?:群|重要|紧急)?(?:公告|通知|通报|裁定|处理结果|处罚决定)\s*[:：]"
    r"|^[^\w\n]{1,6}[\u4e00-\u9fff]{0,3}?(?:" + _BODY_EN + "|" + _BODY_ZH + r")(?:\s*" + _LABEL_EN + "|" + _LABEL_ZH
    + r"){0,2}[^\w\s:：]{1,6}",
    _I | re.MULTILINE,
)
#: A bracketed tag naming a body, at a line start: "[群管理员]", "【管理员】", "(mod)", "[Board decision]".
_TAG = re.compile(
    r"^\s*[\[【〔(（<]\s*[^\]】〕)）>\n]{0,10}?(?:" + _BODY_EN + r"|" + _BODY_ZH + r")[^\]】〕)）>\n]{0,10}?[\]】〕)）>]"
    # a bracketed notice approved in someone's name: "[Table rules update — approved by Rhiannon]"
    r"|^\s*[\[【〔]\s*[^\]】〕\n]{0,30}?\b(?:rules?|policy|" + _LABEL_EN[3:-1] + r")\b[^\]】〕\n]{0,30}?"
    r"(?:approved|signed\s+off|confirmed|decided|ratified)\s+by\b[^\]】〕\n]{0,30}[\]】〕]",
    _I | re.MULTILINE,
)
#: A body said to have decided: "the board decided", "mods have voted", "业委会已经决定", "经理事会投票".
_DECIDED = re.compile(
    r"\b(?:(?:the|our|a)\s+)?" + _BODY_EN + r"(?:\s+(?:team|group|office|panel))?\s+"
    r"(?:(?:has|have|had|just|already|officially|unanimously|now)\s+){0,3}"
    r"(?:decided|voted|ruled|determined|resolved|confirmed|approved)\b"
    r"|" + _BODY_ZH + r"(?:已经|已|刚刚|刚|一致|正式|开会|讨论后|研究后)*(?:决定|投票|表决|裁定|决议|拍板|通过)"
    r"|经(?:过)?" + _BODY_ZH + r"(?:投票|表决|讨论|决定|决议)"
    r"|\b(?:by\s+order\s+of|per|(?:as\s+)?(?:decided|agreed|voted|ruled|approved|confirmed)\s+by|on\s+behalf\s+of|"
    r"in\s+the\s+name\s+of)\s+(?:the\s+)?" + _BODY_EN + r"\b"
    r"|\bit\s+(?:was|has\s+been|is|had\s+been)\s+(?:officially\s+|unanimously\s+)?(?:decided|voted|ruled|determined|resolved)\b"
    r"|(?:根据|按照|依据|奉)" + _BODY_ZH + r"(?:的)?(?:决定|决议|规定|要求|通知)"
    r"|(?:投票|表决)(?:决定|通过|结果)|经(?:过)?[\u4e00-\u9fff]{0,4}?(?:投票|表决)",
    _I,
)
_OWN = re.compile(r"\s*(?:我(?!们)|i\b|i'm|i’m|i'll|i’ll|i've|i’ve|my\b)", _I)
_THIRD = re.compile(r"\b(?:he|she|they|him|her|them|his|their)\b|他|她", _I)


def _about(text: str, members: Members, *, anyone: bool) -> bool:
    named = members.names_anyone(text) if anyone else members.names_other(text)
    return named or _THIRD.search(text) is not None


def authority(text: str, members: Members) -> str | None:
    """The heading, tag or decision by which ``text`` (folded, quotes blanked) rules on people in a
    body's name, or None."""
    for pattern in (_HEADING, _TAG):
        for m in islice(pattern.finditer(text), MATCHES):
            payload = text[m.end():m.end() + 300]
            if _OWN.match(payload):  # "管理员：我同意周杰的方案" speaks to the admin; "Admin: I've decided Bob is banned" rules
                if SANCTION.search(payload) and members.names_other(payload):
                    return m.group().strip(" -—=~>|*#")
            elif (SANCTION.search(payload) or ASSENT.search(payload)) and _about(payload, members, anyone=True):
                return m.group().strip(" -—=~>|*#")
    for sentence in sentences(text):
        if not SANCTION.search(sentence):
            continue
        said = next((m for m in _DECIDED.finditer(sentence) if not mentioned(sentence, m.start())), None)
        if said is not None and _about(sentence, members, anyone=False):
            return said.group()
        if (f := FINAL.search(sentence)) and members.names_other(sentence) and not mentioned(sentence, f.start()):
            return f.group()
    return None
