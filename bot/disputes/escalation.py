"""How hot a thread is running: an offline per-message signal and the thread's temperature.

Each message scores insults, second-person accusations, absolutes, anger or hurt, shouting and
echoing, and pace (tuned on ``tests/data/escalation_corpus.jsonl``; docs/BENCHMARKS.md). The
temperature is a sum cooling with ``HALF_LIFE_SECONDS``: one sharp line stays below ``THRESHOLD``, a
quarrel crosses it. Cheap (bounded regexes), run on every message; with an LLM a crossing is
confirmed before an alert (``bot.disputes.escalation_alerts``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from bot.offline import lexicon as lx

__all__ = ["FAST_SECONDS", "HALF_LIFE_SECONDS", "THRESHOLD", "Heat", "Signals", "Turn", "cool", "first_crossing",
           "heat_of", "run_thread", "score", "signals"]

#: Seconds for the temperature to halve when nobody speaks.
HALF_LIFE_SECONDS = 600.0
#: A temperature at or above this alerts the moderators.
THRESHOLD = 2.2
#: An answer to someone else within this many seconds counts as a fast exchange.
FAST_SECONDS = 45.0
#: Messages are read up to this many characters (the rules stay linear and bounded).
MAX_CHARS = 2000

_I = re.IGNORECASE

# --- the lexicons (weights below) --------------------------------------------------------------------

_INSULT_EN = re.compile(
    r"\b(?:idiots?|morons?|imbeciles?|stupid|dumb(?:ass)?|losers?|jerks?|slob|pig|psycho|pathetic|useless|"
    r"incompetent|disgusting|liars?|fraud|snake|bully|scum|bastard|asshole|dick|bitch|crazy person|drama queen|"
    r"nasty piece of work|laziest|lazy idiot)\b"
    r"|\b(?:shut up|shut your mouth|go to hell|screw you|f(?:\*+|u?ck)? off|fuck you|get lost|cry more|piss off"
    r"|make me)\b",
    _I,
)
_INSULT_ZH = re.compile(
    r"白痴|蠢货|蠢|傻[瓜子逼Xx]?|混蛋|王八蛋|废物|滚|闭嘴|闭上你的嘴|神经病|去死|骗子|小偷|恶心|可悲|小人|恶霸|有病"
    r"|猪|贱|垃圾|无能|戏精|恶毒|去你的"
)
# a question that rules on the listener's mind: "are you stupid", "你傻吗"
_SECOND_EN = r"(?:you|you're|youre|you are|your)"
_ACCUSE_EN = re.compile(
    rf"\b{_SECOND_EN}\s+(?:\w+\s+){{0,2}}?(?:always|never|keep|constantly|do this|every (?:single )?time)\b"
    r"|\bevery (?:single )?time\b.{0,20}\byou\b|\bwhy (?:do|are) you always\b",
    _I,
)
_ACCUSE_ZH = re.compile(r"你们?[^，。！？,.!?]{0,4}?(?:总是|总有|从来|从不|每次|永远|老是|一直|又)|都是你|每次都|又是你")
_ABSOLUTE_EN = re.compile(r"\b(?:always|never|every (?:single )?time|all the time|constantly|nothing|everyone)\b", _I)
_ABSOLUTE_ZH = re.compile(r"总是|从来|从不|每次|永远|老是|一直|根本|什么都")
# blame put on the listener without an absolute: "you took", "you deleted", "你把…", "你为什么…"
_BLAME_EN = re.compile(
    rf"\b{_SECOND_EN}\s+(?:took|deleted|broke|told|cancell?ed|ignored|interrupted|lied|promised|said|owe|missed|"
    r"left|changed|shared|booked|moved|ruined|forgot|didn'?t|don'?t|won'?t|could have|should have)\b"
    r"|\bwhy (?:did|do|are|is) you\b|\bhow could you\b",
    _I,
)
_BLAME_ZH = re.compile(r"你(?:把|为什么|怎么|凭什么|居然|竟然|说|答应|欠)")
_SHOUT = re.compile(r"[!！]{2,}|[?？]{2,}|[?？][!！]|[!！][?？]")
_EXCLAIM = re.compile(r"[!！]")
_CAPS = re.compile(r"\b[A-Z]{2,}\b")
_NOT_SHOUT = frozenset({"ASAP", "FYI", "CEO", "USA", "API", "OK", "TBD", "PDF", "URL", "PR", "PRS", "QA", "RC", "UK",
                        "US", "EU", "AM", "PM", "ID", "IT", "HR", "TV", "UI", "DM", "PS", "AI", "NYC", "ETA"})
# an order at the listener: "Stop pressuring me!", "Don't accuse me", "别逼我了", "别冤枉我"
_REBUKE = re.compile(r"(?:^|[.!?。！？]\s*)(?:stop|don'?t|do not|quit|enough)\b[^.?!]{0,40}\b(?:me|my|you)\b"
                     r"|(?:^|[。！？，,])\s*(?:别|不要|少)[^。！？，,]{0,8}(?:我|了)", _I)
# contempt for what the other said: "ridiculous", "unbelievable", "不可理喻", "太夸张"
_CONTEMPT = re.compile(r"\b(?:ridiculous|absurd|unbelievable|nonsense|bullshit|completely unfair|not fair|whatever"
                       r"|get off my back|i'?m done)\b|不可理喻|荒唐|太夸张|不公平|胡说|随便你|别烦我|烦死", _I)
# anger words beyond the emotion lexicon's (its words stay the extraction's)
_ANGER_MORE = re.compile(r"气炸|气疯|快疯了|受不了|\b(?:so angry|fuming|pissed)\b", _I)
_QUESTION_END = re.compile(r"[?？]\s*[!！]*\s*$")
_WORD = re.compile(r"[A-Za-z']+|[\u4e00-\u9fff]{2}")

#: Weights of each signal in one message's score (chosen on the corpus's dev part).
W_INSULT = 3.0
W_ACCUSE = 1.5
W_BLAME = 0.5
W_ABSOLUTE = 0.5
W_ANGER = 1.0
W_HURT = 0.3
W_SHOUT = 0.4
W_ECHO = 0.5
W_EXCLAIM = 0.2
W_REBUKE = 0.6
W_CONTEMPT = 0.7
#: A fast answer's score is multiplied by this.
FAST_FACTOR = 1.5


@dataclass(frozen=True, slots=True)
class Signals:
    """What one message showed (for the alert's "why" and the bench)."""

    insult: bool = False
    accusation: bool = False
    blame: bool = False
    absolute: bool = False
    anger: bool = False
    hurt: bool = False
    shout: bool = False
    exclaim: bool = False
    echo: bool = False
    rebuke: bool = False
    contempt: bool = False
    fast: bool = False

    def names(self) -> tuple[str, ...]:
        return tuple(name for name in self.__slots__ if getattr(self, name))


@dataclass(frozen=True, slots=True)
class Turn:
    """One message as the signal reads it."""

    author: str
    text: str
    ts: datetime
    message_id: str = ""


@dataclass(frozen=True, slots=True)
class Heat:
    """A message's score and the thread's temperature after it."""

    score: float
    temperature: float
    signals: Signals = field(default_factory=Signals)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text) if w.casefold() not in lx.STOPWORDS_EN and len(w) > 1}


def signals(text: str, previous: Turn | None = None, *, gap_seconds: float | None = None,
            author: str = "") -> Signals:
    """The signals of one message; ``previous`` is the message before it (its pace and echo)."""
    text = text[:MAX_CHARS]
    insult = bool(_INSULT_EN.search(text) or _INSULT_ZH.search(text))
    accusation = bool(_ACCUSE_EN.search(text) or _ACCUSE_ZH.search(text))
    blame = not accusation and bool(_BLAME_EN.search(text) or _BLAME_ZH.search(text))
    absolute = not accusation and bool(_ABSOLUTE_EN.search(text) or _ABSOLUTE_ZH.search(text))
    classes = {emotion.klass for emotion, _ in lx.find_emotions(text)}
    anger = "angry" in classes or bool(_ANGER_MORE.search(text))
    hurt = not anger and bool(classes & {"hurt", "upset"})
    shout = bool(_SHOUT.search(text)) or any(w not in _NOT_SHOUT for w in _CAPS.findall(text))
    exclaim = not shout and bool(_EXCLAIM.search(text))
    rebuke = bool(_REBUKE.search(text))
    contempt = bool(_CONTEMPT.search(text))
    other = previous is not None and previous.author != author
    echo = bool(other and previous is not None and len(text) <= 40 and _QUESTION_END.search(text)
                and _words(text) & _words(previous.text))
    fast = bool(other and gap_seconds is not None and gap_seconds <= FAST_SECONDS)
    return Signals(insult=insult, accusation=accusation, blame=blame, absolute=absolute, anger=anger, hurt=hurt,
                   shout=shout, exclaim=exclaim, echo=echo, rebuke=rebuke, contempt=contempt, fast=fast)


def score(found: Signals) -> float:
    """One message's contribution to the temperature."""
    value = (W_INSULT * found.insult + W_ACCUSE * found.accusation + W_BLAME * found.blame
             + W_ABSOLUTE * found.absolute + W_ANGER * found.anger + W_HURT * found.hurt
             + W_SHOUT * found.shout + W_EXCLAIM * found.exclaim + W_ECHO * found.echo + W_REBUKE * found.rebuke
             + W_CONTEMPT * found.contempt)
    return value * (FAST_FACTOR if found.fast and value > 0 else 1.0)


def cool(temperature: float, seconds: float) -> float:
    """The temperature after ``seconds`` of silence."""
    factor: float = 0.5 ** (max(0.0, seconds) / HALF_LIFE_SECONDS)
    return temperature * factor


def heat_of(turn: Turn, previous: Turn | None, temperature: float) -> Heat:
    """The thread's heat after ``turn``, from its temperature after ``previous``."""
    gap = (turn.ts - previous.ts).total_seconds() if previous is not None else None
    found = signals(turn.text, previous, gap_seconds=gap, author=turn.author)
    value = score(found)
    return Heat(score=value, temperature=cool(temperature, gap or 0.0) + value, signals=found)


def run_thread(turns: Iterable[Turn]) -> list[Heat]:
    """The heat after each turn of a thread, oldest first (the bench; the monitor keeps it in Redis)."""
    out: list[Heat] = []
    previous: Turn | None = None
    temperature = 0.0
    for turn in turns:
        heat = heat_of(turn, previous, temperature)
        out.append(heat)
        previous, temperature = turn, heat.temperature
    return out


def first_crossing(heats: Sequence[Heat], threshold: float = THRESHOLD) -> int | None:
    """The index of the first turn whose temperature reaches ``threshold``; None when none does."""
    return next((i for i, h in enumerate(heats) if h.temperature >= threshold), None)
