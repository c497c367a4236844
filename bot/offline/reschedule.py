"""A promise's owner moving its time in the thread: "actually make that Friday noon for the copy",
"文档那个，改成周五吧，周四我要出差". ``reschedules`` finds them; ``bot.extraction.completions`` moves the owner's open
promise through the member's own correction path. Only the owner's words move a promise: the same words
from the one it was made to are a request, until the owner takes it ("好的，周五")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.extraction.candidates import Utterance
from bot.offline.actions import split_due
from bot.offline.clauses import clean
from bot.offline.proposals import is_answer
from bot.offline.requests import asked_action as requested_action_of
from bot.offline.requests import asks_deed, own_time
from bot.text.duetime import beside_times, find_due_span, find_shift, only_time, turned_down
from bot.text.zones import named_zone, without_clock_words
from memory.normalize import normalize

__all__ = ["Reschedule", "asked_them", "asks_for_time", "asks_to_move", "asks_to_wait", "moved_value", "moves_time", "new_time", "reschedules",
           "takes_time_asked"]

_I = re.IGNORECASE
_EN = re.compile(
    r"^(?:(?:actually|sorry|wait|oh|ok(?:ay)?|correction|hmm|so)[\s,:;-]+)*(?:(?:can|could|may)\s+(?:we|i)\s+|let'?s\s+|please\s+"
    r"|i(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to)?\s+(?:have|need)\s+to\s+)?"
    r"(?:make\s+(?:that|it)|change\s+(?:that|it)\s+to|(?:move|push|shift)\s+(?:that|it|the\s+\w+(?:\s+\w+)?|my\s+\w+(?:\s+\w+)?)\s+(?:back\s+)?to)\s+"
    r"(?P<rest>[^,;.!?]+)(?:[,;.!?]\s*(?P<reason>.*))?$", _I)
_EN_FOR = re.compile(r"\s+(?:for|on)\s+(?P<what>(?:the|my|our|that)\s+.+)$", _I)
_ZH = re.compile(r"^(?:那|那么)?(?P<what>[^，,。！!？?]{0,12}?)(?:那个|那件事|的话)?[，,]?\s*(?:我)?(?:得|要|只能|可能要)?(?:改成|改到|推到|延到|挪到|换到|宽限到|延期到|顺延到|缓到)"
                 r"(?P<rest>[^，,。！!？?：:]+)(?:[，,。！!？?：:]\s*(?P<reason>.*))?$")
#: "make the glossary Friday noon": a thing named between "make" and its new time.
_EN_MAKE_THE = re.compile(r"^(?:(?:actually|sorry|ok(?:ay)?|so|honestly|hmm)[\s,:;-]+)*make\s+(?P<what>(?:the|my|our)\s+[^,;.!?]{2,40}?)\s+"
                          r"(?P<rest>[^,;.!?]+)(?:[,;.!?]\s*(?P<reason>.*))?$", _I)
#: A thing put off in its own sentence: "the refund from the pot slides to the 30th", "the walk-through slips to the 14th".
_EN_SLIDES = re.compile(r"^(?P<what>(?:the|my|our|your)\s+[^,;:.!?]{2,60}?)\s+(?:(?:has|needs|have|need)\s+to\s+|will\s+(?:have\s+to\s+)?"
                        # (not "moves to": "so we agree: the launch moves to next Wednesday" moves an event, no promise)
                        r"|must\s+)?(?:slides?|slips?|is\s+pushed|be\s+pushed|gets\s+pushed|goes\s+back|go\s+back)\s+(?:back\s+)?to\s+(?P<rest>[^,;:.!?]+)(?:[,;:.!?]\s*(?P<reason>.*))?$", _I)
#: A thing that has to wait: "the breakdown has to wait till Saturday, same hour", "the refund can wait until the 5th".
_EN_WAITS = re.compile(r"^(?P<what>(?:the|my|our|your)\s+[^,;:.!?]{2,60}?)\s+(?:has|have|needs?|will\s+have|must|can|could|'ll\s+have)"
                       r"\s+(?:to\s+)?wait\s+(?:till|until|til|'til)\s+(?!after\b)(?P<rest>[^;:.!?]+)(?:[;:.!?]\s*(?P<reason>.*))?$", _I)
#: A Chinese deed handed over after its new time: "改成18号以前寄到你那儿", "推到周五发你".
_ZH_HANDS_OVER = re.compile(r"^(?:寄|发|转|送|交|给|传)(?:到|给)?(?:你|您)?(?:那儿|那里|手上|邮箱)?$|^给(?:你|您)$")
#: A sentence's topic before its change: "uploads: make that tuesday", "booking page — ok make it Friday".
_TOPIC = re.compile(r"^(?P<topic>[^:：—–]{2,30}?)\s*(?:[:：]|\s[—–]\s?)\s*")
#: Words before a change that say nothing of it: "honestly", "ugh", a name the line is said to.
_LEAD = re.compile(r"^(?:(?:honestly|ugh|ok(?:ay)?|so|well|right|hey|update|also|and|但是?|那|那么|抱歉|不好意思|sorry)(?![A-Za-z])[\s,，:：;-]*)+", _I)
#: Words after a new time that turn the old one down: "tuesday not sunday", "Friday noon instead of thursday".
_NOT_THAT = re.compile(r"\s*(?:,\s*)?\b(?:not|instead\s+of|rather\s+than)\s+[^,;.!?]+$|[，,]?\s*(?:不是|而不是)[^，,。]+$", _I)
#: A change said as "我改一下" / "let me change it", its new time after it.
_CHANGE_NOTE = re.compile(r"(?:我|那我)?(?:改一下|调整一下|更新一下)[，,。.\s]*|\blet\s+me\s+(?:change|move|update)\s+(?:that|it)[,.\s]*", _I)


@dataclass(frozen=True, slots=True)
class Reschedule:
    """One message moving its speaker's promise: the new time words, and what it names ("" if nothing)."""

    message_id: str
    author_id: str
    ts: datetime
    when: str
    what: str
    quote: str
    zone: str | None = None  #: the speaker's own zone, when known: the new time is theirs
    #: The time the line turned down ("isn't happening tonight"): only a promise due then moves.
    old: str = ""
    #: The member whose yes made the change ("Noor, can we make the back cover the 22nd instead?" — "ok,
    #: the 22nd"): only a promise made to them moves.
    consent_of: str = ""
    #: With ``consent_of``: a promise between the two, whichever made it ("李娜，海报能不能推迟到周日？" — "行" is
    #: asked by the owner or of them; the words do not say which).
    either: bool = False
    #: The speaker's message just before that this time completes ("阿珍，合同可以给你看：…一起发群里。" then "3月26号
    #: 以前。"): only a promise made in that message moves.
    follows: str = ""


def _asked(text: str) -> tuple[str, str] | None:
    """(the new time, what it is for) when a sentence of ``text`` moves a promise to another time
    ("ugh my weekend is packed. ok make it Saturday noon instead", "uploads: make that tuesday not
    sunday", "周五搞不定，改成周六中午吧"), else None."""
    text = normalize(text).strip()[:300]
    for sentence in re.split(r"(?<=[.!?。！？])\s*|\s*[;；]\s*|,\s*(?:so|and)\s+(?=i\b)", text, flags=_I):
        if (found := _sentence_moves(sentence.strip())) is not None:
            return found
    return None


def _sentence_moves(text: str) -> tuple[str, str] | None:
    topic = ""
    if (t := _TOPIC.match(text)) and find_due_span(t.group("topic")) is None and find_shift(t.group("topic")) is None:
        topic, text = t.group("topic"), text[t.end():]
    text = _LEAD.sub("", text)
    # a name it is said to: "Dana make that Fri noon …", "Lena, can I move the deck to …"
    text = re.sub(r"^@?[A-Z][\w.-]*[,，]?\s+(?=(?:make|can|could|may|let'?s|please|move|push|change)\b)", "", text)
    what = ""
    if m := _EN.match(text):
        rest = m.group("rest").strip()
        if f := _EN_FOR.search(rest):
            what, rest = f.group("what"), rest[: f.start()]
    elif m := _EN_MAKE_THE.match(text) or _EN_SLIDES.match(unnamed := re.sub(r"^@?[A-Z][\w.-]*[,，]\s+(?=(?:the|my|our|your)\b)", "", text)) \
            or _EN_WAITS.match(unnamed):
        rest, what = m.group("rest").strip(), m.group("what")
    elif m := _ZH.match(text) or _ZH.match(text.split("，")[-1].split(",")[-1].strip()) or _ZH.match(
            re.sub(r"^@?[\u4e00-\u9fff]{1,4}[，,]\s*", "", text, count=1).split("，")[0]):  # "米粒，售票页得推到4月8号，…"
        rest, what = m.group("rest").strip(), re.sub(r"^(?:能不能|可不可以|能否|可以)", "", m.group("what").strip())
        # "分红还得改，改到9月10号，周二，还是晚上六点以前": the time goes on in the clauses after
        for piece in re.split(r"[，,]", m.group("reason") or ""):
            if not piece.strip() or not only_time(piece):
                break
            rest += "，" + piece.strip()
    elif (m := _CHANGE_NOTE.search(text)) and find_due_span(text[m.end():]) is not None:
        after = text[m.end():]
        span = find_due_span(after)
        assert span is not None
        return after[span[0] : span[1]], clean(topic)
    else:
        return _shifts(text, topic)
    rest = _SAME_HOUR.sub("", _NOT_THAT.sub("", rest))  # ("till Saturday, same hour": the promise keeps its hour)
    span = find_due_span(rest)
    return (rest[span[0] : span[1]], clean(what or topic)) if span is not None and (
        only_time(rest) or _ZH_HANDS_OVER.match(beside_times(rest) or "")) else None


#: Who may say a move by a span before its verb: "can we", "I need to", "let's", "sorry, I have to" (not "they").
_SHIFT_LEAD_EN = re.compile(r"(?:(?:actually|sorry|ok(?:ay)?|so|hmm|but|and|also|honestly)\W+)*(?:(?:can|could|may)\s+(?:we|i|you)|let'?s"
                            r"|please|pls|i(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|\s+must|\s+should|'d\s+like\s+to"
                            r"|'?m\s+gonna|\s+(?:have|need)\s+to|'ll\s+(?:have|need)\s+to)|(?:we|i)\s+(?:have|need)\s+to)?\W*", _I)
#: Who may say it in Chinese, after what it names: "分轨能不能往后挪两天", "锣鼓经我得推迟一周", "那就晚两天".
_SHIFT_LEAD_ZH = re.compile(r"(?P<what>[^，,。！!？?；;]{0,12}?)(?:那个|的话)?[，,]?\s*(?:那|那就|就)?(?:我|我们|咱们)?"
                            r"(?:得|要|只能|可能要|想|能不能|可不可以|能否|可以|再)?\s*")
#: Words before a span that make it someone else's or a condition: "要是片方同意延期一周", "他们说推迟一周".
_NOT_OWN_SHIFT_ZH = re.compile(r"要是|如果|假如|只要|除非|万一|同意|答应|说|让|他|她|它|对方|人家|比|一律|每次|每回|都|必须|应该|以后|今后|[、A-Za-z]")
#: A thing of the speaker's that needs a span more: "the credit page needs", "the bench files will take", "I need".
_NEEDS = re.compile(r"(?P<what>(?:the|my|our|your)\s+[^,.:;!?]{1,40}?|i)\s+(?:needs?|will\s+need|takes?|will\s+take)\s*", _I)
#: What a span is on: "ten more days on the bench files, please".
_SPAN_ON = re.compile(r"\s*(?:on|for)\s+(?P<what>[^,:;.!?]{1,40}?)(?:\s*,?\s*(?:please|pls))?\s*", _I)
#: What a bare span may stand beside and still move a deadline: "two more days?", "ok, a week later then".
_SHIFT_BESIDE = re.compile(r"\b(?:(?:can|could|may)\s+(?:i|we)\s+(?:have|get)|give\s+(?:me|us)|i\s+need|then|pls|please|ok(?:ay)?"
                           r"|sorry|just|instead|if\s+(?:that'?s|it'?s)\s+ok|would\s+that\s+(?:work|be\s+ok))\b|[\s,.!?~—–-]"
                           r"|能不能|可不可以|可以吗|行吗|好吗|行不行|[吧吗呢行]|可以|我", _I)


def _shifts(text: str, topic: str) -> tuple[str, str] | None:
    """(the span, what it names) when ``text`` moves a deadline by a span in its speaker's words ("can we push it
    back a week?", "sorry, I need two more days", "分轨能不能往后挪两天？"), else None."""
    shift = find_shift(text)
    if shift is None:
        return None
    before = text[: shift.start]
    if not shift.verbal:
        what = ""
        if _SHIFT_BESIDE.sub("", before + text[shift.end :]):
            # "Farida, the credit page needs one more week: our proofreader is away", "Alvin, ten more days on the bench
            # files, please: …": a thing of the speaker's needing a span, the reason after a colon
            head = re.sub(r"^@?[A-Z][\w.'-]*\s*[,，:]\s*", "", re.split(r"(?<=[.!?;])\s+", before)[-1])
            # ("…needs a week more, same time of day": the hour kept says no more)
            tail = _SAME_HOUR.sub("", re.split(r"[:;.!?]", text[shift.end :], maxsplit=1)[0])
            needs, on = _NEEDS.fullmatch(head), _SPAN_ON.fullmatch(tail)
            if not ((needs and not tail.strip(" ,")) or (not head.strip() and on)):
                return None  # "we met two days later": no move
            what = (needs.group("what") if needs else on.group("what") if on else "") or ""
    elif re.search(r"[\u4e00-\u9fff]", text[shift.start : shift.end]):
        # (said to someone first: "阿青，分轨能不能往后挪两天")
        if (lead := _SHIFT_LEAD_ZH.fullmatch(before) or _SHIFT_LEAD_ZH.fullmatch(re.sub(r"^[^，,]{1,4}[，,]\s*", "", before))) is None \
                or _NOT_OWN_SHIFT_ZH.search(lead.group("what")):
            return None  # ("要是片方同意延期一周，…": a condition on someone else's move)
        what = lead.group("what")
    elif _SHIFT_LEAD_EN.fullmatch(re.sub(r"^@?[A-Z][\w.'-]*\s*[,，:]\s*", "", before)):  # "Ana, sorry, can we …"
        what = shift.what
    else:
        return None  # "they pushed the festival back a week": not the speaker's move
    return text[shift.start : shift.end], clean(what or topic)


_SAME_HOUR = re.compile(r"[\s,]*(?:at\s+)?(?:the\s+)?same\s+(?:hour|time)(?:\s+of\s+(?:the\s+)?day)?\s*$", _I)
#: A reply taking a time someone just offered: "wednesday it is", "……好吧，24号", "ok, Friday then".
_IT_IS = re.compile(r"^(?:(?:ok(?:ay)?|sure|fine|right|alright)[\s,]+)?(?P<when>.+?)\s+(?:it\s+is|then)\b[\s.!~]*(?P<more>.*)$", _I)
#: A nod of a word or two said before the time taken: "Fair.", "OK —", "好吧。".
_NOD = re.compile(r"^(?:(?:fair|ok(?:ay)?|sure|fine|right|alright|yes|yep|yeah|understood|got\s+it|makes\s+sense|appreciated|thanks|thank\s+you"
                  r"|cheers)(?:\s+enough)?"
                  r"\s*[.!,—–]\s*|(?:好吧|好的|好|行吧|行|可以|明白|了解)[。！，,!]\s*)", _I)
_QUESTION = re.compile(r"[?？]|(?:可以吗|行吗|行不行|好吗|好不好|成吗|ok吗|吗|呢)[\s。.~]*$", _I)


_STILL = re.compile(r"\b(?:still|same\s+hour|same\s+time|the\s+whole\s+day)\b|[,，]?\s*\b(?:on\s+)?my\s+(?:own\s+)?(?:clock|time)\b", _I)
_THEN_FIRST = re.compile(r"^(?:then|so|ok(?:ay)?\s+then)\s*,?\s+(?P<when>[^.!?]{2,40}?)[.!?]\s*(?P<more>.*)$", _I)


def _taken_time(answer: str) -> str | None:
    """The time a short yes names ("wednesday it is", "……好吧，24号"), or None."""
    answer = re.sub(r"^[\W_]+", "", clean(answer) or answer.strip())
    # ("Thursday the 12th, then, before 5pm on my clock.", "Then the 27th. Still the whole day, my time.")
    answer = re.sub(r"\s+", " ", _STILL.sub(" ", answer)).strip()
    if (lead := _THEN_FIRST.match(answer)) is not None:
        answer = f"{lead.group('when')} then. {lead.group('more')}"
    if (m := _IT_IS.match(_NOD.sub("", answer))) and only_time(m.group("when").rstrip(" ,")):  # "Fair. Sunday then, …"
        # "ok, Friday it is. by 8pm my time": the hour said after narrows the day
        more = m.group("more").strip(" .!~,")
        if not more or only_time(more):
            return f"{m.group('when').rstrip(' ,')}, {more}" if more else m.group("when").rstrip(" ,")
        # "saturday then, before 10am Bogotá. that's 5pm for you. tight but fine": the time, then talk
        first = re.split(r"(?<=[.!?])\s+|\s+[—–]\s+", more, maxsplit=1)[0].strip(" .!~,")
        if first != more and only_time(first):
            return f"{m.group('when').rstrip(' ,')}, {first}"
        if not first or not re.search(r"\d|[零一二两三四五六七八九十]|noon|midnight|morning|evening|night|afternoon", first, _I):
            return m.group("when").rstrip(" ,")  # "Then the 27th. The whole day." — the day, then talk
    return own_time(answer) or None


def _then_time(answer: str) -> str | None:
    """The time an answer takes after a remark ("有道理，那就下周二，还是晚上10点前"), or None."""
    if (m := _THEN_TIME.search(answer)) and only_time(when := _SAME_AS.sub("", m.group("when"))):
        return when
    return None


#: A time taken after a remark: "有道理，那就下周二，还是晚上10点前", "fair, then tuesday, same time".
_THEN_TIME = re.compile(r"(?:^|[，,。.!！]\s*)(?:那就|那|就|then)\s*(?P<when>[^。！!？?]+?)[\s。.!！~]*$", _I)
_SAME_AS = re.compile(r"还是|照旧|\bsame\s+time\b", _I)


#: Asking only when: "when?", "by when?", "ok, what time?", "什么时候？", "那几号能好？".
_WHEN_ASKED = re.compile(r"^\s*(?:@?[^\s,，:：]{1,24}[,，:：]\s*)?(?:(?:ok(?:ay)?|and|so|cool|great|thanks|good)[,，!]?\s+)*"
                         r"(?:when|by\s+when|when\s+(?:exactly|roughly|then|though)|what\s+time|what\s+day|which\s+day|eta)\s*[?？]+\s*$"
                         r"|^\s*(?:@?[^\s,，:：]{1,12}[,，:：]\s*)?(?:好的?|行|那|嗯)?[,，]?\s*(?:大概|最晚|最迟)?"
                         r"(?:什么时候|啥时候|几号|哪天|几点|多久)(?:能|可以|会)?(?:好|给|到|发|弄好|搞定|还)?(?:呢|啊|呀)?\s*[?？]+\s*$", _I)


def takes_time_asked(asked: str, answer: str) -> bool:
    """Does ``answer`` take the time ``asked`` asks for ("…下周二晚上发？" — "有道理，那就下周二，还是晚上10点前")?"""
    return _time_asked(asked) is not None and (_taken_time(answer) or _then_time(answer)) is not None


def _time_asked(text: str) -> tuple[str, str] | None:
    """(the time, "") when ``text`` asks for another time and for no deed: "太晚了，下周五（24号）之前可以吗",
    "not friday pls, the tech wants it before he comes thursday. wednesday?"."""
    text = normalize(text).strip()[:300]
    sentences = [x.strip() for x in re.split(r"(?<=[.!?。！？])\s*", text) if x.strip()]
    asking = [x for x in sentences if _QUESTION.search(x)]
    if not asking or any(requested_action_of(x) for x in sentences):
        return None
    span = find_due_span(asking[-1])
    return (asking[-1][span[0] : span[1]], "") if span is not None else None


def reschedules(turns: Sequence[Utterance], context: Sequence[Utterance] = ()) -> list[Reschedule]:
    """The messages in ``turns`` that move their speaker's promise to another time: a change in their
    own words, or their "OK, <that time>" to someone else's change just before."""
    out = []
    thread = [*context, *turns]
    for i, turn in enumerate(thread):
        if i < len(context):
            continue
        found = _asked(turn.text)
        if found is None and i and (prev := thread[i - 1]).author_id == turn.author_id and _QUESTION.search(turn.text) is None \
                and only_time(turn.text) and (span := find_due_span(turn.text)) is not None:
            # a promise said over two messages: its time in the second, alone
            out.append(Reschedule(turn.message_id, turn.author_id, turn.ts, turn.text[span[0] : span[1]].strip(" .。"), "",
                                  normalize(turn.text).strip()[:300], turn.zone, follows=prev.message_id))
            continue
        if found is None and i >= 2 and (asker := thread[i - 1]).author_id != turn.author_id and _WHEN_ASKED.match(normalize(asker.text)) \
                and _QUESTION.search(turn.text) is None and only_time(turn.text) and (span := find_due_span(turn.text)) is not None \
                and (own := next((u for u in reversed(thread[max(0, i - 4) : i - 1]) if u.author_id == turn.author_id), None)) is not None:
            # "sure" — "when?" — "tonight, my time": the time the one promised to asked for completes the promise
            out.append(Reschedule(turn.message_id, turn.author_id, turn.ts, turn.text[span[0] : span[1]].strip(" .。"), "",
                                  normalize(turn.text).strip()[:300], turn.zone, follows=own.message_id))
            continue
        if found is None and i and thread[i - 1].author_id != turn.author_id and not asked_them(thread, i) \
                and (before := _asked(thread[i - 1].text) or _time_asked(thread[i - 1].text)
                     or (_move_asked(thread[i - 1].text) if not asks_deed(normalize(thread[i - 1].text)) else None)) is not None \
                and (when := _taken_time(turn.text)):
            span = find_due_span(when)
            # (with the clock it names: "before 7pm your time in Maputo")
            found = (when[span[0] : span[1]] if span and named_zone(when) is None else when), before[1]
        if found is None and i and (prev := thread[i - 1]).author_id != turn.author_id \
                and asks_deed(normalize(prev.text)) and not asks_for_time(prev.text) \
                and (moved := _move_asked(prev.text)) is not None and _says_yes(turn.text) and not _NOT.search(turn.text):
            # "can you make the payout report Wednesday instead?" — "wednesday works": the answerer's promise to
            # the asker (else the asker's to the answerer), to the time the answer names, else the one asked
            span = find_due_span(turn.text)
            when = turn.text[span[0] : span[1]] if span else re.sub(r"^(?:到|至)", "", moved[0])
            out.append(Reschedule(turn.message_id, turn.author_id, turn.ts, when, moved[1],
                                  normalize(turn.text).strip()[:300], turn.zone, consent_of=prev.author_id, either=True))
            continue
        if found is None and i and (prev := thread[i - 1]).author_id != turn.author_id and not asked_them(thread, i) \
                and _time_asked(prev.text) is not None and (when := _then_time(turn.text)) is not None:
            # "…下周二晚上发？" — "有道理，那就下周二，还是晚上10点前": the answerer's promise (else the asker's)
            out.append(Reschedule(turn.message_id, turn.author_id, turn.ts, when, "", normalize(turn.text).strip()[:300],
                                  turn.zone, consent_of=prev.author_id, either=True))
            continue
        if found is None and i and (prev := thread[i - 1]).author_id != turn.author_id \
                and (not asked_them(thread, i) or _INSTEAD.search(prev.text)) \
                and (is_answer(turn.text) or _TIME_FINE.match(turn.text)) \
                and not _NOT.search(turn.text) and asks_for_time(prev.text) \
                and (asked := _asked(prev.text) or _time_asked(prev.text) or _move_asked(prev.text)):
            # the owner asked for another time and the one it was promised to said yes: the owner's promise, to
            # the time the yes names when it names one ("能不能宽限到周一早上？" — "周一早上9点可以")
            span = find_due_span(turn.text)
            said = turn.text[span[0] : span[1]] if span else ""
            # (a span asked, the yes naming its own day: "分红能不能往后挪两天？" — "行，周四，还是…晚上六点以前")
            when = said if said and ((asked[0] in said and len(said) > len(asked[0])) or find_shift(asked[0]) is not None) \
                else asked[0]
            # (asked by the one it was promised to — "Wei-Ting, can the quote come Monday instead?" — "Monday
            # works": the answerer's promise, when the asker has none to them: ``either``)
            out.append(Reschedule(prev.message_id, prev.author_id, prev.ts, when, asked[1],
                                  normalize(prev.text).strip()[:300], prev.zone, consent_of=turn.author_id, either=True))
            continue
        if found is not None:
            out.append(Reschedule(turn.message_id, turn.author_id, turn.ts, found[0], found[1],
                                  normalize(turn.text).strip()[:300], turn.zone))
        elif (down := _turned_down(turn.text)) is not None:
            out.append(Reschedule(turn.message_id, turn.author_id, turn.ts, down[1], "",
                                  normalize(turn.text).strip()[:300], turn.zone, old=down[0]))
    return out


#: Words that say a time replaces another ("can it be Friday instead?", "改周四晚上8点行吗"): a yes to them
#: moves a promise even from the one who asked for it.
#: Asking a thing to wait: "could the gallery wait until the 12th?", "can we postpone …", "模板能不能等到月底以后再上？".
_WAIT = r"\b(?:wait|hold(?:\s+off)?|hold\s+(?:it|that|them|off\s+on\s+it))\s+(?:until|till|til|'til)\b|\bpostpone|等到[^，,。？?]{1,12}?再"
_ASKS_TO_WAIT = re.compile(_WAIT, re.IGNORECASE)
#: The deed already promised, asked sooner: "能不能明天就给？", "可不可以周五就发？" (a move, not a new deed).
_SOONER = re.compile(r"(?:能不能|可不可以|能否)(?:今天|明天|后天|周[一二三四五六日天末]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|\d{1,2}号)"
                     r"(?:[早晚]上|中午|下午)?就[发交转给寄还传补](?:[吗吧呢]|我|过来)?\s*[？?]")
_INSTEAD = re.compile(r"\binstead\b|\brather\s+than\b|\b(?:wait|hold(?:\s+off)?)\s+to\b|\bdelay(?:ed)?\s+(?:until|till|til|'til|to)\b|" + _WAIT
                      + r"|\b(?:mov(?:e|ing)|push(?:ing)?|slip(?:s|ping)?)\b[^.?!,]{0,40}?\b(?:up\s+|back\s+)?to\b"
                      r"|\bbring(?:ing)?\b[^.?!,]{0,30}?\bforward\b|宽限到|延期到|顺延到|缓到|改(?=[到成在]?[^，,。]{0,6}?(?:周|星期|礼拜|明|后|下|今|\d))|推迟|延后|挪到|换到|提前到"
                      # a deed put off to a later day: "能不能周六再发？", "明天再转你"
                      r"|(?:周[一二三四五六日天末]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|明天|后天|下周|下个?月|月底|月初)"
                      r"(?:[早晚]上|中午|下午)?再(?=[发交转给做弄写寄还传补录改])|" + _SOONER.pattern, _I)


#: A yes that is not one: "ok but not the 22nd", "行，不过…不行" ("no problem" is a yes).
_NOT = re.compile(r"\b(?:not|no(?!\s+(?:problem|prob|worries|biggie|rush|hurry|stress))|can'?t|won'?t)\b|不行|不可以|不能|没法", _I)
#: A yes that names the time it takes: "Wednesday's fine", "thursday works", "周三可以".
_TIME_FINE = re.compile(r"^\W*[\w\u4e00-\u9fff]+(?:'s|’s|\s+is)?\s*(?:fine|ok(?:ay)?|good|works|perfect|可以|行|没问题)\b", _I)


def asks_for_time(text: str) -> bool:
    """Does ``text`` ask for another time, not for a deed ("can we make the back cover the 22nd instead?",
    "能不能把海报改到周日？")? A yes to it moves a promise; it takes none on."""
    return _asked(text) is not None or (_time_asked(text) is not None and (not asks_deed(normalize(text)) or _SOONER.search(text) is not None))


def _says_yes(text: str) -> bool:
    """Does a clause of ``text`` say yes ("刚醒看到……行吧，那就今天晚上9点", "wednesday works, noon still")?"""
    return any(is_answer(c.strip() + " ") or _TIME_FINE.match(c.strip())  # "周六可以，不急"
               for c in re.split(r"[,，.。!！…~]+", text) if c.strip()) or _taken_time(text) is not None  # "Monday it is"


def _move_asked(text: str) -> tuple[str, str] | None:
    """(the time, "") a line asks for in words that replace another time ("… Wednesday instead?",
    "分摊表能不能提前到周六？"), whatever deed it names; None when it has no such words."""
    if _INSTEAD.search(text) is None and find_shift(text) is None:
        return None
    if (found := _asked(text) or _time_asked(text)) is not None:
        return found
    for sentence in re.split(r"(?<=[.!?。！？])\s*", normalize(text).strip()[:300]):
        if _INSTEAD.search(sentence) and (span := find_due_span(sentence)) is not None:
            return sentence[span[0] : span[1]], ""
        if (after := _TILL_AFTER.search(sentence)) is not None:  # "can the €90 wait till after the 4th?"
            return after.group("when"), ""
    if (shift := find_shift(text)) is not None and _QUESTION.search(text) is None:
        return text[shift.start : shift.end], ""  # "take another four days if it helps": a span offered
    return None


#: A wait asked past a day, which names no deadline of its own: "wait till after the 4th".
_TILL_AFTER = re.compile(r"\b(?:wait|hold(?:\s+off)?|hold\s+(?:it|that|them))\s+(?:until|till|til|'til)\s+(?P<when>after\s+[^,;.!?]{2,30})", _I)


#: Words that move a deed to another time in its owner's words: "改成今晚8点前发", "推到周一", "push it to Monday",
#: "make it Saturday" (narrower than ``_INSTEAD``, which also reads asks: "…which tomorrow is 11am instead of 10").
_MOVE_TO = re.compile(r"改(?:成|到|在)|推(?:迟)?到|挪到|延(?:后)?到|顺延到"
                      r"|\b(?:make|push|move|shift|bump)\s+(?:it|that|this|mine|the\s+[\w-]+)\s+(?:back\s+|up\s+)?(?:to\s+)?", _I)


def moves_time(text: str) -> bool:
    """Does ``text`` move a promise to another time in its speaker's words ("报名表改成今晚8点前发吧", "make it
    Saturday noon instead")? Not a question asking leave to (``asks_leave_to_move``)."""
    return _asked(text) is not None or (_MOVE_TO.search(text) is not None and bool(new_time(text))
                                        and _QUESTION.search(text) is None)


#: What is left of a move once ``split_due`` took its time (with its "到"/"to") and its clock: "改", "还是那个钟点",
#: "push it", "still", "then".
_MOVE_LEFT = re.compile(r"^(?:(?:那就|那|就|得|要)?(?:改|推|延|挪|换|顺延)(?:后|迟)?(?:到|成|至|为)?|还是(?:那个钟点|原来的钟点)?|照旧"
                        r"|(?:let'?s\s+)?(?:move|push|shift|make|bump)\s+(?:it|that|this)?\s*(?:to|back\s+to|till|until)?|still|then|instead)$",
                        re.IGNORECASE)


def only_moves(value: str) -> bool:
    """Is ``value`` a move's words and its new time, nothing else ("改到22号（礼拜六）晚上十点前，还是卡萨布兰卡时间")? Such
    a "promise" is the move of one made before, which the store may hold beyond the lines read."""
    bare = without_clock_words(split_due(value)[0], inside=True)
    parts = [p.strip() for p in re.split(r"[，,。.;；\s]+", bare) if p.strip()]
    return bool(find_due_span(value)) and bool(parts) and all(
        _MOVE_LEFT.match(p) or named_zone(re.sub(r"^(?:还是|仍然|照旧|按|still\s+)", "", p, flags=re.IGNORECASE)) for p in parts)


def asks_to_move(text: str) -> bool:
    """Does ``text`` ask for a time that replaces another ("can the quote be Friday instead?", "改周四晚上8点行吗？"),
    not only for a time ("周三前问下价格？" asks a deed by Wednesday)?"""
    return _move_asked(text) is not None or (asks_for_time(text) and _asked(text) is not None)


def asks_to_wait(text: str) -> bool:
    """Does ``text`` ask a thing to wait ("could the gallery wait until the 12th?")? A move of a promise, never a
    deed of its own."""
    return _ASKS_TO_WAIT.search(text) is not None


def asks_leave_to_move(text: str) -> bool:
    """Is ``text`` a move put as a question ("can the es strings be Sunday instead?")? It moves nothing
    itself: the other's yes does (``reschedules``)."""
    return _QUESTION.search(text) is not None and asks_to_move(text)


def asked_them(thread: Sequence[Utterance], i: int) -> bool:
    """Did the speaker of line ``i`` ask the one before them for a deed, a few lines back? Then "行，周五晚上"
    takes that member's counter-offer ("下周三不行…周五晚上可以吗？"): their promise, not a move of the speaker's."""
    me, them = thread[i], thread[i - 1]
    return any(u.author_id == me.author_id and them.author_name and them.author_name in u.text
               and asks_deed(normalize(u.text)) for u in thread[max(0, i - 4) : i - 1])


def _turned_down(text: str) -> tuple[str, str] | None:
    """(the time turned down, the one offered) when the speaker turns a time down and offers another
    without asking a deed of anyone ("glossary isn't happening tonight … tomorrow noon London time",
    "第三稿周日晚上交不了了…改到周一中午吧"): their promise due then moves (``bot.extraction.completions.move``); a
    counter-offer to a request moves nothing, for no promise of theirs is due then."""
    text = normalize(text).strip()[:300]
    if any(requested_action_of(x) for x in re.split(r"(?<=[.!?。！？])\s*", text) if x.strip()):
        return None
    return turned_down(text)


# What moves a time: "make that", "push it to", "改成", "改到" … the new time comes after it.
_CUE = re.compile(r"make\s+(?:that|it)|(?:move|push|change|shift)(?:ing)?\s+(?:\S+\s+){0,4}?to\b|改成|改到|推到|延到|挪到|换到|再给|再发", _I)


def new_time(text: str) -> str:
    """The time a line moves a promise to (a line the dialogue acts read as a change of time,
    ``bot.acts``): the first time after a change cue ("改到今天下午三点前吧"), else the first it names
    ("ok ok, Thursday EOD then"); "" when it names none."""
    text = normalize(text).strip()[:300]
    cue = _CUE.search(text)
    after = text[cue.end():] if cue is not None else text
    span = find_due_span(after) or find_due_span(text)
    if span is None:
        shift = find_shift(text)  # "ok, push it back two days then"
        return text[shift.start : shift.end] if shift is not None and shift.verbal else ""
    said = after if find_due_span(after) is not None else text
    return said[span[0] : span[1]]


def moved_value(value: str, when: str) -> str:
    """The promise's words with their time replaced by ``when`` ("send the draft by Thursday" + "Friday"
    → "send the draft by Friday"; "文档，周四前写完" + "周五" → "文档，周五前写完")."""
    span = find_due_span(value)
    zh = bool(re.search(r"[\u4e00-\u9fff]", value))
    # (the clock it is said on stays in the words: the move's due time is read from them; "then" goes)
    when = when.strip(" ,，.。") if zh else (re.sub(r",?\s*\bthen\b,?", "", when).strip(" ,.") or when)
    if span is None:
        bare, _ = split_due(value)
        if not zh:
            return f"{bare} by {when}"
        # "28号礼拜二，夜里十一点以前，斯科普里时间" + "一万二五个人分…": the time its own clause
        # ("周五" + "把合同发你" → "周五把合同发你"; "4月28日 21:00" + "…" → "4月28日 21:00，…")
        return f"{when}{bare}" if re.fullmatch(r"[\u4e00-\u9fff]{1,4}", when) else f"{when}，{bare}"
    old = value[span[0] : span[1]]
    new = when
    if zh and re.search(r"(?:之?前|以前)$", old) and not re.search(r"(?:之?前|以前)$", new):
        new += "前"
    if not zh and re.match(r"(?:by|before|until)\b", old, _I) and not re.match(r"(?:by|before|until|on|at)\b", new, _I):
        new = f"{old.split()[0]} {new}"
    return value[: span[0]] + new + value[span[1] :]
