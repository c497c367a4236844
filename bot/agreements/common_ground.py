"""Statements of common ground: two or three neutral sentences every side of a dispute might endorse,
built from each side's stated demands and feelings.

Offline, ``draft`` fills templates over each side's demands and emotions and the way forward; none
blames or ranks anyone, each cites its records. An LLM's candidates pass ``checked`` only if they
share content with at least two sides' records and carry no escalation signal; fewer than two
survive: the offline ones are used.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from bot.disputes.escalation import signals
from bot.offline.slots import content_words
from bot.text.names import NameBook
from memory.models import Fact, FactStatus, Kind, Lang

__all__ = ["MAX_STATEMENTS", "Side", "Statement", "StatementWriter", "checked", "draft", "sides_of"]

#: At most this many statements are put to the parties.
MAX_STATEMENTS = 3
_AGREES = frozenset({"agrees to", "agrees", "同意"})
_CURRENT = frozenset({FactStatus.ACTIVE, FactStatus.DISPUTED, FactStatus.UNVERIFIED, FactStatus.OVERDUE})
#: Signals that make a sentence take a side.
_PARTISAN = ("insult", "accusation", "blame", "absolute", "contempt", "rebuke")


@dataclass(frozen=True, slots=True)
class Side:
    """One party: their own demands and feelings (records)."""

    user: str
    name: str
    demands: tuple[Fact, ...] = ()
    emotions: tuple[Fact, ...] = ()


@dataclass(frozen=True, slots=True)
class Statement:
    """A candidate statement of common ground and the records it stands on."""

    id: str
    text: str
    sources: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "sources": list(self.sources)}


@runtime_checkable
class StatementWriter(Protocol):
    """A provider that can write candidate statements (the LLM provider)."""

    async def common_ground(self, sides: Sequence[str], agreed: Sequence[str], lang: Lang) -> list[str]:
        """Two or three neutral statements every side could endorse, from the sides' lines."""
        ...


def _sid(text: str) -> str:
    return hashlib.blake2b(" ".join(text.split()).encode(), digest_size=4).hexdigest()


def sides_of(facts: Iterable[Fact], names: dict[str, str] | None = None) -> tuple[list[Side], list[Fact]]:
    """Each party with their own current demands and feelings, in the order they first spoke; and the
    agreements already recorded."""
    current = [f for f in facts if f.status in _CURRENT and f.asserted_by == f.subject and f.subject in f.users]
    current.sort(key=lambda f: (f.sources[0].ts if f.sources else f.created_at, f.id))
    book = NameBook.of(current, names=names)
    order = list(dict.fromkeys(f.subject for f in current if f.kind in (Kind.DEMAND, Kind.EMOTION)))
    sides = [Side(user=u, name=book.name(u),
                  demands=tuple(f for f in current if f.subject == u and f.kind is Kind.DEMAND),
                  emotions=tuple(f for f in current if f.subject == u and f.kind is Kind.EMOTION))
             for u in order]
    agreed = [f for f in current if f.kind is Kind.CONSENSUS and f.attribute.casefold() in _AGREES]
    return sides, agreed


def _join(parts: Sequence[str], lang: Lang) -> str:
    if lang == "zh":
        return "、".join(parts)
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def draft(sides: Sequence[Side], agreed: Sequence[Fact], lang: Lang) -> list[Statement]:
    """Two or three template statements (empty when fewer than two sides said what they want or feel)."""
    if len(sides) < 2:
        return []
    zh = lang == "zh"
    out: list[Statement] = []
    needs = [(s, s.demands[0]) for s in sides if s.demands]
    if len(needs) >= 2:
        parts = [(f"{s.name}需要{d.value}" if zh else f"{s.name} needs {d.value}") if _neutral(d.value) else
                 (f"{s.name}希望事情有所改变" if zh else f"{s.name} has asked for a change") for s, d in needs]
        text = (f"{'；'.join(parts)}。这些需要都值得被认真对待，我们都希望找到一个兼顾各方的办法。" if zh else
                f"{'; '.join(parts)}. Each of these needs deserves a fair hearing, and we all want a way forward that "
                "works for each of us.")
        out.append(Statement(_sid(text), text, tuple(d.id for _, d in needs)))
    feelings = [(s, s.emotions[0]) for s in sides if s.emotions]
    if feelings:
        parts = [f"{s.name}感到{e.value}" if zh else f"{s.name} has felt {e.value}" for s, e in feelings]
        text = (f"这件事让大家都不好受（{'；'.join(parts)}）。这些感受都可以理解，我们都不希望继续这样下去。" if zh else
                f"This has been hard on each of us ({'; '.join(parts)}). Those feelings are understandable, and none "
                "of us wants it to go on like this.")
        out.append(Statement(_sid(text), text, tuple(e.id for _, e in feelings)))
    if agreed:
        first = agreed[0]
        text = (f"我们已经在一点上达成一致：{first.value}。我们可以以此为基础继续。" if zh else
                f"We already agree on one thing: {first.value}. We can build on that.")
        out.append(Statement(_sid(text), text, tuple(a.id for a in agreed[:1])))
    elif needs and all(_neutral(d.value) for _, d in needs):
        wants = _join([d.value for _, d in needs], lang)
        text = (f"一个好的安排应该让每个人都能做到，并且照顾到{wants}。" if zh else
                f"A good arrangement is one each of us can keep, and it should take care of {wants}.")
        out.append(Statement(_sid(text), text, tuple(d.id for _, d in needs)))
    if len(out) < 2:
        people = _join([s.name for s in sides], lang)
        text = (f"{people}都在这里，愿意把这件事谈清楚。" if zh else
                f"{people} are all here and willing to talk this through.")
        out.append(Statement(_sid(text), text, tuple(f.id for s in sides for f in (*s.demands, *s.emotions))[:4]))
    return out[:MAX_STATEMENTS]


def _neutral(text: str) -> bool:
    """No escalation signal that takes a side (an accusation, an insult, blame, …)."""
    found = signals(text)
    return not any(getattr(found, name) for name in _PARTISAN)


def _content(text: str) -> set[str]:
    words, _, zh = content_words(text).partition("|")
    found = set(words.split())
    found |= {zh[i:i + 2] for i in range(len(zh) - 1)}  # Chinese: shared character pairs
    return found


def checked(candidates: Iterable[str], sides: Sequence[Side], agreed: Sequence[Fact]) -> list[Statement]:
    """The model's candidates that stand on the facts (see the module docstring), each citing the
    records it shares content with."""
    per_side = [(s, [(f, _content(f.value)) for f in (*s.demands, *s.emotions)]) for s in sides]
    agreements = [(f, _content(f.value)) for f in agreed]
    out: list[Statement] = []
    for text in candidates:
        text = " ".join(text.split())
        if not text or len(text) > 400:
            continue
        if not _neutral(text):
            continue
        words = _content(text)
        cited: list[str] = []
        backed = 0
        for _, facts in per_side:
            hits = [f.id for f, c in facts if c & words]
            backed += bool(hits)
            cited += hits
        agreement_hits = [f.id for f, c in agreements if c & words]
        if backed >= 2 or agreement_hits:
            out.append(Statement(_sid(text), text, tuple(dict.fromkeys((*cited, *agreement_hits)))))
    return out[:MAX_STATEMENTS]
