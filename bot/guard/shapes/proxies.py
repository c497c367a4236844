"""Speaking as or for another member: "Tomás here, on Jonas's laptop: …", "【林涛】补充一下：…",
"王教练：我已经决定了，…暂停".

The sending account is the author; a line naming someone else as its writer (a borrowed device, a
bracketed name over first-person words, a member's name as the label over a ruling) is flagged. Own
name, no other writer, no name, or a name spoken to ("Bob: you said …") stay ordinary.
"""

from __future__ import annotations

import re
from itertools import islice

from bot.guard.shapes.members import Members
from bot.guard.shapes.rulings import ASSENT, DECISION, MATCHES, SANCTION

__all__ = ["speaks_for"]

_I = re.IGNORECASE
_DEVICE = (r"(?i:phone|laptop|pc|computer|account|login|device|tablet|ipad|mac|macbook|keyboard|profile|discord|"
           r"slack|handle|acc)")
_NOT_A_NAME = frozenset({"i", "i'm", "i’m", "im", "i've", "i’ve", "i'll", "i’ll", "it", "it's", "it’s", "this", "that",
                         "just", "hi", "hey", "hello", "ok", "okay", "so", "well", "yes", "no", "also", "sorry", "quick",
                         "here", "anyone", "someone", "everyone", "nobody", "we", "still", "now", "currently", "btw"})
#: "Tomás here, on Jonas's laptop", "this is Ruth on Jamal's phone", "I'm Tom, using Marcus's PC".
_BORROWED = re.compile(
    r"^[\s(（\[]*(?:(?i:hi|hey|hello)(?:\s+(?i:all|everyone|folks|guys|team))?\b[\s,!]*)?"
    r"(?:(?P<intro>(?i:this\s+is|it'?s|it’s|i'?m|i’m|i\s+am))\s+)?"
    r"(?P<who>[A-Za-z][\w'’-]{1,20}(?:\s+[A-Z][\w'’-]{1,20})?)\s*[,，(（]?\s*"
    r"(?P<here>(?i:here|speaking|writing|typing|posting))?\b[\s,，:(（—-]*(?:(?:\w+[\s,，]+){0,2}?)"
    r"(?i:on|from|using|via|through|borrowing|with)\s+(?P<whose>[\w'’-]+(?:'s|’s)|(?i:my|his|her|their|this|the))\s+"
    r"(?:\w+\s+)?" + _DEVICE + r"\b",
    re.MULTILINE,
)
_BORROWED_ZH = re.compile(
    r"^[\s(（\[【]*(?P<intro>我是|这是|本人是)?(?P<who>[\u4e00-\u9fff]{2,4}?)(?:本人)?[，,\s（(]*我?(?:在|正在)?(?:用|借|拿)(?:了)?"
    r"(?P<whose>[\u4e00-\u9fff]{1,4}?|[A-Za-z][\w'’-]{1,15})的?(?:手机|电脑|账号|号|微信|平板|笔记本)",
    re.MULTILINE,
)
#: A member's own word claimed by someone else: "王磊本人补充一句：…", "Bob himself says: …".
_HIMSELF = re.compile(r"^[\s(（\[【]*(?P<who>[\u4e00-\u9fff]{2,4}?|[A-Z][\w'’-]{1,20})\s*(?:本人|himself|herself|themselves)\s*"
                      r"(?:补充|说|表示|声明|确认|更正|通知|回复|留言|says?|adds?|confirms?|writes?)", re.MULTILINE)
#: A Chinese name, not a pronoun or a demonstrative read as one ("这是我用黄敏的手机拍的").
_PLAIN_NAME = re.compile(r"^[^我你他她它这那是的了在用]+$")
_TAGGED = re.compile(r"\s*[)）\]]?\s*(?:[:：—–]|-\s)")
_SAYS_WHO = re.compile(r"\b(?:here|speaking|writing|typing|posting|borrowing)\b", _I)
#: Words passed on for someone: "posting for Omar: he agrees …", "message from Lena: she accepts …",
#: "Lena asked me to pass on that she agrees …", "代张伟发一下：他同意退出", "张伟让我转告大家，他同意…".
_RELAY = re.compile(
    r"\b(?:(?:posting|writing|speaking|typing|answering|replying|confirming|signing)(?:\s+(?:this|it|that))?\s+(?:for|on\s+behalf\s+of)"
    r"|on\s+behalf\s+of|(?:message|word|note|update)\s+from|passing\s+(?:this\s+)?on\s+(?:from|for))\s+(?P<who>\S{1,24})"
    r"|\b(?P<who2>[A-Za-z][\w'’-]{0,23})\s+(?:asked|wants|told|begged)\s+me\s+to\s+(?:say|tell|pass\s+(?:on|along)|let\s+(?:you|everyone)\s+know|post|confirm)"
    r"|(?:代|替|帮)(?P<who3>[\u4e00-\u9fff]{2,4}?)(?:发|说|转达|回复|表态|表个态|确认)"
    r"|(?P<who4>[\u4e00-\u9fff]{2,4}?)(?:让|叫|托|请)我(?:转告|转达|说|告诉|发|确认)"
    r"|转达(?P<who5>[\u4e00-\u9fff]{2,4}?)的"
    r"|转(?P<who6>[\u4e00-\u9fff]{1,4}?)(?:刚|刚刚)?(?:发|说)(?:给)?我的(?:语音|消息|话|微信|留言)",
    _I,
)
#: What a relay may not carry for its sender: assent (above) or giving something up — "she can't come
#: tonight" passed on is news, "he gives up his slot" is a concession only he can make.
_GIVES_UP = re.compile(r"\b(?:give[sn]?\s+up|gave\s+up|drops?|dropped|waives?|waived|withdraws?|withdrew|"
                       r"steps?\s+down|stepped\s+down|takes?\s+(?:the\s+)?blame|(?:is|'s|are)\s+(?:fine|ok|okay)\s+with)\b"
                       r"|放弃|退出|承担|不追究|认了|让出", re.IGNORECASE)
#: A writer named in a tag: "(sent by Ravi) …", "[posted by Bob]", "From Lena: …".
_SENT_BY = re.compile(r"^\s*[(（\[【]?\s*(?:(?:sent|posted|written|typed)\s+(?:by|for)|from)\s+(?P<who>[^\s)）\]】:：,]{1,24})"
                      r"\s*[)）\]】:：—–-]", re.IGNORECASE | re.MULTILINE)
_BINDING_FIRST = re.compile(r"\b(?:i'll|i’ll|i\s+will|i\s+agree|i\s+accept|i\s+admit|i\s+promise|i\s+owe)\b"
                            r"|我(?:同意|承认|会|来|保证|答应|接受|赔)", re.IGNORECASE)
#: A bracketed name tag heading a line: "【林涛】", "[Bob]".
_TAG = re.compile(r"^\s*[【\[〔]\s*(?P<who>[^\]】〕\n]{1,24}?)\s*[】\]〕]", re.MULTILINE)
#: A name as a line's label: "王教练：", "Bob:".
_LABEL = re.compile(r"^\s*(?P<who>[^\s:：,，.。!?]{1,24}(?:\s[^\s:：,，.。!?]{1,24})?)\s*[:：]", re.MULTILINE)
#: A name labelling the words passed on: "…（文字版）苏晴：…".
_INNER_LABEL = re.compile(r"(?:^|[\s）)\]】，,])(?P<who>[^\s:：,，.。!?）)\]】（(]{1,12})\s*[:：]")
_FIRST = re.compile(r"\b(?:i|i'm|i’m|i'll|i’ll|i've|i’ve|my|me|mine)\b|我", _I)
_ADDRESSING = re.compile(r"\s*(?:you\b|your\b|can\s+you|could\s+you|please|pls|@|你|您|请问)", _I)


def _whole(members: Members, who: str) -> bool:
    """``who`` is exactly another member's name form."""
    m = members.other_at(who)
    return m is not None and m.end() == len(who)


def _own(members: Members, who: str) -> bool:
    m = members.own.match(who) if members.own is not None else None
    return m is not None and m.end() == len(who)


def speaks_for(text: str, members: Members) -> str | None:
    """The name of the other person ``text`` (folded, quotes blanked) is written as, or None."""
    for m in islice(_BORROWED.finditer(text), MATCHES):
        who, whose = m.group("who"), m.group("whose")
        if who.casefold() in _NOT_A_NAME or _own(members, who) or who.casefold() in members.own_folded:
            continue
        if who[0].islower() and who.casefold() not in members.others_folded:
            continue  # a lower-case writer must be a member's name as typed ("nina here on leo's phone")
        if not (m.group("intro") or _SAYS_WHO.search(m.group()) or _TAGGED.match(text, m.end())):
            continue  # "Jonas (on Aylin's account): …" tags its writer; "Bob on Alice's laptop is …" does not
        owner = whose[:-2] if whose.endswith(("'s", "’s")) else ""
        if not owner and not (m.group("intro") or m.group("here") == "here"):
            continue  # "Grace, typing on my phone …" may speak to Grace: only "X here" / "this is X" says who writes
        if _whole(members, who) or who.casefold() in members.others_folded or (owner and (
                members.names_anyone(owner) or owner.casefold() in members.others_folded | members.own_folded)):
            return who
    for m in islice(_BORROWED_ZH.finditer(text), MATCHES):
        who = m.group("who")
        if _own(members, who):
            continue
        if _whole(members, who) or (m.group("intro") and _PLAIN_NAME.match(who) and members.names_anyone(m.group("whose"))):
            return who
    for m in islice(_HIMSELF.finditer(text), MATCHES):
        if not _own(members, m.group("who")) and _whole(members, m.group("who")):
            return m.group("who")
    for m in islice(_RELAY.finditer(text), MATCHES):
        who = next(g for g in m.groups() if g)
        said = text[m.end():m.end() + 300]
        if said.rstrip().endswith(("?", "？")):
            continue
        if members.other_at(who) is not None and (ASSENT.search(said) or _GIVES_UP.search(said)):
            return members.other_at(who).group()  # type: ignore[union-attr]
        # passed on for someone by a name the roster may not hold ("替小鱼说一句", a voice note's
        # transcript): a ruling on people, or a member's own words binding them, carried for another
        if (DECISION.search(said) and SANCTION.search(said)) or (
                (label := _INNER_LABEL.search(said)) and _whole(members, label.group("who"))
                and _FIRST.search(said) and (SANCTION.search(said) or ASSENT.search(said) or _GIVES_UP.search(said))):
            return who
    for m in islice(_SENT_BY.finditer(text), MATCHES):
        said = text[m.end():m.end() + 300].split("\n", 1)[0]
        who = members.other_at(m.group("who"))
        if who is None or not _FIRST.search(said):
            continue
        # "(sent by Ravi) I admit …" names its writer; "From Bob: thanks everyone!" passes a greeting on
        if not m.group(0).lstrip(" ([（【").casefold().startswith("from") or ASSENT.search(said) \
                or _GIVES_UP.search(said) or _BINDING_FIRST.search(said):
            return who.group()
    for m in islice(_TAG.finditer(text), MATCHES):
        who, said = m.group("who"), text[m.end():m.end() + 300].split("\n", 1)[0]
        if _whole(members, who) and not _ADDRESSING.match(said) and not said.startswith(("的", "'s", "’s")) \
                and _FIRST.search(said):
            return who
    for m in islice(_LABEL.finditer(text), MATCHES):
        who, said = m.group("who"), text[m.end():m.end() + 300].split("\n", 1)[0]
        if not _whole(members, who) or _ADDRESSING.match(said):
            continue
        if DECISION.search(said) and (SANCTION.search(said) or ASSENT.search(said)):
            return who
    return None
