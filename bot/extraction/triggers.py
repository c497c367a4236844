"""The cheap trigger: does a message carry a fact worth extracting at once?

Promises, agreements, refusals, demands and explicit preferences go to extraction at once, the rest
waits for the batch; a miss only delays. The detector is the offline rule set itself, so trigger and
extractor agree. It reads one message without the thread, so a bare "Deal." counts and extraction,
with context, decides. Measured on ``tests/data/trigger_corpus.jsonl`` (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import dataclasses
import re

from bot.extraction.candidates import ExtractionRequest
from bot.models import Message
from bot.offline import lexicon as lx
from bot.offline.clauses import core, split_clauses, split_sentences
from bot.offline.done import done_reports
from bot.offline.rules import extract_rules
from bot.offline.sentence import sarcastic
from bot.text.lang import detect_lang
from memory.models import Kind
from memory.normalize import normalize

__all__ = ["TRIGGER_LIMIT", "fact_bearing", "urgent"]

#: Kinds that make a message worth extracting now (emotions and events can wait for the batch).
_URGENT = frozenset({Kind.COMMITMENT, Kind.DEMAND, Kind.CONSENSUS})
#: The trigger reads this much of a message: it runs on the message path, so its cost must not grow
#: with the message (a promise further in is still extracted, with the next batch).
TRIGGER_LIMIT = 2000


def fact_bearing(msg: Message) -> bool:
    """True when the rules find a commitment, demand, agreement or refusal in the message, or it is
    a bare answer that may close one (read normalized, as the rules read it: hidden characters
    neither hide a promise nor fake one)."""
    turn = msg.utterance()
    head = dataclasses.replace(turn, text=normalize(turn.text[:TRIGGER_LIMIT]))
    request = ExtractionRequest(
        tenant=msg.scope.tenant, session=msg.session, turns=[head], lang=detect_lang(head.text)
    )
    if any(c.kind in _URGENT and not c.reported for c in extract_rules(request)):
        return True
    return _bare_answer(head.text) or _cue(head.text)


def urgent(msg: Message) -> bool:
    """Extract now: the message is fact-bearing, or reports a promise kept ("done", "已经发了"), which
    must close its commitment before the follow-up fires (``bot.extraction.completions``)."""
    if fact_bearing(msg):
        return True
    turn = msg.utterance()
    # any leading name may be the doer ("Bob sent it"): the trigger errs towards extracting now
    return bool(done_reports([dataclasses.replace(turn, text=turn.text[:TRIGGER_LIMIT])], None))


def _bare_answer(text: str) -> bool:
    """ "Deal.", "那就这样。", "No way.", a whole-message "OK" — an agreement or refusal with no words of
    its own: what it answers is in the thread, which extraction reads and the trigger does not."""
    clauses = split_clauses(text)
    if len(clauses) == 1 and _WHOLE_ANSWER.match(clauses[0].text):
        return True
    return any(not c.question and (lx.AGREE.search(c.text) or lx.REFUSE.search(c.text))
               and not lx.REPORTED.search(core(c.text)) for c in clauses)


def _cue(text: str) -> bool:
    """Wider cues than the rules: a first-person future or offer, a request to the listener, a stance.
    The trigger only decides *when* to extract, so it errs towards now: a false cue costs one early
    extraction call, a missed one delays a promise (and its reminder) until the batch."""
    ironic = {s.sentence for s in split_sentences(text) if sarcastic(s.text)}
    for clause in split_clauses(text):
        body = core(clause.text)
        if not body or lx.HEDGE.search(body) or lx.REPORTED.search(body) or clause.sentence in ironic:
            continue
        if clause.question:
            if _ASK_TO_ACT.search(body):
                return True
            continue
        if (m := _OFFER.search(body)) and not _PAST_ONLY.search(body) and not _OPINION.search(body[: m.start()]) \
                and not lx.NOT_A_PROMISE.match(body[m.end() :].lstrip()) and not lx.CAN_NOT_PROMISE.match(body[m.start() :]):
            return True
        if _REQUEST.search(body):
            return True
    return False


# a whole message that answers: "OK.", "Fine.", "行。", "好的。"
_WHOLE_ANSWER = re.compile(r"^(?:ok|okay|k|sure|fine|yes|yep|yeah|alright|deal|agreed|好|好的|行|可以|我可以|成交|同意|我同意|不|不行|不要"
                           r"|no|nope|nah)[\s.!！。~]*$", re.IGNORECASE)
# the speaker taking something on: "I'll", "I can", "gonna", "will do", "我来", "我明天…", "我把…"
_OFFER = re.compile(
    r"\b(?:i|we)(?:'ll|’ll|\s+will|\s+shall|'m\s+going\s+to|\s+am\s+going\s+to|'m\s+gonna|\s+can(?!'|’|not)|'d\s+be\s+happy\s+to"
    r"|'m\s+happy\s+to|\s+am\s+happy\s+to)\b|\bwill\s+do\b|\bgonna\b|\bon\s+it\b|\bmy\s+(?:bad|fault|mess)\b"
    r"|我们?(?:会|来(?![晚了过自的])|去(?![过了])|就|先|负责|保证|答应|承诺|一定|马上|这就|立刻|尽快|今天|明天|后天|今晚|明晚|下午|晚上|周[一二三四五六日末]"
    r"|这周|下周|月底|把|给你|帮你|请|赔|陪|准时|按时|以后|下次|再也|不会再|跟你|和你)(?!不|会不会|很|有点|好累|太|真|是|在|有|没|刚|一直|都|还|也"
    r"|要(?!把|给|还|交|付)|加班|上班|出差|开会|值班|休息|去(?:医院|超市|上班|出差|[北上广深]))",
    re.IGNORECASE,
)
# a thought about what will happen, not an offer: "I'm worried we'll lose the deposit"
_OPINION = re.compile(r"\b(?:worried|afraid|think|thought|hope|guess|fear|suspect|bet|feel|felt|imagine|wonder|sure|doubt|idea|idk)\b"
                      r"|担心|害怕|觉得|认为|怕|估计|猜", re.IGNORECASE)
# done already, and nothing ahead: "我今天已经交了", "I've sent it"
_PAST_ONLY = re.compile(r"已经|刚才|刚刚|昨天|上周|(?<=[\u4e00-\u9fff])过(?![来去年日节])|\b(?:already|yesterday|last\s+(?:week|night)|was\s+(?:gonna|going\s+to))\b", re.IGNORECASE)
# the listener asked to act, in a question: "can you …?", "你能…吗？", "能不能…？"
_ASK_TO_ACT = re.compile(
    r"^(?:can|could|would|will)\s+you\s+(?!(?:be|believe|imagine|see|tell\s+me\s+(?:why|what|who|where|when)|remind\s+me\s+what)\b)"
    r"|^(?:you\s+)?(?:mind|please)\b|^(?:你|您)?(?:能不能|可不可以|能否|可否|能|可以)(?:请你|麻烦你)?(?:把|别|不要|少|帮|给|还|先|在|再)"
    r"|还我|给我|发我|退我",
    re.IGNORECASE,
)
# a request or demand in words the rules do not hold: "Stop …", "make sure …", "记得…", "别再…"
_REQUEST = re.compile(
    r"^(?:please|pls|plz|stop|make\s+sure|don'?t|do\s+not|never|always|remember\s+to|be\s+sure\s+to|quit|kindly)\b"
    r"|\byou\s+(?:need|have|must|should|better|gotta|got\s+to|ought)\b|\bi\s+(?:need|want|expect|insist|demand)\b"
    r"|\bi'?d\s+(?:like|appreciate|prefer|rather)\b|\bi\s+(?:agree|accept|disagree|refuse)\b|\b(?:works|fine|good)\s+(?:for|with|by)\s+me\b"
    r"|(?<![我你他她])记得(?![吗吧])|^(?:请|麻烦|别再|不要再|别|不许|必须|一定要)|你(?:得|必须|应该|要|最好|别|不要|不许)(?!是|不要)|(?:我|我们)(?:要求|坚持|希望你|需要你|想让你)"
    r"|同意|接受|没意见|就这么|一言为定|不干|没门",
    re.IGNORECASE,
)
