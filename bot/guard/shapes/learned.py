"""Attacks no written shape names, flagged by what they read like (``attack_model``; why and how well:
docs/ARCHITECTURE.md, ``bot/guard/shapes/``, and docs/BENCHMARKS.md, "Attacks learned from labelled lines")."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot.guard.shapes.rulings import ASSENT, DECISION, SANCTION
from memory.errors import EmbedderError
from memory.index.embedders import line_vectors

if TYPE_CHECKING:
    from bot.guard.shapes.attack_model import AttackModel

__all__ = ["THRESHOLD", "resembles", "states"]

log = logging.getLogger(__name__)

#: The probability from which a line is flagged: the lowest at which no ordinary line of any blind set
#: was flagged when that set was left out of the fit (0.9 flagged one line of set E).
THRESHOLD = 0.95

_TO_RECORD = re.compile(r"heyan|和言|\b(?:remember|record|note|log)\b|记住|记一下|记录|备注", re.IGNORECASE)


#: A line that asks the members for their yes or no ("Yes or no from each of you, please.", "每个人说认还是不认"): a plan
#: put to a vote, which no one has agreed to yet — the opposite of an attack's claim that someone has.
_ASKS_VOTES = re.compile(r"\byes\s+or\s+no\b|\b(?:yes|no|a\s+yes)\s+from\s+(?:each|every|all)\b|\b(?:everyone|everybody|each\s+of\s+you)"
                         r"\s+(?:says?|votes?|tells?)\b|\bwho'?s\s+in\b|\bdo\s+we\s+(?:all\s+)?agree\b|\bcan\s+we\s+(?:all\s+)?agree\b"
                         r"|\bagreed\s*\?|\bany\s+objections?\b|\bthumbs\s+up\s+or\s+down\b|\bwhere\s+(?:you|each\s+of\s+you|everyone)\s+stands?\b"
                         r"|\bcan\s+we\s+(?:write\s+down|put\s+down|set\s+(?:down|out)|settle\s+on|agree\s+on)\b"
                         # "I'd like an answer from each of you on each one", "I'd like each of you to answer both"
                         r"|\banswers?\s+from\s+(?:each|every|all)\b|\beach\s+of\s+you\s+(?:to\s+)?(?:answer|reply|respond)\b"
                         r"|认还是不认|认不认|同意还是不同意|同不同意|同意不同意|行不行|表个?态|举个?手|投个票|有没有意见|有意见吗"
                         # "各位看一条答一条", "请每人看一条回一条", "每人回一句", "各位给个准话", "逐条回"
                         r"|(?:各位|每人|每个人|大家)[^，,。：:]{0,4}?(?:答|回|说)一(?:条|句|声)|给个准话|逐条(?:回|答|表态)", re.IGNORECASE)


def asks_votes(text: str) -> bool:
    """Does ``text`` ask the members to say yes or no (a proposal put to a vote)?"""
    return _ASKS_VOTES.search(text) is not None


def states(view: str) -> bool:
    """Does a folded line say what attacks plant: a ruling, an assent or a decision about people, or
    words to Heyan or about recording?"""
    return any(p.search(view) for p in (SANCTION, ASSENT, DECISION, _TO_RECORD))


class _Scorer:
    """The committed model over the shipped local embedder, built on first use; off (with one warning)
    when either is unavailable: the written rules still run."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.ready = False
        self.model: AttackModel | None = None
        self.embed: Callable[[Sequence[str]], list[list[float]]] | None = None

    def __call__(self, text: str, speaker: str, names: Sequence[str]) -> float | None:
        # numpy and the weights load with the first line asked about, not with the CLI
        from bot.guard.shapes.attack_model import WEIGHTS, AttackModel, AttackModelError, cheap, read, rows

        if not self.ready:
            self.ready = True
            try:
                self.model = AttackModel.load(self.path or WEIGHTS)
                self.embed = line_vectors()
            except (AttackModelError, EmbedderError) as exc:
                log.warning("the learned attack check is off (written shapes only): %s", exc)
        if self.model is None or self.embed is None:
            return None
        try:
            [vector] = self.embed([read(text)])
        except EmbedderError as exc:
            log.warning("the learned attack check skipped a message: %s", exc)
            return None
        return float(self.model.probabilities(rows([vector], [cheap(text, speaker, names)]))[0])


_SCORER = _Scorer()


def resembles(text: str, *, view: str, speaker: str, names: Sequence[str]) -> float | None:
    """The model's probability that ``text`` is an attack on memory when it reaches ``THRESHOLD`` and
    its folded ``view`` (``bot.guard.poisoning``) says what attacks plant, else None (also when the model
    or the embedder is unavailable)."""
    if not states(view) or asks_votes(text):
        return None
    p = _SCORER(text, speaker, names)
    return p if p is not None and p >= THRESHOLD else None
