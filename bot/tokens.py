"""Offline token estimates and fitting a prompt's context into a token budget.

No tokenizer is available offline (tiktoken downloads its encodings), so ``estimate_tokens`` is a
heuristic meant to over-count what cl100k/o200k tokenizers count: a prompt that fits by it fits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["CJK_WEIGHT", "Budgeted", "Item", "Section", "estimate_tokens", "fit_to_budget"]

#: Tokens per CJK character: common Han characters are one BPE token, rare ones 2–3, so a margin over one.
CJK_WEIGHT = 1.2
#: Tokens a section costs beyond its items (heading, separators, role framing).
SECTION_OVERHEAD = 4

_CJK = (
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u3190-\u31ff"
    "\u3200-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
    "\U00020000-\U0003134f"
)
_PIECE = re.compile(rf"(?P<cjk>[{_CJK}])|(?P<digits>\d+)|(?P<word>[^\W\d_]+)|(?P<nl>\n)|(?P<other>\S)")


def estimate_tokens(text: str) -> int:
    """A conservative offline estimate of how many tokens ``text`` takes. Zero for empty text.

    Per piece: a CJK character or mark ``CJK_WEIGHT`` (common Han characters are one BPE token, rare
    ones 2–3); a run of ASCII letters ``ceil(len / 4)``, of other letters ``ceil(len / 2)``; a run of
    digits ``ceil(len / 3)``, plus one after whitespace; other characters 1 (ASCII punctuation), 2
    (symbols) or 3 (outside the BMP: emoji); a line break 1. Never under on the five cl100k counts
    OpenAI publishes (``tests/test_tokens.py``); text dense in rare Han characters may be
    under-estimated, so keep a few percent of the window as headroom.
    """
    total = 0.0
    for match in _PIECE.finditer(text):
        kind = match.lastgroup
        piece = match.group()
        if kind == "cjk":
            total += CJK_WEIGHT
        elif kind == "digits":
            start = match.start()
            total += math.ceil(len(piece) / 3) + (1 if start > 0 and text[start - 1].isspace() else 0)
        elif kind == "word":
            total += max(1, math.ceil(len(piece) / (4 if piece.isascii() else 2)))
        elif kind == "other":
            code = ord(piece)
            total += 1 if code < 0x80 else 2 if code <= 0xFFFF else 3
        else:
            total += 1
    return math.ceil(total)


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Item(Generic[T]):
    """One droppable piece of a section: its prompt text, how much it matters, what it stands for.

    Higher ``priority`` is kept longer: for window turns use their position (oldest lowest), for
    facts their retrieval score.
    """

    text: str
    priority: float = 0.0
    payload: T | None = None

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text) + 1  # the line break that joins it to the next item


@dataclass(frozen=True, slots=True)
class Section(Generic[T]):
    """An ordered part of a prompt (system, summary, facts, commitments, window, current turn).

    ``required`` sections are never trimmed. Among the others, items are dropped from the section
    with the lowest ``drop_rank`` first, lowest ``priority`` first within a section.
    """

    name: str
    items: Sequence[Item[T]] = ()
    required: bool = False
    drop_rank: int = 0


@dataclass(frozen=True, slots=True)
class Budgeted(Generic[T]):
    """What ``fit_to_budget`` kept: the sections in their original order and item order."""

    sections: tuple[Section[T], ...]
    tokens: int
    budget: int
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def over_budget(self) -> bool:
        """True when even the required sections alone exceed the budget."""
        return self.tokens > self.budget

    def section(self, name: str) -> Section[T]:
        for section in self.sections:
            if section.name == name:
                return section
        raise KeyError(name)


def _section_tokens(items: Sequence[Item[T]]) -> int:
    return SECTION_OVERHEAD + sum(item.tokens for item in items)


def fit_to_budget(sections: Sequence[Section[T]], budget: int) -> Budgeted[T]:
    """Drop the least important items until the estimate is within ``budget`` tokens.

    Typical ranks: window turns 0 (oldest go first), facts 1 (lowest score first), commitments 2,
    summary 3; system prompt and current turn ``required``. A section left with no items is kept,
    empty, so the prompt still shows the heading. When the required sections alone exceed the
    budget nothing more can go: the result has ``over_budget`` set and the caller decides.
    """
    total = sum(_section_tokens(s.items) for s in sections)
    # Candidates for dropping, least important first; index keeps order stable among equals.
    order = sorted(
        (
            (section.drop_rank, item.priority, position, index)
            for index, section in enumerate(sections)
            if not section.required
            for position, item in enumerate(section.items)
        ),
    )
    dropped: dict[str, int] = {}
    removed: set[tuple[int, int]] = set()
    for _rank, _priority, position, index in order:
        if total <= budget:
            break
        total -= sections[index].items[position].tokens
        removed.add((index, position))
        name = sections[index].name
        dropped[name] = dropped.get(name, 0) + 1
    result = tuple(
        Section(
            name=section.name,
            items=tuple(
                item for position, item in enumerate(section.items) if (index, position) not in removed
            ),
            required=section.required,
            drop_rank=section.drop_rank,
        )
        for index, section in enumerate(sections)
    )
    return Budgeted(sections=result, tokens=total, budget=budget, dropped=dropped)
