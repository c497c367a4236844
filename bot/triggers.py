"""The cheap trigger: does a message carry a fact worth extracting at once?

The seed's cost control: promises, agreements, refusals, demands and explicit preferences go to
extraction immediately; everything else waits for the next batch. The detector is the offline rule
set itself (regexes, no model), so the trigger and the offline extractor never disagree about what a
promise looks like. A miss only delays a fact until the batch.
"""

from __future__ import annotations

import dataclasses

from bot.lang import detect_lang
from bot.models import Message
from bot.offline.rules import extract_rules
from memory.extraction import ExtractionRequest
from memory.models import Kind
from memory.normalize import normalize

__all__ = ["fact_bearing"]

#: Kinds that make a message worth extracting now (emotions and events can wait for the batch).
_URGENT = frozenset({Kind.COMMITMENT, Kind.DEMAND, Kind.CONSENSUS})
#: The trigger reads this much of a message: it runs on the message path, so its cost must not grow
#: with the message (a promise further in is still extracted, with the next batch).
TRIGGER_LIMIT = 2000


def fact_bearing(msg: Message) -> bool:
    """True when the rules find a commitment, demand, agreement or refusal in the message (read
    normalized, as the rules read it: hidden characters neither hide a promise nor fake one)."""
    turn = msg.utterance()
    head = dataclasses.replace(turn, text=normalize(turn.text[:TRIGGER_LIMIT]))
    request = ExtractionRequest(
        tenant=msg.scope.tenant, session=msg.session, turns=[head], lang=detect_lang(head.text)
    )
    return any(c.kind in _URGENT and not c.reported for c in extract_rules(request))
