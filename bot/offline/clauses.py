"""Sentences and clauses of a message, in one linear pass, with their offsets.

A quote must be a substring of its message, so every clause keeps its offset. Sentences end at
。！？；.!? and line breaks; one ending in a question (or 吗) asks, and extraction skips it. A comma starts
a clause when a new subject follows; a bare time phrase stays with its clause. One regex scan, and
``MAX_CLAUSE_CHARS`` bounds what later rules read, so extraction stays linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from bot.offline import lexicon as lx
from bot.text.duetime import find_due_span
from bot.text.zones import named_zone

__all__ = ["MAX_CLAUSE_CHARS", "TAG_QUESTION", "Clause", "clean", "core", "split_clauses", "split_sentences"]

#: A clause longer than this is not one statement: the rules read its first part only.
MAX_CLAUSE_CHARS = 400

_HARD = re.compile(r"[。！？；!?;\n]+|…+|\.+(?=\s|$)")
# Time words that open a Chinese clause whose subject is left out ("下个月15号之前把房租补上").
_ZH_TIME_START = (
    r"(?:今天|明天|后天|今晚|明早|明晚|下个?月|这个?月|本月|月底|下周|这周|本周|周[一二三四五六日天末]|星期[一二三四五六日天]"
    r"|礼拜[一二三四五六日天]|马上|立刻|这就|待会|等会|回头|晚点|从[^，,。]{1,6}?(?:起|开始)|以后|今后|[0-9０-９]{1,2}号|[0-9０-９]{1,2}月)"
)
_SOFT = re.compile(
    # a comma or colon, or a dash between clauses ("… still unwritten — I'll draft it by Friday")
    r"(?:[，,:：]|\s+[—–]+\s*|\s*[—–]+\s+|\s+-{1,2}\s+)(?!\d)(?=\s*(?:(?:但是|但|不过|可是|所以|而且|然后|and|but|so|then)\s*)?"
    r"(?:我|你|他|她|对方|咱|\b(?:i|i'll|i'm|you|he|she|we|they)\b)"
    # an apology or thanks after a comma is a clause of its own: "I'll send it tonight, sorry for the delay"
    r"|\s*(?:sorry|thanks|thank\s+you|抱歉|对不起|谢谢|不好意思)\b"
    r"|\s*(?:and|but|so|then)\s+[^,.;!?]{0,30}?\b(?:i'll|i’ll|i\s+will|i'm\s+going\s+to|we'll|we\s+will)\b"
    r"|\s*(?:it|this|that)\s+(?:won'?t|will\s+not|will\s+never)\s+happen\b"
    r"|\s*(?:the|your)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?\s+(?:will|'ll|’ll)\s+be\b"
    # the subject left out after a comma: "Sorry about that, will pay you back Friday", "…, cleaning it up now"
    rf"|\s*(?:(?:and|but|so|then)\s+)?(?:will|gonna|(?:{lx.EN_HANDING})\b)\s+(?!(?:you|u|it\s+be|be\s+able)\b)[a-z]"
    # Chinese drops the subject: a time or an object first, then the promise ("我记住了，下个月15号之前把房租补上",
    # "是我的问题，周五前我重写一份", "顺便说下，钥匙我明天还你", "我也有责任，从下周开始我…")
    rf"|\s*(?:(?:但是|但|不过|可是|所以|然后)\s*)?(?:{_ZH_TIME_START}|(?:顺便|顺路|然后再?|再)把|(?:别|不要|不许)(?!急|着急|客气)"
    rf"|(?!那|就|按|照)[^，,。！？!?:：\sA-Za-z你他她我]{{1,6}}?{_ZH_TIME_START}|[^，,。！？!?:：\sA-Za-z你他她]{{1,10}}?我(?!们?的))"
    # "I can't remember the number but I'll …", "I'm not happy about it, so I'll …": the promise after a concession
    # and after a plain "and" ("… moved the launch to the 15th and I'll announce it") — not "you and I will …",
    # nor after a time the promise takes ("Give me till Friday and I'll have it fixed")
    r")|(?<!\byou)(?<!\bhe)(?<!\bshe)(?<!\bthey)(?<!\bwe)(?<!day)(?<!week)(?<!month)(?<!night)(?<!noon)(?<!tomorrow)"
    r"(?<!tonight)(?<!later)(?<!time)(?<!minutes)(?<!hours)(?<!min)(?<!hour)(?<!sec)(?<=[a-z0-9])\s+(?=and\s+(?:i|we)(?:'ll|’ll|\s+will)\b)"
    r"|\s+(?=(?:but|so|though|yet|however|although|and\s+so)\s+(?:i|we)(?:'ll|’ll|\s+will|\s+shall|'m\s+going\s+to"
    r"|’m\s+going\s+to|\s+am\s+going\s+to|'m\s+gonna|\s+promise|\s+swear)\b)",
    re.IGNORECASE,
)
# Discourse openers stripped before anchored patterns look for the subject.
_FILLER = re.compile(
    r"^(?:(?:@\S+|<@!?\w+>|和言|heyan\b|但是|但|不过|可是|所以|而且|然后|其实|反正|那么|那|嗯|哦|唉|哎|好吧|好的|好|行|抱歉"
    r"|对不起|不好意思|这样吧|收到|知道了|明白了?|了解|放心吧?|你放心|请放心|可以(?=[，,])|没问题(?=[，,])|说实话|(?:备注|说明|补充|提醒一下|请记住|记住)[:：]"
    # preambles before what the speaker says ("记一下：", "说好了，", "老实说", "For the record", "btw", "Note to self:")
    r"|说真的|实话说|老实说|讲真|坦白说|说白了|话说|对了|另外|总之|顺便(?:说|提)一?下?|顺便一提|别着?急|不急"
    # a concession before the offer: "退一步：我先转你400", "各退一步，…", "Compromise: I'll …"
    r"|(?:我们?)?(?:各?退一步|让一步|折中(?:一下)?)(?:吧|好了)?[:：，,]"
    r"|(?:ok(?:ay)?\s+)?(?:compromise|counter-?offer|middle\s+ground|meet\s+you\s+halfway|tell\s+you\s+what)\s*[:：,，—–-]"
    r"|(?:记一下|记下|备注一下|提醒一下自己|提醒自己|先说好|先说清楚|说好了?[啊啦哈]?|说定了|补充一下|说明一下|讲道理)[:：，,！!]"
    r"|(?:(?:just\s+)?(?:a\s+)?(?:quick\s+|side\s+)?note(?:\s+to\s+(?:self|all|everyone))?(?:\s+and\s+(?:everyone|all))?"
    r"|nb|ps|p\.s\.|fyi|update|reminder|heads\s+up|edit|for\s+the\s+record)\s*[:：,，—–-]"
    r"|(?:please\s+)?(?:remember|note|record|keep\s+in\s+mind)\s+(?:that\s+)?(?=(?:i|we)(?:\b|'|’))"
    r"|(?:by\s+the\s+way|btw|fyi|fwiw|for\s+what\s+it'?s\s+worth|(?:just\s+)?for\s+the\s+record"
    r"|(?:just\s+)?to\s+be\s+(?:clear|honest|fair|frank)|tbh|frankly|seriously|just\s+so\s+(?:you\s+know|we'?re\s+clear)"
    r"|to\s+clarify|anyways?|anyhow|ugh|argh|oh|ah|hey|hmm|um|uh|oops|whoops|sure\s+thing|got\s+it|noted|understood"
    r"|fair\s+point|good\s+point|point\s+taken|i\s+got\s+you|gotcha|you'?re\s+right|i\s+hear\s+you|(?:will|can)\s+do(?=\s*[,，.!—–-])"
    r"|ok|okay|well|but|and|so|also|then|actually|honestly|look|listen|fine|alright|sorry|yes|yeah|sure"
    r"|don'?t\s+worry|no\s+worries|right"
    # a name the promise is said to, without a comma: "Rhi I'll send mine tonight"
    r"|(?-i:@?[A-Z][a-z]{1,12})(?=\s+(?:i'?ll|i’ll|i\s+will|i\s+can|i'?m\s+(?:gonna|going\s+to)|we'?ll)\b))\b)[\s,，、!！.—–-]*)+",
    re.IGNORECASE,
)
# A tag question after what the speaker says ("I'll pay Friday, OK?", "我周五前还你，行不行？"): the sentence
# asks for approval of a statement, which still counts.
TAG_QUESTION = re.compile(
    r"^(?:ok(?:ay)?|right|alright|fair|deal|yeah|is\s+that\s+(?:ok(?:ay)?|alright|fine|cool|fair)|does\s+that\s+work"
    r"(?:\s+for\s+you)?|sounds?\s+good|how\s+about\s+that|what\s+do\s+you\s+think|you\s+know"
    r"|(?:[你您]们?)?(?:看)?(?:这样)?(?:行不行|好不好|可不可以|可以吗|行吗|好吗|成吗|怎么样|如何|对吧|是吧|好吧|没问题吧|可以不)"
    r")[\s?？!！.。~～]*$",
    re.IGNORECASE,
)
# A label before a colon is a name ("Bob: I'll pay Friday", "张伟：我周五还钱"), unless it is a preamble word.
_NAME_LABEL = re.compile(r"^(?-i:[A-Z][a-z]+)$|^[\u4e00-\u9fff]{2,3}$")
_LABEL_WORDS = re.compile(
    r"^(?:note|nb|ps|fyi|btw|update|reminder|edit|also|ok|okay|so|well|anyway|honestly|summary|plan|answer"
    r"|correction|agreed|deal|promise|记一下|记下|备注|说明|补充|提醒|更新|总结|结论|附言|说好了|说定了|先说好)$",
    re.IGNORECASE,
)
# Words that only sharpen the time that follows them: "first thing tomorrow", "early Monday", "no later than".
_TIME_LEAD = re.compile(r"^(?:first\s+thing|early|late|sometime|at\s+the\s+latest|no\s+later\s+than)[\s,，]+", re.IGNORECASE)
_TIME_TAIL = re.compile(r"^[\s,，]*(?:first\s+thing|at\s+the\s+latest|latest|early|sharp)[\s,，]*$", re.IGNORECASE)
_EDGE_JUNK = " \t,，、.。!！?？;；:：~～的了啦哈吧呢啊"
_ZH_QUESTION_END = re.compile(r"[吗么]\s*$|(?:行不行|好不好|可不可以|对不对|是不是|能不能|要不要|有没有)\s*$")


@dataclass(frozen=True, slots=True)
class Clause:
    """A clause of a message and where it sits in it (``text == message[start:end]``).

    ``sentence`` numbers the sentence it belongs to; ``question`` is true when that sentence asks.
    """

    text: str
    start: int
    end: int
    sentence: int = 0
    question: bool = False


def split_sentences(text: str) -> list[Clause]:
    """The sentences of ``text`` (as clauses spanning a whole sentence), with ``question`` set."""
    sentences: list[Clause] = []
    pos = 0
    for m in (*_HARD.finditer(text), None):
        end = m.start() if m else len(text)
        segment = text[pos:end]
        stripped = segment.strip()
        if stripped and any(ch.isalnum() for ch in stripped):
            start = pos + segment.index(stripped)
            asks = bool(m and ("?" in m.group() or "？" in m.group())) or bool(_ZH_QUESTION_END.search(stripped))
            sentences.append(Clause(stripped, start, start + len(stripped), len(sentences), asks))
        pos = m.end() if m else len(text)
    return sentences


def split_clauses(text: str) -> list[Clause]:
    """Clauses of ``text``: sentences split on a comma before a new subject; time-only clauses kept
    with the clause they introduce."""
    clauses: list[Clause] = []
    for sentence in split_sentences(text):
        parts: list[Clause] = []
        pos = 0
        body = sentence.text
        for m in (*_SOFT.finditer(body), None):
            if m is not None and m.group() in ":：" and _is_label(body[pos : m.start()]):
                continue  # "Bob: I'll pay" quotes Bob; the clause stays whole
            end = m.start() if m else len(body)
            segment = body[pos:end]
            stripped = segment.strip()
            if stripped and any(ch.isalnum() for ch in stripped):
                start = sentence.start + pos + segment.index(stripped)
                parts.append(Clause(stripped, start, start + len(stripped), sentence.sentence, sentence.question))
            pos = m.end() if m else len(body)
        merged: list[Clause] = []
        carry: Clause | None = None
        for part in parts:
            if carry is not None:
                part = Clause(text[carry.start : part.end], carry.start, part.end, part.sentence, part.question)
                carry = None
            if _only_time(part.text) and part is not parts[-1]:
                carry = part
                continue
            if merged and part is parts[-1] and _only_time(part.text):
                last = merged[-1]  # "这钱我肯定会还，月底前": the time belongs to the clause before it
                merged[-1] = Clause(text[last.start : part.end], last.start, part.end, part.sentence, part.question)
                continue
            merged.append(part)
        clauses.extend(merged)
    return clauses


def _is_label(text: str) -> bool:
    """A name before a colon ("Bob", "张伟"), not a preamble ("Note", "记一下")."""
    label = text.strip()
    return bool(_NAME_LABEL.match(label)) and not _LABEL_WORDS.match(label)


def _only_time(text: str) -> bool:
    """True when a clause is nothing but a time phrase ("From tonight on", "明天下午三点前")."""
    body = _FILLER.sub("", text[:MAX_CLAUSE_CHARS]).strip(" ,，")
    if not body:
        return False
    if (m := lx.LEADING_TIME.match(body)) and m.end() == len(body):
        return True
    body = _TIME_LEAD.sub("", body)  # "First thing tomorrow, I'll …"
    span = find_due_span(body)
    return span is not None and span[0] == 0 and not _TIME_TAIL.sub("", body[span[1] :]).strip(" ,，")


#: A clock named before the time it is on: "首尔时间明晚9点前发", "按北京时间周五".
_ZONE_LEAD = re.compile(r"(?:按|以)?[\u4e00-\u9fff]{2,6}?时间[\s,，]*(?=\S)")


@lru_cache(maxsize=512)
def core(text: str) -> str:
    """The clause without openers and a leading time phrase, for patterns anchored at the subject."""
    # "这样吧：我在…发一条说明": the colon after an opener goes with it; "首尔时间明晚9点前发": the clock too
    body = _FILLER.sub("", text[:MAX_CLAUSE_CHARS]).strip().lstrip(":：，, ")
    if (zone := _ZONE_LEAD.match(body)) and named_zone(zone.group()) and (
            (span := find_due_span(body[zone.end() :])) is not None and span[0] == 0):
        body = body[zone.end() :]  # only a clock the time after it is on, not "我今晚英国时间就弄"
    body = _TIME_LEAD.sub("", body)
    for _ in range(2):  # "From tonight on, tomorrow at 3pm I'll …": at most two leading phrases
        if m := lx.LEADING_TIME.match(body):
            body = body[m.end() :].lstrip(" ,，")
            continue
        span = find_due_span(body)
        if span and span[0] == 0 and re.match(r"[\s,，]*(?:(?:first\s+thing|at\s+the\s+latest|latest|early|sharp)[\s,，]+)?"
                                              r"(?:我|i\b|we\b|i'|咱|you'?ll\b|you’ll|you\s+will\b)",
                                              body[span[1] :], re.IGNORECASE):
            body = _TIME_LEAD.sub("", body[span[1] :].lstrip(" ,，"))
            continue
        break
    return _FILLER.sub("", body).strip()


def clean(text: str, limit: int = MAX_CLAUSE_CHARS) -> str:
    """``text`` with collapsed whitespace and without dangling punctuation or particles at its ends."""
    text = " ".join(text.split()).strip(_EDGE_JUNK)
    if len(text) > limit:
        text = text[:limit].rstrip() + "…"
    return text
