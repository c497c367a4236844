"""Mediation stage transitions: a pure function of the current stage and the turn's classification.

gathering → de-escalating (strong anger or hurt) → exploring options → confirming agreement →
closed. At every open stage, emotion at or above ``ESCALATION`` goes to de-escalating and a refusal
while confirming goes back to exploring; a new complaint, demand or escalation reopens a closed one.
"""

from __future__ import annotations

from bot.llm.base import Classification
from bot.models import Stage

__all__ = ["CALM_BELOW", "ESCALATION", "next_stage"]

#: Intensity of anger/hurt from which the mediator stops everything else and de-escalates.
ESCALATION = 0.6
#: Intensity under which a de-escalated conversation counts as calm enough to explore options.
CALM_BELOW = 0.4

_HOT_EMOTIONS = frozenset({"angry", "hurt"})
_REOPENING_INTENTS = frozenset({"complaint", "demand", "refusal"})


def _escalated(c: Classification) -> bool:
    return c.emotion in _HOT_EMOTIONS and c.intensity >= ESCALATION


def next_stage(current: Stage, c: Classification, *, agreements_open: bool = False) -> Stage:
    """The stage after a turn classified as ``c``.

    ``agreements_open`` is true when the session holds an agreement that has not been closed yet
    (a consensus fact or a confirmed proposal); only then can a closing intent outside the
    confirming stage close the mediation.
    """
    if current is Stage.CLOSED:
        if _escalated(c):
            return Stage.DE_ESCALATING
        if c.intent in _REOPENING_INTENTS:
            return Stage.GATHERING
        return Stage.CLOSED

    if _escalated(c):
        return Stage.DE_ESCALATING

    if c.intent == "closing" and (current is Stage.CONFIRMING or agreements_open):
        return Stage.CLOSED

    if current is Stage.CONFIRMING:
        if c.intent in ("refusal", "proposal"):
            return Stage.EXPLORING  # the deal is off or being renegotiated
        return Stage.CONFIRMING

    if c.intent == "agreement":
        return Stage.CONFIRMING

    if current is Stage.DE_ESCALATING:
        if c.intent == "proposal" or c.intensity < CALM_BELOW:
            return Stage.EXPLORING
        return Stage.DE_ESCALATING

    if current is Stage.GATHERING and c.intent == "proposal":
        return Stage.EXPLORING

    return current
