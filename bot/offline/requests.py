"""A request put to the speaker, and the speaker taking it on: "Bob, can you send me the contract by
Friday?" — "Sure, will do." is Bob's promise to the one who asked, of the request's action turned to his
side ("send me" → "send you"), due on the requester's clock. Only the message just before counts, by
someone else, addressed to the speaker or to nobody; a bare "OK" to a shared proposal stays an agreement."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.extraction.candidates import Utterance
from bot.offline import lexicon as lx
from bot.offline.clauses import clean
from bot.text.clock import aware
from bot.text.duetime import beside_times, find_due_span, find_shift, only_time, resolve_due
from bot.text.lang import cjk_count
from bot.text.zones import speaker_zone

__all__ = ["LEAD_NAME", "Accepted", "accepted_request", "asked_action", "asks_deed", "confirmed_report", "moves_only", "own_time", "request_before", "requested_action",
           "takes_it_on"]

_I = re.IGNORECASE

#: An answer that only takes the request on: "sure", "will do", "on it", "no problem, I'll do it",
#: "好的，没问题", "行，我来", "交给我吧". Nothing else may be in it (a reason, a condition, a new time).
_TAKE_ON_WORDS = (
    r"(?:ok(?:ay)?|sure(?:\s+thing)?|yes|yep|yeah|yup|of\s+course|absolutely|definitely|fine|alright|all\s+right|"
    r"no\s+problem|no\s+worries|np|can\s+do|will\s+do|on\s+it|i'?m\s+on\s+it|got\s+it|i\s+can(?:\s+do\s+that)?|"
    r"i\s+will|i'?ll\s+do\s+(?:it|that)|i'?ll\s+(?:handle|take\s+care\s+of)\s+(?:it|that)|consider\s+it\s+done|"
    r"happy\s+to|leave\s+it\s+with\s+me|好的?|好吧|好嘞|行|可以|没问题|没事|嗯嗯?|当然(?:可以)?|收到|我来|我会的?|"
    r"交给我(?:吧)?|包在我身上|这就去?办|马上(?:办)?|放心|妥(?:妥的?|了)?|得嘞|好滴|ok的|没毛病|莫得问题|木问题|欧了|阔以|安排(?:上)?|"
    r"no\s+sweat|no\s+bother|with\s+pleasure|gladly|you\s+got\s+it|for\s+sure|say\s+no\s+more|count\s+on\s+me|leave\s+it\s+to\s+me|"
    r"i'?ve\s+got\s+(?:this|it)|right\s+away|consider\s+it\s+handled)"
    r"[\s,，.!！。~、👌👍🙏✅💪]*"
)
_TAKE_ON = re.compile(rf"^(?:{_TAKE_ON_WORDS})+$", _I)
#: The same words before a time of the answer's own: "will do, by Tuesday", "可以，周五前".
_TAKE_ON_LEAD = re.compile(rf"^(?:{_TAKE_ON_WORDS})+", _I)
#: A counter-offer of another time: "周五不行，周六吧", "Friday doesn't work, Monday then".
_COUNTER = re.compile(
    r"^(?P<no>[^,，.。!！?？]{1,24}?)\s*(?:不行|不可以|不太行|没空|来不及|不方便|doesn'?t\s+work|won'?t\s+work"
    r"|is\s+(?:impossible|too\s+soon|too\s+early|no\s+good|out)(?:\s+for\s+me)?)[\s,，.。;；]+(?P<alt>.+)$", _I)
#: Words that may stand beside a time and add nothing: "Saturday then", "周六吧", "by Tuesday instead".
#: The request: "can you …", "could you please …", "please …", "你能不能…", "麻烦你…", "你…可以吗".
_ASK_EN = re.compile(r"^(?:(?:hey|so|and|also|ok|okay)[\s,]+)*(?:(?:can|could|would|will)\s+(?:you|u)\s+"
                     r"(?:please\s+|pls\s+|just\s+|maybe\s+)?|(?:please|pls|kindly)\s+)", _I)
_ASK_ZH = re.compile(r"^(?:(?:你|您)(?:能不能|可不可以|能|可以|愿意|帮我|帮忙|来)?|(?:麻烦|请|辛苦|劳驾|拜托)(?:你|您)?(?:帮我|帮忙)?)")
#: A request with its object first: "客户那边的报价你能周四前发给我吗？" (the object, then 你能/你可以 …).
_ASK_ZH_TOPIC = re.compile(r"^(?P<topic>[^，,。？?！!你您我]{2,12}?)(?:你|您)(?:能不能|可不可以|能|可以|愿意)")
_ZH_ASK_TAIL = re.compile(r"[\s,，]*(?:可以吗|好吗|行吗|行不行|好不好|可不可以|能不能|成吗|吗|呢|吧|呗)?[\s?？。!！~]*$")
_EN_TAIL = re.compile(r"[\s,]*(?:please|pls|for\s+me|thanks|thank\s+you)?[\s?.!~]*$", _I)
#: Questions shaped like requests that ask for no deed: "can you believe this?", "could you explain why …",
#: "你能理解吗", "你能告诉我为什么…".
_NOT_A_DEED = re.compile(
    r"^(?:believe|imagine|see|hear|understand|guess|think|feel|remember|recall|explain|clarify|say|repeat|"
    r"tell\s+(?:me\s+|us\s+)?(?:what|who|when|where|why|how|if|whether)|(?:be\s+)?(?:serious|honest|kidding))\b"
    r"|^(?:相信|想象|听到|看到|明白|理解|懂|解释|说说|想想|告诉我(?:为什么|怎么|什么|谁|哪|是不是))", _I)
#: Work split between the two ("you take the bins and I'll do the dishes", "你周末打扫，我平时打扫"): an
#: agreement when taken, not one person's task.
_SPLIT = re.compile(r"(?:[,;]\s*|\band\s+)(?:i|i'll|i\s+will|we|we'll)\b|[，,；;]\s*(?:我|咱)", _I)
#: The requester's words, turned to the speaker's side.
_EN_PERSON = {"me": "you", "my": "your", "mine": "yours", "myself": "yourself", "i": "you", "i'm": "you're"}
_EN_WORD = re.compile(r"\b(?:me|my|mine|myself|i'm|i)\b", _I)


@dataclass(frozen=True, slots=True)
class Accepted:
    """A request the speaker took on: what to do (the speaker's words), whom for, when."""

    action: str
    requester: str
    message_id: str
    quote: str
    due_at: datetime | None


def takes_it_on(text: str) -> bool:
    """Does the whole answer only take a request on ("Sure, will do.", "好的，没问题。")?"""
    return _TAKE_ON.match(clean(text) or text.strip()) is not None


#: Where a thing asked for will be handed over, and nothing more: "发群里", "发你", "转你", "寄出".
_HANDS_OVER = re.compile(r"(?:发|给|转|寄|交|传|放)(?:到|给|进|在)?(?:群里|群|你|您|大家|过去|出来|出去|上来)?")


def own_time(answer: str) -> str | None:
    """The time an answer that takes a request on names ("" when none); None when it does more than
    take it on — a reason, a condition, an action of its own."""
    if _TAKE_ON.match(answer):
        return ""
    if (m := _TAKE_ON_LEAD.match(answer)) and only_time(answer[m.end():]):
        return answer[m.end():]
    if (m := _TAKE_ON_LEAD.match(answer)) and (span := find_due_span(rest := answer[m.end():])) is not None \
            and _HANDS_OVER.fullmatch(beside_times(rest) or ""):
        return rest[span[0] : span[1]]  # "好。周五晚上8点前发群里。": a time, and where it will be handed over
    if (m := _COUNTER.match(answer)) and only_time(m.group("no")) and only_time(m.group("alt")):
        return m.group("alt")
    return None


def _addressee(text: str, names: dict[str, str]) -> tuple[str | None, str]:
    """The participant the request opens by naming ("Bob, …", "李娜，…", "@Bob …"), and the rest."""
    stripped = text.strip()
    for name, uid in sorted(names.items(), key=lambda kv: len(kv[0]), reverse=True):
        # a Latin name ends at a separator or a space ("Bob," but not "Bobby"); a Chinese one may run on
        after = r"\s*[,，:：]?\s*" if not name.isascii() else r"(?:\s*[,，:：]\s*|\s+)"
        if name and (m := re.match(r"@?" + re.escape(name) + after, stripped, _I)):
            return uid, stripped[m.end():]
    return None, stripped


def moves_only(rest: str) -> bool:
    """Is an asked "deed" only a move of a time by a span ("提前一天", "push it back a week")? A yes to it moves
    a promise (``bot.offline.reschedule``); it takes none on."""
    shift = find_shift(rest)
    # (what it moves may come first: "分红往后挪两天", "the scan two more days")
    return shift is not None and len(rest[: shift.start].strip()) <= 8 and not re.sub(r"[\W_吧吗呢啊行好]+", "", rest[shift.end :])


def _action(request: str) -> str | None:
    """The action a request asks for, in the requester's words, or None when it asks for none."""
    action = _deed(request)
    return None if action is not None and moves_only(action) else action


def _deed(request: str) -> str | None:
    if m := _ASK_EN.match(request):
        rest = _EN_TAIL.sub("", request[m.end():])
        return rest if len(rest.split()) >= 2 and not _NOT_A_DEED.match(rest) and not _SPLIT.search(rest) else None
    if not request.isascii() and not _ASK_ZH.match(request) and (m := _ASK_ZH_TOPIC.match(request)):
        tail = _ZH_ASK_TAIL.search(request)
        rest = request[m.end():tail.start() if tail else None]
        return f"把{m.group('topic')}{rest}" if len(rest) >= 2 and not _SPLIT.search(rest) else None
    if not request.isascii() and (m := _ASK_ZH.match(request)):
        tail = _ZH_ASK_TAIL.search(request)
        rest = request[m.end():tail.start() if tail else None]
        if m.group() in ("你", "您") and not (tail and tail.group().strip(" ，,。!！~")):
            return None  # "你周末打扫，我平时打扫。": a plan put to both, not a request (an "OK" agrees to it)
        return rest if len(rest) >= 3 and not _NOT_A_DEED.match(rest) and not _SPLIT.search(rest) else None
    return None


def asked_action(sentence: str) -> str | None:
    """The deed a sentence asks of its listener in the requester's words ("can you send the draft"), or
    None when it asks for none ("wednesday?", "周五可以吗")."""
    return _action(LEAD_NAME.sub("", sentence.strip(), count=1))


def _turned(action: str) -> str:
    """The requester's first person as the speaker's second: "send me my key" → "send you your key"."""
    if action.isascii():
        return _EN_WORD.sub(lambda m: _EN_PERSON[m.group().casefold()], action)
    return action.replace("我们", "你们").replace("我", "你")


def _asked_before(turn: Utterance, history: list[Utterance],
                  names: dict[str, str]) -> tuple[Utterance, str, str] | None:
    """(the message just before ``turn``, the action it asks ``turn``'s speaker for, its sentence) — when
    that message is someone else's, was not answered elsewhere (a platform reply to another), and asks
    the speaker by name or nobody by name ("Carol, can you …?" is not Bob's to take on)."""
    if not history:
        return None
    before = history[-1]
    if before.author_id == turn.author_id or (turn.reply_to and turn.reply_to != before.author_id):
        return None
    addressee, request = _addressee(before.text, names)
    if addressee is not None and addressee != turn.author_id:
        return None
    found = _asked(request, turn.author_id, names)
    return (before, *found) if found is not None else None


def request_before(turn: Utterance, history: list[Utterance], names: dict[str, str]) -> tuple[str, str] | None:
    """(who asked, the action asked for) when the message just before ``turn`` asks its speaker to do
    something ("Marco, can you get the copy done by Thursday?"): a promise ``turn`` makes about the same
    thing in words of its own ("sure, I'll have the copy by Thursday noon") is made to the one who asked."""
    found = _asked_before(turn, history, names)
    return (found[0].author_id, found[1]) if found is not None else None


def _asked(request: str, speaker: str, names: dict[str, str]) -> tuple[str, str] | None:
    """(the action, its sentence) of the last sentence of ``request`` that asks ``speaker`` (by name, or
    nobody by name) to do something: "ok so it slipped again. Marco, can you get the copy done?"."""
    for sentence in reversed([s for s in re.split(r"(?<=[?？])\s*|(?<=[.!。！])\s+", request) if s.strip()]):
        named, said = _addressee(sentence, names)
        if named is not None and named != speaker:
            continue
        if (action := _action(said.strip())) is not None:
            return action, said.strip()
    return None


# A name (or nickname, or a spelling the rules do not know) the request opens with: "Tom, …", "xiaolu，…",
# "Bea could you …", "涛哥今天能…".
#: A name a line is said to, before its words: "Lena, can you…", "阿青，好的", "Arif can you…".
LEAD_NAME = re.compile(r"^@[^\s,，:：]{1,24}\s+|^@?(?:[A-Za-z][\w.-]{0,15}|[^\x00-\x7f\s,，:：?？。.!！]{1,4})\s*[,，:：]\s*"
                       r"|^@?[A-Z][\w.-]*\s+(?=(?:can|could|would|will)\s+(?:you|u|the|your)\b)")
_ZH_ASKS = re.compile(r"(?<![可不])能|可以|吗|帮|麻烦|请|辛苦(?:你|您)|劳驾|拜托|[?？]")  # not "2019的不可能这样"
_ASK_ANY = re.compile(r"^(?:(?:hey|so|and|also|ok|okay)[\s,]+)*(?:(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?"
                      r"|(?:please|pls|kindly)\s+)|(?:你|您)?(?:能不能|可不可以|能|可以)(?:先|帮我|帮忙)?", _I)


_MID_ASK = re.compile(r"\b(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+|just\s+)?(?=[a-z])", _I)
_ZH_DEED_ASK = re.compile(r"能不能|可不可以|麻烦|帮(?:我|忙)|请(?:你|您)|辛苦(?:你|您)|劳驾|拜托|可以吗|行吗|好吗")
_ZH_NAME_YOU = re.compile(r"^[\u4e00-\u9fff]{2,3}你(?=[\u4e00-\u9fff])")


#: A Chinese request for a deed: "能不能周四前出一版", "你今天能问下…吗", "麻烦你…", "帮我…".
#: A deed told to the listener: "那你把仿真代码整理一下放到GitHub上", "你今天就给编辑部写信".
_ZH_TOLD = re.compile(r"(?:^|[，,。：:\s])(?:那|那就)?(?:你|您)(?:先|就|再|赶紧|马上)?把(?!我)"
                      r"|(?:^|[，,。：:\s])(?:你|您)(?:今天|今晚|明天|马上|现在|赶紧|尽快)就?(?:给|把|去|来|发|转|还|退|写|改|交)")
_ZH_REQUEST = re.compile(r"(?:你|您)(?:能不能|可不可以|能|可以)|(?:辛苦|劳驾|拜托)(?:你|您)?[^，。,.!！]{0,4}?把|(?:能不能|可不可以)[^，。,.!！]{1,20}?(?:吗|？|\?)"
                         r"|(?:能不能|可不可以)帮(?:忙|我)"
                         r"|(?:能|可以)[^，。,.!！]{1,20}?吗|麻烦(?:你|您)|帮我|请(?:你|您)"
                         # "周三前问下价格？", "今晚之前确认一下？": a deed by a time, asked
                         r"|(?:之前|以前|前)[\u4e00-\u9fff]{1,2}一?下[^，。,.!！？?]{0,12}[？?]"
                         # "…，发钱叔一份呗？": a deed asked with 呗
                         r"|[\u4e00-\u9fff]{2,}呗\s*[？?~～]"
                         r"|" + _ZH_TOLD.pattern)
#: "… could you send me your notes by thursday?" anywhere in a line, asking a deed.
_EN_REQUEST = re.compile(r"\b(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+|just\s+|maybe\s+)?(?!believe|imagine|see\b"
                         r"|hear|understand|guess|think|feel|remember|recall|explain|tell|be\b)[a-z]", _I)


def asks_deed(text: str) -> bool:
    """Does a sentence of ``text`` ask its listener for a deed ("Arif can you fix the rename?", "你能周四前
    出一版吗") — not a question about how things are ("wasn't Marta before you?")?"""
    parts = [x for x in re.split(r"(?<=[.!?。！？])\s*|[,，;；—–]\s*", text) if x.strip()]
    return any(asked_action(x) is not None for x in parts) or bool(_ZH_REQUEST.search(text) or _EN_REQUEST.search(text)) \
        or bool(_WANTED_OF.match(text)) or bool(_WHEN_DO_I_GET.search(text))


#: "when do I (actually) get": the asker waiting for a deed to reach them.
_WHEN_I_GET = (r"\bwhen\s+(?:do|will|can|shall|am)\s+(?:i|we)\s+(?:actually\s+|finally\s+|ever\s+)?"
               r"(?:get|getting|see|seeing|have|receive|receiving)")
#: What an English "when do I get …?" asks for: "the invoice".
_EN_WHEN_GET = re.compile(_WHEN_I_GET + r"\s+(?P<thing>[^?.!,;]{2,80})", re.IGNORECASE)
#: Asking when the deed reaches the asker is asking for it: "Tom so when do I actually get the mix?",
#: "我垫的86欧，什么时候能报销？", "合同什么时候能发我？".
_WHEN_DO_I_GET = re.compile(_WHEN_I_GET + r"\b|(?:什么时候|啥时候|哪天|几时)(?:能|可以|会)?(?:报销|拿到|收到|给我|还我|转我|退我|发我|寄给我|给)",
                            re.IGNORECASE)


#: A want said to someone, before the thing wanted: "Shay I want …", "Bob, I'd like …", "I need …".
_WANTED = re.compile(r"^(?:[A-Z][\w'-]*[,:]?\s+)?i(?:\s+really|\s+just)?(?:\s+want|\s+need|'d\s+like|’d\s+like|\s+would\s+like)"
                     r"(?:\s+you\s+to)?\s+(?=\S)", re.IGNORECASE)


#: A sum said before the ask that moves it: "现在就差果果家的1200。果果爸，11月1号之前能转我吗？".
_ZH_SUM_BEFORE = re.compile(rf"{lx.SUM}(?=[^\d]*$)")
#: A money verb with no object: "转你", "11月1号之前转你", "还我".
#: A giving verb with no object: "周五之前发你", "明天寄给你".
_ZH_BARE_GIVE = re.compile(r"^[^，,。把]{0,12}?(?:发|转|给|寄|传|交|还|带|拿)(?:给|过来给|过去给)?(?:你|我)"
                           r"(?:一(?:份|个|张|套|本|件|下))?$")  # "这个周五以前发我一份"
#: A copy sent to someone, the thing said before: "（投稿登记表…，）能不能发一份给阿蘅".
_ZH_COPY_TO = re.compile(r"^[^，,。把]{0,12}?(?:发|转|寄|传|交|带|拿)一(?:份|个|张|套|本|件)(?:给[^，,。]{1,6})?$")
#: Whose care the thing is in, said after it: "投稿登记表一直是你在管".
_ZH_ROLE_TAIL = re.compile(r"(?:一直|向来)?(?:是|都是)?(?:你|您)(?:在)?(?:管|负责|保管)(?:的|着)?$")
_ZH_BARE_PAY = re.compile(r"^(?:[^，,。]{0,12}?(?:之前|以前|前))?(?:转|付|还|打)(?:给)?(?:你|我)$")


#: A want put to a member by name: "Shay I want a credit line in the notes", "Bob, I need the keys back".
_WANTED_OF = re.compile(r"^@?(?!(?:Honestly|Actually|Really|Frankly|Maybe|Now|So|Well|Ok|Okay|Yes|No|Because|Also|And|But|Still|Tbh|Look|Listen|Sorry|Yeah|Fine)\b)[A-Z][\w'-]*[,:]?\s+(?i:i)(?:\s+really|\s+just)?\s+(?:want|need|'d\s+like|’d\s+like|would\s+like)\b")


_ZH_ROLE_LEAD = re.compile(r"^(?:你|您)?(?:管|负责|在管)[^，,。？?]{1,8}[，,]\s*")
_ZH_ASK_WORD = re.compile(r"^(?:能不能|可不可以|能否|可否|麻烦你?|帮忙)")


def requested_action(request: str) -> str:
    """What a request asks its listener to do, turned to the listener's side ("send me" → "send you"),
    whoever it names first; the request's words without its ask when no rule reads them (a dialogue
    act said it is a request: ``bot.acts``). A Chinese money verb with no object takes the sum said in the
    sentences before the ask ("…就差果果家的1200。果果爸，11月1号之前能转我吗？" → "11月1号之前转你1200")."""
    action = _requested_action(request)
    # "阿九，你管后台，能不能把…导一份给糯米？": the role said first and the ask are no part of the deed
    action = _ZH_ASK_WORD.sub("", _ZH_ROLE_LEAD.sub("", action), count=1) or action
    if not cjk_count(request) and (got := _EN_WHEN_GET.search(request)) is not None:
        return f"get you {got.group('thing').strip()}"  # "when do I actually get the invoice?" → "get you the invoice"
    if not cjk_count(request) and (it := _IT_OBJECT.search(action)) is not None and (thing := _antecedent(request)):
        # "those 240 es strings — when can you finish them?" → "finish those 240 es strings"
        return f"{action[: it.start()]}{thing}{action[it.end():]}"
    if (when := _ZH_WHEN_ASK.match(action)) is not None:
        if when.group("topic"):  # "你那份寿宴的份子钱什么时候能打过来？": the thing, then when
            return f"{when.group('topic')}，{when.group('v')}"
        # "58章要配一张…插图，你什么时候能画好？": the thing is in the clause before the question
        clauses = [c for c in re.split(r"[，,。！!；;]", request.split(when.group("v"))[0]) if c.strip()]
        if len(clauses) > 1:
            return f"{LEAD_NAME.sub('', clauses[-2].strip(), count=1)}，{when.group('v')}"
    if not request.isascii() and _ZH_BARE_PAY.match(action):
        asked = re.split(r"(?<=[。！!；;])", request)
        before = "".join(asked[:-1]) if len(asked) > 1 else ""
        # else in the clauses before the ask: "…六月的分成，1260，能这周五之前转我吗？"
        clauses = re.split(r"(?<=[，,])", asked[-1])
        if _ZH_SUM_BEFORE.search(before) is None and len(clauses) > 1:
            before = "".join(clauses[:-1])
        if (sum_ := _ZH_SUM_BEFORE.search(before)) is not None:
            return f"{action}{sum_.group()}"
    if not request.isascii() and (_ZH_BARE_GIVE.match(action) or _ZH_COPY_TO.match(action)):
        # "阿梅，豆豆出发前的体检报告和兽医证明，能不能周五之前发我？": what to send is the clause before the ask
        ask = next((x for x in re.split(r"(?<=[。！!？?；;])", request) if _ZH_ASKS.search(x)), "")
        clauses = [c.strip() for c in re.split(r"[，,]", ask.strip().lstrip("@")) if c.strip()]
        thing = clauses[-2] if len(clauses) > 1 else ""
        named = len(clauses) == 2 and len(thing) <= 3  # "小王，你能明天发我吗？": the one asked, not the thing
        thing = _ZH_ROLE_TAIL.sub("", thing) or thing  # "投稿登记表一直是你在管" → "投稿登记表"
        if 2 <= len(thing) <= 30 and not named and not _ZH_ASKS.search(thing):
            return f"{thing}，{action}"
    return action


#: A deed asked as "when can you …?": "你什么时候能画好", "啥时候可以发".
_ZH_WHEN_ASK = re.compile(r"^(?:你|您)?(?:(?:的|那份|那笔|那个|那张)?(?P<topic>[^，,。？?]{2,20}?))?"
                          r"(?:什么时候|啥时候|几时|哪天)(?:能|可以|会|才能)?(?P<v>[\u4e00-\u9fff]{1,6})$")
#: A deed whose object is a pronoun ("finish them", "get it to me"): the thing is named earlier in the request.
_IT_OBJECT = re.compile(r"(?<=\w)\s+\b(?P<it>it|them)\b", re.IGNORECASE)
#: The thing a request names before asking about "it": a topic set off by a dash ("those 240 es strings —"), or
#: what the asker says they need ("I'll need the city map of Karsk for session 15").
_THING = re.compile(r"(?:^|[,.;:!?]\s*|^[^\W\d_][\w.-]*,\s*)(?P<topic>(?:the|those|these|that|this|your|my|our)\s+[^,.;:!?—–]{2,40}?)"
                    r"\s*[—–]\s"
                    r"|\bi(?:'ll|\s+will|\s+would|'d)?\s+need\s+(?P<need>(?:the|a|an|your|my|our|those|these)\s+[^,.;:!?]{2,40}?)"
                    r"(?=\s+(?:for|by|before|from|to|so)\b|[,.;:!?]|$)", re.IGNORECASE)


def _antecedent(request: str) -> str:
    m = _THING.search(request)
    return "" if m is None else " " + (m.group("topic") or m.group("need")).strip()


#: A deed asked of a thing the listener runs: "can the fund send that back?", "could your bot repost it?".
_ASK_THING = re.compile(r"^(?:can|could|would|will)\s+(?=(?:the|your)\s)", _I)
#: A deed asked politely anywhere in its sentence ("send me my 360 today please").
_PLEASE = re.compile(r"\b(?:please|pls|plz|kindly)\b", _I)
#: A sentence that checks a fact rather than asks a deed: "… yesterday right?", "did you pay it yourself?".
_CHECKS = re.compile(r"\b(?:right|correct|yeah|no|yes)\s*[?？]\s*$|\b(?:did|have|had)\s+(?:you|u)\b|(?:了|过)(?:吗|没有?)\s*[?？]", _I)


def _requested_action(request: str) -> str:
    sentences = [s.strip() for s in re.split(r"(?<=[?？])\s*|(?<=[.!。！])\s+", request) if s.strip()]
    # a word said as a sentence of its own ("Tomáš. write to Ostra …", "Fine. …") asks nothing
    sentences = [s for s in sentences if not re.fullmatch(r"@?[^\W\d_][\w-]{1,15}[.!]", s)] or sentences
    # "Sipho you have the good mic, could you record it Saturday?": the ask said mid-sentence
    sentences += [s[m.start():] for s in sentences if (m := _MID_ASK.search(s)) is not None and m.start() > 0]
    if not request.isascii():  # "涛哥今天能先把你那份电费转我吗，我信用卡已经垫了": then the clause that asks
        clauses = [c.strip() for s in sentences for c in re.split(r"[，,；;]", s) if c.strip()]
        # the clause asking for a deed before one that only asks ("你不是学设计的吗，能不能周四前出一版？")
        asking = sorted((c for c in clauses if (_ZH_ASKS.search(c) or _ZH_TOLD.search(c)) and c not in sentences),
                        key=lambda c: _ZH_DEED_ASK.search(c) is None)
        sentences = asking + sentences
    for sentence in sentences:
        said = LEAD_NAME.sub("", sentence, count=1)
        if (action := _action(said) or _action(sentence)) is not None:
            return clean(_turned(action))
    # the sentence that asks a deed ("… send me my 360 today please") before one that checks a fact ("the $1,800
    # landed in your account yesterday right?")
    asking = [s for s in sentences if _PLEASE.search(s)] + [
        s for s in sentences if (_ZH_ASKS.search(s) or _ZH_TOLD.search(s) or "?" in s) and not _CHECKS.search(s)]
    asked = next(iter(asking), next((s for s in sentences if _ZH_ASKS.search(s) or _ZH_TOLD.search(s) or "?" in s),
                                    sentences[0] if sentences else request))
    said = LEAD_NAME.sub("", asked, count=1)
    said = _ZH_NAME_YOU.sub("", said, count=1)  # "老孙你周四前把…发我": the one asked, then the deed
    said = _ASK_ANY.sub("", said, count=1)
    said = _ASK_THING.sub("have ", said, count=1)  # "can the fund send that back" → "have the fund send that back"
    said = _WANTED.sub("", said, count=1)  # "Shay I want a credit line in the notes": the thing wanted
    tail = _ZH_ASK_TAIL.search(said) if not said.isascii() else _EN_TAIL.search(said)
    return clean(_turned(said[: tail.start()] if tail else said)) or clean(request)


def accepted_request(turn: Utterance, history: list[Utterance], names: dict[str, str],
                     tenant_zone: str) -> Accepted | None:
    """The request of the message just before ``turn`` that ``turn`` takes on, or None."""
    own = own_time(clean(turn.text) or turn.text.strip())
    found = _asked_before(turn, history, names) if own is not None else None
    if found is None:
        return None
    before, action, sentence = found
    due = resolve_due(action, aware(before.ts), speaker_zone(before.zone, tenant_zone),
                      owner=speaker_zone(turn.zone, tenant_zone))
    if own:  # the answer names its own time: "will do, by Tuesday", "周五不行，周六吧"
        due = resolve_due(own, aware(turn.ts), speaker_zone(turn.zone, tenant_zone)) or due
    return Accepted(clean(_turned(action)), before.author_id, before.message_id, sentence.strip(), due)


#: Someone reporting another's promise: "btw Jen said she'll fix the signup form tomorrow", "张敏说她下周一会把合同整理好".
_REPORT_EN = re.compile(
    r"^(?:(?:btw|fyi|and|also|oh|so)[\s,]+)*(?P<name>[\w.-]+)\s+(?:said|says|told\s+(?:me|us))\s+(?:that\s+)?"
    r"(?:she|he|they)(?:'ll|’ll|\s+will|\s+would|'d|’d|\s+is\s+going\s+to|'s\s+going\s+to|\s+are\s+going\s+to)\s+"
    r"(?P<action>[^.!?]{3,})", _I)
_REPORT_ZH = re.compile(r"^(?P<name>[^\s，,。]{1,8}?)(?:说|讲)(?:过)?(?:她|他)?(?:.{0,6}?)(?:会|要|答应)(?P<action>[^。！!？?]{2,})")
#: The one reported on saying it is so: "yep, on it", "对，合同周一给大家", "that's right, tomorrow".
_AFFIRM = re.compile(r"^(?:yes|yep|yeah|yup|right|correct|true|sure|that'?s\s+right|对的?|是的?|没错|嗯嗯?|好的?)"
                     r"(?:\b|(?=[\u4e00-\u9fff])|$)[\s,，.!！。~]*(?P<rest>.*)$", _I)


def confirmed_report(turn: Utterance, history: list[Utterance], shares: Callable[[str, str], bool]) -> tuple[str, Utterance] | None:
    """(the promise, in the speaker's own words when they restate it, else the report's; the report)
    when ``turn`` confirms the promise the message just before reported of its speaker — "Jen said
    she'll fix the signup form tomorrow" — "yep, on it" — or None. ``shares``: do two statements share
    content (``bot.offline.proposals.shares_content``)."""
    if not history or not turn.author_name:
        return None
    before = history[-1]
    if before.author_id == turn.author_id:
        return None
    m = _REPORT_EN.match(before.text.strip()) or _REPORT_ZH.match(before.text.strip())
    if m is None or m.group("name").casefold() != turn.author_name.casefold():
        return None
    a = _AFFIRM.match(clean(turn.text) or turn.text.strip())
    if a is None:
        return None
    rest, action = clean(a.group("rest")), clean(m.group("action"))
    if not rest or takes_it_on(rest):
        return action, before
    return (rest, before) if shares(rest, action) else None
