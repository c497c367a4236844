"""Stage transitions, table-tested."""

from __future__ import annotations

import pytest

from bot.llm.base import Classification
from bot.models import Stage
from bot.stages import next_stage

G, D, E, C, X = Stage.GATHERING, Stage.DE_ESCALATING, Stage.EXPLORING, Stage.CONFIRMING, Stage.CLOSED


def c(intent: str = "statement", emotion: str = "calm", intensity: float = 0.0) -> Classification:
    return Classification(emotion=emotion, intent=intent, intensity=intensity)


TABLE = [
    # gathering
    (G, c(), False, G),
    (G, c("complaint", "upset", 0.5), False, G),
    (G, c("complaint", "angry", 0.8), False, D),
    (G, c("statement", "hurt", 0.7), False, D),
    (G, c("complaint", "angry", 0.3), False, G),  # mild anger: keep listening
    (G, c("proposal"), False, E),
    (G, c("agreement"), False, C),
    (G, c("closing"), False, G),  # nothing agreed yet: closing does not close
    (G, c("closing"), True, X),
    # de-escalating
    (D, c("complaint", "angry", 0.9), False, D),
    (D, c("complaint", "upset", 0.5), False, D),
    (D, c("statement", "calm", 0.2), False, E),  # calmer
    (D, c("proposal", "upset", 0.5), False, E),  # a proposal
    (D, c("agreement", "calm", 0.1), False, C),
    # exploring
    (E, c("proposal"), False, E),
    (E, c("question"), False, E),
    (E, c("refusal", "upset", 0.4), False, E),
    (E, c("demand", "angry", 0.7), False, D),
    (E, c("agreement"), False, C),
    (E, c("closing"), True, X),
    # confirming
    (C, c("agreement"), False, C),
    (C, c("refusal"), False, E),
    (C, c("proposal"), False, E),
    (C, c("closing"), False, X),
    (C, c("statement", "angry", 0.6), False, D),
    # closed
    (X, c("closing"), True, X),
    (X, c("statement"), False, X),
    (X, c("complaint", "upset", 0.4), False, G),
    (X, c("complaint", "angry", 0.9), False, D),
]


@pytest.mark.parametrize(("current", "classification", "agreements_open", "expected"), TABLE)
def test_next_stage(
    current: Stage, classification: Classification, agreements_open: bool, expected: Stage
) -> None:
    assert next_stage(current, classification, agreements_open=agreements_open) is expected


@pytest.mark.parametrize("stage", [G, D, E, C])
def test_anger_at_any_open_stage_de_escalates(stage: Stage) -> None:
    for intent in (
        "statement",
        "complaint",
        "demand",
        "proposal",
        "agreement",
        "refusal",
        "question",
        "closing",
    ):
        assert next_stage(stage, c(intent, "angry", 0.95), agreements_open=True) is D
