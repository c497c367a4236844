"""The learned attack check's model: logistic regression over [USE sentence vector | cheap features].

Weights in ``bot/data/attacks.npz`` (float16, ~1.4 KB), written by ``bot.guard.shapes.train``. Pure numpy;
imported on the first line ``bot.guard.shapes.learned`` asks about, so a CLI that flags nothing never loads it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bot.acts.logistic import Logistic, descend
from memory.errors import HeyanError

__all__ = ["CHEAP", "READ", "WEIGHTS", "AttackModel", "AttackModelError", "cheap", "fit", "read", "rows"]

#: Where the committed weights are.
WEIGHTS = Path(__file__).resolve().parents[2] / "data" / "attacks.npz"
#: Characters of a line the model reads (what the act classifier reads too).
READ = 300

_BOT = re.compile(r"@?(?:heyan|和言)|\bbot\b|机器人", re.IGNORECASE)
_FRAME = re.compile(r"^\s*[\[【「〔(（<《📨📊🔔📅🎙⚠✅❗📌📢]|^\s*\S{1,12}[:：]")
_QUOTE = re.compile(r"[\"“”「」『』]")
#: Asking the others: a question at the end, or a call for their yes ("react or reply if you're in", "who's in",
#: "any objections", "大家表个态", "同意的回一声", "回个1").
_ASKS = re.compile(r"[?？]\s*\S{0,12}$|吗|大家(?:觉得|同意|ok)|扣1|\bok\?|sounds? good|agree\?"
                   r"|\b(?:react|reply|vote|thumbs? up)\b[^.!?\n]{0,24}\bif\b|\bwho'?s in\b|\bany objections\b"
                   r"|\bif (?:you'?re|you are) in\b|表个?态|回(?:个|一)声|回个1|举手", re.IGNORECASE)
_PROPOSES = re.compile(r"\bpropos|提议|方案|how about|what about|要不|let'?s|咱们|我们", re.IGNORECASE)
_ME_FIRST = re.compile(r"^\s*(?:I\b|I'|我|本人)", re.IGNORECASE)
#: Names of the cheap features, in column order (each 0 or ``_CHEAP_SCALE``).
CHEAP = ("to_bot", "framed", "quotes", "names_other", "lines", "asks", "proposes", "me_first")
_CHEAP_SCALE = 2.0


class AttackModelError(HeyanError):
    """The attack weights are missing or do not fit the input width."""


def cheap(text: str, speaker: str, names: Sequence[str]) -> np.ndarray:
    """What a sentence vector does not see: words to the bot, a notice's frame, quotes, another member
    named, several lines, asking the others, proposing, speaking for oneself first."""
    other = any(n != speaker and len(n) >= 2 and n in text for n in names)
    flags = (bool(_BOT.search(text)), bool(_FRAME.search(text)), bool(_QUOTE.search(text)), other, "\n" in text,
             bool(_ASKS.search(text)), bool(_PROPOSES.search(text)), bool(_ME_FIRST.search(text)))
    return np.asarray(flags, dtype=np.float32) * _CHEAP_SCALE


def rows(vectors: Sequence[Sequence[float]], extras: Sequence[np.ndarray]) -> np.ndarray:
    """Rows of [sentence vector | cheap features]."""
    return np.asarray([np.concatenate([np.asarray(v, dtype=np.float32), e]) for v, e in zip(vectors, extras,
                                                                                              strict=True)],
                      dtype=np.float32)


def read(text: str) -> str:
    """The words the model reads: whitespace folded, the first ``READ`` characters."""
    return " ".join(text.split())[:READ] or "."


class AttackModel(Logistic):
    """``weights`` (one per input) and ``bias``."""

    error = AttackModelError
    remedy = "make attacks"

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> AttackModel:
        return super().load(path)

    def save(self, path: Path = WEIGHTS) -> None:
        super().save(path)


def fit(inputs: np.ndarray, labels: np.ndarray, near_misses: np.ndarray, *, l2: float = 1e-4, epochs: int = 4000,
        lr: float = 1.0, near_weight: float = 4.0) -> AttackModel:
    """Full-batch gradient descent on the weighted cross-entropy: attacks weigh half the ratio of
    ordinary lines to attacks (the few attacks are not drowned), ordinary lines written as near misses
    of an attack (the poisoning corpora's benign lines) ``near_weight`` (so they are not flagged to
    catch the attacks). The values were chosen leaving each blind set out in turn: no ordinary line
    flagged in or out of the fit, the most attacks caught held out."""
    ratio = float((labels == 0).sum()) / max(1.0, float((labels == 1).sum()))
    weight = np.where(labels == 1, 0.5 * ratio, np.where(near_misses, near_weight, 1.0)).astype(np.float32)
    return AttackModel(*descend(inputs, labels, weight, l2=l2, epochs=epochs, lr=lr))
