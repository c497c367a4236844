"""The cheap trigger: does a message carry a fact worth extracting at once?

The seed's cost control: promises, agreements, refusals, demands and explicit preferences go to
extraction immediately; everything else waits for the next batch. The detector is the offline rule
set itself (regexes, no model), so the trigger and the offline extractor never disagree about what a
promise looks like. A miss only delays a fact until the batch.

The trigger reads one message without the thread, so a bare answer ("Deal.", "行，那就这样。", "No
way.") counts although the rules record it only when the thread shows what it answers: extraction,
with the thread as context, decides. Measured on ``tests/data/trigger_corpus.jsonl`` (``heyan bench
extraction`` prints it; docs/BENCHMARKS.md).
"""

from __future__ import annotations

import dataclasses

from bot.lang import detect_lang
from bot.models import Message
from bot.offline import lexicon as lx
from bot.offline.clauses import split_clauses
from bot.offline.rules import extract_rules
from memory.extraction import ExtractionRequest
from memory.models import Kind
from memory.normalize import normalize

__all__ = ["TRIGGER_LIMIT", "fact_bearing"]

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
    return _bare_answer(head.text)


def _bare_answer(text: str) -> bool:
    """ "Deal.", "那就这样。", "No way." — an agreement or refusal word with no words of its own: what
    it answers is in the thread, which extraction reads and the trigger does not."""
    clauses = split_clauses(text)
    return any(not c.question and (lx.AGREE.search(c.text) or lx.REFUSE.search(c.text)) for c in clauses)
