"""One kind vocabulary for people: what the console, the JSON views and the platforms call a record.

The store keeps seven kinds; people see nine (consensus is agreement or refusal; a report about
another is a claim): commitment · agreement · refusal · demand · emotion · claim · event · person ·
relation. Every surface shows them (``label``); every filter accepts them, the store's names and their
Chinese (``parse``), meaning the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.text import catalog
from memory.models import Fact, Kind

__all__ = ["LABELS", "KindQuery", "label", "label_in", "parse", "vocabulary"]

#: What people see, in this order.
LABELS = ("commitment", "agreement", "refusal", "demand", "emotion", "claim", "event", "person", "relation")
_STORED = {"commitment": Kind.COMMITMENT, "agreement": Kind.CONSENSUS, "refusal": Kind.CONSENSUS,
           "demand": Kind.DEMAND, "emotion": Kind.EMOTION, "claim": Kind.EVENT, "event": Kind.EVENT,
           "person": Kind.PERSON, "relation": Kind.RELATION}
_REFUSES = frozenset({"refuses", "拒绝"})
# other names people (and the store) use for the same labels
_ALIASES: dict[str, tuple[str, ...]] = {
    "consensus": ("agreement", "refusal"), "共识": ("agreement", "refusal"),
    "agreements": ("agreement",), "agree": ("agreement",), "agrees": ("agreement",),
    "refusals": ("refusal",), "refuse": ("refusal",), "refuses": ("refusal",), "claims": ("claim",),
    "commitments": ("commitment",), "promise": ("commitment",), "promises": ("commitment",),
    "demands": ("demand",), "wants": ("demand",), "emotions": ("emotion",), "feelings": ("emotion",),
    "events": ("event", "claim"), "people": ("person",), "persons": ("person",),
    "要求": ("demand",), "感受": ("emotion",), "声称": ("claim",),
    "relations": ("relation",), "relationship": ("relation",), "relationships": ("relation",),
}


def label(fact: Fact) -> str:
    """The kind of ``fact`` as people read it."""
    if fact.kind is Kind.CONSENSUS:
        return "refusal" if fact.attribute.strip().casefold() in _REFUSES else "agreement"
    if fact.kind is Kind.EVENT and fact.attribute == "claims":
        return "claim"
    return fact.kind.value


def label_in(name: str, lang: str) -> str:
    """A label in ``lang``: "agreement" / "同意" (``kind:`` words of ``bot.text.catalog``)."""
    return catalog.label("kind", name, lang)


@dataclass(frozen=True, slots=True)
class KindQuery:
    """What a kind filter asks for: the labels, and the store kinds that hold them."""

    labels: frozenset[str]

    @property
    def stored(self) -> frozenset[Kind]:
        return frozenset(_STORED[name] for name in self.labels)

    def __contains__(self, fact: object) -> bool:
        return isinstance(fact, Fact) and label(fact) in self.labels

    def only(self, facts: Iterable[Fact]) -> list[Fact]:
        """``facts`` of these kinds."""
        return [f for f in facts if label(f) in self.labels]


def parse(name: str) -> KindQuery:
    """A kind filter from any of its names — a label, the store's kind, a plural, or the Chinese.
    ValueError names the accepted ones."""
    key = name.strip().casefold()
    by_zh = {label_in(en, "zh"): en for en in LABELS}
    if key in LABELS:
        return KindQuery(frozenset({key}))
    if key in by_zh:
        return KindQuery(frozenset({by_zh[key]}))
    if key in _ALIASES:
        return KindQuery(frozenset(_ALIASES[key]))
    raise ValueError(f"unknown kind {name!r}; use one of {', '.join(LABELS)} (or consensus for agreements "
                     f"and refusals)")


def vocabulary() -> tuple[str, ...]:
    """Every name a kind filter accepts, labels first."""
    return (*LABELS, *(k for k in _ALIASES if k.isascii()))
