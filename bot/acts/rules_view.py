"""What today's rules say a line does, as an act: the baseline the classifier is measured against.

The rules have no act for a counter-offer or a condition; a line they read as a promise is an offer,
a demand a request, a taken-on request an acceptance, a consensus an agreement or a refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.acts.labels import Act
from bot.extraction.candidates import ExtractionRequest, Utterance
from bot.offline.done import done_reports
from bot.offline.proposals import proposal_of
from bot.offline.questions import read_question
from bot.offline.reschedule import reschedules
from bot.offline.rules import ATTRIBUTES, extract_rules
from memory.models import Kind, Lang

__all__ = ["rules_acts"]


def rules_acts(who: Sequence[str], texts: Sequence[str], ts: Sequence[datetime], lang: str) -> list[Act]:
    """One act per line, as the rules read each line after the ones before it."""
    utterances = [Utterance(f"m{i}", f"u-{w}", w, t, s) for i, (w, t, s) in enumerate(zip(who, texts, ts, strict=True))]
    lng: Lang = "zh" if lang == "zh" else "en"
    out = []
    for i, turn in enumerate(utterances):
        before = utterances[:i]
        if turn.text.lstrip().startswith(("@heyan", "@和言")) and read_question(turn.text, turn.author_id, {}) is not None:
            out.append(Act.QUESTION)
            continue
        if reschedules([turn], before):
            out.append(Act.RESCHEDULE)
            continue
        if done_reports([turn], set(who)):
            out.append(Act.DONE)
            continue
        facts = extract_rules(ExtractionRequest("t", "s", [turn], before, lang=lng))
        kinds = [f.kind for f in facts]
        if any("request_message_id" in f.extra for f in facts):
            out.append(Act.ACCEPT)
        elif Kind.COMMITMENT in kinds:
            out.append(Act.OFFER)
        elif Kind.DEMAND in kinds:
            out.append(Act.REQUEST)
        elif any(f.kind is Kind.CONSENSUS and f.attribute == ATTRIBUTES[lng]["refuses"] for f in facts):
            out.append(Act.REFUSE)
        elif Kind.CONSENSUS in kinds:
            out.append(Act.AGREE)
        elif (p := proposal_of(turn)) is not None and p.kind == "proposal":
            out.append(Act.PROPOSE)
        else:
            out.append(Act.OTHER)
    return out
