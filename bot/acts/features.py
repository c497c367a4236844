"""The classifier's input for one line: its sentence vector plus a few cheap features.

The cheap features are what a sentence vector does not see: what the line before did, when someone
else said it (it asked — a request or a counter-offer —, proposed, or offered: a bare "ok" after a
request accepts it, after a proposal agrees to it; a full one-hot of the previous act overfitted the
written dialogues and scored worse on set A), whether the line is put to someone (a
name, "you"/"你", a mention), whether it names a time (``bot.text.duetime``), asks, negates or sets a
condition, and whether it is short.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from bot.acts.labels import Act
from bot.text.duetime import find_due_span

__all__ = ["CHEAP", "Line", "cheap"]

_I = re.IGNORECASE
_YOU = re.compile(r"\b(?:you|your|u)\b|你(?!们)|您", _I)
_IF = re.compile(r"\b(?:if|unless|as\s+long\s+as|provided)\b|如果|只要|要是|假如|除非|的话", _I)
_NOT = re.compile(r"\b(?:not|no|can'?t|cannot|won'?t|never|don'?t|isn'?t)\b|不|没|别", _I)
_BOT = re.compile(r"^\s*@(?:heyan|和言)\b|^\s*@(?:heyan|和言)|^\s*(?:heyan|和言)[,，:：]", _I)
_MENTION = re.compile(r"(?:^|\s)@\w")


@dataclass(frozen=True, slots=True)
class Line:
    """One line as the classifier reads it: its words, whether it mentions the bot, and whether it
    names another participant (the caller knows the names)."""

    text: str
    addressed: bool = False
    names_other: bool = False


#: Names of the cheap features, in column order.
CHEAP: tuple[str, ...] = ("after_ask", "after_proposal", "after_offer", "to_someone", "has_time", "asks", "negates",
                          "condition", "to_bot", "short", "same_speaker")
#: The previous act, in the three groups a line may answer.
_ANSWERS = {Act.REQUEST: 0, Act.COUNTER: 0, Act.PROPOSE: 1, Act.OFFER: 2, Act.CONDITION: 2}


def _short(text: str) -> bool:
    words = text.split()
    cjk = len(re.findall(r"[\u3400-\u9fff]", text))
    return (len(words) <= 3 and cjk == 0) or (0 < cjk <= 6 and len(words) <= 2)


def cheap(line: Line, previous: Act | None, *, same_speaker: bool = False) -> np.ndarray:
    """The cheap features of ``line`` after a line whose act was ``previous`` (None: nothing before)."""
    prev = np.zeros(3, dtype=np.float32)
    if previous in _ANSWERS and not same_speaker:
        prev[_ANSWERS[previous]] = 1.0
    text = line.text
    flags = (
        line.names_other or bool(_YOU.search(text)) or bool(_MENTION.search(text)),
        find_due_span(text) is not None,
        "?" in text or "？" in text or text.rstrip().endswith(("吗", "呢")),
        bool(_NOT.search(text)),
        bool(_IF.search(text)),
        line.addressed or bool(_BOT.search(text)),
        _short(text),
        same_speaker,
    )
    return np.concatenate([prev, np.asarray(flags, dtype=np.float32)])


def stack(vectors: Iterable[Sequence[float]], extras: Iterable[np.ndarray]) -> np.ndarray:
    """Rows of [sentence vector | cheap features]."""
    return np.asarray([np.concatenate([np.asarray(v, dtype=np.float32), e]) for v, e in zip(vectors, extras, strict=True)],
                      dtype=np.float32)
