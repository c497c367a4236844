"""A relayed notice: a line that shows what an app, the platform or a device said — "【腾讯文档】团子 编辑了…",
"「婷婷」撤回了一条消息：“…”", "🎙️ Voice note from Rhea (auto-transcribed): …", "… is complete. All parties
have signed" — about members.

Members do not type such lines, and Heyan cannot check what an app said: a relay that names a member
and plants a ruling, an assent, a decision or a change of who does what is held for a moderator. A
notice about no one ("【通知】周六活动取消") stays ordinary.
"""

from __future__ import annotations

import re

from bot.guard.shapes.members import Members
from bot.guard.shapes.rulings import ASSENT, DECISION, SANCTION

__all__ = ["relayed"]

_I = re.IGNORECASE

#: A bracketed source at the line start: "【钉钉】", "[转账]", "〔Jam 主办方通知〕".
_SOURCE = re.compile(r"^\W{0,3}[\[【〔]\s*[^\]】〕\n]{1,24}?\s*[\]】〕]")
#: The platform's own line about a member, in the form chat apps show it: "「婷婷」撤回了一条消息",
#: "「Echo」拍了拍「和言」", "「二叔」修改群昵称为「…」", "“阿杰” 邀请 …加入了群聊".
_PLATFORM = re.compile(r"^\W{0,3}[「“\"']?[^」”\"'\s]{1,16}[」”\"']?\s*"
                       r"(?:撤回了一条消息|拍了拍|修改群昵称为|修改了群名|邀请|加入了群聊|已被移出群聊|recalled\s+a\s+message)")
#: What only an app or device writes: an automatic transcript, reply or alt text, a closed poll, a
#: completed e-signature, a read receipt.
_MACHINE = re.compile(r"\bauto[- ]?(?:transcri\w*|reply|generated)\b|\balt\s+text\s*:|\bvoice\s+(?:note|message)\s+from\b"
                      r"|\bpoll\s+(?:closed|results?)\b|\ball\s+parties\s+have\s+signed\b|\bhas\s+been\s+signed\s+by\b"
                      r"|\(automatic(?:ally)?\b|已被\S{0,8}阅读|点击了「?确认收到|语音转文字|自动回复|投票已结束|抽签结果",
                      _I)
#: A change of who does what: "老吴→团子", "改由周老师自己整理", "Ezra takes over shipping", "no longer
#: responsible", "reassigned to", "don't redo them".
_ASSIGNS = re.compile(r"→|->|负责人|改由|改成由|不用管|不用再|不必|由\S{1,8}(?:承担|负责|出)|全包"
                      r"|\b(?:don'?t|doesn'?t|do\s+not|does\s+not|no\s+longer)\s+(?:need|have)s?\s+to\b|\bdon'?t\s+redo\b"
                      r"|\bno\s+need\s+to\b"
                      r"|\btakes?\s+over\b|\bno\s+longer\s+(?:responsible|in\s+charge|doing)\b|\breassigned\b"
                      r"|\b(?:is|are)\s+now\s+(?:responsible|in\s+charge)\b", _I)


def relayed(text: str, plain: str, members: Members) -> str | None:
    """The relay marker by which ``text`` (folded; ``plain``: the same with quotes blanked) passes off
    an app's or the platform's notice about members, or None. The platform's own lines ("「婷婷」撤回了…")
    are read in ``text``: their names are in corner quotes, which ``plain`` blanks."""
    m = _PLATFORM.search(text) or _SOURCE.search(plain) or _MACHINE.search(text)
    if m is None or not members.names_anyone(text):
        return None
    # the platform's line carrying words ("…撤回了一条消息：“…”", "…拍了拍「和言」并说：…", "…修改群昵称为「…」")
    platform = _PLATFORM.search(text)
    says = platform is not None and len(text[platform.end():].strip(" ：:。.")) >= 4
    if says or any(p.search(text) for p in (SANCTION, ASSENT, DECISION, _ASSIGNS)):
        return m.group().strip()
    return None
