"""Promises said another way: after a lead phrase or a request, taken on indirectly, object first.

``actions.is_commitment`` reads the plain forms ("I'll …", "我会…"); this module reads the rest, as
people write them in disputes:

* a lead phrase before the promise — "As the admin of the repo I'll …", "Once I'm paid I'll …";
* a request, then the promise — "Log the bug and I'll fix it by tomorrow 5pm", "Give me the keys and
  I'll return them" (the request is the listener's part; the promise is the speaker's);
* taking something on — "let me handle the booking", "the pizza is on me", "leave the report with
  me", "consider the refund done", "I've got the dishes tonight", "count me in";
* Chinese with the object first — "发票我来开", "钥匙今晚我带过来", "这周的值日我包了", "钥匙的事包在我身上";
* Chinese first person with a time or an intent word and an action — "我明天给你答复", "我今晚顺路买",
  "我自己今晚收拾";
* Chinese without a subject, a deadline then an action to the listener — "（可以，）周五前退给你".

``promise_part`` gives the words that carry the promise (the lead phrase or request taken off);
``indirect_action`` the action to remember for a taking-on form ("handle the booking", "take care
of the report"). Every pattern is anchored at the start of the clause or bounded, so a check costs
a constant (``clauses.MAX_CLAUSE_CHARS`` bounds the clause).
"""

from __future__ import annotations

import re

from bot.duetime import find_due_span
from bot.offline import lexicon as lx

__all__ = ["ZH_ACTION_VERBS", "indirect_action", "is_indirect_promise", "promise_part", "zh_deadline_to_you"]

_I = re.IGNORECASE

# "As the admin of the repo I'll …", "Once I'm paid on the 25th I'll …": a lead phrase, then the promise.
_EN_LEAD = re.compile(
    r"^(?:as|once|when|after|as\s+soon\s+as|before|since|being|for\s+(?:the|my|our)|in\s+(?:that|this|any)|next\s+time"
    r"|to\s+be\s+(?:fair|honest|clear))\b[^.;!?]{0,80}?[\s,]+(?=(?:i|we)(?:'ll|’ll|\s+will|\s+shall)\b)",
    _I,
)
# "Log the bug and I'll fix it", "Give me until Wednesday and I'll …": a request, then the promise.
_EN_REQUEST_THEN = re.compile(
    r"^(?:(?:ok|okay|sure|just|please|fine)[\s,]+)*(?:give|send|log|file|open|raise|ping|tell|show|drop|bring|forward"
    r"|email|text|message|call|get|hand|pass|put|post|share|write|add|submit|fill|mention|remind|book|wait|hold"
    r"|let\s+me\s+know)\b[^.;!?]{0,80}?\s+and(?:\s+then)?\s+(?=(?:i|we)(?:'ll|’ll|\s+will|\s+shall)\b)",
    _I,
)
# Taking something on, in English.
_LET_ME = re.compile(
    r"^let\s+me\s+(?!know\b|see\b|think\b|guess\b|be\b|explain\b|say\b|tell\b|ask\b|get\s+this\s+straight\b"
    r"|remind\b|check\s+if\b|finish\s+(?:speaking|talking)\b|repeat\b|put\s+it\b|go\b)(?P<action>[a-z].*)",
    _I,
)
_ON_ME = re.compile(r"^(?P<what>(?:the\s+|this\s+|that\s+|these\s+|those\s+|it\b)[^,.;!?]{0,50}?)\s+(?:is|are|'s)\s+(?:on\s+me"
                    r"|covered|sorted|handled|taken\s+care\s+of)\b"
                    r"(?P<rest>.*)", _I)
_LEAVE_WITH_ME = re.compile(r"^(?:just\s+)?leave\s+(?P<what>it|this|that|them|the\s+[^,.;!?]{1,50}?|[\w'-]+)\s+"
                            r"(?:to|with)\s+me\b(?P<rest>.*)", _I)
_CONSIDER_DONE = re.compile(r"^consider\s+(?P<what>it|this|that|the\s+[^,.;!?]{1,50}?)\s+(?:done|handled|sorted)\b", _I)
_GOT_IT = re.compile(r"^(?:i'?ve|i\s+have)\s+got\s+(?P<what>it|this|that|them|the\s+[^,.;!?]{1,50}?)"
                     r"(?P<rest>\s+(?:covered|handled|sorted)\b.*|\s+.*)?$", _I)
_COUNT_ME_IN = re.compile(r"^count\s+me\s+in\b|^(?:you\s+can\s+)?count\s+on\s+me\b", _I)
_EN_WHEN = re.compile(r"\b(?:tonight|today|tomorrow|this\s+(?:week|weekend|time|month|evening|afternoon|morning)"
                      r"|next\s+\w+|on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|every\s+\w+|from\s+now\s+on)\b", _I)

#: Chinese verbs of doing something for someone: a first-person clause with one of these and a time or
#: intent word is a promise ("我明天给你答复", "我今晚顺路买").
ZH_ACTION_VERBS = (
    "给|发|交|还|付|寄|送|退|转|打|买|带|拿|搬|挪|修|做|写|改|弄|办|处理|搞|收拾|打扫|倒|洗|清理|整理|安排|联系|通知|回复"
    "|答复|告诉|问|找|约|订|预订|准备|提交|补|赔|换|装|查|确认|跟进|解决|完成|垫|出|接|取|叫|催|谈|商量|去|来|开|搞定"
    "|弄好|修好|发出|交上|退还|归还|结清|付清|核对|检查|更新|上传|下载|整理好|收好|放好|关|锁|扔|收|报名|参加|到|过来|回来"
    "|请|签|填|订|赶|陪|帮"
)
_ZH_VERB = rf"(?:{ZH_ACTION_VERBS})"
# Time words that make a first-person action a promise ("我明天…", "我这周…"), beyond the due times.
_ZH_WHEN = (r"(?:每[天晚周次月]|以后|今后|从今以后|今天|明天|后天|今晚|明早|明晚|这周|本周|下周|周末|这个?月|下个?月|月底|年底|待会儿?|等会儿?|一会儿?|晚点"
            r"|回头|马上|立刻|现在|这就|今天下午|下午|晚上|早上|上午|中午|下班后?|周[一二三四五六日天]|星期[一二三四五六日天])")
_ZH_INTENT = r"(?:先|来|去|负责|就|马上|立刻|这就|一定|肯定|保证|自己|亲自|顺路|顺便|再|准时|按时|一早|提前|尽快|今天就|明天就)"
_ZH_NOT_ACTION = re.compile(r"^(?:还在|正在|还没|一直|从来|也在|还是没|是|有|在|觉得|认为|想|要|没|不|已经|刚|得|可能|也许|大概|记得|知道|希望|担心|怕|猜)")
# "我明天给你答复", "我自己今晚收拾", "我今晚顺路买": 我 + time/intent words + an action.
_ZH_FIRST = re.compile(rf"^我们?(?P<mods>(?:{_ZH_WHEN}|{_ZH_INTENT}|[，,\s])*)(?P<verb>{_ZH_VERB})")
_ZH_MOD = re.compile(rf"(?:{_ZH_WHEN}(?:之前|以前|前|之内|以内|内|开始)?|{_ZH_INTENT}|[，,\s]+)")
# The object first: "发票我来开", "钥匙今晚我带过来", "这个月的网费我先垫上".
_ZH_TOPIC = re.compile(r"^(?P<topic>[^，,。！？!?我你他她]{1,12}?)(?=我)")
_ZH_TAKEN_ON = re.compile(
    r"^(?:[^，,。你他她]{1,10}?(?:的事|这事|这件事)?)?(?:就|都)?(?:交给我|包在我身上|我包了|我全包了|算我的|算我一个|我来吧|我来)"
)
_ZH_TO_YOU = re.compile(r"(?:给|还|发|退|寄|送|转)(?:给)?你")


def _zh_first(core: str, *, topic: bool = False, timed: bool = False) -> bool:
    """我 + time or intent words (or a deadline) + an action verb: "我明天给你答复", "我今晚顺路买",
    "我周五前付". After a topic ("下一轮我请", "发票我开") the verb alone will do."""
    m = re.match(r"我们?", core)
    if m is None:
        return False
    rest, marked = core[m.end() :], False
    for _ in range(4):  # at most a few time and intent words before the verb
        if step := _ZH_MOD.match(rest):
            rest, marked = rest[step.end() :], True
            continue
        span = find_due_span(rest)
        if span is not None and span[0] == 0:
            rest, marked = rest[span[1] :], True
            continue
        break
    if _ZH_NOT_ACTION.match(rest) or not re.match(_ZH_VERB, rest):
        return False
    return marked or topic or timed or bool(find_due_span(core))


def promise_part(core: str) -> str:
    """The words of a clause that carry its promise: without a lead phrase ("As the admin …") or a
    request before it ("Log the bug and …"), and with the object put back after a Chinese object-first
    clause ("发票我来开" → "我来开发票"). The clause itself when there is nothing to take off."""
    if m := _EN_LEAD.match(core) or _EN_REQUEST_THEN.match(core):
        return core[m.end() :]
    if core.startswith("我") or _ZH_TAKEN_ON.match(core):
        return core
    if (m := _ZH_TOPIC.match(core)) and not re.search(r"[A-Za-z]", m.group("topic")):
        topic, rest = m.group("topic"), core[m.end() :]
        if _is_zh_promise(rest):
            return _with_topic(rest, topic)
    return core


def _with_topic(rest: str, topic: str) -> str:
    """ "我来开" + "发票" → "我来开发票"; "我今晚带过来" + "钥匙" → "我今晚把钥匙带过来"."""
    m = _ZH_FIRST.match(rest)
    if m is None:
        return f"{rest}（{topic}）" if not rest.endswith(topic) else rest
    head, after = rest[: m.start("verb")], rest[m.start("verb") :]
    if len(after) <= 2:  # a bare verb: "开" → "开发票"
        return f"{head}{after}{topic}"
    return f"{head}把{topic}{after}"


def _is_zh_promise(core: str) -> bool:
    """After an object put first ("发票我来开", "下一轮我请"): 我 and the rest of a promise."""
    return bool(lx.ZH_COMMIT_HEAD.match(core) or _zh_first(core, topic=True) or _ZH_TAKEN_ON.match(core))


def is_indirect_promise(core: str, *, timed: bool = False) -> bool:
    """Does the clause take something on in one of the indirect forms of the module docstring?
    ``timed``: the clause names a time before ``core`` ("周日我送你去机场")."""
    if not core:
        return False
    if _LET_ME.match(core) or _ON_ME.match(core) or _LEAVE_WITH_ME.match(core) or _CONSIDER_DONE.match(core) \
            or _COUNT_ME_IN.match(core):
        return True
    if m := _GOT_IT.match(core):
        rest = m.group("rest") or ""
        return bool(re.match(r"\s+(?:covered|handled|sorted)\b", rest, _I) or _EN_WHEN.search(rest) or find_due_span(rest))
    if _ZH_TAKEN_ON.match(core):
        return True
    if _zh_first(core, timed=timed) or zh_deadline_to_you(core) or _zh_to_you(core, timed=timed):
        return True
    m = _ZH_TOPIC.match(core)
    return bool(m and _is_zh_promise(core[m.end() :]) and not re.search(r"[A-Za-z]", m.group("topic")))


def zh_deadline_to_you(core: str) -> bool:
    """ "（可以，）周五前退给你": a deadline, then an action done to the listener, the subject left out
    as Chinese does (an assent opener is stripped with the other openers)."""
    span = find_due_span(core)
    if span is None or span[0] != 0:
        return False
    rest = core[span[1] :]
    return bool(re.match(rf"(?:就|会|一定|都)?{_ZH_VERB}", rest) and _ZH_TO_YOU.search(rest))


def _zh_to_you(core: str, *, timed: bool) -> bool:
    """ "合同今晚发你": no subject, a time, an action done to the listener (the speaker acts)."""
    if core.startswith(("你", "您")) or not (timed or find_due_span(core) or re.search(_ZH_WHEN, core)):
        return False
    return bool(re.search(r"(?<=[\u4e00-\u9fff])(?:发|给|还|转|寄|送|退|交|付|带)(?:给)?你(?!们)", core))


def indirect_action(core: str) -> str | None:
    """The action an English taking-on form promises, in words a reply can use after "promised to":
    "let me handle the booking" → "handle the booking"; "the pizza is on me tonight" → "cover the pizza
    tonight"; "leave the report with me" → "take care of the report". None for other clauses."""
    if m := _LET_ME.match(core):
        return m.group("action")
    if m := _ON_ME.match(core):
        return f"cover {m.group('what')}{m.group('rest')}".strip()
    if m := _LEAVE_WITH_ME.match(core):
        return f"take care of {m.group('what')}{m.group('rest')}".strip()
    if m := _CONSIDER_DONE.match(core):
        return f"take care of {m.group('what')}{core[m.end():]}".strip()
    if m := _GOT_IT.match(core):
        rest = re.sub(r"^\s+(?:covered|handled|sorted)\b", "", m.group("rest") or "", flags=_I)
        return f"take care of {m.group('what')}{rest}".strip()
    if _COUNT_ME_IN.match(core):
        return core
    return None
