"""Promises said another way: after a lead phrase or a request, taken on indirectly, object first.

``actions.is_commitment`` reads the plain forms; this module the rest: a lead phrase ("As the admin
I'll …"), a request then the promise ("Give me the keys and I'll return them"), taking something on
("the pizza is on me"), Chinese with the object first ("发票我来开") or without a subject ("周五前退给你").
``promise_part`` and ``indirect_action`` give the words to keep. Every pattern is anchored or bounded.
"""

from __future__ import annotations

import re

from bot.offline import lexicon as lx
from bot.text.duetime import find_due_span

__all__ = ["ZH_ACTION_VERBS", "ZH_STATE", "indirect_action", "is_indirect_promise", "promise_part", "zh_deadline_to_you",
           "zh_modifiers"]

_I = re.IGNORECASE

# "As the admin of the repo I'll …", "Once I'm paid on the 25th I'll …": a lead phrase, then the promise.
_EN_LEAD = re.compile(
    r"^(?:(?:and\s+|but\s+)?so\s+(?=to\b)|and\s+then\s+)?(?:as|once|when|after|as\s+soon\s+as|before|since|being|for\s+(?:the|my|our)"
    r"|in\s+(?:that|this|any)|next\s+time|to\s+(?:settle|fix|sort|solve|end|avoid|make\s+up\s+for)"
    r"|(?:just\s+)?to\s+be\s+(?:safe|sure)|(?:just\s+)?in\s+case"
    r"|to\s+be\s+(?:fair|honest|clear))\b[^.;!?]{0,80}?[\s,]+(?=(?:i|we)(?:'ll|’ll|\s+will|\s+shall)\b)",
    _I,
)
# "Log the bug and I'll fix it", "Give me until Wednesday and I'll …": a request, then the promise.
_EN_REQUEST_THEN = re.compile(
    r"^(?:(?:ok|okay|sure|just|please|fine)[\s,]+)*(?:give|send|log|file|open|raise|ping|tell|show|drop|bring|forward"
    r"|email|text|message|call|get|hand|pass|put|post|share|write|add|submit|fill|mention|remind|book|wait|hold"
    r"|leave|keep|sign|return|ask|find|check|pick"
    r"|let\s+me\s+know)\b[^.;!?]{0,80}?\s+and(?:\s+then)?\s+(?=(?:i|we)(?:'ll|’ll|\s+will|\s+shall)\b)",
    _I,
)
# Taking something on, in English.
_LET_ME = re.compile(
    r"^let\s+me\s+(?!know\b|see\b|think\b|guess\b|be\b|explain\b|say\b|tell\b|ask\b|get\s+this\s+straight\b"
    r"|remind\b|check\s+if\b|finish\s+(?:speaking|talking|what|my)\b|repeat\b|put\s+it\b|go\b|rephrase\b|clarify\b"
    r"|speak\b|talk\b|vent\b|breathe\b|sleep\s+on\b|point\s+(?:out|something)\b|make\s+(?:this|it|one\s+thing|myself)\s+clear\b)(?P<action>[a-z].*)",
    _I,
)
_ON_ME = re.compile(r"^(?P<what>(?:the\s+|this\s+|that\s+|these\s+|those\s+|it\b)[^,.;!?]{0,50}?)\s+(?:is|are|'s)\s+(?:on\s+me"
                    r"|covered|sorted|handled|taken\s+care\s+of)\b"
                    r"(?P<rest>.*)"
                    r"|^(?P<bare>(?!(?:it|this|that|everything|all|the\s+blame|blame)\b)[a-z][\w'-]*(?:\s+[\w'-]+){0,3}?)\s+(?:is|are|'s)\s+on\s+me\b"
                    r"(?P<tail>.*)", _I)
_LEAVE_WITH_ME = re.compile(r"^(?:just\s+)?leave\s+(?P<what>it|this|that|them|the\s+[^,.;!?]{1,50}?|[\w'-]+)\s+"
                            r"(?:to|with)\s+me\b(?P<rest>.*)", _I)
_CONSIDER_DONE = re.compile(r"^consider\s+(?P<what>it|this|that|the\s+[^,.;!?]{1,50}?)\s+(?:done|handled|sorted)\b", _I)
_GOT_IT = re.compile(r"^(?:i'?ve|i\s+have)\s+got\s+(?P<what>it|this|that|them|the\s+[^,.;!?]{1,50}?)"
                     r"(?P<rest>\s+(?:covered|handled|sorted)\b.*|\s+.*)?$", _I)
# "On it, tonight.", "on it — will have an answer by lunch": taking on what was just asked.
_ON_IT = re.compile(r"^(?:i'?m\s+|i’m\s+|i\s+am\s+)?(?:on|working\s+on)\s+it\b(?!\s+(?:is|was|and\s+it))(?P<rest>.*)", _I)
_COUNT_ME_IN = re.compile(r"^count\s+me\s+in\b|^(?:you\s+can\s+)?count\s+on\s+me\b", _I)
_EN_WHEN = re.compile(r"\b(?:tonight|today|tomorrow|this\s+(?:week|weekend|time|month|evening|afternoon|morning)"
                      r"|next\s+\w+|on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|every\s+\w+|from\s+now\s+on)\b", _I)

#: Chinese verbs of doing something for someone: a first-person clause with one of these and a time or
#: intent word is a promise ("我明天给你答复", "我今晚顺路买").
ZH_ACTION_VERBS = (
    "给|发|交|还|付|寄|送|退|转|打|买|带|拿|搬|挪|修|做|写|改|弄|办|处理|搞|收拾|打扫|倒(?!霉)|洗|清理|整理|安排|联系|通知|回复|传|删"
    "|答复|告诉|问|找|约|订|预订|准备|提交|补|赔|换|装|查|确认|跟进|解决|完成|垫|出(?!差|国|门|去)|接|取|叫|催|谈|商量|去|来|开|搞定"
    "|弄好|修好|发出|交上|退还|归还|结清|付清|核对|检查|更新|上传|下载|整理好|收好|放好|关|锁|扔|收|报名|参加|到|过来|回来"
    "|请|签|填|订|赶|陪|帮|放|录|回(?=你|您|复|电|个|信|消息)|停|列|戴|清空|腾|留|汇|道歉|提醒|接送|喂|遛|擦|拖|刷|重写|重做|重发|补齐|还清|分(?!钟|手|开)|对(?=一遍|一下|账)|统计|汇总|核算|配(?!合)|重启|算(?!了)|拍|录|采购|登记|预约|刷"
)
_ZH_VERB = rf"(?:{ZH_ACTION_VERBS})"
# Time words that make a first-person action a promise ("我明天…", "我这周…"), beyond the due times.
_ZH_WHEN = (r"(?:每(?:周|星期)[一二三四五六日天]|每[天晚周次月]|以后|今后|从今以后|稍后|随后|过会儿?|今天|明天|后天|今晚|明早|明晚|这周|本周|下周|周末|这个?月|下个?月|月底|年底|待会儿?|等会儿?|一会儿?|晚点"
            r"|回头|马上|立刻|现在|这就|今天下午|下午|晚上|早上|上午|中午|下班后?|周[一二三四五六日天]|星期[一二三四五六日天])")
_ZH_INTENT = (r"(?:先|来|去|负责|就|马上|立刻|这就|一定|肯定|保证|自己|亲自|顺路|顺便|再|准时|按时|一早|提前|尽快|今天就|明天就"
              r"|重新|早点|早些|抓紧|赶紧|现在就|还是|一个人|都|多(?=[付给交出])|下去|上去|过去|出去|回去|下来|上来"
              r"|一分不少|一分钱不少|全部|全额|全(?=[出付包交给])|一次性|原封不动|亲手|当面"
              r"|(?:晚上|早上|下午|中午)?[0-9零一二两三四五六七八九十]{1,3}点(?:半|钟)?(?:以后|之后|后|前|之前|以前))")
_ZH_NOT_ACTION = re.compile(r"^(?:还在|正在|还没|一直|从来|也在|还是没|是|有|在|觉得|认为|想|要|没|不|已经|刚|得|可能|也许|大概|记得|知道|希望|担心|怕|猜)")
# "我明天给你答复", "我自己今晚收拾", "我今晚顺路买": 我 + time/intent words + an action.
_ZH_FIRST = re.compile(rf"^我们?(?P<mods>(?:{_ZH_WHEN}|{_ZH_INTENT}|[，,\s])*)(?P<verb>{_ZH_VERB})")
_ZH_MOD = re.compile(rf"(?:{_ZH_WHEN}(?:之前|以前|前|之内|以内|内|开始)?|{_ZH_INTENT}|[，,\s]+)")
# The object first: "发票我来开", "钥匙今晚我带过来", "这个月的网费我先垫上", "你的充电器我明早带给你".
_ZH_TOPIC = re.compile(r"^(?P<topic>(?:[你您他她]的|我们(?=[^，,。我你他她]{1,12}?的))?[^，,。！？!?:：我你他她]{1,12}?)(?=我)")
# A topic that is a past time or a cleft ("水费上个月是我付的", "钥匙上周我就还了"): a report, not a promise.
_ZH_PAST_TOPIC = re.compile(r"是$|就是$|都是$|上个?月|上周|上次|昨天|前天|去年|之前|刚才|已经"
                            # "两件都让我出不太合理": someone making the speaker do it, no promise of theirs
                            r"|(?:让|叫|要|逼|非要|凭什么)$"
                            r"|^(?:不然|否则|要不然?|如果|要是|假如|万一|因为|既然|虽然|除非|只要|等(?!会|一会|下))")
_ZH_TAKEN_ON = re.compile(
    r"^(?:[^，,。！？!?]{1,14}[，,]\s*)?(?:[^，,。你他她]{1,10}?(?:的事|这事|这件事)?)?(?:就|都)?(?:交给我|包在我身上|我(?:全|都)?包(?:了|下了?)?(?=[\s,，。!！~]|$)"
    # "下两周的值日都归我", "这摊事我负责", "剩下的我揽了"
    r"|(?:全|都)?归我(?:了|管)?(?![们的])|我(?:来)?负责(?=[\s,，。!！~]|$)|我(?:全|都)?揽(?:了|下了?)|算我的|算我一个|我来吧|我来)"
)
# "水管我来修", "这个bug我来修": an object, 我来/我去, then the verb — the object goes after the verb.
_ZH_TOPIC_THEN_VERB = re.compile(rf"^[^，,。你他她我]{{1,12}}?我们?(?:来|去|负责)(?={_ZH_VERB}|[A-Za-z])")
_ZH_THIS_MATTER = re.compile(r"^(?:这|那)(?:事|件事|个事)儿?(?:就|都)?我们?(?:来|去)(?P<rest>[^，,。！？!?]{2,})")
_ZH_TO_YOU = re.compile(r"(?:给|还|发|退|寄|送|转)(?:给)?你")


def _zh_first(core: str, *, topic: bool = False, timed: bool = False) -> bool:
    """我 + time or intent words (or a deadline) + an action verb: "我明天给你答复", "我今晚顺路买",
    "我周五前付". After a topic ("下一轮我请", "发票我开") the verb alone will do."""
    m = re.match(r"我们?", core)
    if m is None:
        return False
    rest, marked, deadline = zh_modifiers(core[m.end() :])
    if (timed or find_due_span(core)) and re.match(r"我们?.*[去来]$", core[: len(core) - len(rest)]) \
            and (place := _ZH_PLACE_THEN.match(rest)):
        rest = rest[place.end() :]  # "我去物业问一下": where, then what
    if _ZH_NOT_ACTION.match(rest):
        return False
    # a verb no list holds, right after a deadline, is still a deed: "年费我周五之前续上", "视频我周三前剪好"
    if not re.match(_ZH_VERB, rest) and not (deadline and _ZH_UNLISTED_DEED.match(rest)):
        return False
    return marked or topic or timed or bool(find_due_span(core))


def zh_modifiers(text: str) -> tuple[str, bool, bool]:
    """``text`` without the time and intent words that open it ("周五前", "明天", "马上", "先"): (the rest,
    whether there were any, whether one was a deadline). At most a few, so the cost is a constant."""
    rest, marked, deadline = text, False, False
    for _ in range(4):  # at most a few time and intent words before the verb
        span = find_due_span(rest)  # a whole due phrase first: "下周五之前", not "下周" then "五之前"
        if span is not None and span[0] == 0:
            deadline = deadline or bool(_DEADLINE_END.search(rest[: span[1]]))
            rest, marked = rest[span[1] :], True
            continue
        if step := _ZH_MOD.match(rest):
            deadline = deadline or bool(_DEADLINE_END.search(step.group()))
            rest, marked = rest[step.end() :], True
            continue
        break
    return rest, marked, deadline


#: How the speaker is until a deadline, not what they will do then: "我周五前很忙", "我周五之前都在上课", "我月底前出差".
ZH_STATE = re.compile(r"很|太|挺|比较|特别|非常|都在|一直|忙|闲|没空|有空|有事|累|不在|在外|出差|应该|也|还|就是|只")
_ZH_UNLISTED_DEED = re.compile(rf"(?!{ZH_STATE.pattern}|会|能|可以)[\u4e00-\u9fff]")
_ZH_PLACE_THEN = re.compile(rf"[^，,。！？!?\s]{{1,4}}?(?={_ZH_VERB})")
_DEADLINE_END = re.compile(r"(?:之前|以前|前|之内|以内|内)$")


def promise_part(core: str) -> str:
    """The words of a clause that carry its promise: without a lead phrase ("As the admin …") or a
    request before it ("Log the bug and …"), and with the object put back after a Chinese object-first
    clause ("发票我来开" → "我来开发票"). The clause itself when there is nothing to take off."""
    if m := _EN_LEAD.match(core) or _EN_REQUEST_THEN.match(core):
        return core[m.end() :]
    if m := _ZH_THIS_MATTER.match(core):
        return f"我来{m.group('rest')}"  # "这事我来跟房东说": 这事 only points back at what was asked
    if core.startswith("我") or (_ZH_TAKEN_ON.match(core) and not _ZH_TOPIC_THEN_VERB.match(core)):
        return core
    if (m := _ZH_TOPIC.match(core)) and _topic_ok(m.group("topic")):
        topic, rest = m.group("topic"), core[m.end() :]
        if _is_zh_promise(rest):
            return core if re.fullmatch(_ZH_WHEN, topic) else _with_topic(rest, topic)  # "回头我…": a time, not an object
    return core


def _with_topic(rest: str, topic: str) -> str:
    """ "我来开" + "发票" → "我来开发票"; "我今晚带过来" + "钥匙" → "我今晚把钥匙带过来"."""
    m = _ZH_FIRST.match(rest)
    if m is None:
        cue = lx.ZH_COMMIT_HEAD.match(rest)  # "这钱我肯定会还" → "我肯定会还这钱"
        if cue is not None and len(rest) - cue.end() <= 2 and re.match(_ZH_VERB, rest[cue.end() :]):
            return f"{rest}{topic}"
        return f"{rest}（{topic}）" if not rest.endswith(topic) else rest
    head, after = rest[: m.start("verb")], rest[m.start("verb") :]
    if re.fullmatch(r"(?:来|去)[A-Za-z][\w\s-]*", after):
        return f"{head}{after}{topic}"  # "这个PR我来review" → "我来review这个PR"
    if re.fullmatch(r"我们?(?:来|去)", head) and not re.match(r"(?:去|来)(?!$)", after):
        head = head[:-1]  # "打印机我去修" → "我修打印机": 去/来 only says the speaker takes it on
    if len(after) <= 2:  # a bare verb: "开" → "开发票"
        return f"{head}{after}{topic}"
    if (verb := re.match(_ZH_VERB, after)) and after[verb.end() : verb.end() + 1] in ("，", ","):
        return f"{head}{verb.group()}{topic}{after[verb.end():]}"  # "钥匙我来配，明天给你们" → "我配钥匙，明天给你们"
    return f"{head}把{topic}{after}"


def _is_zh_promise(core: str) -> bool:
    """After an object put first ("发票我来开", "下一轮我请"): 我 and the rest of a promise."""
    return bool(lx.ZH_COMMIT_HEAD.match(core) or _zh_first(core, topic=True) or _ZH_TAKEN_ON.match(core)
                or re.match(r"我们?[^，,。你他她]{0,6}?把[^，,。]{1,12}?(?:" + ZH_ACTION_VERBS + ")", core))


def is_indirect_promise(core: str, *, timed: bool = False) -> bool:
    """Does the clause take something on in one of the indirect forms of the module docstring?
    ``timed``: the clause names a time before ``core`` ("周日我送你去机场")."""
    if not core:
        return False
    if _LET_ME.match(core) or _ON_ME.match(core) or _LEAVE_WITH_ME.match(core) or _CONSIDER_DONE.match(core) \
            or _COUNT_ME_IN.match(core) or _ON_IT.match(core):
        return True
    if m := _GOT_IT.match(core):
        rest = m.group("rest") or ""
        return bool(re.match(r"\s+(?:covered|handled|sorted)\b", rest, _I) or _EN_WHEN.search(rest) or find_due_span(rest))
    if _ZH_TAKEN_ON.match(core):
        return True
    if _zh_first(core, timed=timed) or zh_deadline_to_you(core) or _zh_to_you(core, timed=timed):
        return True
    m = _ZH_TOPIC.match(core)
    return bool(m and _is_zh_promise(core[m.end() :]) and _topic_ok(m.group("topic")))


def _topic_ok(topic: str) -> bool:
    """An object put first ("发票", "你的充电器"), not English words, a past time or a cleft ("上个月是")."""
    latin = re.search(r"[A-Za-z]", topic) and not re.search(r"[\u4e00-\u9fff]", topic)  # "这个bug" is fine
    return not latin and not _ZH_PAST_TOPIC.search(topic)


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
    if re.match(r"你|您|他|她|它|对方|人家|别人|大家", core) or re.search(r"没法|没办法|不能|不会|没空|来不了|不在", core) \
            or not (timed or find_due_span(core) or re.search(_ZH_WHEN, core)):
        return False
    return bool(re.search(r"(?<=[\u4e00-\u9fff])(?:发|给|还|转|寄|送|退|交|付|带)(?:给)?你(?!们)", core))


def indirect_action(core: str) -> str | None:
    """The action an English taking-on form promises, in words a reply can use after "promised to":
    "let me handle the booking" → "handle the booking"; "the pizza is on me tonight" → "cover the pizza
    tonight"; "leave the report with me" → "take care of the report". None for other clauses."""
    if m := _LET_ME.match(core):
        return m.group("action")
    if m := _ON_ME.match(core):
        return f"cover {m.group('what') or m.group('bare')}{m.group('rest') or m.group('tail') or ''}".strip()
    if m := _LEAVE_WITH_ME.match(core):
        return f"take care of {m.group('what')}{m.group('rest')}".strip()
    if m := _CONSIDER_DONE.match(core):
        return f"take care of {m.group('what')}{core[m.end():]}".strip()
    if m := _GOT_IT.match(core):
        rest = re.sub(r"^\s+(?:covered|handled|sorted)\b", "", m.group("rest") or "", flags=_I)
        return f"take care of {m.group('what')}{rest}".strip()
    if _COUNT_ME_IN.match(core):
        return core
    if m := _ON_IT.match(core):
        rest = re.sub(r"^[\s,.;:!—–-]+(?:(?:it\s+)?(?:should|will)\s+be\s+(?:done|ready|sorted|fixed)\s+)?", "", m.group("rest"))
        informal = re.match(r"(?:will|gonna|going\s+to)\s+(?P<act>.+)", rest, _I)
        return informal.group("act") if informal else f"take care of it {rest}".strip()
    return None
