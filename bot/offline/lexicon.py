"""The offline provider's word lists: emotions and the cue phrases for intents, in Chinese and English.

Patterns are compiled once here so ``rules``, ``provider`` and ``templates`` agree on what counts as a
promise, a demand, an agreement or a hedge. English patterns are case-insensitive; Chinese ones cannot
use ``\\b`` (there are no word boundaries between ideographs), so they guard with look-arounds instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ACK",
    "AGREE",
    "CLOSING",
    "COMMIT",
    "COMPLAINT",
    "DEMAND",
    "EMOTIONS",
    "FIRST_PERSON",
    "HEDGE",
    "INJECTION",
    "NEGATION_BEFORE",
    "PROPOSAL",
    "QUESTION",
    "REFUSE",
    "REPORTED",
    "STOPWORDS_EN",
    "Emotion",
    "find_emotions",
]

_I = re.IGNORECASE


@dataclass(frozen=True, slots=True)
class Emotion:
    """One emotion concept: its normalised labels and the class ``classify`` reports."""

    zh: str
    en: str
    klass: str  # calm | upset | angry | hurt | anxious
    pattern: re.Pattern[str]

    def label(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def _emotion(zh: str, en: str, klass: str, zh_words: str, en_words: str) -> Emotion:
    return Emotion(zh, en, klass, re.compile(rf"(?:{zh_words})|\b(?:{en_words})\b", _I))


#: Ordered by strength: the first concept a clause matches is the one reported.
EMOTIONS: tuple[Emotion, ...] = (
    _emotion(
        "生气", "angry", "angry", "生气|气死|愤怒|火大|恼火|气愤", "angry|furious|mad|pissed(?: off)?|livid"
    ),
    _emotion("受够了", "fed up", "angry", "受够了?|忍无可忍", "fed up|sick of|had enough"),
    _emotion("委屈", "hurt", "hurt", "委屈|受伤|心寒", "hurt|wronged"),
    _emotion("失望", "disappointed", "hurt", "失望", "disappointed|let down"),
    _emotion("难过", "sad", "hurt", "难过|伤心|心痛", "sad|heartbroken"),
    _emotion("焦虑", "anxious", "anxious", "焦虑|着急|紧张|压力很大", "anxious|stressed|nervous"),
    _emotion("担心", "worried", "anxious", "担心|担忧|害怕", "worried|concerned|scared|afraid"),
    _emotion("沮丧", "frustrated", "upset", "沮丧|无语|崩溃", "frustrated|frustrating"),
    # "麻烦" is "trouble"/"could you please", not annoyance
    _emotion("烦", "annoyed", "upset", "(?<!麻)烦(?!请)", "annoyed|annoying|irritated"),
    _emotion("不开心", "upset", "upset", "不开心|不高兴|不爽", "upset|unhappy"),
)

#: A negation just before an emotion word cancels it: "我不生气", "I'm not angry".
NEGATION_BEFORE = re.compile(
    r"(?:不|没有?|别|并不)(?:太|很|再|是|算)?$|\b(?:not|never|n't|no longer)\s+(?:\w+\s+)?$", _I
)

#: Cues of uncertainty. A hedged promise is not a commitment; other hedged facts get low confidence.
HEDGE = re.compile(
    r"可能|也许|大概|或许|说不定|应该会|尽量|试试|试着|看看吧|考虑一下|不一定|不确定|不知道"
    r"|\b(?:maybe|might|perhaps|probably|possibly|i think|i guess|i suppose|not sure|i don't know|i dunno"
    r"|try to|i'll try|will try|hopefully|could|consider|think about)\b",
    _I,
)

#: First-person promise cues. The clause must also start with the speaker as subject (see rules).
COMMIT = re.compile(
    r"^(?:我们?)(?:[^，,。你他她]{0,10}?)(?:保证|答应|承诺|一定会?|肯定会|会|将会?|负责|马上|这就|今天就|明天就)"
    # "我明天把收据发给你": a first-person 把 sentence about handing something over is a promise too
    r"|^(?:我们?)(?:[^，,。你他她]{0,10}?)(?:把|(?:发|交|还|付|寄|送|退)给)"
    r"|^i(?:'ll|’ll| will| shall| promise| am going to|'m going to|’m going to| commit to| guarantee)\b"
    r"|^we(?:'ll|’ll| will| promise| are going to|'re going to)\b",
    _I,
)

#: Demands: what the speaker wants from the other side.
DEMAND = re.compile(
    r"^我们?(?:[^，,。]{0,4}?)(?:要求|希望|想要|需要|坚持|只要)|必须|请你|你得|你应该|你要(?!是)|给我一个"
    r"|^i(?:'d| would)? (?:want|demand|expect|insist|would like|'d like|need\b(?! to\b))\b"
    r"|^we (?:want|demand|need|expect|insist)\b|\bplease\b|\byou (?:must|need to|have to|should)\b",
    _I,
)

#: Agreement with what was proposed. Checked after REFUSE, which holds the negated forms.
AGREE = re.compile(
    r"同意|就这么办|就这样吧|可以接受|我接受|成交|没问题|一言为定"
    r"|\bi agree\b|\bagreed\b|^deal\b|\bit'?s a deal\b|\bdeal[.!]*$|sounds good|that works|works for me|fine by me|\bi accept\b"
    r"|let'?s do (?:that|it)\b",
    _I,
)

#: A bare "OK"/"好的": agreement only when it is the whole message, else just a discourse marker.
ACK = re.compile(r"^(?:ok|okay|sure|alright|yes|yep|fine|好|好的|好吧|行|可以|嗯)[\s.!！。,，~]*$", _I)

#: Refusals: "no" to a proposal or a demand.
REFUSE = re.compile(
    r"不同意|不行|我拒绝|拒绝|不可能|没门|不接受|我不会|不答应|不干|休想|凭什么要我"
    r"|\bi refuse\b|\bno way\b|\bi (?:don't|do not) agree\b|\bi disagree\b|\bi won'?t\b|\bi will not\b"
    r"|\bno deal\b|\b(?:never|not) (?:going to )?agree\b|\b(?:not|un)acceptable\b|\bi reject\b|\bnot happening\b",
    _I,
)

#: Someone else's words or deeds reported by the speaker: the speaker's claim, never the other's fact.
REPORTED = re.compile(
    r"^(?:他们?|她们?|对方|人家|老板|房东|房主|经理|卖家|买家|店家|同事|室友)"
    r"(?:[^，,。我]{0,6}?)(?:说|答应|承诺|保证|同意|表示|告诉我|声称|发誓|会|要|欠)"
    r"|^(?![我你咱刚])[\u4e00-\u9fff]{2,3}(?:说过?|答应过?|承诺过?|保证过?|告诉我|声称|发誓|同意了)"
    r"|听说|据说|据(?:他|她)说"
    r"|^(?:he|she|they|[A-Z][a-z]+(?:\s[A-Z][a-z]+)?|(?:my|the|our|your) \w+)\s+(?:said|says|told|promised"
    r"|agreed|claimed|claims|swore|will|'ll|’ll|would|'d|is going to|was going to|owes|admitted)\b"
    r"|\bi heard\b|\baccording to\b",
)

#: Messages that try to instruct the bot instead of talking to the other side.
INJECTION = re.compile(
    r"忽略(?:之前|以上|前面|上面|所有)|无视(?:之前|以上|前面)|(?:之前|以上)的(?:指令|指示|规则)|系统提示|你现在是|"
    r"(?:帮我|请)?(?:记录|记下|记住)(?:下来)?(?:说|一下)?[^，。]{0,6}(?:同意|答应|承诺|欠)"
    r"|\bignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier|your) (?:instructions|rules|prompts?)\b"
    r"|\bdisregard\b|\bsystem prompt\b|\byou are now\b|\bnew instructions\b"
    r"|\b(?:record|remember|note|store) that\b|\bmark (?:it|this) as\b",
    _I,
)

#: Speaker as subject: used to decide whether an emotion is first-person.
FIRST_PERSON = re.compile(r"我|\b(?:i|i'm|i’m|me|my|myself)\b", _I)

PROPOSAL = re.compile(
    r"要不|不如|我建议|建议|我们可以|可不可以|能不能|怎么样|咱们|我提议"
    r"|\bhow about\b|\bwhat if\b|\bi suggest\b|\bi propose\b|\blet'?s\b|\bwe could\b|\bwhy don'?t we\b|\bcould we\b",
    _I,
)

CLOSING = re.compile(
    r"谢谢|多谢|再见|就到这|到此为止|结束吧|问题解决了|没事了"
    r"|\bthanks?\b|\bthank you\b|\bbye\b|\bthat's all\b|\bwe'?re done\b|\bresolved\b|\bgood night\b",
    _I,
)

QUESTION = re.compile(
    r"[?？]|[吗呢]$|^(?:为什么|怎么|什么|谁|哪|何时)|^(?:what|why|how|when|who|where|did|do|can|is|are)\b", _I
)

COMPLAINT = re.compile(
    r"总是|从来不|每次都|又一次|凭什么|太过分|不公平|没做到|说话不算"
    r"|\balways\b|\bnever\b|\bagain\b|\bnot fair\b|\bunfair\b|\byou didn'?t\b|\byou haven'?t\b|\bbroke your\b",
    _I,
)

_STOPWORDS = (
    "a an the i me my you your he him his she her it its we us our they them their is are was were be been "
    "am do does did have has had will would shall should can could may might must to of in on at by for with "
    "and or but so if then that this these those what which who whom how why when where not no yes ok okay "
    "just really very please about from up out as there here all any some"
)
STOPWORDS_EN = frozenset(_STOPWORDS.split())


def find_emotions(text: str) -> list[tuple[Emotion, re.Match[str]]]:
    """Every emotion concept in ``text`` that is not negated just before it, strongest first."""
    found: list[tuple[Emotion, re.Match[str]]] = []
    for emotion in EMOTIONS:
        for m in emotion.pattern.finditer(text):
            if not NEGATION_BEFORE.search(text[max(0, m.start() - 12) : m.start()]):
                found.append((emotion, m))
                break
    return found
