"""Promises: is a clause one, what is the promised action, and which words are its deadline.

Shared by ``rules``, ``slots`` and ``answers`` so all three read a promise alike. The action is kept
whole, as said, minus its promise head ("I'll", "我会"); the deadline (``bot.text.duetime``) stays in the
value and is taken out only where the action alone is needed.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from bot.offline import lexicon as lx
from bot.offline.clauses import clean
from bot.offline.indirect import ZH_STATE, indirect_action, is_indirect_promise, promise_part
from bot.offline.informal import ZH_TOPIC, informal_action, is_informal_promise
from bot.text.clock import aware
from bot.text.duetime import CANNOT_DO_ZH, find_due_span, find_due_spans, resolve_due
from bot.text.zones import zone_or_utc
from memory.models import Fact, Kind

__all__ = ["is_commitment", "is_standing", "promised_action", "reread_due", "split_due", "standing_promise",
           "strip_head"]

# Words before a Chinese cue that make the sentence an opinion, not a promise ("我觉得会下雨").
_ZH_OPINION = re.compile(r"觉得|认为|想|猜|怕|估计|以为|知道|希望|要求|说|听|看|记得|发现")
# A Chinese deadline that opens an action: "周五前把钱还你", "明天之前给你答复".
_ZH_DEADLINE_FIRST = re.compile(r"^(?:我们?)?(?P<due>[^，,。]{1,12}?(?:之前|以前|前|之内|以内|内))(?=[\u4e00-\u9fff])")
# "I can …" / "我可以…" promise only with a time marker.
_ZH_TAKEN = re.compile(r"交给我了|我全?包了|算我的了|包在我身上了")
_ZH_DEADLINE_WORD = re.compile(r"(?:之前|以前|前|之内|以内|内)(?![面后天])")
# A time still ahead: a final 了 after it says done-by, not done already ("我今晚把碗洗了", "明天把车挪了").
_ZH_AHEAD = re.compile(r"明天|后天|今晚|明早|明晚|待会|等会|一会儿|晚点|回头|马上|下周|下个?月|周末|月底|这周|本周"
                       r"|回去就|到家就|下班就|回家就")
_EN_CAN = re.compile(r"^(?:i|we)\s+can\s+|^我们?可以", re.IGNORECASE)
_EN_NEG_HEAD = re.compile(
    r"^(?:i|we)\s*(?:won'?t|will\s+not|(?:'ll|’ll|\s+will)\s+never|\s+(?:promise|swear)\s+(?:not\s+to|never\s+to"
    r"|i\s+won'?t|i'?ll\s+never|we\s+won'?t))\s*",
    re.IGNORECASE,
)
# "搞不定", "来不及": cannot, not will.
_ZH_CANNOT = re.compile(r"[搞做办弄修写交完]不[定了到完成好]|来不及|赶不上|不可能")
_ZH_PAST_WHEN = re.compile(r"去年|前年|上个?月|上周|上次|昨天|前天|当时|那时|^(?:之前|以前)")
_ZH_LETS = re.compile(r"^(?:我们|咱们?)[^，,。]{0,16}?一起[^，,。]{0,16}?吧[呀啊]?$")
#: Taking the floor: "我来说吧", "我来讲两句", "我说一下", "我插一句" (what follows is said now, no deed promised).
_ZH_SPEAKS = re.compile(r"^我(?:来|先)?(?:说|讲|解释|插)(?:一下|两句|几句|一句)?(?:吧|啊|哈)?[。.!！~…]*$")
_ZH_LEAD = re.compile(r"^(?:还是|一定|会|也|就|再|先|都|还(?=是|会|要|得|能|在))+")  # 还钱 keeps its 还
# Cues that only say "I promise" (dropped from the action); time words like 马上 or 以后不再 stay.
_ZH_PURE_CUES = frozenset({"保证", "答应", "承诺", "发誓", "一定", "一定会", "肯定会", "绝对", "绝对会", "会", "将", "将会",
                           "负责", "来", "先来"})
_SPACE_NEAR_CJK = re.compile(r"(?<=[\u3000-\u303f\u3400-\u9fff\uff00-\uffef])\s+|\s+(?=[\u3000-\u303f\u3400-\u9fff\uff00-\uffef])")
_LEAD_TAG = re.compile(r"^promise\s+(?:to\s+)?(?=\S)", re.IGNORECASE)  # "Promise I'll …", "promise to …"
# A standing promise in Chinese, its 以后 already read as a leading time: "以后我十点以后不放音乐了".
_ZH_STANDING_FIRST = re.compile(r"^我们?[^，,。你他她]{0,10}?(?:不|别|会|都|先|一定|按时|准时)(?!是|知道|行|对|清楚|确定)")
_TAIL_TAG = re.compile(r"[,，]\s*(?:i\s+promise|promise|i\s+swear|保证|一定|我保证|搞定|放心吧?|没问题|包在我身上|交给我吧?)\W*$",
                       re.IGNORECASE)


#: A Chinese verb saying it cannot be done ("发不了了", "收不齐", "搞不定", "来不及"), ending its clause.
_ZH_CANNOT_DO = re.compile(r"(?:" + CANNOT_DO_ZH + r")了?(?=[，,。.!！？?\s]|$)")


#: A deed that ends with the speaker: "转我", "发给我", "还我" (not "给我们", nor "交给我": that takes it on).
_ZH_TO_ME = re.compile(r"(?:转|发|还|寄|传)(?:给|到)?我(?![们的妈爸家哥姐弟妹老公婆])"
                       r"|(?<!交)给我(?:就行|就好|就可以|就成|吧)")  # "下个月10号前给我就行": leave to the other
#: Saying what the speaker cannot vouch for or has the say over: "一周我打不了包票", "怎么花我来定".
_ZH_NO_DEED = re.compile(r"(?:打不了|打不起|不敢打)包票|保证不了|(?:不能|没法|无法|不敢)保证|我来(?:定|决定)$|我说了算")


#: An assurance of what was done or what is, not a deed to come: "I already sent it", "nothing's hidden",
#: "no plot" (before "I promise").
_EN_SAID_AS_FACT = re.compile(r"\b(?:already|just\s+now)\b|^(?:i|we)\s+(?:\w+ed|sent|did|was|were|had|paid|gave|made|told|took|"
                              r"never\s+\w+ed)\b|^(?:nothing|no\s*one|nobody|it|this|that|there)(?:'s|’s|\s+(?:is|was|were|are|isn'?t|wasn'?t))\b"
                              r"|^no\s+\w+[.!]*$", re.IGNORECASE)


def is_commitment(core: str, *, hedged: bool, promised: bool = False, due: str = "") -> bool:
    """Does the clause (openers stripped: ``clauses.core``) promise something?

    ``promised`` is true when its sentence carries a promise tag ("…, I promise"): then any action
    counts, even one without a subject ("no music after 11pm"). A hedged clause never promises.
    ``due``: the clause's due-time words, maybe before the part ``core`` keeps ("周日我送你去机场",
    "下周一之前我把押金退了": a final 了 after a deadline says done-by, not done already).
    """
    if hedged or not core:
        return False
    if (topic := ZH_TOPIC.match(core)) is not None and not promised:  # "你垫的邮费，4月30号以前还你": the thing first
        return is_commitment(core[topic.end() :], hedged=hedged, due=due)
    if promised:  # what was done already or is so now stays a report ("I already sent it, I promise", "No plot, I promise")
        return not _past(core, due) and not _EN_SAID_AS_FACT.search(core)
    if _ZH_TO_ME.search(core) and not core.startswith("我"):
        return False  # "周日前转我", "周五前发给我": asked of the others, not the speaker's own deed
    if _ZH_CANNOT_DO.search(core) or _ZH_NO_DEED.search(core):
        return False  # "招募帖我今天发不了了": what the speaker cannot do is no promise
    if _ZH_LETS.match(core):
        return False  # "我们这周六一起把阳台清理一下吧": a suggestion to both
    if _ZH_SPEAKS.match(core):
        return False  # "我来说吧", "我说两句": the speaker takes the floor, not a deed
    part = promise_part(core)
    if part != core:  # "As the admin I'll …", "Log the bug and I'll …", "发票我来开"
        return is_commitment(part, hedged=hedged, due=due) or (
            is_indirect_promise(core, timed=bool(due)) and not _past(core, due))
    if lx.NEG_COMMIT.search(core):
        return True
    if m := lx.COMMIT_EN.match(core):
        return not lx.NOT_A_PROMISE.match(core[m.end() :].lstrip())
    if _EN_CAN.match(core) and not lx.CAN_NOT_PROMISE.match(core):
        # "I can keep music off after 11pm starting tonight": an offer becomes a promise with a time
        return bool(lx.STANDING.search(core) or find_due_span(core))
    if m := lx.ZH_COMMIT_HEAD.match(core):
        # "我去年答应过每周打扫": a promise told as past, not made now
        # ("…给800欧，我答应了，片段已经给出去了": a yes told, then what was done)
        after = core[m.end() :]
        return not _ZH_OPINION.search(m.group("pre")) and not (
            after[:1] == "过" or _ZH_PAST_WHEN.search(m.group("pre"))
            or (m.group("cue") in ("答应", "承诺", "保证") and after[:1] == "了"
                and (not after[1:].strip("，,。！!～~ ") or _past(after[1:].lstrip("，, "), due))))
    if is_indirect_promise(core, timed=bool(due)) and not _past(core, due):
        return True  # "let me handle it", "the pizza is on me", "包在我身上", "我明天给你答复"
    if _past(core, due) or lx.DEMAND.search(core):
        return False  # done already ("我已经把钱转给你了"), or asked of the other ("我要求你周五前交")
    if lx.COMMIT_ZH.match(core) or is_informal_promise(core, due=due):
        return True  # "我把钱转你", and the informal shapes: "will send it tonight", "sending it now", "周五之前交"
    # "我周五之前给你答复": a first-person deadline before an action (not "我觉得周五之前搞不定")
    m = _ZH_DEADLINE_FIRST.match(core) if core.startswith("我") else None
    return bool(m and find_due_span(core) and not _ZH_OPINION.search(m.group("due")) and not _ZH_CANNOT.search(core)
                and not ZH_STATE.match(core[m.end():]))


def _past(core: str, due: str = "") -> bool:
    """Done already ("我已经把钱转给你了", "昨天我把钥匙还给他"); a final 了 after a deadline is not
    past but done-by ("下周一之前我把押金退了", "这周的值日我包了")."""
    m = lx.PAST.search(core)
    if m is None:
        return False
    if m.group().startswith("了") and (_ZH_DEADLINE_WORD.search(due) or _ZH_DEADLINE_WORD.search(core)
                                       or _ZH_TAKEN.search(core) or _ZH_AHEAD.search(due or core)):
        return bool(lx.PAST.search(core[: m.start()]))
    return True


def standing_promise(text: str, core: str) -> bool:
    """ "以后我十点以后不放音乐了", "下次我先问你": a first-person rule for the future, after 以后/下次."""
    if not re.match(r"^\W*(?:以后|今后|从今以后|从今天起|从现在起|下次|下回)", text):
        return False
    at = core.find("我")  # "下次借你的车我先问你": the rule may come after what it is about
    return 0 <= at <= 12 and bool(_ZH_STANDING_FIRST.match(core[at:]))


#: A purpose clause after the deed ("… tonight so the names stop drifting", "…，好让大家不再等"): what the
#: deed is for, not how long the promise lasts.
_PURPOSE = re.compile(r"\s+so\s+(?:that\s+)?(?:the|we|you|they|he|she|it|i|nobody|everyone|people|our|your|their)\b"
                      r"|[，,]?\s*(?:以便|好让|免得|省得)", re.IGNORECASE)


def is_standing(text: str) -> bool:
    """A promise that holds from now on ("from now on", "以后不再…"): it has no deadline."""
    return bool(lx.STANDING.search(_PURPOSE.split(text, maxsplit=1)[0]))


def strip_head(core: str) -> str:
    """The promised action: the clause without "我会"/"I'll"/"I promise to" (negations kept), without
    a lead phrase or a request before the promise, an indirect form read as its action
    ("let me handle the booking" → "handle the booking")."""
    core = promise_part(lx.LEAD_PROMISE_TAG.sub("", _LEAD_TAG.sub("", _TAIL_TAG.sub("", core))))
    if (indirect := indirect_action(core)) is not None:
        return clean(indirect)
    if (informal := informal_action(core)) is not None:
        return clean(informal)
    if m := _EN_NEG_HEAD.match(core):
        negation = "never" if "never" in m.group().lower() else "not"
        return clean(f"{negation} {core[m.end() :]}")
    if m := lx.ZH_COMMIT_HEAD.match(core):
        cue = m.group("cue")
        after = core[m.end() :]
        if cue in ("答应", "保证", "承诺"):
            after = re.sub(r"^(?:你们?|他们?|她们?|大家)", "", after)  # "我答应你…": the promise, not its listener
        if cue in _ZH_PURE_CUES:
            return clean(_ZH_LEAD.sub("", (m.group("pre") + after).strip()) or core)
        return clean(m.group("pre") + cue + after)
    if m := _EN_CAN.match(core):
        return clean(core[m.end() :])
    if core.startswith(("我们", "咱们")):
        return clean(core[2:])
    if core.startswith("我"):
        return clean(re.sub(r"^(?:来|去)(?=[A-Za-z])", "", core[1:]))  # "我来review这个PR"
    if m := lx.EN_COMMIT_HEAD.match(core):
        return clean(core[m.end() :] or core)
    return clean(core)


def split_due(action: str) -> tuple[str, str]:
    """(the action without its deadline phrase, the deadline phrase) — ("", "") parts when absent."""
    spans = find_due_spans(action)
    if not spans or action[spans[-1][1] : spans[-1][1] + 1] == "的" or action[spans[-1][1] : spans[-1][1] + 2] in ("'s", "’s"):
        # "算这个月的账", "to saturday's session": the time words say which one; the action keeps them
        return clean(action), ""
    if len(spans) == 2:  # "明天把记录整理出来发群里，晚上9点前": the deed between the day and its hour stays
        (a, b), (c, d) = spans
        rest = _SPACE_NEAR_CJK.sub("", (action[:a] + " " + action[b:c].strip(" ,，") + " " + action[d:]).strip())
        return clean(rest.strip(" ,，")), clean(action[a:b] + " " + action[c:d])
    (a, d), = spans
    rest = _SPACE_NEAR_CJK.sub("", (action[:a] + " " + action[d:]).strip())
    rest = re.sub(r"([，,：:])(?:\s*[，,])+", r"\1", rest)  # "每人两千，下周一前，打到账上": one comma where the time was
    return clean(rest.strip(" ,，")), clean(action[a:d])


def reread_due(fact: Fact, value: str, zone: str, *, said_at: datetime | None = None,
               speaker_zone: str | None = None) -> dict[str, Any]:
    """The due-time fields of ``fact`` once its text becomes ``value`` (a moderator's edit, a member's
    correction): the deadline the new words name, read from when the promise was said, in the zone
    its due time was read in (else ``zone``) — or, for a change of time said in the thread, from when and in
    the zone it was said (``said_at``, ``speaker_zone``); none when the words that named one are gone; kept when
    it never came from the words (a snooze). A new due time clears ``reminders_sent``, so the new
    version gets its follow-up. ``{}`` when nothing changes (or ``fact`` is no commitment)."""
    if fact.kind is not Kind.COMMITMENT:
        return {}
    said = said_at or (fact.sources[0].ts if fact.sources else fact.valid_from)
    clock = zone_or_utc(speaker_zone) if speaker_zone else (
        fact.due_at.tzinfo if fact.due_at is not None and fact.due_at.tzinfo is not None else zone_or_utc(zone))
    if is_standing(value):
        due = None
    elif (found := resolve_due(value, aware(said), clock)) is not None:
        due = found
    elif find_due_span(fact.value) is not None:
        due = None  # the deadline words were taken out
    else:
        return {}
    if due == fact.due_at:
        return {}
    return {"due_at": due, "reminders_sent": ()}


def promised_action(value: str) -> str:
    """The action of a stored commitment value, its deadline words taken out (for display)."""
    action, _ = split_due(value)
    return action or clean(value)
